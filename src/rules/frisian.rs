//! Frisian draughts' moves (and frysk!'s, the same game from 5 men a side):
//! on the international board, men and kings also capture along rows and
//! columns, the capture of highest value is compulsory (a king worth a man
//! and a half, a hair more, so that two kings outweigh three men), a king
//! captures rather than a man at equal value, and while a player has men,
//! the same king makes at most three non-capturing moves in a row.
//!
//! Orthogonal neighbours on the playing squares are two files or two rows
//! apart: square `s` and `s ± 1` in the same row, `s` and `s ± 10` in the
//! same column. In the bit layout ([`crate::rules::bitboard`]) that is a
//! shift of 1 (kept inside the row by a mask) or of 11 (every pair of rows
//! takes 11 bits, so a column is a constant shift and steps off the board
//! land outside it).
//!
//! This generator is apart from the international one, which stays as fast
//! as it was: the international game never reaches this code.

use crate::rules::bitboard::{square_to_bit, Bitboard, Bits, BOARD};
use crate::rules::moves::{Move, MoveList};
use crate::rules::position::{Color, Position};

/// Bit steps of the eight directions: the four diagonals, the column
/// (down, up) and the row (left, right).
const DELTAS: [i32; 8] = [-6, -5, 5, 6, -11, 11, -1, 1];

/// The first and the last square of every row: a row step must not leave
/// its row (from the last square of one row, `+1` is the first of the next).
const ROW_FIRST: Bitboard = row_ends(1);
const ROW_LAST: Bitboard = row_ends(5);

const fn row_ends(offset: u8) -> Bitboard {
    let mut b = 0;
    let mut row = 0;
    while row < 10 {
        b |= 1u64 << square_to_bit(row * 5 + offset);
        row += 1;
    }
    b
}

/// The squares a step in each direction may start from.
const STARTS: [Bitboard; 8] =
    [BOARD, BOARD, BOARD, BOARD, BOARD, BOARD, BOARD & !ROW_FIRST, BOARD & !ROW_LAST];

/// One step in direction `d` for a whole set of squares.
#[inline]
fn step(b: Bitboard, d: usize) -> Bitboard {
    let b = b & STARTS[d];
    let delta = DELTAS[d];
    (if delta < 0 { b >> -delta } else { b << delta }) & BOARD
}

/// Value of a capture: a man 1000, a king 1501 (a man and a half, plus a
/// hair: two kings outweigh three men).
const MAN_VALUE: u32 = 1000;
const KING_VALUE: u32 = 1501;

/// Non-capturing moves a king may make in a row while its side has men.
pub const KING_MOVES_IN_A_ROW: u8 = 3;

/// For one side: the king that made that side's latest non-capturing
/// moves in a row, and how many (0 when its last move was a man's or a
/// capture). Part of a Frisian position: it changes which moves are legal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KingRun {
    /// Bit of the square the king stands on now.
    pub at: u8,
    /// Its non-capturing moves in a row (at most [`KING_MOVES_IN_A_ROW`]).
    pub moves: u8,
}

/// The king runs of both sides, indexed by [`Color`] (White first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KingRuns(pub [KingRun; 2]);

impl KingRuns {
    fn index(c: Color) -> usize {
        match c {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    /// The run of side `c`.
    pub fn of(&self, c: Color) -> KingRun {
        self.0[Self::index(c)]
    }

    /// The runs after `m`, a move of `pos`.
    pub fn after(&self, pos: &Position, m: &Move) -> KingRuns {
        let mut next = *self;
        let us = pos.side();
        let king = pos.kings() >> m.from & 1 != 0;
        let run = &mut next.0[Self::index(us)];
        *run = if king && !m.is_capture() {
            let moves = if run.moves > 0 && run.at == m.from { run.moves + 1 } else { 1 };
            KingRun { at: m.to, moves }
        } else {
            KingRun::default()
        };
        next
    }

    /// The king of the side to move of `pos` that may not make another
    /// non-capturing move, if any.
    pub fn barred(&self, pos: &Position) -> Option<u8> {
        let us = pos.side();
        let run = self.of(us);
        let has_men = pos.men(us) != 0;
        (has_men && run.moves >= KING_MOVES_IN_A_ROW && pos.kings_of(us) >> run.at & 1 != 0).then_some(run.at)
    }
}

/// Why a king run (Scan's `wolf` field, as lidraughts sends it) cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WolfError {
    /// Not `W<square>=<moves>` or `B<square>=<moves>`.
    Syntax(String),
    /// No king of that side stands on the square.
    NoKing(String),
}

impl std::fmt::Display for WolfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WolfError::Syntax(t) => write!(
                f,
                "cannot read king run {t:?}: W or B, the king's square, = and its moves in a row (1-{KING_MOVES_IN_A_ROW})"
            ),
            WolfError::NoKing(t) => write!(f, "king run {t:?}: no king of that side stands there"),
        }
    }
}

impl std::error::Error for WolfError {}

impl KingRuns {
    /// The runs that Scan's `wolf` field gives for `pos`: for each side
    /// whose king has moved without a capture, `W<square>=<moves>` or
    /// `B<square>=<moves>`, separated by spaces (lidraughts' Frisian
    /// positions carry them).
    pub fn from_wolf(text: &str, pos: &Position) -> Result<KingRuns, WolfError> {
        let mut runs = KingRuns::default();
        for token in text.split_whitespace() {
            let syntax = || WolfError::Syntax(token.to_string());
            let color = match token.as_bytes()[0] {
                b'W' | b'w' => Color::White,
                b'B' | b'b' => Color::Black,
                _ => return Err(syntax()),
            };
            let (square, moves) = token[1..].split_once('=').ok_or_else(syntax)?;
            let square: u8 = square.parse().map_err(|_| syntax())?;
            let moves: u8 = moves.parse().map_err(|_| syntax())?;
            if !(1..=50).contains(&square) || !(1..=KING_MOVES_IN_A_ROW).contains(&moves) {
                return Err(syntax());
            }
            let at = square_to_bit(square);
            if pos.kings_of(color) >> at & 1 == 0 {
                return Err(WolfError::NoKing(token.to_string()));
            }
            runs.0[Self::index(color)] = KingRun { at, moves };
        }
        Ok(runs)
    }
}

/// Fills `list` with the legal Frisian moves of `pos`, whose sides' king
/// runs are `runs`.
pub fn generate(pos: &Position, runs: &KingRuns, list: &mut MoveList) {
    list.clear();
    generate_captures(pos, list);
    if list.is_empty() {
        generate_quiet(pos, runs.barred(pos), list);
    }
}

/// The legal moves as a fresh list.
pub fn legal_moves(pos: &Position, runs: &KingRuns) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, runs, &mut list);
    list
}

/// Depth-first search of one piece's captures.
struct Captures<'a> {
    pos: &'a Position,
    list: &'a mut MoveList,
    from: u8,
    enemy: Bitboard,
    /// Occupied squares with the moving piece lifted; captured pieces stay
    /// until the move ends and block (a king may not pass them again).
    occupied: Bitboard,
    /// Best value so far, and whether a king makes it.
    best: (u32, bool),
    king: bool,
}

impl Captures<'_> {
    fn value(&self, captured: Bitboard) -> u32 {
        let kings = (captured & self.pos.kings()).count_ones();
        let men = captured.count_ones() - kings;
        men * MAN_VALUE + kings * KING_VALUE
    }

    /// Offers the capture ending on `to`: kept when it is worth as much as
    /// the best so far (a king's capture beating a man's of equal value).
    fn add(&mut self, to: u8, captured: Bitboard) {
        let key = (self.value(captured), self.king);
        if key < self.best {
            return;
        }
        if key > self.best {
            self.best = key;
            self.list.clear();
        }
        let m = Move { from: self.from, to, captured };
        if !self.list.as_slice().contains(&m) {
            self.list.push(m);
        }
    }

    /// A man at `at` (a single bit) continues its capture; whether it could.
    fn man(&mut self, at: Bitboard, captured: Bitboard) -> bool {
        let mut found = false;
        let jumpable = self.enemy & !captured;
        for d in 0..8 {
            let over = step(at, d) & jumpable;
            let land = step(over, d) & !self.occupied;
            if land == 0 {
                continue;
            }
            found = true;
            let cap = captured | over;
            if !self.man(land, cap) {
                self.add(land.trailing_zeros() as u8, cap);
            }
        }
        found
    }

    /// A king at `at` (a single bit) continues its capture; whether it could.
    fn king(&mut self, at: Bitboard, captured: Bitboard) -> bool {
        let mut found = false;
        let jumpable = self.enemy & !captured;
        for d in 0..8 {
            let mut s = step(at, d);
            while s != 0 && s & self.occupied == 0 {
                s = step(s, d);
            }
            if s & jumpable == 0 {
                continue;
            }
            let cap = captured | s;
            let mut land = step(s, d);
            while land != 0 && land & self.occupied == 0 {
                found = true;
                if !self.king(land, cap) {
                    self.add(land.trailing_zeros() as u8, cap);
                }
                land = step(land, d);
            }
        }
        found
    }
}

/// Fills `list` with the legal captures of `pos` (empty when there is none).
pub fn generate_captures(pos: &Position, list: &mut MoveList) {
    list.clear();
    let us = pos.side();
    let own = pos.pieces(us);
    let mut g = Captures {
        pos,
        list,
        from: 0,
        enemy: pos.pieces(us.opponent()),
        occupied: 0,
        best: (1, false),
        king: false,
    };
    for b in Bits(own) {
        let at = 1u64 << b;
        g.from = b as u8;
        g.occupied = pos.occupied() & !at;
        g.king = pos.kings() & at != 0;
        if g.king {
            g.king(at, 0);
        } else {
            g.man(at, 0);
        }
    }
}

/// The non-capturing moves: men one square diagonally forward, kings any
/// distance along a free diagonal (never along a row or column); `barred`
/// is a king that may not move now (see [`KingRuns::barred`]).
fn generate_quiet(pos: &Position, barred: Option<u8>, list: &mut MoveList) {
    let us = pos.side();
    let empty = pos.empty();
    let forward: [usize; 2] = match us {
        Color::White => [0, 1],
        Color::Black => [2, 3],
    };
    for m in Bits(pos.men(us)) {
        for d in forward {
            let to = step(1u64 << m, d) & empty;
            if to != 0 {
                list.push(Move { from: m as u8, to: to.trailing_zeros() as u8, captured: 0 });
            }
        }
    }
    for k in Bits(pos.kings_of(us)) {
        if barred == Some(k as u8) {
            continue;
        }
        for d in 0..4 {
            let mut s = step(1u64 << k, d) & empty;
            while s != 0 {
                list.push(Move { from: k as u8, to: s.trailing_zeros() as u8, captured: 0 });
                s = step(s, d) & empty;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(fen: &str, runs: &KingRuns) -> Vec<String> {
        let pos = Position::parse(fen).unwrap();
        let mut v: Vec<String> = legal_moves(&pos, runs).iter().map(Move::to_string).collect();
        v.sort();
        v
    }

    #[test]
    fn steps_stay_on_their_row_and_column() {
        let bit = |s: u8| 1u64 << square_to_bit(s);
        // Along the row: 5 has no right neighbour, 6 no left one.
        assert_eq!(step(bit(5), 7), 0);
        assert_eq!(step(bit(6), 6), 0);
        assert_eq!(step(bit(7), 7), bit(8));
        // Along the column: 3 and 13, 45 and nothing below.
        assert_eq!(step(bit(3), 5), bit(13));
        assert_eq!(step(bit(45), 5), 0);
        assert_eq!(step(bit(8), 4), 0);
    }

    #[test]
    fn men_capture_along_rows_and_columns() {
        let none = KingRuns::default();
        // A man on 28 takes 29 sideways (to 30) or 18 upwards (to 8).
        assert_eq!(moves("W:W28:B29", &none), vec!["28x30x29"]);
        assert_eq!(moves("W:W28:B18", &none), vec!["28x8x18"]);
        // And backwards down the column.
        assert_eq!(moves("W:W28:B38", &none), vec!["28x48x38"]);
    }

    /// Expected lists as pydraughts gives them.
    #[test]
    fn the_most_valuable_capture_is_compulsory() {
        let none = KingRuns::default();
        // The king on 46 takes a king and two men, turning on 41 and
        // sideways over 29: worth more than the man's 28x30 (one man).
        assert_eq!(
            moves("W:W28,K46:B29,39,K41", &none),
            vec!["46x12x29x39x41", "46x18x29x39x41", "46x1x29x39x41", "46x23x29x39x41", "46x7x29x39x41"]
        );
        // One king (1501) beats one man (1000).
        assert_eq!(moves("W:W28:B29,K38", &none), vec!["28x48x38"]);
    }

    #[test]
    fn a_king_stops_after_three_moves_in_a_row_while_men_remain() {
        let pos = Position::parse("W:W45,K28:B5").unwrap();
        let mut runs = KingRuns::default();
        let mut p = pos;
        for (from, to) in [(28, 33), (33, 28), (28, 33)] {
            let m = Move { from: square_to_bit(from), to: square_to_bit(to), captured: 0 };
            runs = runs.after(&p, &m);
            p = p.make(&m);
            // Black's reply, a man's move, changes nothing for White.
            let reply = legal_moves(&p, &runs).as_slice()[0];
            runs = runs.after(&p, &reply);
            p = p.make(&reply);
        }
        assert_eq!(runs.barred(&p), Some(square_to_bit(33)));
        assert!(legal_moves(&p, &runs).iter().all(|m| m.from_square() == 45));
    }
}
