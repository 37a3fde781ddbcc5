//! The hand-written evaluation.
//!
//! Every term is computed for White on the board as it is and for Black on
//! the board turned half a turn (square `s` seen as `51 - s`), so a position
//! and its colour-flipped mirror score the same. Terms are tapered between a
//! middlegame and an endgame weight by the number of men left. All weights
//! live in [`Weights`] so they can later be fitted to game results.
//!
//! Scores are integers in hundredths of a man, from the side to move's view.

use crate::bitboard::{slide, square_bb, Bitboard, Bits, DIRS};
use crate::position::{Color, Position};

/// A score in hundredths of a man.
pub type Score = i32;

/// Every evaluation weight, in hundredths of a man. `_mg` weights count fully
/// with all 40 men on the board, `_eg` weights with none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A man.
    pub man: Score,
    /// A king in the middlegame.
    pub king_mg: Score,
    /// A king in the endgame.
    pub king_eg: Score,
    /// A man on each row, counted from its own back row (index 0) forward.
    pub row_mg: [Score; 10],
    /// The same in the endgame, where advancing toward the crown matters more.
    pub row_eg: [Score; 10],
    /// A man on one of the six centre squares (22-24, 27-29).
    pub centre_mg: Score,
    /// A man on the back-rank guard squares (47-49 for White, 2-4 for Black).
    pub guard_mg: Score,
    /// Per man of difference between the two wings (left and right five columns).
    pub balance_mg: Score,
    /// A man on an outpost (24 or 22 for White) with both squares behind it held.
    pub outpost_mg: Score,
    /// Per square a king can move to.
    pub king_mobility: Score,
    /// For having the move, a small tempo bonus.
    pub tempo: Score,
}

/// The weights Dammer plays with.
pub const WEIGHTS: Weights = Weights {
    man: 100,
    king_mg: 330,
    king_eg: 300,
    row_mg: [0, 2, 4, 6, 9, 12, 15, 18, 25, 0],
    row_eg: [0, 3, 6, 10, 15, 21, 28, 38, 55, 0],
    centre_mg: 6,
    guard_mg: 6,
    balance_mg: -3,
    outpost_mg: 8,
    king_mobility: 2,
    tempo: 2,
};

/// Largest score an evaluation may return; won and lost scores lie beyond it.
pub const EVAL_LIMIT: Score = 7_000;

const fn mask(squares: &[u8]) -> Bitboard {
    let mut b = 0;
    let mut i = 0;
    while i < squares.len() {
        b |= square_bb(squares[i]);
        i += 1;
    }
    b
}

const fn row_mask(row: u8) -> Bitboard {
    let first = row * 5 + 1;
    mask(&[first, first + 1, first + 2, first + 3, first + 4])
}

/// Rows as White sees them: `ROWS_WHITE[r]` is White's row `r` from its back
/// row (squares 46-50 are row 0).
const ROWS_WHITE: [Bitboard; 10] = {
    let mut t = [0; 10];
    let mut r = 0;
    while r < 10 {
        t[r] = row_mask(9 - r as u8);
        r += 1;
    }
    t
};

const CENTRE: Bitboard = mask(&[22, 23, 24, 27, 28, 29]);
const GUARD_WHITE: Bitboard = mask(&[47, 48, 49]);
const GUARD_BLACK: Bitboard = mask(&[2, 3, 4]);

/// The left five columns of the board as White sees it.
const LEFT: Bitboard = {
    let mut b = 0;
    let mut s = 1u8;
    while s <= 50 {
        let i = s - 1;
        let row = i / 5;
        let col = 2 * (i % 5) + if row.is_multiple_of(2) { 1 } else { 0 };
        if col < 5 {
            b |= square_bb(s);
        }
        s += 1;
    }
    b
};
const RIGHT: Bitboard = crate::bitboard::BOARD & !LEFT;

/// Outposts with the two squares behind them, for White; Black's mirror them.
const OUTPOSTS_WHITE: [(u8, [u8; 2]); 2] = [(24, [29, 30]), (22, [27, 28])];

/// Terms of one side, split into middlegame and endgame parts.
#[derive(Default)]
struct Parts {
    mg: Score,
    eg: Score,
}

fn side_terms(pos: &Position, c: Color, w: &Weights, parts: &mut Parts) {
    let men = pos.men(c);
    let kings = pos.kings_of(c);
    let n_men = men.count_ones() as Score;
    let n_kings = kings.count_ones() as Score;
    parts.mg += n_men * w.man + n_kings * w.king_mg;
    parts.eg += n_men * w.man + n_kings * w.king_eg;
    for r in 1..9 {
        // Black's row r is White's row 9 - r seen from the other side.
        let row = match c {
            Color::White => ROWS_WHITE[r],
            Color::Black => ROWS_WHITE[9 - r],
        };
        let n = (men & row).count_ones() as Score;
        if n != 0 {
            parts.mg += n * w.row_mg[r];
            parts.eg += n * w.row_eg[r];
        }
    }
    parts.mg += (men & CENTRE).count_ones() as Score * w.centre_mg;
    let guard = match c {
        Color::White => GUARD_WHITE,
        Color::Black => GUARD_BLACK,
    };
    parts.mg += (men & guard).count_ones() as Score * w.guard_mg;
    // LEFT seen by Black is RIGHT; the difference's size is the same either way.
    let wing = (men & LEFT).count_ones() as Score - (men & RIGHT).count_ones() as Score;
    parts.mg += wing.abs() * w.balance_mg;
    for (post, behind) in OUTPOSTS_WHITE {
        let (post, b0, b1) = match c {
            Color::White => (post, behind[0], behind[1]),
            Color::Black => (51 - post, 51 - behind[0], 51 - behind[1]),
        };
        let need = square_bb(post) | square_bb(b0) | square_bb(b1);
        if men & need == need {
            parts.mg += w.outpost_mg;
        }
    }
    if kings != 0 {
        let occ = pos.occupied();
        let mut mobility = 0;
        for k in Bits(kings) {
            for d in DIRS {
                mobility += slide(k as usize, d, occ).0.count_ones() as Score;
            }
        }
        parts.mg += mobility * w.king_mobility;
        parts.eg += mobility * w.king_mobility;
    }
}

/// Evaluates `pos` from the side to move's point of view.
pub fn evaluate(pos: &Position) -> Score {
    evaluate_with(pos, &WEIGHTS)
}

/// Evaluates `pos` with the given weights, from the side to move's view.
pub fn evaluate_with(pos: &Position, w: &Weights) -> Score {
    let mut white = Parts::default();
    let mut black = Parts::default();
    side_terms(pos, Color::White, w, &mut white);
    side_terms(pos, Color::Black, w, &mut black);
    let men = (pos.men(Color::White) | pos.men(Color::Black)).count_ones() as Score;
    let phase = men.min(40);
    let mg = white.mg - black.mg;
    let eg = white.eg - black.eg;
    let mut score = (mg * phase + eg * (40 - phase)) / 40;
    score = scale_drawish(pos, score);
    let from_side = match pos.side() {
        Color::White => score,
        Color::Black => -score,
    };
    (from_side + w.tempo).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Shrinks scores of material balances that are usually drawn, so that the
/// search prefers real winning chances to a nominal material edge.
fn scale_drawish(pos: &Position, score: Score) -> Score {
    let (strong, weak) = if score > 0 { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
    let weak_pieces = pos.pieces(weak).count_ones();
    let strong_pieces = pos.pieces(strong).count_ones();
    let weak_kings = pos.kings_of(weak).count_ones();
    let strong_kings = pos.kings_of(strong).count_ones();
    if weak_kings >= 1 && weak_pieces == 1 && strong_pieces <= 3 {
        // A lone king holds three pieces (bar special cases): nearly a draw.
        return score / 8;
    }
    if weak_kings >= 1 && weak_kings == strong_kings {
        let men_diff = pos.men(strong).count_ones() as i32 - pos.men(weak).count_ones() as i32;
        if men_diff.abs() <= 1 {
            return score / 2;
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_balanced() {
        assert_eq!(evaluate(&Position::start()), WEIGHTS.tempo);
    }

    #[test]
    fn masks_are_mirrored() {
        assert_eq!(LEFT.count_ones(), 25);
        for s in 1..=50u8 {
            let left = LEFT & square_bb(s) != 0;
            assert_eq!(RIGHT & square_bb(51 - s) != 0, left, "square {s}");
        }
        assert_eq!(CENTRE.count_ones(), 6);
    }
}
