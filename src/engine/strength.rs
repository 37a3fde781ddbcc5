//! Strength levels for people to play against: 1 (a beginner) to
//! [`MAX_STRENGTH`] (a strong club player's time and depth), 0 for full
//! strength. The scale follows what lidraughts asks of Scan for its eight
//! computer levels in the international game: a node or depth budget, a
//! move time, the capture-resolution handicap (`Limits::handicap`: long
//! shots missed, not the capture in front of the engine), the weak
//! evaluation (`pst`: material and the men's rows) at the lowest levels, and
//! a wider opening book choice. A level only ever lowers what the client
//! asked for: its budget is a cap, its handicap a floor. The ladder's
//! measured steps are in `docs/levels.md`.

use std::time::Duration;

use crate::engine::time::Limits;

/// The strongest level below full strength.
pub const MAX_STRENGTH: u8 = 8;

/// What one level allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    /// Nodes a move at most.
    pub nodes: Option<u64>,
    /// Iterations a move at most.
    pub depth: Option<u32>,
    /// Time a move at most, for the levels without a node budget (a few
    /// hundred nodes take far less; a time this short would only meet the
    /// move overhead kept back and cut the search to one iteration).
    pub move_time: Duration,
    /// The capture-resolution handicap (0 to 3).
    pub handicap: u8,
    /// Play with the weak evaluation (material and the men's rows).
    pub weak_eval: bool,
    /// Book moves up to this ply, chosen among those within
    /// [`Strength::book_margin`] hundredths of the best.
    pub book_ply: u32,
    /// Hundredths of a man a book move may lose against the best.
    pub book_margin: i32,
}

const fn level(
    nodes: u64,
    depth: u32,
    ms: u64,
    handicap: u8,
    weak_eval: bool,
    book_ply: u32,
    book_margin: i32,
) -> Strength {
    Strength {
        nodes: if nodes > 0 { Some(nodes) } else { None },
        depth: if depth > 0 { Some(depth) } else { None },
        move_time: Duration::from_millis(ms),
        handicap,
        weak_eval,
        book_ply,
        book_margin,
    }
}

/// Levels 1 to 8: nodes, depth, milliseconds, handicap, weak evaluation,
/// book plies, book margin. Level 7 searches depth 8 where lidraughts asks
/// for 11: depth 11 won 98.5% against level 6 (about 730 Elo), depth 8 about
/// 340 Elo, like the other steps (`docs/levels.md`).
const LEVELS: [Strength; MAX_STRENGTH as usize] = [
    level(50, 0, 50, 3, true, 4, 100),
    level(120, 0, 100, 2, true, 4, 100),
    level(400, 0, 150, 0, true, 4, 90),
    level(1200, 0, 200, 0, true, 4, 90),
    level(0, 6, 300, 0, true, 6, 80),
    level(0, 5, 400, 0, false, 6, 70),
    level(0, 8, 500, 0, false, 8, 60),
    level(0, 21, 1000, 0, false, 8, 50),
];

impl Strength {
    /// Level `n` (1 to [`MAX_STRENGTH`]); `None` for 0, full strength.
    pub fn of(n: u8) -> Option<Strength> {
        LEVELS.get(usize::from(n).checked_sub(1)?).copied()
    }

    /// Lowers `limits` to what this level allows.
    pub fn limit(&self, limits: &mut Limits) {
        let cap = |given: Option<u64>, most: Option<u64>| match (given, most) {
            (Some(g), Some(m)) => Some(g.min(m)),
            (g, m) => g.or(m),
        };
        limits.nodes = cap(limits.nodes, self.nodes);
        limits.depth = cap(limits.depth.map(u64::from), self.depth.map(u64::from)).map(|d| d as u32);
        if self.nodes.is_none() {
            limits.move_time = Some(limits.move_time.map_or(self.move_time, |t| t.min(self.move_time)));
        }
        limits.handicap = limits.handicap.max(self.handicap);
        limits.caps_only = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_only_lower_what_was_asked() {
        assert_eq!(Strength::of(0), None);
        assert_eq!(Strength::of(MAX_STRENGTH + 1), None);
        let one = Strength::of(1).unwrap();
        let mut l = Limits { nodes: Some(1_000_000), handicap: 1, ..Limits::default() };
        one.limit(&mut l);
        assert_eq!((l.nodes, l.handicap, l.move_time), (Some(50), 3, None));
        let eight = Strength::of(8).unwrap();
        let mut l = Limits { depth: Some(4), move_time: Some(Duration::from_secs(5)), ..Limits::default() };
        eight.limit(&mut l);
        assert_eq!((l.depth, l.move_time, l.nodes), (Some(4), Some(Duration::from_secs(1)), None));
        // Each level allows at least as much as the one below it.
        for n in 1..MAX_STRENGTH {
            let (a, b) = (Strength::of(n).unwrap(), Strength::of(n + 1).unwrap());
            assert!(a.move_time <= b.move_time && a.handicap >= b.handicap && a.book_margin >= b.book_margin);
        }
    }
}
