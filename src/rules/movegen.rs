//! Legal move generation under the FMJD rules.
//!
//! Captures are mandatory and the majority rule applies, so generation tries
//! captures first; only a position without any capture gets quiet moves. The
//! majority rule is applied while captures are added (a longer capture clears
//! the list), and a capture of three or more pieces is dropped when the list
//! already holds one with the same from, to and captured set. Shorter
//! captures cannot repeat: for men two different two-piece paths always take
//! different pieces, and for kings the only source of repeats, landing
//! anywhere behind a piece and then flying on in the same direction, is
//! generated from the farthest landing square alone.

use crate::rules::bitboard::{shift, slide, Bitboard, Bits, Dir, DELTA, DIRS, NEXT};
pub use crate::rules::moves::{Move, MoveList};
use crate::rules::position::{Color, Position};

/// Fills `list` with every legal move of `pos`.
pub fn generate(pos: &Position, list: &mut MoveList) {
    list.clear();
    if has_capture(pos) {
        generate_captures(pos, list);
    } else {
        generate_quiet(pos, list);
    }
}

/// Whether `m` (a move of `pos`) turns a man into a king.
#[inline]
pub fn is_promotion(pos: &Position, m: &Move) -> bool {
    pos.kings() >> m.from & 1 == 0 && (1u64 << m.to) & pos.side().promotion_row() != 0
}

/// The legal moves of `pos` as a fresh list (convenient outside hot loops).
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut l = MoveList::new();
    generate(pos, &mut l);
    l
}

/// Men of `men` that have an enemy in `enemy` next to them in direction `d`
/// with an empty square in `empty` behind it.
#[inline(always)]
fn jumpers(men: Bitboard, enemy: Bitboard, empty: Bitboard, d: Dir) -> Bitboard {
    let back = d.reverse();
    men & shift(shift(empty, back) & enemy, back)
}

/// Whether the side to move has a capture (and so must capture).
#[inline]
pub fn has_capture(pos: &Position) -> bool {
    let us = pos.side();
    can_capture(pos, pos.pieces(us), pos.pieces(us.opponent()))
}

/// Whether the opponent of the side to move would have a capture if it were
/// its turn: a threat.
#[inline]
pub fn opponent_has_capture(pos: &Position) -> bool {
    let us = pos.side();
    can_capture(pos, pos.pieces(us.opponent()), pos.pieces(us))
}

/// Whether the pieces `own` can capture one of `enemy` (men jump in all four
/// directions, so the colour of `own` does not matter).
#[inline(always)]
fn can_capture(pos: &Position, own: Bitboard, enemy: Bitboard) -> bool {
    let empty = pos.empty();
    let men = own & !pos.kings();
    // All four directions at once, without a branch per direction: most
    // positions have no capture, so every direction is looked at anyway.
    let any_man = jumpers(men, enemy, empty, Dir::NorthWest)
        | jumpers(men, enemy, empty, Dir::NorthEast)
        | jumpers(men, enemy, empty, Dir::SouthWest)
        | jumpers(men, enemy, empty, Dir::SouthEast);
    if any_man != 0 {
        return true;
    }
    let occ = pos.occupied();
    for k in Bits(own & pos.kings()) {
        for d in DIRS {
            if let (_, Some(b)) = slide(k as usize, d, occ) {
                if enemy >> b & 1 != 0 {
                    let n = NEXT[d as usize][b as usize];
                    if n < 64 && empty >> n & 1 != 0 {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Depth-first capture search for one piece; collects maximal captures under
/// the majority rule into `list`.
struct CaptureGen<'a> {
    list: &'a mut MoveList,
    /// Origin of the piece whose captures are being searched.
    from: u8,
    /// Opponent pieces (captured ones included; `captured` masks them).
    enemy: Bitboard,
    /// Occupied squares with the moving piece lifted off its origin. Jumped
    /// pieces stay in it: they block until the move ends.
    occupied: Bitboard,
    /// Empty squares, the moving piece's origin included.
    empty: Bitboard,
    /// Largest capture count found so far.
    best: u32,
    /// Killer draughts: enemy kings behind which a capturing king that
    /// takes one of them last must stop at once (empty otherwise).
    stop_behind: Bitboard,
}

impl CaptureGen<'_> {
    #[inline(always)]
    fn add(&mut self, to: u32, captured: Bitboard, count: u32) {
        if count < self.best {
            return;
        }
        if count > self.best {
            self.best = count;
            self.list.clear();
        }
        let m = Move { from: self.from, to: to as u8, captured };
        if count >= 3 && self.list.as_slice().contains(&m) {
            return;
        }
        self.list.push(m);
    }

    /// Continues a man's capture from the single square `at`, where it
    /// arrived by a jump; returns whether it could.
    #[inline]
    fn man(&mut self, at: Bitboard, captured: Bitboard, count: u32) -> bool {
        // The landing square of each direction, all four without a branch:
        // most captures end here, and a branch per direction is one the
        // processor mispredicts. Jumping back would cross the piece just
        // taken, which is in `captured`, so that direction lands nowhere.
        let jumpable = self.enemy & !captured;
        let land = [
            step::<0>(step::<0>(at) & jumpable) & self.empty,
            step::<1>(step::<1>(at) & jumpable) & self.empty,
            step::<2>(step::<2>(at) & jumpable) & self.empty,
            step::<3>(step::<3>(at) & jumpable) & self.empty,
        ];
        if land[0] | land[1] | land[2] | land[3] == 0 {
            return false;
        }
        self.man_dir::<0>(at, land[0], captured, count);
        self.man_dir::<1>(at, land[1], captured, count);
        self.man_dir::<2>(at, land[2], captured, count);
        self.man_dir::<3>(at, land[3], captured, count);
        true
    }

    #[inline(always)]
    fn man_dir<const D: usize>(&mut self, at: Bitboard, land: Bitboard, captured: Bitboard, count: u32) {
        if land == 0 {
            return;
        }
        let cap = captured | step::<D>(at);
        if !self.man(land, cap, count + 1) {
            self.add(land.trailing_zeros(), cap, count + 1);
        }
    }

    /// Continues a king's capture from `sq` in the directions of `dirs` (a bit
    /// per direction index); returns whether it could.
    fn king(&mut self, sq: u32, captured: Bitboard, count: u32, dirs: u8) -> bool {
        let mut found = false;
        let jumpable = self.enemy & !captured;
        for d in DIRS {
            if dirs >> (d as u8) & 1 == 0 {
                continue;
            }
            let Some(b) = slide(sq as usize, d, self.occupied).1 else {
                continue;
            };
            if jumpable >> b & 1 == 0 {
                continue;
            }
            let (land, beyond) = slide(b as usize, d, self.occupied);
            if land == 0 {
                continue;
            }
            found = true;
            let cap = captured | 1u64 << b;
            let far = if d.is_positive() { 63 - land.leading_zeros() } else { land.trailing_zeros() };
            // Flying on in the same direction is possible from every landing
            // square alike, so it is searched once, from the farthest one.
            let straight = beyond.is_some_and(|c| {
                let n = NEXT[d as usize][c as usize];
                jumpable >> c & 1 != 0 && n < 64 && self.occupied >> n & 1 == 0
            });
            let side_dirs = perpendicular(d);
            // Killer: a capture that ends by taking a king ends right behind it.
            let near: Option<u32> =
                (self.stop_behind >> b & 1 != 0).then(|| u32::from(NEXT[d as usize][b as usize]));
            for l in Bits(land) {
                let mut next_dirs = side_dirs;
                if straight && l == far {
                    next_dirs |= 1 << (d as u8);
                }
                let cont = self.king(l, cap, count + 1, next_dirs);
                if !cont && !straight && near.is_none_or(|n| l == n) {
                    self.add(l, cap, count + 1);
                }
            }
        }
        found
    }
}

/// One step in direction index `D` (see [`Dir`]) for a whole bitboard.
#[inline(always)]
fn step<const D: usize>(b: Bitboard) -> Bitboard {
    (match D {
        0 => b >> 6,
        1 => b >> 5,
        2 => b << 5,
        _ => b << 6,
    }) & crate::rules::bitboard::BOARD
}

/// Starts the captures of every man in `men` jumping in direction index `D`.
#[inline(always)]
fn men_captures<const D: usize>(g: &mut CaptureGen<'_>, men: Bitboard, empty: Bitboard, occ: Bitboard) {
    for m in Bits(men) {
        let at = 1u64 << m;
        let over = step::<D>(at);
        let land = step::<D>(over);
        g.from = m as u8;
        g.occupied = occ & !at;
        g.empty = empty | at;
        if !g.man(land, over, 1) {
            g.add(land.trailing_zeros(), over, 1);
        }
    }
}

#[inline(always)]
fn perpendicular(d: Dir) -> u8 {
    match d {
        Dir::NorthWest | Dir::SouthEast => (1 << Dir::NorthEast as u8) | (1 << Dir::SouthWest as u8),
        Dir::NorthEast | Dir::SouthWest => (1 << Dir::NorthWest as u8) | (1 << Dir::SouthEast as u8),
    }
}

/// Fills `list` with the legal captures (empty when there is none).
pub fn generate_captures(pos: &Position, list: &mut MoveList) {
    captures_with(pos, list, 0);
}

/// Fills `list` with the legal moves of `pos` by killer draughts' rules:
/// the international ones, except that a king whose capture takes a king
/// last must stop on the square right behind it (so two kings can beat
/// one).
pub fn generate_killer(pos: &Position, list: &mut MoveList) {
    list.clear();
    if has_capture(pos) {
        generate_killer_captures(pos, list);
    } else {
        generate_quiet(pos, list);
    }
}

/// Fills `list` with the legal captures of `pos` by killer draughts' rules
/// (empty when there is none).
pub fn generate_killer_captures(pos: &Position, list: &mut MoveList) {
    captures_with(pos, list, pos.kings_of(pos.side().opponent()));
}

fn captures_with(pos: &Position, list: &mut MoveList, stop_behind: Bitboard) {
    list.clear();
    let us = pos.side();
    let own = pos.pieces(us);
    let enemy = pos.pieces(us.opponent());
    let empty = pos.empty();
    let men = own & !pos.kings();
    let occ = pos.occupied();
    let mut g = CaptureGen { list, from: 0, enemy, occupied: 0, empty: 0, best: 1, stop_behind };
    men_captures::<0>(&mut g, jumpers(men, enemy, empty, Dir::NorthWest), empty, occ);
    men_captures::<1>(&mut g, jumpers(men, enemy, empty, Dir::NorthEast), empty, occ);
    men_captures::<2>(&mut g, jumpers(men, enemy, empty, Dir::SouthWest), empty, occ);
    men_captures::<3>(&mut g, jumpers(men, enemy, empty, Dir::SouthEast), empty, occ);
    for k in Bits(own & pos.kings()) {
        g.from = k as u8;
        g.occupied = occ & !(1u64 << k);
        g.empty = empty | 1u64 << k;
        g.king(k, 0, 0, 0b1111);
    }
}

/// Fills `list` with the quiet moves, ignoring captures (so only correct as
/// the legal move list when [`has_capture`] is false).
pub fn generate_quiet(pos: &Position, list: &mut MoveList) {
    list.clear();
    let us = pos.side();
    let own = pos.pieces(us);
    let empty = pos.empty();
    let men = own & !pos.kings();
    for d in forward_dirs(us) {
        let delta = DELTA[d as usize];
        for to in Bits(shift(men, d) & empty) {
            list.push(Move { from: (to as i32 - delta) as u8, to: to as u8, captured: 0 });
        }
    }
    let occ = pos.occupied();
    for k in Bits(own & pos.kings()) {
        for d in DIRS {
            for to in Bits(slide(k as usize, d, occ).0) {
                list.push(Move { from: k as u8, to: to as u8, captured: 0 });
            }
        }
    }
}

/// The two forward directions of a colour's men.
#[inline(always)]
pub const fn forward_dirs(c: Color) -> [Dir; 2] {
    match c {
        Color::White => [Dir::NorthWest, Dir::NorthEast],
        Color::Black => [Dir::SouthWest, Dir::SouthEast],
    }
}

/// The squares the men in `men` of colour `c` would step onto, one set per
/// forward direction (not yet masked with the empty squares).
#[inline(always)]
pub fn forward_steps(men: Bitboard, c: Color) -> [Bitboard; 2] {
    let [a, b] = forward_dirs(c);
    [shift(men, a), shift(men, b)]
}

/// Number of legal moves of `pos`, without building the quiet-move list.
#[inline]
pub fn count_moves(pos: &Position, scratch: &mut MoveList) -> u64 {
    if has_capture(pos) {
        generate_captures(pos, scratch);
        return scratch.len() as u64;
    }
    let us = pos.side();
    let own = pos.pieces(us);
    let empty = pos.empty();
    let men = own & !pos.kings();
    let [a, b] = forward_steps(men, us);
    let mut n = u64::from((a & empty).count_ones() + (b & empty).count_ones());
    let kings = own & pos.kings();
    if kings != 0 {
        let occ = pos.occupied();
        for k in Bits(kings) {
            for d in DIRS {
                n += u64::from(slide(k as usize, d, occ).0.count_ones());
            }
        }
    }
    n
}
