//! The position: piece sets, side to move, Zobrist key, and the FEN and Hub
//! position formats.

use std::fmt;

use crate::base::rng::SplitMix;
use crate::rules::bitboard::{
    bit_to_square, square_bb, square_to_bit, Bitboard, Bits, BLACK_PROMOTION, BOARD, WHITE_PROMOTION,
};
use crate::rules::moves::Move;

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Moves first, starts on 31..=50 and moves toward square 1.
    White = 0,
    /// Starts on 1..=20 and moves toward square 50.
    Black = 1,
}

impl Color {
    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `W` or `B`, as FEN and the Hub protocol write it.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }

    /// The row where this side's men are crowned.
    #[inline]
    pub const fn promotion_row(self) -> Bitboard {
        match self {
            Color::White => WHITE_PROMOTION,
            Color::Black => BLACK_PROMOTION,
        }
    }
}

/// What stands on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// A man of the given colour.
    Man(Color),
    /// A king of the given colour.
    King(Color),
}

impl Piece {
    /// The owner.
    pub const fn color(self) -> Color {
        match self {
            Piece::Man(c) | Piece::King(c) => c,
        }
    }

    const fn zobrist_index(self) -> usize {
        match self {
            Piece::Man(Color::White) => 0,
            Piece::Man(Color::Black) => 1,
            Piece::King(Color::White) => 2,
            Piece::King(Color::Black) => 3,
        }
    }
}

/// Zobrist keys: one per piece kind and bit, fixed at compile time so keys are
/// the same in every run (the TT and test expectations rely on that).
static ZOBRIST: [[u64; 64]; 4] = {
    let mut t = [[0u64; 64]; 4];
    let mut rng = SplitMix::new(0x0DA4_4E12_2026_0001);
    let mut p = 0;
    while p < 4 {
        let mut b = 0;
        while b < 64 {
            t[p][b] = rng.next_u64();
            b += 1;
        }
        p += 1;
    }
    t
};

/// Key added when Black is to move.
const ZOBRIST_BLACK: u64 = SplitMix::new(0x5EED_0000_0000_00B1).next_u64();

#[inline(always)]
fn zobrist(piece: Piece, bit: u32) -> u64 {
    ZOBRIST[piece.zobrist_index()][bit as usize]
}

/// A draughts position: piece sets, side to move and its Zobrist key.
///
/// Positions are small (40 bytes) and moves are applied by copying
/// ([`Position::make`]), which measured faster than make/unmake and leaves
/// nothing to restore.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    white: Bitboard,
    black: Bitboard,
    kings: Bitboard,
    side: Color,
    key: u64,
}

/// The standard starting position.
pub const START_FEN: &str = "W:W31-50:B1-20";

/// Most pieces a side can have: the 20 it starts with.
pub const MAX_PIECES: u32 = 20;

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The starting position: Black men on 1..=20, White men on 31..=50, White to move.
    pub fn start() -> Position {
        let black = (1..=20).fold(0, |b, s| b | square_bb(s));
        let white = (31..=50).fold(0, |b, s| b | square_bb(s));
        Position::from_parts(white, black, 0, Color::White).expect("the start position is legal")
    }

    /// Builds a position from piece sets, checking that it is legal: no
    /// square holds two pieces, kings are somebody's, no man stands on its
    /// own promotion row, neither side has more than [`MAX_PIECES`] pieces,
    /// and the side that moved last has a piece to have moved with. (The
    /// side to move may have none: the game is over and it has lost.)
    pub fn from_parts(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        side: Color,
    ) -> Result<Position, FenError> {
        if let Some(b) = Bits((white | black | kings) & !BOARD).next() {
            return Err(FenError::SquareOutOfRange(b.to_string()));
        }
        if let Some(b) = Bits(white & black).next() {
            return Err(FenError::DuplicateSquare(bit_to_square(b as u8)));
        }
        if let Some(b) = Bits(kings & !(white | black)).next() {
            return Err(FenError::DuplicateSquare(bit_to_square(b as u8)));
        }
        if let Some(b) = Bits(white & !kings & WHITE_PROMOTION).next() {
            return Err(FenError::ManOnPromotionRow { color: Color::White, square: bit_to_square(b as u8) });
        }
        if let Some(b) = Bits(black & !kings & BLACK_PROMOTION).next() {
            return Err(FenError::ManOnPromotionRow { color: Color::Black, square: bit_to_square(b as u8) });
        }
        for (color, pieces) in [(Color::White, white), (Color::Black, black)] {
            let count = pieces.count_ones();
            if count > MAX_PIECES {
                return Err(FenError::TooManyPieces { color, count });
            }
        }
        let last_mover = if side == Color::White { black } else { white };
        if last_mover == 0 {
            return Err(if white | black == 0 {
                FenError::EmptyBoard
            } else {
                FenError::NoPiecesToHaveMoved { color: side.opponent() }
            });
        }
        let mut p = Position { white, black, kings, side, key: 0 };
        p.key = p.compute_key();
        Ok(p)
    }

    /// The Zobrist key computed from scratch; [`Position::key`] must always equal it.
    pub fn compute_key(&self) -> u64 {
        let mut k = if self.side == Color::Black { ZOBRIST_BLACK } else { 0 };
        for b in Bits(self.white | self.black) {
            k ^= zobrist(self.piece_at_bit(b).expect("occupied"), b);
        }
        k
    }

    /// The incrementally kept Zobrist key.
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Side to move.
    #[inline]
    pub fn side(&self) -> Color {
        self.side
    }

    /// All pieces of a colour.
    #[inline]
    pub fn pieces(&self, c: Color) -> Bitboard {
        match c {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// All kings of both colours.
    #[inline]
    pub fn kings(&self) -> Bitboard {
        self.kings
    }

    /// Men of a colour.
    #[inline]
    pub fn men(&self, c: Color) -> Bitboard {
        self.pieces(c) & !self.kings
    }

    /// Kings of a colour.
    #[inline]
    pub fn kings_of(&self, c: Color) -> Bitboard {
        self.pieces(c) & self.kings
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.white | self.black
    }

    /// Every empty playable square.
    #[inline]
    pub fn empty(&self) -> Bitboard {
        BOARD & !(self.white | self.black)
    }

    fn piece_at_bit(&self, b: u32) -> Option<Piece> {
        let m = 1u64 << b;
        let color = if self.white & m != 0 {
            Color::White
        } else if self.black & m != 0 {
            Color::Black
        } else {
            return None;
        };
        Some(if self.kings & m != 0 { Piece::King(color) } else { Piece::Man(color) })
    }

    /// The piece on square `s` (1..=50); `None` when empty or out of range.
    pub fn piece_at(&self, s: u8) -> Option<Piece> {
        if !(1..=50).contains(&s) {
            return None;
        }
        self.piece_at_bit(u32::from(square_to_bit(s)))
    }

    /// Applies a move generated for this position and returns the result.
    ///
    /// The move must be legal here (from [`crate::rules::movegen::generate`] or a
    /// successful parse); the key is updated incrementally.
    #[inline(always)]
    pub fn make(&self, m: &Move) -> Position {
        let mut p = self.make_unkeyed(m);
        p.key = self.key_after(m);
        p
    }

    /// [`Position::make`] without the key update: the child's key is left
    /// at zero. Only for a caller that never reads the child's key, nor any
    /// of its descendants' (the search's capture resolution at the horizon,
    /// which uses neither the table nor repetitions); it saves the Zobrist
    /// look-ups of the moved piece and of every captured one.
    #[inline(always)]
    pub(crate) fn make_unkeyed(&self, m: &Move) -> Position {
        let from = 1u64 << m.from;
        let to = 1u64 << m.to;
        let us = self.side;
        let mut p = *self;
        let moved = from ^ to;
        let captured = m.captured;
        let (own, theirs) = match us {
            Color::White => (&mut p.white, &mut p.black),
            Color::Black => (&mut p.black, &mut p.white),
        };
        *own ^= moved;
        *theirs &= !captured;
        if self.kings & from != 0 {
            p.kings ^= moved;
        } else if to & us.promotion_row() != 0 {
            p.kings |= to;
        }
        p.kings &= !captured;
        p.side = us.opponent();
        p.key = 0;
        p
    }

    /// The key of the position after `m` (a move of this position), without
    /// making it: the search uses it to fetch a child's table entry early.
    #[inline(always)]
    pub fn key_after(&self, m: &Move) -> u64 {
        let us = self.side;
        let mut key = self.key ^ ZOBRIST_BLACK;
        if self.kings >> m.from & 1 != 0 {
            key ^= zobrist(Piece::King(us), m.from.into()) ^ zobrist(Piece::King(us), m.to.into());
        } else {
            key ^= zobrist(Piece::Man(us), m.from.into());
            let promotes = (1u64 << m.to) & us.promotion_row() != 0;
            key ^= zobrist(if promotes { Piece::King(us) } else { Piece::Man(us) }, m.to.into());
        }
        if m.captured != 0 {
            let them = us.opponent();
            let captured_kings = m.captured & self.kings;
            for b in Bits(m.captured & !captured_kings) {
                key ^= zobrist(Piece::Man(them), b);
            }
            for b in Bits(captured_kings) {
                key ^= zobrist(Piece::King(them), b);
            }
        }
        key
    }

    /// The same position seen from the other side: colours swapped, board
    /// turned half a turn (square `s` becomes `51 - s`), other side to move.
    pub fn flipped(&self) -> Position {
        let rot = |bb: Bitboard| Bits(bb).fold(0u64, |acc, b| acc | square_bb(51 - bit_to_square(b as u8)));
        let mut p = Position {
            white: rot(self.black),
            black: rot(self.white),
            kings: rot(self.kings),
            side: self.side.opponent(),
            key: 0,
        };
        p.key = p.compute_key();
        p
    }

    /// Parses a PDN FEN such as `W:W31-50:B1-20` or
    /// `B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29`.
    ///
    /// Either colour list may come first or be empty; ranges and `K` prefixes
    /// are allowed; a trailing `.` and lidraughts' `:H<n>` / `:F<n>` counters
    /// are tolerated.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        parse_fen(fen)
    }

    /// The FEN of this position: men and kings in square order, kings
    /// prefixed with `K`, no ranges.
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(160);
        s.push(self.side.letter());
        for c in [Color::White, Color::Black] {
            s.push(':');
            s.push(c.letter());
            let mut first = true;
            for sq in 1..=50u8 {
                if let Some(p) = self.piece_at(sq) {
                    if p.color() != c {
                        continue;
                    }
                    if !first {
                        s.push(',');
                    }
                    first = false;
                    if matches!(p, Piece::King(_)) {
                        s.push('K');
                    }
                    s.push_str(&sq.to_string());
                }
            }
        }
        s
    }

    /// Parses the 51-character Hub position string: side (`W`/`B`), then one
    /// of `w b W B e` per square 1..=50.
    pub fn from_hub(text: &str) -> Result<Position, FenError> {
        let t = text.trim();
        let mut chars = t.chars();
        let side = match chars.next() {
            None => return Err(FenError::Empty),
            Some('W' | 'w') => Color::White,
            Some('B' | 'b') => Color::Black,
            Some(c) => return Err(FenError::BadSide(c)),
        };
        let count = t.chars().count();
        if count != 51 {
            return Err(FenError::HubLength(count));
        }
        let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
        for (i, c) in chars.enumerate() {
            let sq = (i + 1) as u8;
            let b = square_bb(sq);
            match c {
                'w' => white |= b,
                'b' => black |= b,
                'W' => {
                    white |= b;
                    kings |= b;
                }
                'B' => {
                    black |= b;
                    kings |= b;
                }
                'e' | '.' => {}
                _ => return Err(FenError::BadHubChar { ch: c, square: sq }),
            }
        }
        Position::from_parts(white, black, kings, side)
    }

    /// The 51-character Hub position string.
    pub fn to_hub(&self) -> String {
        let mut s = String::with_capacity(51);
        s.push(self.side.letter());
        for sq in 1..=50u8 {
            s.push(match self.piece_at(sq) {
                None => 'e',
                Some(Piece::Man(Color::White)) => 'w',
                Some(Piece::Man(Color::Black)) => 'b',
                Some(Piece::King(Color::White)) => 'W',
                Some(Piece::King(Color::Black)) => 'B',
            });
        }
        s
    }

    /// Parses either a FEN or a Hub position string, whichever `text` is.
    pub fn parse(text: &str) -> Result<Position, FenError> {
        let t = text.trim();
        if t.contains(':') || t.len() < 51 {
            Position::from_fen(t)
        } else {
            Position::from_hub(t)
        }
    }
}

impl fmt::Display for Position {
    /// A board diagram, Black at the top, followed by the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..10u8 {
            let mut line = String::new();
            for c in 0..5u8 {
                let sq = row * 5 + c + 1;
                let ch = match self.piece_at(sq) {
                    None => '.',
                    Some(Piece::Man(Color::White)) => 'w',
                    Some(Piece::Man(Color::Black)) => 'b',
                    Some(Piece::King(Color::White)) => 'W',
                    Some(Piece::King(Color::Black)) => 'B',
                };
                if row % 2 == 0 {
                    line.push_str("  ");
                    line.push(ch);
                    line.push(' ');
                } else {
                    line.push(' ');
                    line.push(ch);
                    line.push_str("  ");
                }
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        write!(f, "{}", self.to_fen())
    }
}

/// Why a FEN or Hub position string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Nothing was given.
    Empty,
    /// The side to move is not `W` or `B`.
    BadSide(char),
    /// A piece list does not start with `W` or `B`.
    BadColor(String),
    /// The same colour's list appears twice.
    RepeatedColor(char),
    /// A square token is not a number (or `K` + number, or a range).
    BadSquare(String),
    /// A square number is outside 1..=50.
    SquareOutOfRange(String),
    /// A range runs backwards, such as `20-11`.
    BadRange(String),
    /// A square is listed twice.
    DuplicateSquare(u8),
    /// A man stands on the row where it would already have been crowned.
    ManOnPromotionRow {
        /// The man's colour.
        color: Color,
        /// Its square.
        square: u8,
    },
    /// A side has more pieces than a game can give it.
    TooManyPieces {
        /// The side.
        color: Color,
        /// Its pieces.
        count: u32,
    },
    /// No piece on the board.
    EmptyBoard,
    /// The side that moved last has no piece (a side whose last piece was
    /// taken is the side to move, and has lost).
    NoPiecesToHaveMoved {
        /// The side that moved last.
        color: Color,
    },
    /// A field after the piece lists is neither `H<n>` nor `F<n>`.
    UnexpectedField(String),
    /// A Hub position string whose length is not 51.
    HubLength(usize),
    /// A character of a Hub position string that is not `w b W B e`.
    BadHubChar {
        /// The character.
        ch: char,
        /// The square it stands for.
        square: u8,
    },
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => write!(f, "empty position"),
            FenError::BadSide(c) => {
                write!(f, "side to move must be 'W' or 'B', found {c:?}")
            }
            FenError::BadColor(s) => {
                write!(f, "piece list {s:?} must start with 'W' or 'B'")
            }
            FenError::RepeatedColor(c) => write!(f, "the {c} piece list appears twice"),
            FenError::BadSquare(s) => {
                write!(f, "bad square {s:?}: expected a number 1-50, K<n> or a range a-b")
            }
            FenError::SquareOutOfRange(s) => write!(f, "square {s} is outside 1-50"),
            FenError::BadRange(s) => write!(f, "range {s:?} runs backwards"),
            FenError::DuplicateSquare(s) => write!(f, "square {s} is listed twice"),
            FenError::ManOnPromotionRow { color, square } => {
                let name = match color {
                    Color::White => "white",
                    Color::Black => "black",
                };
                write!(f, "a {name} man cannot stand on square {square}: it would have been crowned")
            }
            FenError::TooManyPieces { color, count } => write!(
                f,
                "{} has {count} pieces: a side has at most {MAX_PIECES}",
                if *color == Color::White { "White" } else { "Black" }
            ),
            FenError::EmptyBoard => write!(f, "there is no piece on the board"),
            FenError::NoPiecesToHaveMoved { color } => {
                let (name, other) = match color {
                    Color::White => ("White", "Black"),
                    Color::Black => ("Black", "White"),
                };
                write!(
                    f,
                    "{name} has no pieces, yet {other} is to move: the side without pieces is the \
                     one to move (and has lost)"
                )
            }
            FenError::UnexpectedField(s) => write!(f, "unexpected field {s:?} after the piece lists"),
            FenError::HubLength(n) => {
                write!(f, "a Hub position has 51 characters (side + 50 squares), this one has {n}")
            }
            FenError::BadHubChar { ch, square } => {
                write!(f, "character {ch:?} for square {square}: expected one of w, b, W, B, e")
            }
        }
    }
}

impl std::error::Error for FenError {}

fn parse_square(tok: &str) -> Result<u8, FenError> {
    if tok.is_empty() || !tok.bytes().all(|c| c.is_ascii_digit()) {
        return Err(FenError::BadSquare(tok.to_string()));
    }
    match tok.parse::<u32>() {
        Ok(n @ 1..=50) => Ok(n as u8),
        _ => Err(FenError::SquareOutOfRange(tok.to_string())),
    }
}

fn parse_fen(fen: &str) -> Result<Position, FenError> {
    let mut t = fen.trim();
    if let Some(stripped) = t.strip_suffix('.') {
        t = stripped.trim_end();
    }
    if t.is_empty() {
        return Err(FenError::Empty);
    }
    // Some sources quote the FEN (PDN tag values).
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        t = t[1..t.len() - 1].trim();
    }
    let mut fields = t.split(':');
    let side_field = fields.next().unwrap_or("").trim();
    let side = match side_field {
        "W" | "w" => Color::White,
        "B" | "b" => Color::Black,
        "" => return Err(FenError::Empty),
        other => return Err(FenError::BadSide(other.chars().next().unwrap_or(' '))),
    };
    let mut sets = [0u64; 2];
    let mut kings = 0u64;
    let mut seen = [false; 2];
    let mut all = 0u64;
    for field in fields {
        let field = field.trim();
        let mut chars = field.chars();
        let color = match chars.next() {
            Some('W' | 'w') => Color::White,
            Some('B' | 'b') => Color::Black,
            Some('H' | 'F') if field[1..].bytes().all(|c| c.is_ascii_digit()) && field.len() > 1 => {
                continue;
            }
            Some(_) if seen[0] && seen[1] => {
                return Err(FenError::UnexpectedField(field.to_string()));
            }
            _ => return Err(FenError::BadColor(field.to_string())),
        };
        if seen[color as usize] {
            return Err(FenError::RepeatedColor(color.letter()));
        }
        seen[color as usize] = true;
        let list = chars.as_str().trim();
        if list.is_empty() {
            continue;
        }
        for raw in list.split(',') {
            let tok = raw.trim();
            let (is_king, body) = match tok.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest.trim()),
                None => (false, tok),
            };
            let (lo, hi) = match body.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (parse_square(a.trim())?, parse_square(b.trim())?);
                    if a > b {
                        return Err(FenError::BadRange(tok.to_string()));
                    }
                    (a, b)
                }
                None => {
                    let s = parse_square(body)?;
                    (s, s)
                }
            };
            for s in lo..=hi {
                let b = square_bb(s);
                if all & b != 0 {
                    return Err(FenError::DuplicateSquare(s));
                }
                all |= b;
                sets[color as usize] |= b;
                if is_king {
                    kings |= b;
                }
            }
        }
    }
    if !seen[0] && !seen[1] {
        return Err(FenError::BadColor(String::new()));
    }
    Position::from_parts(sets[0], sets[1], kings, side)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unkeyed_moves_give_the_same_position() {
        // Random games (a fixed linear congruential sequence), every legal
        // move of every position along them.
        let mut seed = 12345u64;
        let mut checked = 0;
        for _ in 0..300 {
            let mut pos = Position::start();
            for _ in 0..200 {
                let moves = crate::rules::movegen::legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                for m in &moves {
                    let (a, b) = (pos.make(m), pos.make_unkeyed(m));
                    assert_eq!((a.white, a.black, a.kings, a.side), (b.white, b.black, b.kings, b.side));
                    checked += 1;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                pos = pos.make(&moves.as_slice()[(seed >> 33) as usize % moves.len()]);
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn start_round_trips() {
        let p = Position::from_fen(START_FEN).unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(p.to_hub(), "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww");
        assert_eq!(Position::from_hub(&p.to_hub()).unwrap(), p);
        assert_eq!(Position::from_fen(&p.to_fen()).unwrap(), p);
    }

    #[test]
    fn fen_variants() {
        let a = Position::from_fen("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29").unwrap();
        let b = Position::from_fen("B:B12,16,20,K22,K25,K29:W18,24,27,28,K10,K15.").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.piece_at(10), Some(Piece::King(Color::White)));
        assert_eq!(a.piece_at(12), Some(Piece::Man(Color::Black)));
        let c = Position::from_fen("W:W31-50:B1-20:H0:F1").unwrap();
        assert_eq!(c, Position::start());
        let d = Position::from_fen("B:W50:B").unwrap();
        assert_eq!(d.pieces(Color::Black), 0);
        assert_eq!(d.side(), Color::Black);
        let e = Position::from_fen("W:WK12-14:B40").unwrap();
        assert_eq!(e.kings_of(Color::White).count_ones(), 3);
    }

    #[test]
    fn fen_errors() {
        use FenError::*;
        let cases: &[(&str, FenError)] = &[
            ("", Empty),
            ("X:W31:B1", BadSide('X')),
            ("W:W31:B51", SquareOutOfRange("51".into())),
            ("W:W31,31:B1", DuplicateSquare(31)),
            ("W:W31:B31", DuplicateSquare(31)),
            ("W:W3:B40", ManOnPromotionRow { color: Color::White, square: 3 }),
            ("W:W31:B47", ManOnPromotionRow { color: Color::Black, square: 47 }),
            ("W:W3a:B1", BadSquare("3a".into())),
            ("W:W20-11:B1", BadRange("20-11".into())),
            ("W:Q1", BadColor("Q1".into())),
            ("W:W1K:B2", BadSquare("1K".into())),
            ("W:W31:W32", RepeatedColor('W')),
            ("W:W31:B1:X9", UnexpectedField("X9".into())),
        ];
        for (fen, err) in cases {
            assert_eq!(Position::from_fen(fen).as_ref(), Err(err), "{fen}");
            assert!(!err.to_string().is_empty());
        }
        assert_eq!(Position::from_hub("Wbbb"), Err(HubLength(4)));
        let mut bad = String::from("W");
        bad.push_str(&"e".repeat(49));
        bad.push('x');
        assert_eq!(Position::from_hub(&bad), Err(BadHubChar { ch: 'x', square: 50 }));
    }

    #[test]
    fn flip_is_an_involution() {
        let p = Position::from_fen("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29").unwrap();
        assert_eq!(p.flipped().flipped(), p);
        assert_eq!(Position::start().flipped().to_fen(), Position::start().to_fen().replacen('W', "B", 1));
    }
}
