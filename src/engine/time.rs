//! Time management: limits in, deadlines out, and one object that answers
//! "go on?" during a search.
//!
//! [`Limits`] (and the side to move's [`Clock`]) give two deadlines: a soft
//! one, checked after each iteration and stretched or shrunk by how stable
//! the best move is, and a hard one that stops the search wherever it is.
//! Clock budgets keep back the move overhead (what the GUI charges a move
//! beyond the engine's thinking) for every move still to pay for, and a
//! small safety margin, so that the engine never loses on time. A pondering
//! search has no deadline until the ponder hit; from then on the deadlines
//! count from the hit. The [`TimeManager`] of the main search thread holds
//! all of this.

use std::time::Duration;

use crate::base::clock::Instant;

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
    /// Lines to find with exact scores (multi-PV); 0 and 1 mean the best
    /// move's only.
    pub multipv: usize,
    /// A deliberate weakening for people to play against, 0 (none) to
    /// [`MAX_HANDICAP`]: how much of the capture resolution beyond the
    /// horizon the search leaves out (see `engine::search::quiesce`).
    pub handicap: u8,
    /// Deepest ply searched, extensions and capture resolution included
    /// (lidraughts' `level ply`); `None`: as deep as the search goes.
    pub ply: Option<u32>,
    /// The depth and node limits are a strength level's caps
    /// (`engine::strength`), not a request for a search of that size: the
    /// opening book still plays.
    pub caps_only: bool,
}

/// Strongest weakening `handicap` takes.
pub const MAX_HANDICAP: u8 = 3;

/// What a search gets when its limits say nothing at all.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(5);

/// Time kept back on every clock move for the operating system and the
/// engine's own answer, on top of the move overhead (what the GUI charges).
pub const SAFETY_MARGIN: Duration = Duration::from_millis(20);

/// Time the engine needs to stop and answer once it decides to; taken off a
/// move-time limit so that the answer arrives within it.
pub const STOP_LATENCY: Duration = Duration::from_millis(5);

/// Most moves a clock's time is planned over: when the control names more,
/// or in sudden death with the board full (see [`planned_moves`]).
const PLANNED_MOVES: f64 = 45.0;

/// Fewest moves a sudden-death clock is planned over, however few pieces
/// are left (endgames with kings last long).
const PLANNED_MOVES_ENDGAME: f64 = 20.0;

/// Moves a sudden-death clock's time is planned over with `pieces` on the
/// board: a game's length left shrinks as the pieces come off, so the
/// middle game and the endgame, where the game is decided, get a larger
/// share of what is left than the opening.
fn planned_moves(pieces: u32) -> f64 {
    (15.0 + 0.75 * f64::from(pieces)).clamp(PLANNED_MOVES_ENDGAME, PLANNED_MOVES)
}

/// Sudden death with increments short of the move overhead: the clock must
/// also pay the overhead of this many moves beyond the planned ones. Games
/// under a GUI that applies neither the 25-move nor the 16/5-move rule last
/// 150 moves a side and more.
const EXTRA_RESERVED_MOVES: f64 = 100.0;

/// Most of what is left on the clock that one move may take, unless the
/// move is the last before the next control.
const MAX_SHARE: f64 = 0.3;

/// A score drop (hundredths of a man) from one iteration to the next that
/// doubles the planned time; smaller drops stretch it in proportion.
const MAX_DROP: i32 = 100;

/// How far the best move's instability may stretch the planned time.
const MAX_STRETCH: f64 = 4.0;

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

/// The budgets for `limits` when every move also costs `overhead` beyond
/// the engine's thinking (the GUI's latency).
///
/// A clock is planned over [`planned_moves`] for the `pieces` on the board
/// (or the moves to the next control, when fewer than [`PLANNED_MOVES`]): what it holds, plus the increments to come, less
/// the overhead of every move it must still pay for. With no increment to
/// pay the overhead, that is [`EXTRA_RESERVED_MOVES`] more moves, so the
/// clock keeps a reserve that a long game does not exhaust. One move never
/// takes more than [`MAX_SHARE`] of what is left after its own overhead.
pub(crate) fn budget(limits: &Limits, overhead: Duration, pieces: u32) -> Budget {
    let mut b = Budget::default();
    if limits.infinite {
        return b;
    }
    if let Some(mt) = limits.move_time {
        // A move time is the GUI's allotment: use it up to the hard stop.
        b.hard = Some(mt.saturating_sub(STOP_LATENCY));
    }
    if let Some(c) = limits.clock {
        if c.time <= 0.0 || c.time.is_nan() {
            b.instant = true;
            return b;
        }
        let time = c.time.min(MAX_SECONDS);
        let inc = if c.inc.is_nan() { 0.0 } else { c.inc.clamp(0.0, MAX_SECONDS) };
        let o = overhead.as_secs_f64();
        // The increment is credited before this move, so the clock holds time + inc.
        let on_clock = time + inc;
        let avail = on_clock - o - SAFETY_MARGIN.as_secs_f64();
        if avail < 0.005 {
            b.instant = true;
            return b;
        }
        let last_before_control = c.moves_to_go == Some(1);
        let planned = match c.moves_to_go {
            Some(n) if n > 0 => f64::from(n).min(PLANNED_MOVES),
            _ => planned_moves(pieces),
        };
        let reserved = match c.moves_to_go {
            Some(n) if n > 0 => planned,
            _ if inc >= o => planned,
            _ => planned + EXTRA_RESERVED_MOVES * (1.0 - inc / o),
        };
        let pool = on_clock + inc * (planned - 1.0) - o * reserved;
        let cap = if last_before_control { avail } else { avail * MAX_SHARE };
        let hard = (pool.max(0.0) / planned * MAX_STRETCH).min(cap).max(0.001);
        let soft = (pool.max(0.0) / planned).min(hard).max(0.001);
        b.soft = Some(b.soft.map_or(saturating_duration(soft), |s| s.min(saturating_duration(soft))));
        b.hard = Some(b.hard.map_or(saturating_duration(hard), |h| h.min(saturating_duration(hard))));
    }
    if limits.is_unbounded() {
        b.soft = Some(DEFAULT_MOVE_TIME);
        b.hard = Some(DEFAULT_MOVE_TIME);
    }
    b
}

/// A time this long (about 31 years) is forever.
pub const MAX_SECONDS: f64 = 1e9;

/// The duration of `secs` seconds, saturating: below zero is zero, beyond
/// [`MAX_SECONDS`] (or NaN) is [`MAX_SECONDS`]. A clock of years (a GUI's
/// "untimed") is as good as forever.
pub fn saturating_duration(secs: f64) -> Duration {
    if secs.is_nan() {
        return Duration::from_secs_f64(MAX_SECONDS);
    }
    Duration::from_secs_f64(secs.clamp(0.0, MAX_SECONDS))
}

/// What a GUI really charges a move beyond the engine's thinking, measured
/// from the clocks it reports. The `move-overhead` a user sets (100 ms by
/// default) must cover the slowest GUI, and the time manager keeps it back
/// on every move; under a GUI that charges a few milliseconds that is most
/// of a 0.1 s increment lost each move. A GUI that sends the side's clock
/// at every move shows what it charged: the clock before the move plus the
/// increment, less the engine's thinking, less the clock it reports one
/// move later. Once [`LATENCY_SAMPLES`] moves agree, the overhead kept back
/// is the worst of them with a margin, never more than the one configured;
/// a clock that grew (a new control's time, a GUI that resends the same
/// clock) is no measurement and is skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatencyMeter {
    samples: u32,
    /// The largest charge seen, seconds.
    worst: f64,
}

/// Moves measured before the measurement replaces the configured overhead.
pub const LATENCY_SAMPLES: u32 = 2;

/// A clock this much above what the move could leave (seconds) was not the
/// same clock running on: a new control's time, or a GUI that does not keep
/// one. Smaller gaps are rounding and count as no charge at all.
const LATENCY_TOLERANCE: f64 = 0.05;

/// The margin on the worst charge seen: half of it again, and at least this.
const LATENCY_MARGIN: Duration = Duration::from_millis(10);

impl LatencyMeter {
    /// One move under a clock: the GUI gave `before` (the side's time and
    /// increment) for the move, the engine thought `think`, and one move
    /// later the GUI reports `after` seconds on the same side's clock.
    pub fn observe(&mut self, before: &Clock, think: Duration, after: f64) {
        let inc = if before.inc.is_finite() { before.inc } else { 0.0 };
        let charged = before.time + inc - think.as_secs_f64() - after;
        if !charged.is_finite() || charged < -LATENCY_TOLERANCE {
            return;
        }
        self.samples += 1;
        self.worst = self.worst.max(charged);
    }

    /// The overhead to keep back on each move: the `configured` one until
    /// the GUI's clocks have been measured, then the worst measured charge
    /// with a margin, if that is less.
    pub fn overhead(&self, configured: Duration) -> Duration {
        if self.samples < LATENCY_SAMPLES {
            return configured;
        }
        let worst = saturating_duration(self.worst);
        (worst + (worst / 2).max(LATENCY_MARGIN)).min(configured)
    }
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
    /// The deadlines of a search under `limits` that started at `start`,
    /// when every move costs `overhead` beyond the engine's thinking and
    /// the board holds `pieces`.
    pub(crate) fn new(limits: &Limits, overhead: Duration, start: Instant, pieces: u32) -> TimeManager {
        TimeManager {
            start,
            budget: budget(limits, overhead, pieces),
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
    /// many iterations in a row kept the same best move and how far the
    /// score fell since the iteration before (hundredths of a man; 0 when
    /// it rose).
    pub(crate) fn iteration_done(
        &self,
        control: &SearchControl,
        stable_iterations: u32,
        score_drop: i32,
    ) -> bool {
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
        // A falling score means trouble the last iteration just saw: up to
        // twice the time to find a way out (a drop of a man or more).
        let factor = factor * (1.0 + f64::from(score_drop.clamp(0, MAX_DROP)) / f64::from(MAX_DROP));
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

    const OVERHEAD: Duration = Duration::from_millis(100);
    const FULL: u32 = 40;

    fn clock(time: f64, inc: f64) -> Limits {
        Limits { clock: Some(Clock { time, inc, moves_to_go: None }), ..Limits::default() }
    }

    #[test]
    fn budgets_stay_within_the_clock() {
        for &(t, inc) in
            &[(0.1, 0.0), (1.0, 0.0), (60.0, 0.0), (5.0, 1.0), (0.2, 0.0), (300.0, 3.0), (0.05, 2.0)]
        {
            for overhead in [Duration::ZERO, OVERHEAD] {
                let b = budget(&clock(t, inc), overhead, FULL);
                if let Some(h) = b.hard {
                    let left = t + inc - overhead.as_secs_f64() - SAFETY_MARGIN.as_secs_f64();
                    assert!(h.as_secs_f64() <= left * MAX_SHARE + 1e-9, "{t} {inc}");
                    assert!(b.soft.unwrap() <= h);
                }
            }
        }
    }

    #[test]
    fn no_time_means_instant() {
        assert!(budget(&clock(0.0, 0.0), OVERHEAD, FULL).instant);
        assert!(budget(&clock(-3.0, 1.0), OVERHEAD, FULL).instant);
        assert!(budget(&clock(0.015, 0.0), OVERHEAD, FULL).instant);
        assert!(!budget(&clock(0.05, 0.0), Duration::ZERO, FULL).instant);
    }

    #[test]
    fn huge_clocks_saturate() {
        for (t, inc) in [(1e21, 0.0), (1.0, 1e300), (f64::INFINITY, f64::INFINITY)] {
            let b = budget(&clock(t, inc), OVERHEAD, FULL);
            assert!(!b.instant && b.hard.is_some());
        }
    }

    /// A minute of sudden death with 100 ms charged on every move lasts
    /// well beyond the 200 moves a side of a long game, even if the engine
    /// always used its hard limit.
    #[test]
    fn sudden_death_keeps_a_reserve() {
        let mut left = 60.0;
        let mut moves = 0;
        while left > 0.0 && moves < 1000 {
            let b = budget(&clock(left, 0.0), OVERHEAD, FULL);
            let used = if b.instant { 0.002 } else { b.soft.unwrap().as_secs_f64() };
            left -= used + OVERHEAD.as_secs_f64();
            moves += 1;
        }
        assert!(moves > 250, "the clock ran out after {moves} moves");
        // And early on it does think.
        assert!(budget(&clock(60.0, 0.0), OVERHEAD, FULL).soft.unwrap() > Duration::from_millis(500));
    }

    #[test]
    fn the_last_move_before_a_control_may_use_the_clock() {
        let l =
            Limits { clock: Some(Clock { time: 10.0, inc: 0.0, moves_to_go: Some(1) }), ..Limits::default() };
        let b = budget(&l, OVERHEAD, FULL);
        assert!(b.hard.unwrap() > Duration::from_secs(5) && b.hard.unwrap() < Duration::from_secs(10));
    }

    /// Sudden death: fewer pieces, a larger share of the clock a move, but
    /// never beyond the endgame's planned moves.
    #[test]
    fn the_share_grows_as_pieces_come_off() {
        let soft = |pieces| budget(&clock(60.0, 0.0), Duration::ZERO, pieces).soft.unwrap();
        assert!(soft(40) < soft(24) && soft(24) < soft(8));
        assert_eq!(soft(6), soft(2));
        // A control with moves to go plans over them, whatever the pieces.
        let l = Limits {
            clock: Some(Clock { time: 60.0, inc: 0.0, moves_to_go: Some(30) }),
            ..Limits::default()
        };
        assert_eq!(budget(&l, Duration::ZERO, 40).soft, budget(&l, Duration::ZERO, 10).soft);
    }

    #[test]
    fn the_latency_meter_measures_what_the_gui_charges() {
        let configured = Duration::from_millis(100);
        let before = Clock { time: 10.0, inc: 0.1, moves_to_go: None };
        let mut m = LatencyMeter::default();
        // One move: not yet trusted.
        m.observe(&before, Duration::from_millis(300), 9.798);
        assert_eq!(m.overhead(configured), configured);
        // A second charge of 2 ms: the worst with its margin of 10 ms.
        m.observe(&Clock { time: 9.798, ..before }, Duration::from_millis(250), 9.646);
        let o = m.overhead(configured);
        assert!(o > Duration::from_millis(11) && o < Duration::from_millis(13), "{o:?}");
        // A GUI that charges 40 ms a move (GWDGUI): 60 ms kept back.
        m.observe(&before, Duration::from_millis(300), 10.1 - 0.3 - 0.04);
        let o = m.overhead(configured);
        assert!(o > Duration::from_millis(59) && o < Duration::from_millis(61), "{o:?}");
        // Never more than the configured overhead.
        m.observe(&before, Duration::from_millis(300), 9.0);
        assert_eq!(m.overhead(configured), configured);
    }

    #[test]
    fn a_clock_that_grew_is_no_measurement() {
        let before = Clock { time: 10.0, inc: 0.0, moves_to_go: Some(1) };
        let mut m = LatencyMeter::default();
        // A new control's time, and a GUI that resends the same clock.
        m.observe(&before, Duration::from_millis(500), 600.0);
        m.observe(&before, Duration::from_millis(500), 10.0);
        m.observe(&Clock { time: f64::NAN, ..before }, Duration::ZERO, 10.0);
        assert_eq!(m.overhead(Duration::from_millis(100)), Duration::from_millis(100));
        // Rounding a little below what the move left counts as no charge.
        m.observe(&before, Duration::from_millis(500), 9.52);
        m.observe(&before, Duration::from_millis(500), 9.5);
        assert_eq!(m.overhead(Duration::from_millis(100)), LATENCY_MARGIN);
    }

    #[test]
    fn move_time_is_hard() {
        let l = Limits { move_time: Some(Duration::from_millis(50)), ..Limits::default() };
        assert_eq!(budget(&l, OVERHEAD, FULL).hard, Some(Duration::from_millis(45)));
    }

    #[test]
    fn nothing_given_means_a_default() {
        assert_eq!(budget(&Limits::default(), OVERHEAD, FULL).hard, Some(DEFAULT_MOVE_TIME));
        let l = Limits { depth: Some(3), ..Limits::default() };
        assert_eq!(budget(&l, OVERHEAD, FULL).hard, None);
    }
}
