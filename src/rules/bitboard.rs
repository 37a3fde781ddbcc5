//! Square numbering, the bit layout and precomputed diagonal tables.
//!
//! The 50 playable squares live in one `u64`. Square `s` (1..=50) sits at bit
//! `(s - 1) + (s - 1) / 10`: every pair of rows takes 11 bits, and bits 10, 21,
//! 32 and 43 are "ghost" bits that are never set. With those gaps the four
//! diagonal steps are constant shifts for every square (-6, -5, +5, +6), and a
//! step that leaves the board lands on a ghost bit or outside bits 0..=53, so
//! masking with [`BOARD`] is all the edge handling quiet-move generation needs.

/// A set of squares, one bit per square in the layout above.
pub type Bitboard = u64;

/// Number of bits the layout spans (bits 0..=53).
pub const NUM_BITS: usize = 54;

/// Every playable square.
pub const BOARD: Bitboard = {
    let mut b = 0u64;
    let mut s = 1;
    while s <= 50 {
        b |= 1u64 << square_to_bit_const(s);
        s += 1;
    }
    b
};

/// White men promote on squares 1..=5.
pub const WHITE_PROMOTION: Bitboard = 0b11111;
/// Black men promote on squares 46..=50 (bits 49..=53).
pub const BLACK_PROMOTION: Bitboard = 0b11111 << 49;

/// The four diagonal directions, named as White sees the board (north is
/// toward square 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Toward lower square numbers, to the left: bit - 6.
    NorthWest = 0,
    /// Toward lower square numbers, to the right: bit - 5.
    NorthEast = 1,
    /// Toward higher square numbers, to the left: bit + 5.
    SouthWest = 2,
    /// Toward higher square numbers, to the right: bit + 6.
    SouthEast = 3,
}

/// All directions, in index order.
pub const DIRS: [Dir; 4] = [Dir::NorthWest, Dir::NorthEast, Dir::SouthWest, Dir::SouthEast];

/// Bit offset of one step in each direction.
pub const DELTA: [i32; 4] = [-6, -5, 5, 6];

impl Dir {
    /// The direction pointing back the way this one came.
    #[inline]
    pub const fn reverse(self) -> Dir {
        match self {
            Dir::NorthWest => Dir::SouthEast,
            Dir::NorthEast => Dir::SouthWest,
            Dir::SouthWest => Dir::NorthEast,
            Dir::SouthEast => Dir::NorthWest,
        }
    }

    /// Whether the step increases the bit index; the nearest square on a ray
    /// is then its lowest bit.
    #[inline]
    pub const fn is_positive(self) -> bool {
        matches!(self, Dir::SouthWest | Dir::SouthEast)
    }
}

const fn square_to_bit_const(s: u32) -> u32 {
    (s - 1) + (s - 1) / 10
}

/// Bit index of square `s` (1..=50). The caller guarantees the range.
#[inline]
pub const fn square_to_bit(s: u8) -> u8 {
    (s - 1) + (s - 1) / 10
}

/// Square number (1..=50) of a playable bit, 0 for a ghost or outside bit.
pub const BIT_TO_SQUARE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut s = 1;
    while s <= 50 {
        t[square_to_bit_const(s) as usize] = s as u8;
        s += 1;
    }
    t
};

/// Square number of a bit index that is known to be playable.
#[inline]
pub fn bit_to_square(bit: u8) -> u8 {
    BIT_TO_SQUARE[bit as usize & 63]
}

/// Single-bit board of a square number (1..=50).
#[inline]
pub const fn square_bb(s: u8) -> Bitboard {
    1u64 << square_to_bit(s)
}

/// Shifts every square of `b` one step in direction `d`, dropping squares
/// that fall off the board.
#[inline(always)]
pub const fn shift(b: Bitboard, d: Dir) -> Bitboard {
    let r = match d {
        Dir::NorthWest => b >> 6,
        Dir::NorthEast => b >> 5,
        Dir::SouthWest => b << 5,
        Dir::SouthEast => b << 6,
    };
    r & BOARD
}

const fn step_bit(bit: i32, d: usize) -> i32 {
    let n = bit + DELTA[d];
    if n < 0 || n >= NUM_BITS as i32 || (BOARD >> n) & 1 == 0 {
        -1
    } else {
        n
    }
}

/// `RAYS[d][bit]`: every square from `bit` (exclusive) to the edge in direction `d`.
pub static RAYS: [[Bitboard; 64]; 4] = {
    let mut t = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let mut b = 0;
        while b < NUM_BITS as i32 {
            if (BOARD >> b) & 1 == 1 {
                let mut r = 0u64;
                let mut n = step_bit(b, d);
                while n >= 0 {
                    r |= 1u64 << n;
                    n = step_bit(n, d);
                }
                t[d][b as usize] = r;
            }
            b += 1;
        }
        d += 1;
    }
    t
};

/// `NEXT[d][bit]`: the neighbouring bit in direction `d`, or 64 when off the board.
pub static NEXT: [[u8; 64]; 4] = {
    let mut t = [[64u8; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let mut b = 0;
        while b < NUM_BITS as i32 {
            if (BOARD >> b) & 1 == 1 {
                let n = step_bit(b, d);
                if n >= 0 {
                    t[d][b as usize] = n as u8;
                }
            }
            b += 1;
        }
        d += 1;
    }
    t
};

/// The square of `ray` nearest to the ray's origin, for a non-empty ray in
/// direction `d`.
#[inline(always)]
pub fn nearest(ray: Bitboard, d: Dir) -> u32 {
    debug_assert!(ray != 0);
    if d.is_positive() {
        ray.trailing_zeros()
    } else {
        63 - ray.leading_zeros()
    }
}

/// The empty squares a slider on `bit` sees in direction `d` before the first
/// occupied square, together with that blocker's bit (if any).
#[inline(always)]
pub fn slide(bit: usize, d: Dir, occupied: Bitboard) -> (Bitboard, Option<u32>) {
    let ray = RAYS[d as usize][bit];
    let blockers = ray & occupied;
    if blockers == 0 {
        (ray, None)
    } else {
        let b = nearest(blockers, d);
        (ray & !RAYS[d as usize][b as usize] & !(1u64 << b), Some(b))
    }
}

/// Iterates over the bit indices of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Bits(pub Bitboard);

impl Iterator for Bits {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            None
        } else {
            let b = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_round_trips() {
        for s in 1..=50u8 {
            assert_eq!(bit_to_square(square_to_bit(s)), s);
        }
        assert_eq!(BOARD.count_ones(), 50);
        for ghost in [10, 21, 32, 43] {
            assert_eq!(BOARD >> ghost & 1, 0);
        }
    }

    fn sq(b: Bitboard) -> Vec<u8> {
        Bits(b).map(|x| bit_to_square(x as u8)).collect()
    }

    #[test]
    fn neighbours_match_the_board() {
        // Square 28 sits in the middle: 22 and 23 to the north, 32 and 33 to the south.
        assert_eq!(sq(shift(square_bb(28), Dir::NorthWest)), vec![22]);
        assert_eq!(sq(shift(square_bb(28), Dir::NorthEast)), vec![23]);
        assert_eq!(sq(shift(square_bb(28), Dir::SouthWest)), vec![32]);
        assert_eq!(sq(shift(square_bb(28), Dir::SouthEast)), vec![33]);
        // Edge squares lose their off-board neighbours.
        assert!(shift(square_bb(6), Dir::NorthWest) == 0);
        assert!(shift(square_bb(15), Dir::SouthEast) == 0);
        assert!(shift(square_bb(46), Dir::SouthWest) == 0);
        assert!(shift(square_bb(5), Dir::NorthEast) == 0);
    }

    #[test]
    fn main_diagonal_ray() {
        let r = RAYS[Dir::NorthEast as usize][square_to_bit(46) as usize];
        assert_eq!(sq(r), vec![5, 10, 14, 19, 23, 28, 32, 37, 41]);
        for d in DIRS {
            for s in 1..=50u8 {
                let b = square_to_bit(s) as usize;
                for t in Bits(RAYS[d as usize][b]) {
                    assert!(RAYS[d.reverse() as usize][t as usize] >> b & 1 == 1);
                }
            }
        }
    }
}
