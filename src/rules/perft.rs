//! Perft: counting the leaves of the legal move tree, the standard check of a
//! move generator against published counts, and its speed benchmark.

use rayon::prelude::*;

use crate::rules::movegen::{count_moves, generate, Move, MoveList};
use crate::rules::position::Position;

/// Leaves of the move tree of `pos` at `depth` plies. The last ply is
/// counted in bulk (moves are counted, not made).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut lists: Vec<MoveList> = (0..depth).map(|_| MoveList::new()).collect();
    perft_rec(pos, depth, &mut lists)
}

fn perft_rec(pos: &Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    let (list, rest) = lists.split_first_mut().expect("one list per ply");
    if depth == 1 {
        return count_moves(pos, list);
    }
    generate(pos, list);
    let mut total = 0;
    for m in list.iter() {
        total += perft_rec(&pos.make(m), depth - 1, rest);
    }
    total
}

/// Perft split by root move: each legal move with the leaf count below it,
/// in generation order. With `threads > 1` the root moves are shared out
/// over a rayon pool of that many threads.
pub fn divide(pos: &Position, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    let moves: Vec<Move> = crate::rules::movegen::legal_moves(pos).iter().copied().collect();
    let count = |m: &Move| (*m, perft(&pos.make(m), depth.saturating_sub(1)));
    if threads <= 1 || depth <= 1 {
        return moves.iter().map(count).collect();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(|| moves.par_iter().map(count).collect()),
        Err(_) => moves.iter().map(count).collect(),
    }
}

/// Perft with the root moves spread over `threads` threads.
pub fn perft_threads(pos: &Position, depth: u32, threads: usize) -> u64 {
    if depth <= 1 || threads <= 1 {
        return perft(pos, depth);
    }
    divide(pos, depth, threads).iter().map(|(_, n)| n).sum()
}

/// Perft by the moves of `variant` from `pos` with the sides' Frisian king
/// runs `runs`, without the international fast path (a variant with moves
/// of its own: Frisian's moves change the legal moves after them, killer's
/// captures end on fewer squares).
pub fn perft_in(
    variant: crate::rules::variant::Variant,
    pos: &Position,
    runs: &crate::rules::frisian::KingRuns,
    depth: u32,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    match variant {
        crate::rules::variant::Variant::Frisian => crate::rules::frisian::generate(pos, runs, &mut moves),
        crate::rules::variant::Variant::Killer => crate::rules::movegen::generate_killer(pos, &mut moves),
        _ => generate(pos, &mut moves),
    }
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|m| perft_in(variant, &pos.make(m), &runs.after(pos, m), depth - 1)).sum()
}

/// [`perft_in`] by Frisian rules.
pub fn perft_frisian(pos: &Position, runs: &crate::rules::frisian::KingRuns, depth: u32) -> u64 {
    perft_in(crate::rules::variant::Variant::Frisian, pos, runs, depth)
}
