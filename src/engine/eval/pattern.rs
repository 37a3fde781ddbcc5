//! The learned pattern evaluation: a linear, tapered function of material,
//! king squares and the contents of sixteen 4x4 windows of the board, whose
//! weights are fitted to game results (`dammer tune`).
//!
//! A window covers four rows and four columns, that is eight playable
//! squares; each square is empty, an own man or an opposing man (kings
//! count as empty), so a window reads as an 8-digit base-3 number that
//! indexes a weight table. The windows start at rows and columns 0, 2, 4, 6.
//! The eight windows of White's half ("canonical") own a table each; the
//! other eight are their half-turn images, read from Black's side with the
//! same table and the opposite sign. Every feature is therefore computed
//! once for White and once for Black on the turned board, and the score is
//! exactly colour-symmetric.
//!
//! Speed: each board row yields, in one look-up, the base-3 codes of its
//! four column pairs packed side by side; the indices of four neighbouring
//! windows are then four such look-ups combined by multiply-adds (Horner's
//! rule in base 9).

use crate::rules::bitboard::{square_bb, Bits};
use crate::rules::position::{Color, Position};

use crate::engine::score::{Score, EVAL_LIMIT};

/// Number of canonical windows (each with its own table).
pub const WINDOWS: usize = 8;
/// Entries of one window table (3^8).
pub const WINDOW_SIZE: usize = 6561;
/// Dense features: men, kings, first king, side to move, 50 king squares.
pub const DENSE: usize = 4 + 50;
/// All weights of one phase.
pub const FEATURES: usize = DENSE + WINDOWS * WINDOW_SIZE;
/// Weights are stored in 1/16 of a hundredth of a man.
pub const WEIGHT_SCALE: i32 = 16;

/// Index of the first dense feature of each kind.
pub const F_MEN: usize = 0;
/// Kings.
pub const F_KINGS: usize = 1;
/// Having at least one king.
pub const F_FIRST_KING: usize = 2;
/// White to move.
pub const F_SIDE: usize = 3;
/// A king on square s (1..=50) is feature F_KING_SQ + s - 1.
pub const F_KING_SQ: usize = 4;

/// The (row, column) each canonical window starts at; rows count from
/// Black's back row (squares 1-5 are row 0).
pub const CANONICAL: [(usize, usize); WINDOWS] =
    [(4, 0), (4, 2), (4, 4), (4, 6), (6, 0), (6, 2), (6, 4), (6, 6)];

/// First bit of row r in the board layout (five squares a row, a ghost bit
/// after every second row).
pub(crate) const fn row_base(r: usize) -> u32 {
    (5 * r + r / 2) as u32
}

/// For each (white 5 bits, black 5 bits) of a row: four 16-bit fields,
/// field j holding White's base-3 code of the row's square pair (j, j+1)
/// (digit: 0 empty, 1 white, 2 black; code = d(j) + 3 d(j+1)). A window's
/// index is the sum of its four rows' codes, row offset k scaled by 9^k; the
/// scaling multiplies the whole packed word, as no field can overflow into
/// the next (an index is at most 6560), so the four windows side by side
/// come out of four look-ups in one small table and three multiply-adds.
pub(crate) static FWD_ROWS: [u64; 1024] = row_table(false);
/// The same seen by Black on the turned board (square j is 4 - j, colours
/// swapped).
pub(crate) static ROT_ROWS: [u64; 1024] = row_table(true);

/// The index of row `r`'s men in [`FWD_ROWS`] and [`ROT_ROWS`]; the mask
/// keeps it provably in the table.
#[inline(always)]
pub(crate) fn row_entry(white: u64, black: u64, r: usize) -> usize {
    (((white >> row_base(r)) & 31) << 5 | ((black >> row_base(r)) & 31)) as usize & 1023
}

/// Built at compile time, so that reading the tables costs no
/// initialisation check.
const fn row_table(turned: bool) -> [u64; 1024] {
    const fn digit(j: u64, own: u64, opp: u64) -> u64 {
        ((own >> j) & 1) + 2 * ((opp >> j) & 1)
    }
    let mut t = [0u64; 1024];
    let mut w = 0u64;
    while w < 32 {
        let mut b = 0u64;
        while b < 32 {
            if w & b == 0 {
                let mut j = 0u64;
                while j < 4 {
                    let code = if turned {
                        digit(4 - j, b, w) + 3 * digit(3 - j, b, w)
                    } else {
                        digit(j, w, b) + 3 * digit(j + 1, w, b)
                    };
                    t[(w * 32 + b) as usize] |= code << (16 * j);
                    j += 1;
                }
            }
            b += 1;
        }
        w += 1;
    }
    t
}

/// What the evaluation reads from a position, for White (sign +1) and
/// Black on the turned board (sign -1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// Men on the board (0..=40), which sets the phase.
    pub men: u8,
    /// Dense features with their values (White minus Black).
    pub dense: Vec<(u16, i8)>,
    /// Per canonical window: White's index and Black's index.
    pub windows: [(u16, u16); WINDOWS],
}

/// The window indices, fast: White's and Black's index per canonical window.
#[inline(always)]
pub fn window_indices(pos: &Position) -> [(u16, u16); WINDOWS] {
    window_indices_of(pos.men(Color::White), pos.men(Color::Black))
}

/// [`window_indices`] of the men alone (White's, Black's): what the
/// network's pattern inputs read from an accumulator's piece sets.
#[inline(always)]
pub fn window_indices_of(white: u64, black: u64) -> [(u16, u16); WINDOWS] {
    let [f4, t4, f6, t6] = bands(white, black);
    std::array::from_fn(|k| {
        let (f, t) = if k < 4 { (f4, t4) } else { (f6, t6) };
        let j = 16 * (CANONICAL[k].1 / 2) as u32;
        ((f >> j) as u16, (t >> j) as u16)
    })
}

/// The indices of the two bands of four canonical windows (starting at rows
/// 4 and 6), packed four to a word: White's band at row 4, Black's image of
/// it, White's band at row 6, Black's image of that.
#[inline(always)]
fn bands(white: u64, black: u64) -> [u64; 4] {
    let (fwd, rot) = (&FWD_ROWS, &ROT_ROWS);
    let f = |r: usize| fwd[row_entry(white, black, r)];
    let t = |r: usize| rot[row_entry(white, black, r)];
    // Horner's rule in base 9 over the four rows of a window; a band's Black
    // images read rows 9 - r0 down.
    let (f6, f7) = (f(6), f(7));
    let (t2, t3) = (t(2), t(3));
    [
        ((f7 * 9 + f6) * 9 + f(5)) * 9 + f(4),
        ((t2 * 9 + t3) * 9 + t(4)) * 9 + t(5),
        ((f(9) * 9 + f(8)) * 9 + f7) * 9 + f6,
        ((t(0) * 9 + t(1)) * 9 + t2) * 9 + t3,
    ]
}

/// Every feature of a position (for training and tests).
pub fn features(pos: &Position) -> Features {
    let mut dense: Vec<(u16, i8)> = Vec::with_capacity(8);
    let count = |b: u64| b.count_ones() as i32;
    let (wm, bm) = (pos.men(Color::White), pos.men(Color::Black));
    let (wk, bk) = (pos.kings_of(Color::White), pos.kings_of(Color::Black));
    let mut push = |f: usize, v: i32| {
        if v != 0 {
            dense.push((f as u16, v as i8));
        }
    };
    push(F_MEN, count(wm) - count(bm));
    push(F_KINGS, count(wk) - count(bk));
    push(F_FIRST_KING, i32::from(wk != 0) - i32::from(bk != 0));
    push(F_SIDE, if pos.side() == Color::White { 1 } else { -1 });
    let mut kings = [0i32; 50];
    for s in 1..=50u8 {
        if wk & square_bb(s) != 0 {
            kings[usize::from(s) - 1] += 1;
        }
        if bk & square_bb(s) != 0 {
            kings[usize::from(50 - s)] -= 1;
        }
    }
    for (i, &v) in kings.iter().enumerate() {
        push(F_KING_SQ + i, v);
    }
    Features { men: (count(wm) + count(bm)) as u8, dense, windows: window_indices(pos) }
}

/// Window tables padded to a power of two: an index masked to 13 bits
/// (a no-op, as indices are below [`WINDOW_SIZE`]) is then provably inside
/// its table, so the sixteen look-ups of an evaluation need no bounds check.
const PADDED: usize = 8192;
const _: () = assert!(WINDOW_SIZE <= PADDED);

/// Pattern weights laid out for evaluation (see [`PADDED`]): the linear
/// function of [`features`].
#[derive(Clone)]
pub struct PatternEval {
    dense: [[i16; 2]; DENSE],
    windows: Box<[[i16; 2]; WINDOWS * PADDED]>,
}

impl std::fmt::Debug for PatternEval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PatternEval")
    }
}

impl PatternEval {
    /// From weights of the windows layout (`w.len() == FEATURES`; the
    /// caller, [`super::Evaluation::learned`], checks the layout).
    pub(crate) fn new(w: &[[i16; 2]]) -> PatternEval {
        let mut dense = [[0i16; 2]; DENSE];
        dense.copy_from_slice(&w[..DENSE]);
        let mut flat = vec![[0i16; 2]; WINDOWS * PADDED];
        for k in 0..WINDOWS {
            let from = DENSE + k * WINDOW_SIZE;
            flat[k * PADDED..k * PADDED + WINDOW_SIZE].copy_from_slice(&w[from..from + WINDOW_SIZE]);
        }
        let windows = flat.into_boxed_slice().try_into().expect("WINDOWS * PADDED weights");
        PatternEval { dense, windows }
    }
}

impl PatternEval {
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
        let windows = &*self.windows;
        let window = |k: usize, i: usize| windows[k * PADDED + (i & (PADDED - 1))];
        let (wm, bm) = (pos.men(Color::White), pos.men(Color::Black));
        let (wk, bk) = (pos.kings_of(Color::White), pos.kings_of(Color::Black));
        let mut mg: i32 = 0;
        let mut eg: i32 = 0;
        let mut add = |f: usize, v: i32| {
            let [a, b] = self.dense[f];
            mg += i32::from(a) * v;
            eg += i32::from(b) * v;
        };
        add(F_MEN, wm.count_ones() as i32 - bm.count_ones() as i32);
        if wk | bk != 0 {
            add(F_KINGS, wk.count_ones() as i32 - bk.count_ones() as i32);
            add(F_FIRST_KING, i32::from(wk != 0) - i32::from(bk != 0));
            for b in Bits(wk) {
                add(F_KING_SQ + usize::from(crate::rules::bitboard::bit_to_square(b as u8)) - 1, 1);
            }
            for b in Bits(bk) {
                add(F_KING_SQ + 50 - usize::from(crate::rules::bitboard::bit_to_square(b as u8)), -1);
            }
        }
        add(F_SIDE, if pos.side() == Color::White { 1 } else { -1 });
        let packed = bands(wm, bm);
        for k in 0..WINDOWS {
            let band = if k < 4 { 0 } else { 2 };
            let shift = 16 * (k % 4);
            let [a, b] = window(k, ((packed[band] >> shift) & 0xFFFF) as usize);
            let [c, d] = window(k, ((packed[band + 1] >> shift) & 0xFFFF) as usize);
            mg += i32::from(a) - i32::from(c);
            eg += i32::from(b) - i32::from(d);
        }
        let men = (wm | bm).count_ones() as i32;
        let phase = men.min(40);
        (mg * phase + eg * (40 - phase)) / (40 * WEIGHT_SCALE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_bases_skip_ghost_bits() {
        for r in 0..10 {
            assert_eq!(row_base(r), crate::rules::bitboard::square_to_bit((5 * r + 1) as u8) as u32);
        }
    }
}
