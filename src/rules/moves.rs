//! A move and a list of moves: the types every floor above the board
//! shares (positions make moves, the generator fills lists).

use std::fmt;

use crate::rules::bitboard::{bit_to_square, Bitboard, Bits};

/// A legal move: origin, destination and the set of captured pieces.
///
/// Two capture paths with the same origin, destination and captured set are
/// the same move. `from` and `to` are bit indices (see [`crate::rules::bitboard`]);
/// `from == to` happens when a king's capture ends on its own start square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Move {
    /// Bit index of the origin square.
    pub from: u8,
    /// Bit index of the destination square.
    pub to: u8,
    /// The captured pieces, removed when the move is made.
    pub captured: Bitboard,
}

impl Move {
    /// Origin square number, 1..=50.
    #[inline]
    pub fn from_square(&self) -> u8 {
        bit_to_square(self.from)
    }

    /// Destination square number, 1..=50.
    #[inline]
    pub fn to_square(&self) -> u8 {
        bit_to_square(self.to)
    }

    /// Whether the move captures.
    #[inline]
    pub fn is_capture(&self) -> bool {
        self.captured != 0
    }

    /// Captured square numbers in ascending order.
    pub fn captured_squares(&self) -> impl Iterator<Item = u8> {
        Bits(self.captured).map(|b| bit_to_square(b as u8))
    }
}

impl fmt::Display for Move {
    /// Hub notation: `32-28` for a quiet move, `28x19x23` (from, to, then every
    /// captured square in ascending order) for a capture.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.captured == 0 {
            write!(f, "{}-{}", self.from_square(), self.to_square())
        } else {
            write!(f, "{}x{}", self.from_square(), self.to_square())?;
            for s in self.captured_squares() {
                write!(f, "x{s}")?;
            }
            Ok(())
        }
    }
}

/// A reusable list of moves. Quiet positions have at most 4 moves per empty
/// square (192 in all) but the number of distinct maximal captures has no
/// small bound, so the list grows on the heap when it must; reused lists
/// allocate only once.
#[derive(Clone, Debug, Default)]
pub struct MoveList {
    moves: Vec<Move>,
}

impl MoveList {
    /// An empty list with room for a typical position.
    pub fn new() -> MoveList {
        MoveList { moves: Vec::with_capacity(64) }
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether there are no moves.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.moves.clear();
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, m: Move) {
        self.moves.push(m);
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves
    }

    /// The moves as a mutable slice, for reordering.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.moves.iter()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.moves.iter()
    }
}
