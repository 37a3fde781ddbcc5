//! Time management: limits in, deadlines out, and one object that answers
//! "go on?" during a search.
//!
//! [`Limits`] (and the side to move's [`Clock`]) give two deadlines: a soft
//! one, checked after each iteration and stretched or shrunk by how stable
//! the best move is, and a hard one that stops the search wherever it is.
//! Both keep a safety margin so that the engine never loses on time, whatever
//! the GUI charges for its own overhead. A pondering search has no deadline
//! until the ponder hit; from then on the deadlines count from the hit. The
//! [`TimeManager`] of the main search thread holds all of this.

use std::time::{Duration, Instant};

use crate::engine::control::SearchControl;

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
pub(crate) struct Budget {
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
pub(crate) fn budget(limits: &Limits, men: u32) -> Budget {
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
        // A clock of years (a GUI's "untimed") is as good as a billion seconds.
        let secs = |s: f64| Duration::from_secs_f64(s.clamp(0.001, 1e9));
        b.soft = Some(b.soft.map_or(secs(soft), |s| s.min(secs(soft))));
        b.hard = Some(b.hard.map_or(secs(hard), |h| h.min(secs(hard))));
    }
    if limits.is_unbounded() {
        b.soft = Some(DEFAULT_MOVE_TIME);
        b.hard = Some(DEFAULT_MOVE_TIME);
    }
    b
}

/// What the time manager says while a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Pondering before the hit: no deadline applies yet.
    Pondering,
    /// The hard deadline has passed: stop now.
    Stop,
    /// Go on.
    GoOn,
}

/// The deadlines of one search, kept by its main thread.
#[derive(Debug)]
pub(crate) struct TimeManager {
    /// When the deadlines started counting: the search's start, or the
    /// ponder hit.
    start: Instant,
    budget: Budget,
    /// Pondering and no hit yet.
    pondering: bool,
    /// Infinite analysis and pondering answer only when told to: `Some(true)`
    /// when a ponder hit is enough (pondering within limits), `Some(false)`
    /// when only a stop is (infinite).
    answer_when_told: Option<bool>,
}

impl TimeManager {
    /// The deadlines of a search under `limits` that started at `start`, in
    /// a position with `men` men.
    pub(crate) fn new(limits: &Limits, men: u32, start: Instant) -> TimeManager {
        TimeManager {
            start,
            budget: budget(limits, men),
            pondering: limits.ponder,
            answer_when_told: (limits.infinite || limits.ponder).then_some(limits.ponder && !limits.infinite),
        }
    }

    /// Whether there is no time to think at all: one iteration, then answer.
    pub(crate) fn instant(&self) -> bool {
        self.budget.instant
    }

    /// Checked every few thousand nodes: takes a ponder hit into account
    /// (the deadlines count from it) and says whether the hard deadline has
    /// passed.
    pub(crate) fn check(&mut self, control: &SearchControl) -> Verdict {
        if self.pondering {
            if !control.is_ponder_hit() {
                return Verdict::Pondering;
            }
            self.pondering = false;
            self.start = Instant::now();
        }
        if self.budget.hard.is_some_and(|h| self.start.elapsed() >= h) {
            Verdict::Stop
        } else {
            Verdict::GoOn
        }
    }

    /// Checked after each iteration: whether not to start another, given how
    /// many iterations in a row kept the same best move.
    pub(crate) fn iteration_done(&self, control: &SearchControl, stable_iterations: u32) -> bool {
        if self.pondering && !control.is_ponder_hit() {
            return false;
        }
        let Some(soft) = self.budget.soft else { return false };
        // A best move that keeps changing earns more time, a settled one less.
        let factor = match stable_iterations {
            0 => 1.6,
            1 => 1.2,
            2 => 1.0,
            3 => 0.8,
            _ => 0.6,
        };
        let elapsed = self.start.elapsed().as_secs_f64();
        let soft = soft.as_secs_f64() * factor;
        let hard = self.budget.hard.map_or(f64::INFINITY, |h| h.as_secs_f64());
        // The next iteration takes a few times as long as this one: don't start
        // one that cannot finish before the hard limit.
        elapsed >= soft || elapsed * 2.5 >= hard.max(soft)
    }

    /// Called when the search has nothing more to do: infinite analysis and
    /// pondering answer only when told to (a stop, or for pondering the hit).
    pub(crate) fn hold(&self, control: &SearchControl) {
        if let Some(hit_releases) = self.answer_when_told {
            control.wait(hit_releases);
        }
    }
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
