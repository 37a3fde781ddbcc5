//! Search limits and time budgets.
//!
//! A clock gives two budgets: a soft one, checked after each iteration and
//! stretched or shrunk by how stable the best move is, and a hard one that
//! stops the search wherever it is. Both keep a safety margin so that the
//! engine never loses on time, whatever the GUI charges for its own overhead.

use std::time::Duration;

/// The clock of the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// Seconds left, not counting this move's increment. May be zero or negative.
    pub time: f64,
    /// Seconds added before each move.
    pub inc: f64,
    /// Moves until the next time control, if the control has one.
    pub moves_to_go: Option<u32>,
}

/// What ends a search. Several limits combine: the first one reached stops it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Deepest iteration to search.
    pub depth: Option<u32>,
    /// Nodes over all threads.
    pub nodes: Option<u64>,
    /// Time for this move: a hard limit.
    pub move_time: Option<Duration>,
    /// Clock-based timing.
    pub clock: Option<Clock>,
    /// Search until stopped.
    pub infinite: bool,
    /// Pondering: no time limit until a ponder hit, then the timing applies
    /// from that moment.
    pub ponder: bool,
    /// Analysis: never play a forced move at once, always search.
    pub analysis: bool,
}

/// What a search gets when its limits say nothing at all.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(5);

/// Time kept back on every move for the GUI's and the operating system's
/// overhead (GWDGUI charges about 40 ms a move to the engine).
pub const SAFETY_MARGIN: Duration = Duration::from_millis(60);

/// Time the engine needs to stop and answer once it decides to; taken off a
/// move-time limit so that the answer arrives within it.
pub const STOP_LATENCY: Duration = Duration::from_millis(5);

impl Limits {
    /// Whether no limit at all was given (the engine then uses [`DEFAULT_MOVE_TIME`]).
    pub fn is_unbounded(&self) -> bool {
        self.depth.is_none()
            && self.nodes.is_none()
            && self.move_time.is_none()
            && self.clock.is_none()
            && !self.infinite
    }
}

/// Time budgets for one search, measured from its start (or from the ponder hit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Budget {
    /// Stop after an iteration once this much time, scaled by stability, is used.
    pub soft: Option<Duration>,
    /// Stop at once when this much time is used.
    pub hard: Option<Duration>,
    /// Answer at once: there is no time to think.
    pub instant: bool,
}

/// Expected moves still to play by the side to move, from the men left.
fn moves_left(men: u32) -> f64 {
    10.0 + 20.0 * f64::from(men.min(40)) / 40.0
}

/// The budgets for `limits` in a position with `men` men on the board.
pub fn budget(limits: &Limits, men: u32) -> Budget {
    let mut b = Budget::default();
    if limits.infinite {
        return b;
    }
    if let Some(mt) = limits.move_time {
        // A move time is the GUI's allotment: use it up to the hard stop.
        b.hard = Some(mt.saturating_sub(STOP_LATENCY));
    }
    if let Some(c) = limits.clock {
        if c.time <= 0.0 || !c.time.is_finite() {
            b.instant = true;
            return b;
        }
        let inc = if c.inc.is_finite() { c.inc.max(0.0) } else { 0.0 };
        // The increment is credited before this move, so the clock holds time + inc.
        let on_clock = c.time + inc;
        let usable = (on_clock - SAFETY_MARGIN.as_secs_f64()).max(0.0);
        let left = match c.moves_to_go {
            Some(n) if n > 0 => f64::from(n).min(moves_left(men)),
            _ => moves_left(men),
        };
        let per_move = (c.time + inc * left) / left;
        let soft = (per_move * 1.0).min(usable * 0.4);
        let hard = (soft * 4.0).min(usable * 0.8);
        if usable < 0.005 {
            b.instant = true;
            return b;
        }
        let secs = |s: f64| Duration::from_secs_f64(s.max(0.001));
        b.soft = Some(b.soft.map_or(secs(soft), |s| s.min(secs(soft))));
        b.hard = Some(b.hard.map_or(secs(hard), |h| h.min(secs(hard))));
    }
    if limits.is_unbounded() {
        b.soft = Some(DEFAULT_MOVE_TIME);
        b.hard = Some(DEFAULT_MOVE_TIME);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(time: f64, inc: f64) -> Limits {
        Limits { clock: Some(Clock { time, inc, moves_to_go: None }), ..Limits::default() }
    }

    #[test]
    fn budgets_stay_within_the_clock() {
        for &(t, inc) in &[(0.1, 0.0), (1.0, 0.0), (60.0, 0.0), (5.0, 1.0), (0.07, 0.0), (300.0, 3.0)] {
            let b = budget(&clock(t, inc), 40);
            if let Some(h) = b.hard {
                assert!(h.as_secs_f64() <= t + inc - SAFETY_MARGIN.as_secs_f64() + 1e-9, "{t} {inc}");
                assert!(b.soft.unwrap() <= h);
            }
        }
    }

    #[test]
    fn no_time_means_instant() {
        assert!(budget(&clock(0.0, 0.0), 40).instant);
        assert!(budget(&clock(-3.0, 1.0), 40).instant);
        assert!(budget(&clock(0.02, 0.0), 40).instant);
    }

    #[test]
    fn move_time_is_hard() {
        let l = Limits { move_time: Some(Duration::from_millis(50)), ..Limits::default() };
        assert_eq!(budget(&l, 40).hard, Some(Duration::from_millis(45)));
    }

    #[test]
    fn nothing_given_means_a_default() {
        assert_eq!(budget(&Limits::default(), 40).hard, Some(DEFAULT_MOVE_TIME));
        let l = Limits { depth: Some(3), ..Limits::default() };
        assert_eq!(budget(&l, 40).hard, None);
    }
}
