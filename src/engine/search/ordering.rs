//! Move ordering: the table move, two killers per ply, and a history of
//! cutoffs by side, origin and destination; a selection sort picks the
//! next move lazily, since most nodes cut off after a few moves.

use super::Searcher;
use crate::rules::movegen::{Move, MoveList};
use crate::rules::position::Position;

fn history_index(side: usize, m: &Move) -> usize {
    (side * 64 + m.from as usize) * 64 + m.to as usize
}

const HISTORY_MAX: i32 = 1 << 14;
pub(super) const TT_MOVE_SCORE: i32 = 1 << 30;
pub(super) const KILLER_SCORE: i32 = 1 << 28;

impl Searcher<'_> {
    pub(super) fn score_moves(
        &self,
        pos: &Position,
        list: &MoveList,
        tt_move: Option<(u8, u8)>,
        ply: usize,
        order: &mut Vec<i32>,
    ) {
        order.clear();
        let side = pos.side() as usize;
        for m in list {
            let s = if tt_move == Some((m.from, m.to)) {
                TT_MOVE_SCORE
            } else if self.killers[ply][0] == Some(*m) {
                KILLER_SCORE + 1
            } else if self.killers[ply][1] == Some(*m) {
                KILLER_SCORE
            } else {
                self.history[history_index(side, m)]
            };
            order.push(s);
        }
    }

    /// A move caused a cutoff: credit it, and debit the moves tried before it.
    pub(super) fn reward(&mut self, side: usize, ply: usize, depth: i32, m: &Move, tried: &[Move]) {
        let bonus = (depth * depth).min(400);
        let update = |h: &mut i32, b: i32| *h += b - *h * b.abs() / HISTORY_MAX;
        update(&mut self.history[history_index(side, m)], bonus);
        for t in tried {
            update(&mut self.history[history_index(side, t)], -bonus);
        }
        if !m.is_capture() && self.killers[ply][0] != Some(*m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(*m);
        }
    }
}

/// Selection sort step: swaps the most promising of the moves from `i` on
/// (by `order`) into place `i` and returns it.
#[inline]
pub(super) fn select_next(list: &mut MoveList, order: &mut [i32], i: usize) -> Move {
    // A maximum over (score, reversed index) pairs packed in one integer
    // picks the first of the best moves, as a scan with a strict comparison
    // would, but without a branch per move (which the processor mispredicts
    // half the time).
    debug_assert!(order.len() <= 0xFFFF);
    let mut best = i64::MIN;
    for (j, &score) in order.iter().enumerate().skip(i) {
        best = best.max(i64::from(score) << 16 | (0xFFFF - j as i64));
    }
    let k = (0xFFFF - (best & 0xFFFF)) as usize;
    list.as_mut_slice().swap(i, k);
    order.swap(i, k);
    list.as_slice()[i]
}
