//! `dammer match`: engine-vs-engine matches, gauntlets and round robins
//! between Hub engines, with clocks kept by the runner, adjudication by
//! Dammer's rules, PDN output and match statistics.
//!
//! Each worker thread owns one process per engine and plays whole games;
//! the calling thread collects finished games, writes the PDN, keeps the
//! tallies and decides when to stop (all games played, SPRT decided, or
//! Ctrl-C). Progress goes out through a callback: the runner never prints.

pub mod cli;
pub mod client;
pub mod dxp_peer;
pub mod player;
pub mod stats;

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::base::duration::format_duration;
use crate::engine::options;
use crate::rules::game::{DrawReason, Game, GameResult};
use crate::rules::movegen::Move;
use crate::rules::openings::Opening;
use crate::rules::pdn::{self, PdnResult};
use crate::rules::position::{Color, Position};
use crate::rules::variant::Variant;
use client::{Budget, EngineError, EngineSpec};
use player::Player;
use stats::{Sprt, SprtVerdict, Tally};

/// How much time the engines get.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeControl {
    /// A fixed time per move, in seconds.
    MoveTime(f64),
    /// A game clock: `time` seconds (for every `moves` moves when given),
    /// plus `inc` seconds added before each move.
    Clock {
        /// Moves per period (None: the whole game).
        moves: Option<u32>,
        /// Seconds per period.
        time: f64,
        /// Seconds added each move.
        inc: f64,
    },
}

impl TimeControl {
    /// Reads `[moves/]time[+inc]` in seconds: `60`, `10+0.1`, `40/120`, `40/120+1`.
    pub fn parse_clock(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("bad time control {text:?} (expected [moves/]seconds[+increment], e.g. 10+0.1)");
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => (Some(m.trim().parse::<u32>().ok().filter(|&m| m > 0).ok_or_else(bad)?), rest),
            None => (None, text),
        };
        let (time, inc) = match rest.split_once('+') {
            Some((t, i)) => (t, i),
            None => (rest, "0"),
        };
        // Times beyond a billion seconds saturate: such a clock is forever.
        let time = options::think_time("time", time).map_err(|e| format!("{}: {e}", bad()))?.as_secs_f64();
        let inc = options::seconds("increment", inc).map_err(|e| format!("{}: {e}", bad()))?;
        Ok(TimeControl::Clock { moves, time, inc })
    }

    /// As the PDN TimeControl tag writes it.
    pub fn pdn(&self) -> String {
        match *self {
            TimeControl::MoveTime(t) => format!("{t}s/move"),
            TimeControl::Clock { moves, time, inc } => {
                let mut s = moves.map(|m| format!("{m}/")).unwrap_or_default();
                s.push_str(&format!("{time}"));
                if inc > 0.0 {
                    s.push_str(&format!("+{inc}"));
                }
                s
            }
        }
    }
}

/// Draw adjudication: after `after_ply` plies, both engines' scores within
/// +-`score` men for `moves` consecutive moves each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawAdjudication {
    /// First ply at which a draw may be adjudicated.
    pub after_ply: usize,
    /// Largest absolute score (men) counted as drawn.
    pub score: f64,
    /// Consecutive moves of each engine.
    pub moves: u32,
}

/// Resign adjudication: a side loses when its engine reports at most
/// -`score` and its opponent at least +`score`, for `moves` moves each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResignAdjudication {
    /// Score (men) that counts as lost.
    pub score: f64,
    /// Consecutive moves of each engine.
    pub moves: u32,
}

/// Which draw rules end a game: every FMJD rule, or threefold repetition
/// only, as some GUIs play (long king endings then go on to the maximum game
/// length). Engines that declare the Hub parameter `draw-rules` are told.
pub use crate::rules::game::DrawRules;

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Two or more engines.
    pub engines: Vec<EngineSpec>,
    /// The first engine plays all others (else every pair plays).
    pub gauntlet: bool,
    /// Time control.
    pub tc: TimeControl,
    /// Extra time an engine may take before it loses on time.
    pub margin: Duration,
    /// Charged to a clock on every move on top of the time the engine took,
    /// as a GUI's latency is (clock time controls only).
    pub gui_overhead: Duration,
    /// The draw rules applied.
    pub draw_rules: DrawRules,
    /// Openings, each played twice with colours swapped.
    pub openings: Vec<Opening>,
    /// Games per pairing (default: every opening with both colours).
    pub games: Option<usize>,
    /// Games played at once.
    pub concurrency: usize,
    /// PDN file the games are appended to.
    pub pdn: Option<PathBuf>,
    /// Count the games the PDN file already holds (of this same match) and
    /// play only the rest: a long match or SPRT goes on where it stopped.
    pub resume: bool,
    /// Play only shard `K/N` of the schedule (`(1, 1)`: all of it): the
    /// opening pairs whose number is `K - 1` modulo `N`.
    pub shard: (u32, u32),
    /// Adjudicate a draw after this many plies (from the opening position).
    pub max_plies: Option<usize>,
    /// Optional draw adjudication by scores.
    pub draw: Option<DrawAdjudication>,
    /// Optional resign adjudication by scores.
    pub resign: Option<ResignAdjudication>,
    /// Stop a two-engine match when this test decides.
    pub sprt: Option<Sprt>,
    /// The PDN Event tag.
    pub event: String,
    /// The game played (engines other than Hub ones play only the
    /// international game).
    pub variant: Variant,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Drawn.
    Draw,
}

impl Outcome {
    /// `2-0`, `0-2` or `1-1`.
    pub fn pdn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "2-0",
            Outcome::BlackWins => "0-2",
            Outcome::Draw => "1-1",
        }
    }

    /// The outcome a game read back from PDN names.
    fn of_pdn(result: PdnResult) -> Outcome {
        match result {
            PdnResult::Win(Color::White) => Outcome::WhiteWins,
            PdnResult::Win(Color::Black) => Outcome::BlackWins,
            PdnResult::Draw => Outcome::Draw,
        }
    }

    fn loss_for(side: Color) -> Outcome {
        match side {
            Color::White => Outcome::BlackWins,
            Color::Black => Outcome::WhiteWins,
        }
    }
}

/// One scheduled game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Job {
    /// 1-based game number.
    number: usize,
    /// Index into the pairings.
    pairing: usize,
    white: usize,
    black: usize,
    opening: usize,
    /// Which opening pair (same opening, colours swapped) this game belongs to.
    pair_key: usize,
}

/// How a game was lost other than on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forfeit {
    /// No move within the time.
    Time,
    /// A crash, an illegal move or a failed start.
    Failure,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// 1-based game number.
    pub number: usize,
    /// Engine indices.
    pub white: usize,
    /// Engine indices.
    pub black: usize,
    /// Result.
    pub outcome: Outcome,
    /// Why it ended (the PDN Termination tag).
    pub termination: String,
    /// Start position.
    pub start: Position,
    /// Moves with their comments (score/depth and time of engine moves).
    pub moves: Vec<(Move, Option<String>)>,
    /// Engine failures during the game (illegal move, crash, time-out).
    pub faults: Vec<String>,
    /// The engine that lost by a fault, and whether on time.
    pub forfeit: Option<(usize, Forfeit)>,
    /// Moves on which the engine waited at least [`STALL_WORTH_COUNTING`]
    /// for a CPU (not charged to its clock), with that wait.
    pub stalls: Vec<Duration>,
    /// Each engine move: the engine, its move number in the game (counted
    /// from the opening's end), and the time charged, seconds.
    pub think: Vec<(usize, u32, f64)>,
    pairing: usize,
}

/// The results of one pairing, from the first engine's side.
#[derive(Clone, Debug)]
pub struct PairingResult {
    /// Engine index.
    pub first: usize,
    /// Engine index.
    pub second: usize,
    /// Results for `first`.
    pub tally: Tally,
}

/// What a run returns.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Per pairing.
    pub pairings: Vec<PairingResult>,
    /// Engine names.
    pub names: Vec<String>,
    /// Games finished.
    pub games: usize,
    /// Games scheduled.
    pub scheduled: usize,
    /// The run was stopped early by Ctrl-C.
    pub interrupted: bool,
    /// The SPRT's verdict when one was run.
    pub sprt: Option<(SprtVerdict, f64)>,
    /// Faults seen (engine, what happened).
    pub faults: Vec<String>,
    /// Games lost on time, per engine.
    pub time_forfeits: Vec<u32>,
    /// Games lost by a crash, an illegal move or a failed start, per engine.
    pub failures: Vec<u32>,
    /// Moves on which an engine waited for a CPU at least
    /// [`STALL_WORTH_COUNTING`] (not charged), and the longest such wait.
    pub stalls: (u64, Duration),
    /// Time charged per move, per engine, by move number.
    pub think: Vec<ThinkTable>,
    /// Games played on past a point where an FMJD draw rule other than
    /// repetition had drawn them (under `--draw-rules repetition`).
    pub past_draws: PastDraws,
    /// Wall time.
    pub elapsed: Duration,
    /// Games counted from the PDN file of an earlier run (`resume`); the
    /// think times and stalls are this run's only.
    pub resumed: usize,
}

/// The move numbers [`ThinkTable`] groups moves by: each range starts at
/// its number and runs to the next one less one; the last runs on.
pub const THINK_RANGES: [u32; 7] = [1, 6, 11, 21, 31, 41, 61];

/// One engine's thinking time per move, grouped by its move number in
/// the game: how the time manager spends a clock over a game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThinkTable {
    /// Per range of [`THINK_RANGES`]: moves, seconds in all, longest.
    pub ranges: [(u64, f64, f64); THINK_RANGES.len()],
}

impl ThinkTable {
    /// Counts one move.
    pub fn add(&mut self, move_number: u32, seconds: f64) {
        let i = THINK_RANGES.iter().rposition(|&start| move_number >= start).unwrap_or(0);
        let r = &mut self.ranges[i];
        r.0 += 1;
        r.1 += seconds;
        r.2 = r.2.max(seconds);
    }

    /// Moves, seconds in all and the longest, over every range.
    pub fn total(&self) -> (u64, f64, f64) {
        self.ranges.iter().fold((0, 0.0, 0.0), |(n, t, m), r| (n + r.0, t + r.1, m.max(r.2)))
    }
}

/// The pairings (first, second) a run plays.
fn pairings(cfg: &Config) -> Vec<(usize, usize)> {
    let n = cfg.engines.len();
    if cfg.gauntlet {
        (1..n).map(|j| (0, j)).collect()
    } else {
        (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect()
    }
}

fn schedule(cfg: &Config) -> Vec<Job> {
    let pairs = pairings(cfg);
    let per_pairing = cfg.games.unwrap_or(2 * cfg.openings.len());
    let mut jobs = Vec::with_capacity(per_pairing * pairs.len());
    for g in 0..per_pairing {
        for (p, &(a, b)) in pairs.iter().enumerate() {
            let (white, black) = if g % 2 == 0 { (a, b) } else { (b, a) };
            jobs.push(Job {
                number: jobs.len() + 1,
                pairing: p,
                white,
                black,
                opening: (g / 2) % cfg.openings.len(),
                pair_key: g / 2,
            });
        }
    }
    jobs
}

/// Whether `job` is one of shard `(k, n)`'s: its opening pair's number is
/// `k - 1` modulo `n`, so both games of a pair are in the same shard and
/// each shard's pentanomial count stands on its own.
fn in_shard(job: &Job, (k, n): (u32, u32)) -> bool {
    n <= 1 || job.pair_key % n as usize == (k as usize).saturating_sub(1)
}

/// Checks every engine once (start, `init`, quit) so that a wrong command
/// line is one clear error before any game is played. An engine listening
/// for DXP is not connected to, only its address resolved: a DXP server
/// such as Scan's serves one connection and exits when it closes, so a
/// trial connection would leave no engine for the games.
pub fn check_engines(cfg: &Config) -> Result<(), String> {
    let stop = AtomicBool::new(false);
    for spec in &cfg.engines {
        if let client::Protocol::DxpConnect(addr) = &spec.protocol {
            use std::net::ToSocketAddrs;
            match addr.to_socket_addrs().map(|mut a| a.next()) {
                Ok(Some(_)) => continue,
                Ok(None) => return Err(format!("engine {} (dxp-connect={addr}): no address", spec.name)),
                Err(e) => return Err(format!("engine {} (dxp-connect={addr}): bad address: {e}", spec.name)),
            }
        }
        match Player::start(spec, &stop) {
            Ok(Player::Hub(e)) => e.quit(),
            // No GAMEEND with stop code 1: some DXP engines exit on it. The
            // connection just closes (a started engine is ended).
            Ok(Player::Dxp(d)) => drop(d),
            Err(e) => {
                let what = match &spec.protocol {
                    client::Protocol::DxpConnect(addr) => format!("dxp-connect={addr}"),
                    _ => spec.command.join(" "),
                };
                return Err(format!("engine {} ({what}): {e}", spec.name));
            }
        }
    }
    Ok(())
}

/// Plays the whole run. `progress` receives one line per event.
pub fn run(cfg: &Config, progress: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    if cfg.engines.len() < 2 {
        return Err("a match needs at least two engines".into());
    }
    if cfg.engines.iter().any(|e| e.protocol.is_dxp()) {
        player::dxp_clock(&cfg.tc)?;
    }
    if cfg.concurrency > 1
        && cfg.engines.iter().any(|e| matches!(e.protocol, client::Protocol::DxpConnect(_)))
    {
        return Err("an engine reached with dxp-connect= plays one game at a time (DXP servers serve one \
                    connection): use --concurrency 1"
            .into());
    }
    let mut pdn_file = match &cfg.pdn {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?,
        ),
        None => None,
    };
    let pairs = pairings(cfg);
    let jobs = schedule(cfg);
    let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
    // Games of an earlier run of this match, read before the file is
    // opened for appending.
    let resumed = match (&cfg.pdn, cfg.resume) {
        (Some(path), true) => resumed_games(cfg, &jobs, &names, path)?,
        _ => Vec::new(),
    };
    let mut summary = Summary {
        pairings: pairs
            .iter()
            .map(|&(first, second)| PairingResult { first, second, tally: Tally::default() })
            .collect(),
        names: names.clone(),
        games: 0,
        scheduled: jobs.iter().filter(|j| in_shard(j, cfg.shard)).count(),
        interrupted: false,
        sprt: None,
        faults: Vec::new(),
        time_forfeits: vec![0; names.len()],
        failures: vec![0; names.len()],
        stalls: (0, Duration::ZERO),
        think: vec![ThinkTable::default(); names.len()],
        past_draws: PastDraws::default(),
        elapsed: Duration::ZERO,
        resumed: 0,
    };
    let started = Instant::now();
    let stop = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<GameRecord>();
    // Half points of the first game of each opening pair, per pairing.
    let mut half_pairs: HashMap<(usize, usize), u8> = HashMap::new();
    for r in &resumed {
        count_game(&mut summary, &mut half_pairs, &jobs[r.number - 1], r.outcome, r.forfeit);
        if let Some(past) = &r.past {
            count_past_draw(&mut summary, r.number, r.outcome, past);
        }
    }
    let done: std::collections::HashSet<usize> = resumed.iter().map(|r| r.number).collect();
    let todo: Vec<Job> =
        jobs.iter().filter(|j| !done.contains(&j.number) && in_shard(j, cfg.shard)).copied().collect();
    if !resumed.is_empty() {
        let file = cfg.pdn.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
        let totals: Vec<String> = summary
            .pairings
            .iter()
            .map(|p| {
                let t = &p.tally;
                format!("{} vs {}: +{} ={} -{}", names[p.first], names[p.second], t.wins, t.draws, t.losses)
            })
            .collect();
        progress(&format!(
            "resumed {} games from {file} ({}); {} to play",
            resumed.len(),
            totals.join(", "),
            todo.len()
        ));
        summary.resumed = resumed.len();
        if sprt_decided(cfg, &mut summary) {
            if let Some((verdict, llr)) = summary.sprt {
                progress(&format!("SPRT already decided ({verdict:?}, LLR {llr:.2}): no game to play"));
            }
            summary.elapsed = started.elapsed();
            return Ok(summary);
        }
    }
    let mut played = 0usize;
    let date = pdn::today();
    std::thread::scope(|scope| {
        for w in 0..cfg.concurrency.clamp(1, todo.len().max(1)) {
            let tx = tx.clone();
            let (jobs, next, stop) = (&todo, &next, &stop);
            let spawned = std::thread::Builder::new()
                .name(format!("dammer-match-{w}"))
                .spawn_scoped(scope, move || worker(cfg, jobs, next, stop, &tx));
            if let Err(e) = spawned {
                progress(&format!("could not start worker {w}: {e}"));
            }
        }
        drop(tx);
        let mut told_interrupt = false;
        loop {
            if crate::tools::interrupt::requested() && !told_interrupt {
                told_interrupt = true;
                summary.interrupted = true;
                stop.store(true, Ordering::Relaxed);
                progress("interrupted: stopping the games in progress");
            }
            let record = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(r) => r,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            played += 1;
            let (first, second) = pairs[record.pairing];
            count_game(
                &mut summary,
                &mut half_pairs,
                &jobs[record.number - 1],
                record.outcome,
                record.forfeit,
            );
            if let Some(past) = past_draw(&record, cfg.variant) {
                if let Some(why) = count_past_draw(&mut summary, record.number, record.outcome, &past) {
                    progress(&why);
                }
            }
            summary.stalls.0 += record.stalls.len() as u64;
            summary.stalls.1 = record.stalls.iter().fold(summary.stalls.1, |m, s| m.max(*s));
            for &(engine, number, seconds) in &record.think {
                summary.think[engine].add(number, seconds);
            }
            let result = &summary.pairings[record.pairing];
            for fault in &record.faults {
                summary.faults.push(format!("game {}: {fault}", record.number));
                progress(&format!("game {}: {fault}", record.number));
            }
            if let Some(file) = pdn_file.as_mut() {
                let tags = pdn::GameTags {
                    event: cfg.event.clone(),
                    site: "dammer match".into(),
                    date: date.clone(),
                    round: record.number as u32,
                    white: names[record.white].clone(),
                    black: names[record.black].clone(),
                    result: record.outcome.pdn().into(),
                    time_control: cfg.tc.pdn(),
                    termination: record.termination.clone(),
                    variant: cfg.variant,
                };
                let text = pdn::write_game(&tags, &record.start, &record.moves);
                if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
                    progress(&format!("cannot write the PDN file: {e}"));
                }
            }
            let t = &result.tally;
            let est = t.elo_trinomial();
            let done = summary.games;
            let left = summary.scheduled.saturating_sub(done);
            let eta = started.elapsed().mul_f64(left as f64 / played as f64);
            progress(&format!(
                "game {} ({}/{}): {} - {} {} ({}, {} plies) | {} vs {}: +{} ={} -{} [{:.3}] Elo {} | {} left",
                record.number,
                done,
                summary.scheduled,
                names[record.white],
                names[record.black],
                record.outcome.pdn(),
                record.termination,
                record.moves.len(),
                names[first],
                names[second],
                t.wins,
                t.draws,
                t.losses,
                t.score(),
                format_elo(&est),
                format_duration(eta)
            ));
            if sprt_decided(cfg, &mut summary) && !stop.load(Ordering::Relaxed) {
                if let Some((verdict, llr)) = summary.sprt {
                    progress(&format!("SPRT decided ({verdict:?}, LLR {llr:.2}): stopping"));
                }
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Games that went on past an FMJD draw by rule (the 25-, 16- or 5-move
/// rule), which the FMJD would have ended there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PastDraws {
    /// How many.
    pub games: u32,
    /// Their outcomes, indexed by [`Outcome`] (White wins, Black wins, draw).
    pub outcomes: [u32; 3],
    /// The numbers of those lost by a side whose own search had scored the
    /// position 0.00 past the draw point at a depth no real search reaches
    /// (40 or more): the sign of an engine that took the game for over and
    /// played a move it did not search.
    pub suspect: Vec<usize>,
}

/// A reported depth at or beyond which a 0.00 says the search saw every line
/// end at once (see [`past_draw`]).
const UNSEARCHED_DEPTH: u32 = 40;

/// Where a played game passed an FMJD draw by rule, if it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PastDraw {
    ply: usize,
    reason: crate::rules::game::DrawReason,
    /// The game was lost by a side that scored 0.00 on a move past the point.
    lost_unsearched: bool,
}

/// Whether `record` went on past an FMJD draw by rule (a move was played
/// from the drawn position), and whether the loser scored 0.00 after it.
fn past_draw(record: &GameRecord, variant: Variant) -> Option<PastDraw> {
    past_draw_of(record.start, &record.moves, record.outcome, variant)
}

/// [`past_draw`] of a game given by its start, its moves with their
/// comments, and its result.
fn past_draw_of(
    start: Position,
    moves: &[(Move, Option<String>)],
    outcome: Outcome,
    variant: Variant,
) -> Option<PastDraw> {
    let mut game = Game::with_variant(start, variant);
    for (m, _) in moves {
        game.play(*m).ok()?;
    }
    let passed = game.passed_draw().filter(|p| p.ply < moves.len())?;
    let loser = match outcome {
        Outcome::WhiteWins => Some(Color::Black),
        Outcome::BlackWins => Some(Color::White),
        Outcome::Draw => None,
    };
    // The sign of a search that took the game for over: 0.00 at a depth
    // no real search of a move reaches (every line ends at once, so the
    // iterations run to the end: "0.00/100" in issue 50's games). A plain
    // 0.00 at depth 5 is an honest score of a drawish king ending.
    let zero = |c: &Option<String>| {
        let mut fields = c.as_deref().unwrap_or("").split(' ').next().unwrap_or("").split('/');
        let score = fields.next().and_then(|s| s.parse::<f64>().ok());
        let depth = fields.next().and_then(|d| d.parse::<u32>().ok());
        score == Some(0.0) && depth.is_some_and(|d| d >= UNSEARCHED_DEPTH)
    };
    let lost_unsearched = loser.is_some_and(|l| {
        game.positions()[..moves.len()]
            .iter()
            .zip(moves)
            .skip(passed.ply)
            .any(|(pos, (_, comment))| pos.side() == l && zero(comment))
    });
    Some(PastDraw { ply: passed.ply, reason: passed.reason, lost_unsearched })
}

/// Counts a game that went on past an FMJD draw by rule (played now or
/// resumed from the PDN file); returns the fault to tell when it was lost
/// by a move played as if the game were over.
fn count_past_draw(
    summary: &mut Summary,
    number: usize,
    outcome: Outcome,
    past: &PastDraw,
) -> Option<String> {
    summary.past_draws.games += 1;
    summary.past_draws.outcomes[outcome as usize] += 1;
    if !past.lost_unsearched {
        return None;
    }
    let why = format!(
        "game {number}: lost after the loser scored 0.00 at depth 40 or more past the draw at ply {} \
         ({}): a move played as if the game were over",
        past.ply,
        past.reason.describe()
    );
    summary.faults.push(why.clone());
    summary.past_draws.suspect.push(number);
    Some(why)
}

/// Counts one finished game (played now or resumed from the PDN file) in
/// its pairing's tally, its opening pair and the forfeit counts.
fn count_game(
    summary: &mut Summary,
    half_pairs: &mut HashMap<(usize, usize), u8>,
    job: &Job,
    outcome: Outcome,
    forfeit: Option<(usize, Forfeit)>,
) {
    summary.games += 1;
    let first = summary.pairings[job.pairing].first;
    let first_points = match (outcome, job.white == first) {
        (Outcome::Draw, _) => 1,
        (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => 2,
        _ => 0,
    };
    let result = &mut summary.pairings[job.pairing];
    result.tally.add_game(first_points);
    match half_pairs.remove(&(job.pairing, job.pair_key)) {
        Some(other) => result.tally.add_pair(other + first_points),
        None => {
            half_pairs.insert((job.pairing, job.pair_key), first_points);
        }
    }
    match forfeit {
        Some((engine, Forfeit::Time)) => summary.time_forfeits[engine] += 1,
        Some((engine, Forfeit::Failure)) => summary.failures[engine] += 1,
        None => {}
    }
}

/// Updates the SPRT's verdict (a two-engine match with `--sprt`); true
/// when it has decided.
fn sprt_decided(cfg: &Config, summary: &mut Summary) -> bool {
    let (Some(sprt), [pairing]) = (cfg.sprt, summary.pairings.as_slice()) else { return false };
    let llr = pairing.tally.llr(sprt.elo0, sprt.elo1);
    let verdict = sprt.verdict(&pairing.tally);
    summary.sprt = Some((verdict, llr));
    verdict != SprtVerdict::Continue
}

/// A game of an earlier run, read back from the PDN file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resumed {
    number: usize,
    outcome: Outcome,
    forfeit: Option<(usize, Forfeit)>,
    /// Where the game went on past an FMJD draw by rule (read back with
    /// the moves' comments, so the check of the loser's scores holds too).
    past: Option<PastDraw>,
}

/// The games `path` holds, each checked against this match's schedule
/// (game number, players, time control, opening): a file of another match
/// is refused rather than mixed in. A missing file holds no games.
fn resumed_games(
    cfg: &Config,
    jobs: &[Job],
    names: &[String],
    path: &std::path::Path,
) -> Result<Vec<Resumed>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {} to resume: {e}", path.display())),
    };
    let file = path.display();
    let games = pdn::read(&text).map_err(|e| format!("cannot resume from {file}: {e}"))?;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(games.len());
    let tc = cfg.tc.pdn();
    for (i, g) in games.iter().enumerate() {
        let at = |what: String| format!("cannot resume from {file}: game {} of the file: {what}", i + 1);
        let round = g.tag("Round").unwrap_or("");
        let job =
            round.parse::<usize>().ok().and_then(|n| n.checked_sub(1)).and_then(|n| jobs.get(n)).ok_or_else(
                || at(format!("Round {round:?} is not a game of this match (1 to {})", jobs.len())),
            )?;
        if !seen.insert(job.number) {
            return Err(at(format!("round {} is in the file twice", job.number)));
        }
        let (white, black) = (g.tag("White").unwrap_or(""), g.tag("Black").unwrap_or(""));
        if (white, black) != (names[job.white].as_str(), names[job.black].as_str()) {
            return Err(at(format!(
                "round {} is {white} - {black}, this match plays {} - {} (a file of another match?)",
                job.number, names[job.white], names[job.black]
            )));
        }
        if g.tag("TimeControl") != Some(tc.as_str()) {
            return Err(at(format!(
                "time control {:?}, this match plays {tc:?}",
                g.tag("TimeControl").unwrap_or("")
            )));
        }
        let replayed = g.replay().map_err(&at)?;
        let opening = &cfg.openings[job.opening];
        let positions = replayed.positions();
        let reached = positions.get(opening.moves.len());
        if *replayed.start() != opening.start || reached != Some(&opening.position()) {
            return Err(at(format!(
                "round {} does not start from this match's opening {}",
                job.number,
                job.opening + 1
            )));
        }
        let Some(outcome) = g.finished().map(Outcome::of_pdn) else {
            let result = g.tag("Result").or(g.result.as_deref());
            return Err(at(format!("round {} has no result ({result:?})", job.number)));
        };
        let loser = match outcome {
            Outcome::WhiteWins => Some(job.black),
            Outcome::BlackWins => Some(job.white),
            Outcome::Draw => None,
        };
        let forfeit = match (g.tag("Termination"), loser) {
            (Some(TIME_FORFEIT), Some(l)) => Some((l, Forfeit::Time)),
            (Some(FAILURE), Some(l)) => Some((l, Forfeit::Failure)),
            _ => None,
        };
        let moves: Vec<(Move, Option<String>)> =
            replayed.moves().iter().copied().zip(g.comments.iter().cloned()).collect();
        let past = past_draw_of(*replayed.start(), &moves, outcome, cfg.variant);
        out.push(Resumed { number: job.number, outcome, forfeit, past });
    }
    Ok(out)
}

fn worker(cfg: &Config, jobs: &[Job], next: &AtomicUsize, stop: &AtomicBool, tx: &mpsc::Sender<GameRecord>) {
    let mut engines: HashMap<usize, Player> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = jobs.get(i) else { break };
        match play_game(cfg, job, &mut engines, stop) {
            Some(record) => {
                if tx.send(record).is_err() {
                    break;
                }
            }
            None => break,
        }
    }
    for (_, e) in engines.drain() {
        e.quit();
    }
}

/// Per-side bookkeeping during a game.
#[derive(Clone, Copy, Debug, Default)]
struct SideState {
    /// Seconds left on the clock (clock time controls).
    clock: f64,
    /// Moves made by this side.
    moves: u32,
    /// Consecutive moves with |score| within the draw bound.
    drawish: u32,
    /// Consecutive moves with score <= -resign bound.
    losing: u32,
    /// Consecutive moves with score >= resign bound.
    winning: u32,
}

/// A wait for a CPU this long is a stall of the machine worth reporting.
pub const STALL_WORTH_COUNTING: Duration = Duration::from_millis(10);

/// The PDN termination of a game lost on time.
const TIME_FORFEIT: &str = "time forfeit";
/// The PDN termination of a game lost by a crash, an illegal move or a failed start.
const FAILURE: &str = "engine failure";

/// Plays one game; None when the run was stopped before it finished.
fn play_game(
    cfg: &Config,
    job: &Job,
    engines: &mut HashMap<usize, Player>,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let opening = &cfg.openings[job.opening];
    let mut game = Game::with_variant(opening.start, cfg.variant).with_draw_rules(cfg.draw_rules);
    for m in &opening.moves {
        // Checked when the openings were read.
        let _ = game.play(*m);
    }
    let mut record = GameRecord {
        number: job.number,
        white: job.white,
        black: job.black,
        outcome: Outcome::Draw,
        termination: String::new(),
        start: opening.start,
        moves: opening.moves.iter().map(|m| (*m, None)).collect(),
        faults: Vec::new(),
        forfeit: None,
        stalls: Vec::new(),
        think: Vec::new(),
        pairing: job.pairing,
    };
    let index = |side: Color| if side == Color::White { job.white } else { job.black };
    let forfeit = |record: &mut GameRecord, side: Color, termination: &str, detail: String| {
        record.outcome = Outcome::loss_for(side);
        record.termination = termination.to_string();
        record.faults.push(detail);
        let how = if termination == TIME_FORFEIT { Forfeit::Time } else { Forfeit::Failure };
        record.forfeit = Some((index(side), how));
    };
    // Start (or reuse) both engines and tell them a new game begins.
    for side in [Color::White, Color::Black] {
        let idx = index(side);
        let spec = &cfg.engines[idx];
        // `new-game` clears the engine's table: wait for that before any
        // clock runs.
        let ready = match engines.remove(&idx) {
            Some(e) => Ok(e),
            None => Player::start(spec, stop),
        }
        .and_then(|mut e| e.new_game(&game, side, &cfg.tc, stop).map(|()| e));
        match ready {
            Ok(e) => {
                engines.insert(idx, e);
            }
            Err(EngineError::Aborted) => return None,
            Err(_) if stop.load(Ordering::Relaxed) => return None,
            Err(e) => {
                forfeit(&mut record, side, FAILURE, format!("{} failed to start: {e}", spec.name));
                return Some(record);
            }
        }
    }
    let mut sides = [SideState::default(); 2];
    if let TimeControl::Clock { time, .. } = cfg.tc {
        sides[0].clock = time;
        sides[1].clock = time;
    }
    let opening_plies = game.moves().len();
    let margin = cfg.margin.as_secs_f64();
    loop {
        match game.result() {
            GameResult::Ongoing => {}
            GameResult::Win(c) => {
                record.outcome = if c == Color::White { Outcome::WhiteWins } else { Outcome::BlackWins };
                record.termination = match cfg.variant {
                    Variant::Breakthrough => "crowned first",
                    _ => "no legal move",
                }
                .into();
                break;
            }
            GameResult::Draw(why) => {
                record.outcome = Outcome::Draw;
                record.termination = match why {
                    DrawReason::Repetition => "threefold repetition",
                    DrawReason::TwentyFiveMoves => "25-move rule",
                    DrawReason::SixteenMoves => "16-move endgame rule",
                    DrawReason::FiveMoves => "5-move endgame rule",
                    DrawReason::FrisianKings => "Frisian rule of kings alone",
                }
                .into();
                break;
            }
        }
        let plies = game.moves().len() - opening_plies;
        if cfg.max_plies.is_some_and(|m| plies >= m) {
            record.outcome = Outcome::Draw;
            record.termination = "adjudication: maximum game length".into();
            break;
        }
        let side = game.position().side();
        let me = side as usize;
        let idx = index(side);
        let name = &cfg.engines[idx].name;
        let (budget, allowed) = match cfg.tc {
            TimeControl::MoveTime(t) => (Budget::MoveTime(t), t),
            TimeControl::Clock { moves, time: _, inc } => {
                let left = sides[me].clock;
                let to_go = moves.map(|m| m - sides[me].moves % m);
                (Budget::Clock { to_go, left, inc }, left + inc)
            }
        };
        let engine = engines.get_mut(&idx)?;
        let allowed_wait = options::saturating_duration(allowed + margin);
        let reply = match engine.think(&game, budget, allowed_wait, stop) {
            Ok(r) => r,
            Err(_) if stop.load(Ordering::Relaxed) => return None,
            Err(EngineError::Ended(reason)) => {
                // A DXP engine's claim (a draw rule, its tables, its loss)
                // decides the game, as a tournament lets it.
                let (outcome, what) = match reason {
                    3 => (Outcome::loss_for(side.opponent()), "a win"),
                    2 => (Outcome::Draw, "a draw"),
                    1 => (Outcome::loss_for(side), "its loss"),
                    _ => {
                        forfeit(
                            &mut record,
                            side,
                            FAILURE,
                            format!("{name} ended the game without a reason"),
                        );
                        break;
                    }
                };
                record.outcome = outcome;
                record.termination = format!("{name} claimed {what}");
                break;
            }
            Err(e) => {
                engines.remove(&idx);
                let (termination, detail) = match e {
                    EngineError::Timeout => {
                        (TIME_FORFEIT, format!("{name} lost on time (no move within {allowed:.3}s + margin)"))
                    }
                    other => (FAILURE, format!("{name} {other}")),
                };
                forfeit(&mut record, side, termination, detail);
                break;
            }
        };
        // The clock runs while the engine could run: what it waited for a
        // CPU on a busy machine is not charged (it is counted apart).
        let used = reply.elapsed.saturating_sub(reply.stall).as_secs_f64();
        if reply.stall >= STALL_WORTH_COUNTING {
            record.stalls.push(reply.stall);
        }
        if used > allowed + margin {
            engines.remove(&idx);
            forfeit(
                &mut record,
                side,
                TIME_FORFEIT,
                format!("{name} lost on time ({used:.3}s for {allowed:.3}s)"),
            );
            break;
        }
        for e in &reply.errors {
            record.faults.push(format!("{name} said: {e}"));
        }
        let m = match game.play_text(&reply.mv) {
            Ok(m) => m,
            Err(e) => {
                engines.remove(&idx);
                forfeit(
                    &mut record,
                    side,
                    "illegal move",
                    format!("{name} played an illegal move {:?}: {e}", reply.mv),
                );
                break;
            }
        };
        let state = &mut sides[me];
        state.moves += 1;
        record.think.push((idx, state.moves, used));
        if let TimeControl::Clock { moves, time, inc } = cfg.tc {
            state.clock += inc - used - cfg.gui_overhead.as_secs_f64();
            if moves.is_some_and(|m| state.moves % m == 0) {
                state.clock += time;
            }
        }
        let mut comment = String::new();
        if let Some(s) = reply.score {
            comment.push_str(&format!("{s:+.2}"));
            if let Some(d) = reply.depth {
                comment.push_str(&format!("/{d}"));
            }
            comment.push(' ');
        }
        comment.push_str(&format!("{used:.3}s"));
        record.moves.push((m, Some(comment)));
        // Score adjudication, from the scores the engines report. A move
        // without a score (a forced move played at once) leaves the counts
        // as they were: it says nothing either way.
        if let (Some(adj), Some(s)) = (cfg.draw, reply.score) {
            state.drawish = if s.abs() <= adj.score { state.drawish + 1 } else { 0 };
        }
        if let (Some(adj), Some(s)) = (cfg.resign, reply.score) {
            state.losing = if s <= -adj.score { state.losing + 1 } else { 0 };
            state.winning = if s >= adj.score { state.winning + 1 } else { 0 };
        }
        let (mine, theirs) = (sides[me], sides[1 - me]);
        if let Some(adj) = cfg.resign {
            if mine.losing >= adj.moves && theirs.winning >= adj.moves {
                record.outcome = Outcome::loss_for(side);
                record.termination = "adjudication: scores agree on a win".into();
                break;
            }
            if mine.winning >= adj.moves && theirs.losing >= adj.moves {
                record.outcome = Outcome::loss_for(side.opponent());
                record.termination = "adjudication: scores agree on a win".into();
                break;
            }
        }
        if let Some(adj) = cfg.draw {
            if plies + 1 >= adj.after_ply && mine.drawish >= adj.moves && theirs.drawish >= adj.moves {
                record.outcome = Outcome::Draw;
                record.termination = "adjudication: scores agree on a draw".into();
                break;
            }
        }
    }
    // DXP engines hear that the game is over (the runner's view: 1 when the
    // engine won, 3 when it lost).
    for side in [Color::White, Color::Black] {
        if let Some(e) = engines.get_mut(&index(side)) {
            let reason = match record.outcome {
                Outcome::Draw => 2,
                o if o == Outcome::loss_for(side) => 3,
                _ => 1,
            };
            e.game_over(reason, stop);
        }
    }
    Some(record)
}

/// `+35.2 +- 57.7`, or `+inf`/`-inf` for a perfect or a zero score.
fn format_elo(e: &stats::Estimate) -> String {
    if e.mean >= 1.0 {
        "+inf".into()
    } else if e.mean <= 0.0 {
        "-inf".into()
    } else if e.interval.0.is_infinite() || e.interval.1.is_infinite() {
        // The normal interval reaches a perfect or zero score: give its ends.
        format!("{:+.1} (95% interval {:+.0} .. {:+.0})", e.elo, e.interval.0, e.interval.1)
    } else {
        // Adding zero turns -0.0 into 0.0.
        format!("{:+.1} +- {:.1}", e.elo + 0.0, e.margin)
    }
}

/// The final report: one block per pairing and, for more than two
/// engines, a table of points.
pub fn report(summary: &Summary, sprt: Option<Sprt>) -> Vec<String> {
    let mut lines = Vec::new();
    let names = &summary.names;
    lines.push(format!(
        "{} of {} games played in {}{}",
        summary.games,
        summary.scheduled,
        format_duration(summary.elapsed),
        if summary.interrupted { " (interrupted)" } else { "" }
    ));
    if summary.resumed > 0 {
        lines.push(format!(
            "{} of them resumed from the PDN file (results counted; think times and stalls below are this run's)",
            summary.resumed
        ));
    }
    for p in &summary.pairings {
        let t = &p.tally;
        if t.games() == 0 {
            continue;
        }
        let tri = t.elo_trinomial();
        let penta = t.elo_pentanomial();
        lines.push(format!("{} vs {}", names[p.first], names[p.second]));
        lines.push(format!(
            "  games {}: +{} ={} -{}, score {:.1}% ({:.1}/{})",
            t.games(),
            t.wins,
            t.draws,
            t.losses,
            100.0 * t.score(),
            f64::from(t.wins) + 0.5 * f64::from(t.draws),
            t.games()
        ));
        lines.push(format!("  Elo {} (95%), LOS {:.1}%", format_elo(&tri), 100.0 * t.los()));
        let pairs: u32 = t.pairs.iter().sum();
        if pairs > 0 {
            lines.push(format!(
                "  pairs {pairs} (0, 0.5, 1, 1.5, 2 points): {:?}, pentanomial Elo {}",
                t.pairs,
                format_elo(&penta)
            ));
        }
    }
    if let (Some(sprt), Some((verdict, llr))) = (sprt, summary.sprt) {
        let (lo, hi) = sprt.bounds();
        lines.push(format!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} (bounds {lo:.2}, {hi:.2}) -> {}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            match verdict {
                SprtVerdict::AcceptH1 => "H1 accepted",
                SprtVerdict::AcceptH0 => "H0 accepted",
                SprtVerdict::Continue => "undecided",
            }
        ));
    }
    if names.len() > 2 {
        let mut points = vec![(0.0f64, 0u32); names.len()];
        for p in &summary.pairings {
            let t = &p.tally;
            let a = f64::from(t.wins) + 0.5 * f64::from(t.draws);
            points[p.first].0 += a;
            points[p.first].1 += t.games();
            points[p.second].0 += f64::from(t.games()) - a;
            points[p.second].1 += t.games();
        }
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by(|&a, &b| points[b].0.total_cmp(&points[a].0));
        lines.push("standings:".into());
        for (rank, &i) in order.iter().enumerate() {
            let (pts, games) = points[i];
            lines.push(format!("  {:>2}. {:<20} {pts:>6.1} / {games}", rank + 1, names[i]));
        }
    }
    // Losses on time and by failure are counted in the results above; say
    // how many there were, so that a crash or a flag is not read as strength.
    let forfeits: u32 = summary.time_forfeits.iter().chain(&summary.failures).sum();
    if forfeits > 0 {
        let per_engine = |counts: &[u32]| {
            counts.iter().zip(names).map(|(n, name)| format!("{name} {n}")).collect::<Vec<_>>().join(", ")
        };
        lines.push(format!("games lost on time: {}", per_engine(&summary.time_forfeits)));
        lines.push(format!("games lost by an engine failure: {}", per_engine(&summary.failures)));
    } else {
        lines.push("games lost on time or by an engine failure: none".into());
    }
    let past = &summary.past_draws;
    if past.games > 0 {
        lines.push(format!(
            "games played on past an FMJD draw by rule: {} (White won {}, Black won {}, drawn {}); \
             lost after the loser's own search took the game for over (0.00 at depth 40+) past that point: {}",
            past.games,
            past.outcomes[Outcome::WhiteWins as usize],
            past.outcomes[Outcome::BlackWins as usize],
            past.outcomes[Outcome::Draw as usize],
            if past.suspect.is_empty() {
                "none".to_string()
            } else {
                past.suspect.iter().map(|n| format!("game {n}")).collect::<Vec<_>>().join(", ")
            }
        ));
    }
    if summary.stalls.0 > 0 {
        lines.push(format!(
            "moves on which the machine kept an engine from running for {} ms or more (not charged): {}, \
             the longest {} ms",
            STALL_WORTH_COUNTING.as_millis(),
            summary.stalls.0,
            summary.stalls.1.as_millis()
        ));
    }
    if summary.think.iter().any(|t| t.total().0 > 0) {
        lines.push("think time per move, seconds (mean / longest), by the engine's move number:".into());
        let mut head = format!("  {:<16}", "engine");
        for (i, start) in THINK_RANGES.iter().enumerate() {
            let range = match THINK_RANGES.get(i + 1) {
                Some(next) => format!("{start}-{}", next - 1),
                None => format!("{start}+"),
            };
            head.push_str(&format!(" {range:>11}"));
        }
        head.push_str(&format!(" {:>11}", "all"));
        lines.push(head);
        for (name, t) in names.iter().zip(&summary.think) {
            let cell = |(n, total, longest): (u64, f64, f64)| {
                if n == 0 {
                    format!(" {:>11}", "-")
                } else {
                    format!(" {:>11}", format!("{:.2}/{:.2}", total / n as f64, longest))
                }
            };
            let mut row = format!("  {name:<16}");
            for r in &t.ranges {
                row.push_str(&cell(*r));
            }
            row.push_str(&cell(t.total()));
            lines.push(row);
        }
    }
    if summary.faults.len() > forfeits as usize {
        lines.push(format!("engine faults in all (errors included): {}", summary.faults.len()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse() {
        assert_eq!(
            TimeControl::parse_clock("10+0.1"),
            Ok(TimeControl::Clock { moves: None, time: 10.0, inc: 0.1 })
        );
        assert_eq!(
            TimeControl::parse_clock("40/120"),
            Ok(TimeControl::Clock { moves: Some(40), time: 120.0, inc: 0.0 })
        );
        assert_eq!(TimeControl::parse_clock("40/120+1").unwrap().pdn(), "40/120+1");
        assert_eq!(TimeControl::MoveTime(0.1).pdn(), "0.1s/move");
        for bad in ["", "x", "0", "-5", "10+-1", "0/10", "a/10", "10+", "nan"] {
            assert!(TimeControl::parse_clock(bad).is_err(), "{bad}");
        }
        // A clock beyond a billion seconds is forever, not an overflow.
        for huge in ["1e30", "10+1e30", "inf"] {
            assert!(TimeControl::parse_clock(huge).is_ok(), "{huge}");
        }
    }

    /// A game of two kings against one played on past the 5-move rule's
    /// draw at ply 10, with the comments `comment(ply)` gives its moves.
    fn king_ending(outcome: Outcome, comment: impl Fn(usize) -> Option<String>) -> GameRecord {
        let start = *Game::from_text("W:WK46,K50:BK1").unwrap().position();
        let mut pos = start;
        let mut moves = Vec::new();
        for (ply, text) in
            "50-44 1-7 44-39 7-12 46-41 12-8 39-44 8-2 41-46 2-7 44-50 7-1".split(' ').enumerate()
        {
            let m = crate::rules::notation::parse_move(&pos, text).unwrap();
            pos = pos.make(&m);
            moves.push((m, comment(ply)));
        }
        GameRecord {
            number: 7,
            white: 0,
            black: 1,
            outcome,
            termination: String::new(),
            start,
            moves,
            faults: Vec::new(),
            forfeit: None,
            stalls: Vec::new(),
            think: Vec::new(),
            pairing: 0,
        }
    }

    #[test]
    fn a_game_lost_past_a_draw_after_an_unsearched_zero_is_flagged() {
        use crate::rules::game::DrawReason;
        // White (even plies) scores 0.00 at depth 100 past the point and loses.
        let bug = |ply: usize| {
            Some(if ply >= 10 && ply.is_multiple_of(2) { "0.00/100 0.001s" } else { "+0.10/12 0.2s" }.into())
        };
        let past = past_draw(&king_ending(Outcome::BlackWins, bug), Variant::Normal).unwrap();
        assert_eq!((past.ply, past.reason, past.lost_unsearched), (10, DrawReason::FiveMoves, true));
        // The same zeros from the winner, a plain 0.00 at an honest depth,
        // a zero before the point, or a drawn game: not flagged.
        assert!(!past_draw(&king_ending(Outcome::WhiteWins, bug), Variant::Normal).unwrap().lost_unsearched);
        let honest =
            |ply: usize| Some(if ply.is_multiple_of(2) { "0.00/7 0.1s" } else { "-0.10/9 0.1s" }.into());
        assert!(
            !past_draw(&king_ending(Outcome::BlackWins, honest), Variant::Normal).unwrap().lost_unsearched
        );
        let early = |ply: usize| (ply == 4).then(|| "0.00/100 0.001s".to_string());
        assert!(
            !past_draw(&king_ending(Outcome::BlackWins, early), Variant::Normal).unwrap().lost_unsearched
        );
        assert!(!past_draw(&king_ending(Outcome::Draw, bug), Variant::Normal).unwrap().lost_unsearched);
        // Read back from the PDN file (a resumed match), the same verdict.
        let lost = king_ending(Outcome::BlackWins, bug);
        let text = pdn::write_game(
            &pdn::GameTags { result: "0-2".into(), ..Default::default() },
            &lost.start,
            &lost.moves,
        );
        let read = &pdn::read(&text).unwrap()[0];
        let replayed = read.replay().unwrap();
        let moves: Vec<_> = replayed.moves().iter().copied().zip(read.comments.iter().cloned()).collect();
        let again = past_draw_of(*replayed.start(), &moves, Outcome::BlackWins, Variant::Normal).unwrap();
        assert_eq!(again, past);
        // A game that ends at the draw point did not go on past it.
        let mut ended = king_ending(Outcome::Draw, bug);
        ended.moves.truncate(10);
        assert!(past_draw(&ended, Variant::Normal).is_none());
    }

    #[test]
    fn schedule_swaps_colours_per_opening() {
        let spec = EngineSpec::parse(&["cmd=x hub".to_string()]).unwrap();
        let cfg = Config {
            engines: vec![spec.clone(), spec.clone(), spec],
            gauntlet: false,
            tc: TimeControl::MoveTime(0.1),
            margin: Duration::from_millis(50),
            gui_overhead: Duration::ZERO,
            draw_rules: DrawRules::Fmjd,
            openings: crate::rules::openings::parse_openings(crate::rules::openings::DEFAULT_OPENINGS, false)
                .unwrap(),
            games: Some(4),
            concurrency: 1,
            pdn: None,
            resume: false,
            shard: (1, 1),
            max_plies: None,
            draw: None,
            resign: None,
            sprt: None,
            event: "t".into(),
            variant: Variant::Normal,
        };
        let jobs = schedule(&cfg);
        assert_eq!(jobs.len(), 12);
        let first: Vec<_> =
            jobs.iter().filter(|j| j.pairing == 0).map(|j| (j.white, j.black, j.opening)).collect();
        assert_eq!(first, vec![(0, 1, 0), (1, 0, 0), (0, 1, 1), (1, 0, 1)]);
        // Shards split the schedule into disjoint parts, whole pairs each.
        let mut seen = vec![0; jobs.len()];
        for k in 1..=2 {
            let shard: Vec<&Job> = jobs.iter().filter(|j| in_shard(j, (k, 2))).collect();
            assert!(!shard.is_empty());
            for j in &shard {
                seen[j.number - 1] += 1;
                let partner =
                    jobs.iter().filter(|o| o.pair_key == j.pair_key && o.pairing == j.pairing).count();
                assert_eq!(partner, 2);
                assert!(shard
                    .iter()
                    .any(|o| o.pair_key == j.pair_key && o.pairing == j.pairing && o.number != j.number));
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        assert!(jobs.iter().all(|j| in_shard(j, (1, 1))));
        let gauntlet = schedule(&Config { gauntlet: true, ..cfg });
        assert!(gauntlet.iter().all(|j| j.white == 0 || j.black == 0));
        assert_eq!(gauntlet.len(), 8);
    }
}
