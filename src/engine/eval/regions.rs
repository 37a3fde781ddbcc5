//! The region evaluation: a linear, tapered function of material, king
//! squares, king mobility split by safety, tempo, wing balance, runners
//! (men with a free path to the crowning row) and four pattern tables of
//! 12-square regions, fitted to self-play games (`dammer tune`).
//!
//! A region covers four columns and six rows of one half of the board plus
//! the row beyond it: rows 4-9 (counted from Black's back row) for White,
//! columns starting at 0, 2, 4 and 6, two squares a row. Each square is
//! empty, an own man or an opposing man (kings count as empty), so a region
//! reads as a 12-digit base-3 number (3^12 = 531,441 entries a table).
//! Black's regions are White's turned half a turn and read from Black's
//! side with the same tables and the opposite sign, so the score is exactly
//! colour-symmetric: eight look-ups an evaluation, as in Scan 3.1.
//!
//! The patterns see at most six rows; what spans more is given by hand as
//! features the tuner weighs: a man two to four rows from the crown with
//! no opposing piece in the cone ahead of it (a breakthrough; split by
//! whose move it is, since a tempo decides a race), tempo (the men's total
//! advance), balance between the wings, and king mobility to squares where
//! the king can or cannot be taken at once.
//!
//! Speed: the region indices come from the same per-row tables as the
//! window evaluation ([`super::pattern`]): six look-ups a side, combined by
//! Horner's rule in base 9 for all four regions of a side at once.

use crate::rules::bitboard::{shift, slide, square_bb, Bitboard, Bits, DIRS};
use crate::rules::position::{Color, Position};

use super::pattern::{row_entry, FWD_ROWS, ROT_ROWS};
use super::{LEFT, RIGHT, ROWS_WHITE};
use crate::engine::score::{Score, EVAL_LIMIT};

/// Number of region tables.
pub const REGIONS: usize = 4;
/// Entries of one region table (3^12).
pub const REGION_SIZE: usize = 531_441;

/// Men on the board.
pub const F_MEN: usize = 0;
/// Kings.
pub const F_KINGS: usize = 1;
/// Having at least one king.
pub const F_FIRST_KING: usize = 2;
/// White to move.
pub const F_SIDE: usize = 3;
/// A king on square s (1..=50, as White sees it) is feature `F_KING_SQ + s - 1`.
pub const F_KING_SQ: usize = 4;
/// Rows the men have advanced, summed.
pub const F_TEMPO: usize = 54;
/// The difference between the men on the two wings, as a size.
pub const F_BALANCE: usize = 55;
/// Squares the kings can move to where no man can take them at once.
pub const F_KING_SAFE: usize = 56;
/// Squares the kings can move to where a man could take them at once.
pub const F_KING_ATTACKED: usize = 57;
/// Runners: a man `d` rows from the crowning row (d = 1..=4) with no
/// opposing piece in the cone ahead is `F_RUNNER + 2 (d - 1)` when its side
/// is to move, `F_RUNNER + 2 (d - 1) + 1` when not.
pub const F_RUNNER: usize = 58;
/// How far from the crown a runner may be.
pub const RUNNER_ROWS: usize = 4;
/// Dense features.
pub const DENSE: usize = F_RUNNER + 2 * RUNNER_ROWS;
/// All weights of one phase.
pub const FEATURES: usize = DENSE + REGIONS * REGION_SIZE;

/// Row (from Black's back row) and column of a square.
const fn coords(s: u8) -> (i32, i32) {
    let i = (s - 1) as i32;
    let row = i / 5;
    (row, 2 * (i % 5) + if row % 2 == 0 { 1 } else { 0 })
}

/// `CONES[c][bit]`: the squares ahead of a man of colour `c` (0 White, 1
/// Black) on `bit` that it could reach on its way to the crowning row: the
/// rows in front, widening by a column a row.
static CONES: [[Bitboard; 64]; 2] = {
    let mut t = [[0u64; 64]; 2];
    let mut s = 1u8;
    while s <= 50 {
        let (row, col) = coords(s);
        let mut o = 1u8;
        while o <= 50 {
            let (r2, c2) = coords(o);
            let dc = if c2 > col { c2 - col } else { col - c2 };
            let bit = crate::rules::bitboard::square_to_bit(s) as usize;
            if r2 < row && dc <= row - r2 {
                t[0][bit] |= square_bb(o);
            }
            if r2 > row && dc <= r2 - row {
                t[1][bit] |= square_bb(o);
            }
            o += 1;
        }
        s += 1;
    }
    t
};

const fn rows_mask(first: i32, last: i32) -> Bitboard {
    let mut b = 0;
    let mut s = 1u8;
    while s <= 50 {
        let (row, _) = coords(s);
        if row >= first && row <= last {
            b |= square_bb(s);
        }
        s += 1;
    }
    b
}

/// Where White's and Black's runners can stand.
const RUNNER_ZONE: [Bitboard; 2] = [rows_mask(1, RUNNER_ROWS as i32), rows_mask(9 - RUNNER_ROWS as i32, 8)];

/// The region indices: per table, White's index and Black's (on the
/// turned board).
#[inline(always)]
pub fn region_indices(pos: &Position) -> [(u32, u32); REGIONS] {
    let white = pos.men(Color::White);
    let black = pos.men(Color::Black);
    let (fwd, rot) = (&FWD_ROWS, &ROT_ROWS);
    let f = |r: usize| fwd[row_entry(white, black, r)];
    let t = |r: usize| rot[row_entry(white, black, r)];
    // Rows 4-7 and 8-9 separately, so that every packed field stays below
    // 2^16; a region's index is low + 9^4 high.
    let f_low = ((f(7) * 9 + f(6)) * 9 + f(5)) * 9 + f(4);
    let f_high = f(9) * 9 + f(8);
    let t_low = ((t(2) * 9 + t(3)) * 9 + t(4)) * 9 + t(5);
    let t_high = t(0) * 9 + t(1);
    std::array::from_fn(|j| {
        let field = |x: u64| ((x >> (16 * j)) & 0xFFFF) as u32;
        (field(f_low) + 6561 * field(f_high), field(t_low) + 6561 * field(t_high))
    })
}

/// Calls `add(feature, value)` for every dense feature of `pos` (values
/// White minus Black; zero values may be skipped) and returns the number of
/// men, which sets the phase. The evaluation and the tuner both read the
/// features through this one function.
#[inline(always)]
pub fn dense_features(pos: &Position, add: &mut impl FnMut(usize, i32)) -> i32 {
    let (wm, bm) = (pos.men(Color::White), pos.men(Color::Black));
    let (wk, bk) = (pos.kings_of(Color::White), pos.kings_of(Color::Black));
    let count = |b: Bitboard| b.count_ones() as i32;
    add(F_MEN, count(wm) - count(bm));
    let white_to_move = pos.side() == Color::White;
    add(F_SIDE, if white_to_move { 1 } else { -1 });
    // Tempo: each side's rows counted from its own back row.
    let mut tempo = 0;
    for (r, &mask) in ROWS_WHITE.iter().enumerate() {
        tempo += r as i32 * (count(wm & mask) - count(bm & ROWS_WHITE[9 - r]));
    }
    add(F_TEMPO, tempo);
    let wing = |m: Bitboard| (count(m & LEFT) - count(m & RIGHT)).abs();
    add(F_BALANCE, wing(wm) - wing(bm));
    for (c, men, opp, sign) in
        [(0usize, wm, pos.pieces(Color::Black), 1), (1, bm, pos.pieces(Color::White), -1)]
    {
        let to_move = usize::from((c == 0) != white_to_move);
        for b in Bits(men & RUNNER_ZONE[c]) {
            if CONES[c][b as usize] & opp == 0 {
                let row = (b as usize / 11) * 2 + usize::from(b as usize % 11 >= 5);
                let d = if c == 0 { row } else { 9 - row };
                add(F_RUNNER + 2 * (d - 1) + to_move, sign);
            }
        }
    }
    if wk | bk != 0 {
        add(F_KINGS, count(wk) - count(bk));
        add(F_FIRST_KING, i32::from(wk != 0) - i32::from(bk != 0));
        for b in Bits(wk) {
            add(F_KING_SQ + usize::from(crate::rules::bitboard::bit_to_square(b as u8)) - 1, 1);
        }
        for b in Bits(bk) {
            add(F_KING_SQ + 50 - usize::from(crate::rules::bitboard::bit_to_square(b as u8)), -1);
        }
        let occ = pos.occupied();
        let empty = pos.empty();
        for (kings, opp_men, sign) in [(wk, bm, 1), (bk, wm, -1)] {
            if kings == 0 {
                continue;
            }
            // A square is attacked when an opposing man stands next to it
            // with the square beyond empty.
            let mut attacked = 0;
            for d in DIRS {
                attacked |= shift(opp_men, d.reverse()) & shift(empty, d);
            }
            let (mut safe, mut unsafe_) = (0, 0);
            for k in Bits(kings) {
                for d in DIRS {
                    let to = slide(k as usize, d, occ).0;
                    safe += count(to & !attacked);
                    unsafe_ += count(to & attacked);
                }
            }
            add(F_KING_SAFE, sign * safe);
            add(F_KING_ATTACKED, sign * unsafe_);
        }
    }
    count(wm | bm)
}

/// Region weights laid out for evaluation: the linear function of
/// [`dense_features`] and [`region_indices`].
#[derive(Clone)]
pub struct RegionEval {
    dense: [[i16; 2]; DENSE],
    tables: Box<[[i16; 2]]>,
}

impl std::fmt::Debug for RegionEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RegionEval")
    }
}

impl RegionEval {
    /// From weights of the regions layout (`w.len() == FEATURES`; the
    /// caller, [`super::Evaluation::learned`], checks the layout).
    pub(crate) fn new(w: &[[i16; 2]]) -> RegionEval {
        let mut dense = [[0i16; 2]; DENSE];
        dense.copy_from_slice(&w[..DENSE]);
        RegionEval { dense, tables: w[DENSE..FEATURES].to_vec().into_boxed_slice() }
    }

    /// Evaluates `pos` from the side to move's view, in hundredths of a man.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> Score {
        let score = super::scale_drawish(pos, self.white_score(pos));
        let from_side = if pos.side() == Color::White { score } else { -score };
        from_side.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The linear score from White's side, before drawish endings are
    /// scaled down: what training fits.
    #[inline]
    pub fn white_score(&self, pos: &Position) -> Score {
        let (mut mg, mut eg) = (0i32, 0i32);
        let men = dense_features(pos, &mut |f, v| {
            let [a, b] = self.dense[f];
            mg += i32::from(a) * v;
            eg += i32::from(b) * v;
        });
        let tables = &*self.tables;
        for (k, (w, b)) in region_indices(pos).into_iter().enumerate() {
            let [a, c] = tables[k * REGION_SIZE + w as usize];
            let [d, e] = tables[k * REGION_SIZE + b as usize];
            mg += i32::from(a) - i32::from(d);
            eg += i32::from(c) - i32::from(e);
        }
        let phase = men.min(40);
        (mg * phase + eg * (40 - phase)) / (40 * super::pattern::WEIGHT_SCALE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cones_widen_toward_the_crown() {
        // A white man on 16 (row 3, column 0) sees 11; 6, 7; 1, 2.
        let cone = CONES[0][crate::rules::bitboard::square_to_bit(16) as usize];
        let squares: Vec<u8> = (1..=50).filter(|&s| cone & square_bb(s) != 0).collect();
        assert_eq!(squares, vec![1, 2, 6, 7, 11]);
        for s in 1..=50u8 {
            let w = CONES[0][crate::rules::bitboard::square_to_bit(s) as usize];
            let b = CONES[1][crate::rules::bitboard::square_to_bit(51 - s) as usize];
            let mirrored: Bitboard = (1..=50u8)
                .filter(|&o| w & square_bb(o) != 0)
                .map(|o| square_bb(51 - o))
                .fold(0, |a, x| a | x);
            assert_eq!(mirrored, b, "square {s}");
        }
    }
}
