//! The weak evaluation: material and a table of the men's rows, nothing
//! about structure or tempo. lidraughts' lowest computer levels ask for
//! one (`set-param name=eval value=pst`, Scan's name), so that the engine
//! plays like a beginner who counts pieces and pushes men forward.

use crate::engine::score::{Score, EVAL_LIMIT};
use crate::rules::bitboard::{Bitboard, Bits, BIT_TO_SQUARE};
use crate::rules::position::{Color, Position};

/// A man by its rows forward of its own back row (0 to 8; on row 9 it is
/// crowned), hundredths of a man.
const MAN: [Score; 9] = [100, 101, 102, 104, 106, 108, 111, 115, 120];
/// A man on one of the three middle squares of its row (of five).
const CENTRE: Score = 2;
/// A king.
const KING: Score = 300;

/// Rows forward of `color`'s back row, and whether in the middle of its row,
/// of the man on `bit`.
#[inline]
fn place(bit: u32, color: Color) -> (usize, bool) {
    let sq = usize::from(BIT_TO_SQUARE[bit as usize]) - 1; // 0..50
    let row = sq / 5; // 0 = Black's back row
    let forward = match color {
        Color::White => 9 - row,
        Color::Black => row,
    };
    (forward.min(8), (1..=3).contains(&(sq % 5)))
}

fn side(men: Bitboard, kings: Bitboard, color: Color) -> Score {
    let mut s = KING * kings.count_ones() as Score;
    for bit in Bits(men) {
        let (forward, centre) = place(bit, color);
        s += MAN[forward] + if centre { CENTRE } else { 0 };
    }
    s
}

/// Evaluates `pos` from the side to move's view.
pub fn evaluate(pos: &Position) -> Score {
    let white = side(pos.men(Color::White), pos.kings_of(Color::White), Color::White);
    let black = side(pos.men(Color::Black), pos.kings_of(Color::Black), Color::Black);
    let score = match pos.side() {
        Color::White => white - black,
        Color::Black => black - white,
    };
    score.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// Losing draughts: each piece counts against its owner (a man 1, a king
/// 3), from the side to move's view; the rows do not count.
pub fn losing(pos: &Position) -> Score {
    let count =
        |c: Color| pos.men(c).count_ones() as Score * 100 + pos.kings_of(c).count_ones() as Score * KING;
    let them_minus_us = count(pos.side().opponent()) - count(pos.side());
    them_minus_us.clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_counts_and_mirrors_score_the_same() {
        assert_eq!(evaluate(&Position::start()), 0);
        let up = Position::from_fen("W:W31,32,33,34,35,36:B1,2,3,4,5").unwrap();
        assert!(evaluate(&up) > 90, "{}", evaluate(&up));
        assert_eq!(evaluate(&up), evaluate(&up.flipped()));
        let king = Position::from_fen("B:WK28:B1,2").unwrap();
        assert!(evaluate(&king) < -90);
        // An advanced man is worth more than one at home.
        let far = Position::from_fen("W:W12:B45").unwrap();
        let home = Position::from_fen("W:W47:B45").unwrap();
        assert!(evaluate(&far) > evaluate(&home));
    }
}
