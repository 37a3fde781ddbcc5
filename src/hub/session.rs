//! The Hub protocol front end (the text protocol of Scan and the Hub GUI).
//!
//! On a system, three threads: a reader turns stdin lines into
//! [`Message`]s, the protocol loop (the caller's thread) keeps the state and
//! answers, and a search thread runs [`Engine::start`]'s search so that
//! `ping`, `stop` and `ponder-hit` are handled while it thinks. A host with
//! one thread (a browser's worker) runs the same protocol state from
//! `hub::hosted`. Every output line goes through [`emit`], which writes it
//! whole. Only one note goes to stderr: a game that stands at or went on
//! past a draw by rule ([`Game::draw_point`], [`Game::passed_draw`]).

use std::io;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use crate::base::host;
use crate::base::lines::{read_line, Line};
use crate::base::paths::resolve;
use crate::engine::book::{Book, BookPolicy};
use crate::engine::egdb::{self, Pack, Pieces, Tables};
use crate::engine::eval::Evaluation;
use crate::engine::options::{
    self, OptionError, DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, MAX_HASH_MB, MAX_MOVE_OVERHEAD_MS,
    MAX_THREADS,
};
use crate::engine::strength::{Strength, MAX_STRENGTH};
use crate::engine::time::{Clock, LatencyMeter, Limits};
use crate::engine::Engine;
use crate::engine::Poll;
use crate::hub::protocol::{done_line, info_lines, quote, Message};
use crate::rules::frisian::KingRuns;
use crate::rules::game::{DrawRules, DrawRulesError, Game};
use crate::rules::movegen::{legal_moves, Move};
use crate::rules::position::Position;
use crate::rules::variant::Variant;

const NO_CLOCK: Clock = Clock { time: 0.0, inc: 0.0, moves_to_go: None };

/// Longest line read; the rest of a longer one is dropped with an error.
pub(super) const MAX_LINE: usize = 1 << 16;

/// Writes one protocol line (to stdout, or to the hosting page) and flushes it.
pub fn emit(line: &str) {
    log::debug!("> {line}");
    host::write_line(line);
}

pub(super) fn error(msg: &str) {
    emit(&format!("error message={}", quote(msg)));
}

/// What the reader thread passes on.
enum Input {
    Line(String),
    TooLong,
    Eof,
}

/// Lines read ahead of the protocol loop. A client that writes faster than
/// the engine answers (thousands of `go` in one burst) then waits on its
/// pipe, instead of growing a queue in the engine without bound.
const READ_AHEAD: usize = 1024;

fn spawn_reader(tx: mpsc::SyncSender<Input>) {
    let spawned = std::thread::Builder::new().name("dammer-hub-reader".into()).spawn(move || {
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        let mut buf = Vec::new();
        loop {
            let input = match read_line(&mut lock, &mut buf, MAX_LINE) {
                Line::Whole => Input::Line(String::from_utf8_lossy(&buf).into_owned()),
                Line::TooLong => Input::TooLong,
                Line::End => {
                    let _ = tx.send(Input::Eof);
                    return;
                }
            };
            if tx.send(input).is_err() {
                return;
            }
        }
    });
    if spawned.is_err() {
        error("cannot start the input thread");
    }
}

/// Engine parameters as the protocol declares them.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Params {
    threads: usize,
    hash_mb: usize,
    /// What the GUI charges a move beyond the engine's thinking.
    move_overhead: Duration,
    ponder: bool,
    /// `learned` or `hand`.
    eval: String,
    /// Weights file of the learned evaluation ("" = the embedded weights).
    weights: String,
    /// Directory of the endgame tables ("" = those the host delivered, if
    /// any).
    bb_path: String,
    /// Most pieces to probe the tables for (0 = do not probe).
    bb_size: usize,
    /// Play from the opening book.
    book: bool,
    /// Book file ("" = the embedded book).
    book_file: String,
    book_policy: BookPolicy,
    /// Lines of `go analyze` (multi-PV); games always search one.
    multipv: usize,
    /// The game played.
    variant: Variant,
    /// A strength level for people (`engine::strength`), 0 = full strength.
    strength: u8,
    /// The draw rules the GUI applies (`draw-rules`).
    draw_rules: DrawRules,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            ponder: false,
            eval: crate::engine::eval::DEFAULT_EVAL.into(),
            multipv: 1,
            weights: String::new(),
            bb_path: String::new(),
            bb_size: DEFAULT_BB_SIZE,
            book: true,
            book_file: String::new(),
            book_policy: BookPolicy::default(),
            variant: Variant::Normal,
            strength: 0,
            draw_rules: DrawRules::Fmjd,
        }
    }
}

/// Largest `book-ply` (book positions are at most 255 plies from a root).
const MAX_BOOK_PLY: u64 = 255;
/// Largest `book-margin`, hundredths of a man.
const MAX_BOOK_MARGIN: u64 = 1000;

/// Default of `bb-size`: every table there is, up to 6 pieces.
const DEFAULT_BB_SIZE: usize = 6;

/// log2 of the number of 16-byte entries in `mb` MiB.
fn tt_size_of(mb: usize) -> u32 {
    (mb.max(1) * (1 << 16)).ilog2()
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// A protocol integer, checked as every other quantity is.
fn parse_int(name: &'static str, v: &str, min: u64, max: u64) -> Result<u64, String> {
    options::integer(name, v, min, max).map_err(|e| e.to_string())
}

/// The `level` fields received since the last `go`, `pos` or `new-game`,
/// read once as they arrive.
#[derive(Clone, Debug)]
struct Level {
    limits: Limits,
    clock: Clock,
    /// A `time` field arrived: only that makes a clock (`inc` or `moves`
    /// alone do not).
    timed: bool,
}

impl Default for Level {
    fn default() -> Self {
        Level { limits: Limits::default(), clock: NO_CLOCK, timed: false }
    }
}

impl Level {
    /// Applies one `level` field.
    fn apply(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let l = &mut self.limits;
        match name {
            "depth" => l.depth = Some(options::depth(value)?),
            "nodes" => l.nodes = Some(options::nodes(value)?),
            // Zero is "answer at once" (a depth-1 search), not an error.
            "move-time" => {
                l.move_time = Some(options::saturating_duration(options::seconds("move-time", value)?))
            }
            "time" => {
                self.clock.time = options::clock_seconds("time", value)?;
                self.timed = true;
            }
            "inc" => self.clock.inc = options::seconds("inc", value)?,
            "moves" => {
                let n = options::integer("moves", value, 0, 10_000)? as u32;
                self.clock.moves_to_go = (n > 0).then_some(n);
            }
            "infinite" => l.infinite = true,
            // lidraughts' computer levels: a weakening and a ply cap.
            "handicap" => l.handicap = options::handicap(value)?,
            "ply" => l.ply = Some(options::ply(value)?),
            // Unknown fields are ignored, as the protocol asks.
            _ => {}
        }
        Ok(())
    }

    /// The limits of a `go` in `mode`.
    fn limits(&self, mode: &str) -> Result<Limits, String> {
        let mut l = self.limits.clone();
        if self.timed {
            l.clock = Some(self.clock);
        }
        match mode {
            "think" => {}
            "ponder" => l.ponder = true,
            "analyze" | "analyse" => l.analysis = true,
            other => return Err(format!("go needs think, ponder or analyze, not {other:?}")),
        }
        Ok(l)
    }
}

/// The game a `pos` line describes (`pos=` a FEN or Scan's 51 characters,
/// or the start; `wolf=` Frisian's king runs there; `moves=` played from
/// it), under `variant` and `rules`.
pub fn game_of(msg: &Message, variant: Variant, rules: DrawRules) -> Result<Game, String> {
    let start = match msg.get("pos") {
        None | Some("start" | "") => Position::start(),
        Some(p) => Position::parse(p).map_err(|e| format!("bad position: {e}"))?,
    };
    let mut game = Game::with_variant(start, variant).with_draw_rules(rules);
    if let Some(wolf) = msg.get("wolf").filter(|w| !w.trim().is_empty()) {
        // Frisian's kings that moved in a row before this position.
        let runs = KingRuns::from_wolf(wolf, &start).map_err(|e| format!("bad position: {e}"))?;
        game = game.with_start_runs(runs).map_err(|e| format!("bad position: {e}"))?;
    }
    if let Some(moves) = msg.get("moves") {
        for (i, m) in moves.split_whitespace().enumerate() {
            game.play_text(m).map_err(|e| format!("illegal move {m} (move {} of moves=): {e}", i + 1))?;
        }
    }
    Ok(game)
}

/// How a command meets a running search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Meets {
    /// Answered at once; the search goes on.
    Ping,
    /// Ends the search, which answers with its move.
    Stop,
    /// The expected move was played: a pondering search now keeps time.
    PonderHit,
    /// Ignored with an error; the search goes on.
    Unknown,
    /// Any other command (and `quit`): the search ends first, then the
    /// command is handled.
    EndsIt,
}

impl Meets {
    pub(super) fn of(command: &str) -> Meets {
        match command {
            "ping" => Meets::Ping,
            "stop" => Meets::Stop,
            "ponder-hit" => Meets::PonderHit,
            "quit" | "hub" | "init" | "set-param" | "new-game" | "pos" | "level" | "go" => Meets::EndsIt,
            _ => Meets::Unknown,
        }
    }
}

/// The error that an unknown command gets.
pub(super) fn unknown(command: &str) {
    // Unknown commands change nothing, as the protocol asks (a running
    // search goes on), and say so: a typo in a console should not go
    // unanswered.
    error(&format!("unknown command {command:?}, ignored"));
}

/// The protocol state.
pub(super) struct Hub {
    engine: Option<Engine>,
    /// Searches run on the protocol's thread, with this turn between slices
    /// (a host with one thread).
    on_caller: Option<Poll>,
    params: Params,
    applied: Params,
    game: Game,
    level: Level,
    /// The running search ponders and has had no ponder hit.
    pondering: bool,
    /// The evaluation the parameters select.
    evaluation: Evaluation,
    /// The endgame tables the parameters select.
    egdb: Option<Arc<Tables>>,
    /// Tables the host delivered ([`host::deliver_tables`]: a browser's
    /// download), used when `bb-path` is empty.
    pack: Option<Pack>,
    /// `bb-path` or `bb-size` changed since the tables were loaded.
    tables_stale: bool,
    /// `bb-size` was set by the client (not the default).
    bb_size_set: bool,
    /// The book `book-file` names (used when `book` is true).
    book: Option<Arc<Book>>,
    /// What the GUI's clocks show it charges a move.
    latency: LatencyMeter,
    /// The root and clock of the running search, when it is a game move
    /// under a clock (`go think` with `level time`).
    clocked_search: Option<(Position, Clock)>,
    /// The last game move played under a clock, until the next `go`.
    last_clocked: Option<ClockedMove>,
    /// The start of the game whose passed draw (`Game::passed_draw`) was
    /// last reported, and the ply of that draw: reported once a game.
    passed_noted: Option<(Position, usize)>,
}

/// A move the engine played under the GUI's clock: the next `go`'s clock
/// shows what the GUI charged for it, if that `go` continues the game.
#[derive(Clone, Debug)]
struct ClockedMove {
    root: Position,
    clock: Clock,
    think: Duration,
    played: Move,
}

impl ClockedMove {
    /// Whether `pos` is this move's position after the move and one reply:
    /// the same game, the same side's clock one move later.
    fn followed_by(&self, pos: &Position) -> bool {
        let after = self.root.make(&self.played);
        legal_moves(&after).iter().any(|m| after.make(m) == *pos)
    }
}

impl Hub {
    /// The protocol's state before its first command; `on_caller` makes
    /// searches run on the protocol's thread ([`Engine::run_on_caller`]).
    pub(super) fn new(on_caller: Option<Poll>) -> Hub {
        let params = Params::default();
        Hub {
            engine: None,
            on_caller,
            applied: params.clone(),
            params,
            game: Game::default(),
            level: Level::default(),
            pondering: false,
            evaluation: Evaluation::default(),
            egdb: None,
            pack: None,
            tables_stale: false,
            bb_size_set: false,
            book: Some(Arc::new(Book::embedded())),
            latency: LatencyMeter::default(),
            clocked_search: None,
            last_clocked: None,
            passed_noted: None,
        }
    }

    /// The engine, created or reconfigured to the declared parameters.
    fn engine(&mut self) -> &mut Engine {
        if let Some(bytes) = host::take_tables() {
            match Pack::from_bytes(bytes, "the downloaded endgame tables") {
                Ok(pack) => {
                    self.pack = Some(pack);
                    self.tables_stale = true;
                }
                Err(e) => error(&format!("{e}; ignored")),
            }
        }
        if self.tables_stale {
            self.tables_stale = false;
            if let Err(e) = self.load_tables() {
                error(&e);
            }
        }
        if self.engine.is_none() {
            self.applied = self.params.clone();
        }
        let overhead = self.latency.overhead(self.params.move_overhead);
        let on_caller = self.on_caller;
        let engine = self.engine.get_or_insert_with(|| {
            let mut engine = Engine::new(self.params.threads, self.params.hash_mb);
            if let Some(poll) = on_caller {
                engine.run_on_caller(poll);
            }
            engine
        });
        engine.set_evaluation(self.evaluation.clone());
        engine.set_egdb(self.egdb.clone());
        if self.applied.threads != self.params.threads {
            engine.set_threads(self.params.threads);
        }
        if self.applied.hash_mb != self.params.hash_mb {
            engine.set_hash_mb(self.params.hash_mb);
        }
        engine.set_move_overhead(overhead);
        engine.set_book(self.book.clone().filter(|_| self.params.book), self.params.book_policy);
        self.applied = self.params.clone();
        engine
    }

    fn hub(&self) {
        emit(&format!(
            "id name=Dammer version={} author={} country=International",
            crate::engine::VERSION,
            quote("the Dammer developers")
        ));
        emit(&format!("param name=threads value={} type=int min=1 max={MAX_THREADS}", self.params.threads));
        emit(&format!("param name=hash value={} type=int min=1 max={MAX_HASH_MB}", self.params.hash_mb));
        emit(&format!("param name=tt-size value={} type=int min=16 max=32", tt_size_of(self.params.hash_mb)));
        emit(&format!(
            "param name=move-overhead value={} type=int min=0 max={MAX_MOVE_OVERHEAD_MS}",
            self.params.move_overhead.as_millis()
        ));
        emit(&format!("param name=ponder value={} type=bool", self.params.ponder));
        emit(&format!(
            "param name=draw-rules value={} type=enum values=\"fmjd repetition\"",
            self.params.draw_rules
        ));
        emit(&format!(
            "param name=eval value={} type=enum values=\"learned nn hybrid regions windows hand pst pattern\"",
            self.params.eval
        ));
        emit(&format!("param name=weights value={} type=string", quote(&self.params.weights)));
        emit(&format!("param name=bb-path value={} type=string", quote(&self.params.bb_path)));
        emit(&format!(
            "param name=bb-size value={} type=int min=0 max={}",
            self.params.bb_size,
            crate::engine::egdb::MAX_PIECES
        ));
        emit(&format!("param name=book value={} type=bool", self.params.book));
        emit(&format!("param name=book-file value={} type=string", quote(&self.params.book_file)));
        emit(&format!(
            "param name=book-ply value={} type=int min=0 max={MAX_BOOK_PLY}",
            self.params.book_policy.max_ply
        ));
        emit(&format!(
            "param name=book-margin value={} type=int min=0 max={MAX_BOOK_MARGIN}",
            self.params.book_policy.margin
        ));
        emit(&format!(
            "param name=multipv value={} type=int min=1 max={}",
            self.params.multipv,
            options::MAX_MULTIPV
        ));
        emit(&format!(
            "param name=strength value={} type=int min=0 max={MAX_STRENGTH}",
            self.params.strength
        ));
        // `values` last: lidraughts' client splits the line at its last `=`.
        emit(&format!(
            "param name=variant value={} type=enum values=\"{}\"",
            self.params.variant,
            Variant::names()
        ));
        emit("wait");
    }

    fn set_param(&mut self, msg: &Message) -> Result<(), String> {
        let name = msg.get("name").ok_or("set-param needs name=")?;
        let value = msg.get("value").unwrap_or("");
        match name {
            "threads" => self.params.threads = options::threads(value).map_err(|e| e.to_string())?,
            "hash" => self.params.hash_mb = options::hash_mb(value).map_err(|e| e.to_string())?,
            "move-overhead" => {
                self.params.move_overhead = options::move_overhead(value).map_err(|e| e.to_string())?
            }
            "tt-size" => {
                let n = parse_int("tt-size", value, 16, 32)?;
                let mb = (1usize << (n - 16)).min(MAX_HASH_MB);
                self.params.hash_mb = options::hash_mb(&mb.to_string()).map_err(|e| e.to_string())?;
            }
            "ponder" => {
                self.params.ponder =
                    parse_bool(value).ok_or(format!("ponder must be true or false, not {value:?}"))?
            }
            "eval" | "weights" => {
                let mut next = self.params.clone();
                if name == "eval" {
                    next.eval = value.to_string();
                } else {
                    next.weights = value.to_string();
                }
                let path = (!next.weights.is_empty()).then(|| resolve(std::path::Path::new(&next.weights)));
                match Evaluation::from_name(&next.eval, path.as_deref()) {
                    Ok(e) => {
                        self.evaluation = e;
                        self.params = next;
                    }
                    Err(e) if name == "weights" => {
                        // Keep playing: with the embedded weights.
                        self.params.weights.clear();
                        self.evaluation = Evaluation::from_name(&self.params.eval, None)?;
                        return Err(format!("{e}; using the embedded weights"));
                    }
                    Err(e) => return Err(e),
                }
            }
            "bb-path" | "bb-size" => {
                if name == "bb-path" {
                    self.params.bb_path = value.to_string();
                    if !value.is_empty() && !resolve(std::path::Path::new(value)).is_dir() {
                        self.egdb = None;
                        self.tables_stale = false;
                        return Err(format!(
                            "bb-path: {value}: no such directory; playing without endgame tables"
                        ));
                    }
                } else {
                    self.params.bb_size = parse_int("bb-size", value, 0, egdb::MAX_PIECES as u64)? as usize;
                    self.bb_size_set = true;
                }
                // Loaded at `init` or the next search, once every parameter
                // has arrived (clients send them one by one).
                self.tables_stale = true;
            }
            "book" => {
                self.params.book =
                    parse_bool(value).ok_or(format!("book must be true or false, not {value:?}"))?
            }
            "multipv" => self.params.multipv = options::multipv(value).map_err(|e| e.to_string())?,
            "strength" => self.params.strength = options::strength(value).map_err(|e| e.to_string())?,
            "draw-rules" => {
                let rules: DrawRules =
                    value.parse().map_err(|e: DrawRulesError| format!("draw-rules: {e}"))?;
                self.params.draw_rules = rules;
                self.game = std::mem::take(&mut self.game).with_draw_rules(rules);
            }
            "variant" => {
                let variant = Variant::from_name(value).map_err(|e| e.to_string())?;
                self.params.variant = variant;
                // The position given before it is now a game of this variant.
                self.game = std::mem::take(&mut self.game).in_variant(variant);
            }
            "book-ply" => {
                self.params.book_policy.max_ply = parse_int("book-ply", value, 0, MAX_BOOK_PLY)? as u32
            }
            "book-margin" => {
                self.params.book_policy.margin = parse_int("book-margin", value, 0, MAX_BOOK_MARGIN)? as i32
            }
            "book-file" => {
                self.params.book_file = value.to_string();
                if value.is_empty() {
                    self.book = Some(Arc::new(Book::embedded()));
                } else {
                    match Book::load(&resolve(std::path::Path::new(value))) {
                        Ok(b) => self.book = Some(Arc::new(b)),
                        Err(e) => {
                            self.book = None;
                            return Err(format!("book-file: {value}: {e}; playing without a book"));
                        }
                    }
                }
            }
            // Unknown parameters are ignored, as the protocol asks.
            _ => {}
        }
        Ok(())
    }

    /// Loads the tables `bb-path` (else those the host delivered) and
    /// `bb-size` name, by the engine's one loading policy ([`egdb::open`]):
    /// the default `bb-size` takes every complete piece count up to it, a
    /// `bb-size` the client set is what it asked for. A missing or damaged
    /// table limits the piece count (a damaged 2-piece one leaves the
    /// engine without tables). Either way the engine plays on, and one
    /// message says what it uses and what is wrong.
    fn load_tables(&mut self) -> Result<(), String> {
        self.egdb = None;
        if self.params.bb_size < 2 {
            return Ok(());
        }
        let pieces = if self.bb_size_set {
            Pieces::Exactly(self.params.bb_size)
        } else {
            Pieces::UpTo(self.params.bb_size)
        };
        let dir;
        let source: &dyn egdb::Source = match (self.params.bb_path.as_str(), &self.pack) {
            ("", None) => return Ok(()),
            ("", Some(pack)) => pack,
            (path, _) => {
                dir = resolve(std::path::Path::new(path));
                &dir
            }
        };
        let opened =
            egdb::open(source, pieces).map_err(|e| format!("{e}; playing without endgame tables"))?;
        let tables = opened.tables;
        log::info!(
            "endgame tables: {} tables, up to {} pieces, from {}",
            tables.len(),
            tables.max_pieces(),
            source.describe()
        );
        self.egdb = Some(Arc::new(tables));
        if opened.notes.is_empty() {
            Ok(())
        } else {
            Err(opened.notes.join("; "))
        }
    }

    fn pos(&mut self, msg: &Message) -> Result<(), String> {
        if msg.get("pos").is_none() && msg.get("start").is_none() && msg.get("moves").is_none() {
            // A bare `pos` is a mistake, not a request for the start.
            return Err("pos needs pos=<position> (or start) and/or moves=\"...\"; position kept".into());
        }
        let game = game_of(msg, self.params.variant, self.params.draw_rules)?;
        self.game = game;
        self.level = Level::default();
        Ok(())
    }

    /// Reads a `level` line; an error keeps the fields from before it.
    fn level(&mut self, msg: &Message) -> Result<(), String> {
        let mut next = self.level.clone();
        for (name, value) in &msg.args {
            next.apply(name, value).map_err(|e| e.to_string())?;
        }
        self.level = next;
        Ok(())
    }

    fn go(&mut self, msg: &Message) -> Result<(), String> {
        let mode = msg.args.first().map(|(n, _)| n.as_str()).unwrap_or("think");
        let mut limits = self.level.limits(mode)?;
        if limits.analysis {
            limits.multipv = self.params.multipv;
        }
        self.level = Level::default();
        let game = self.game.clone();
        self.note_passed_draw(&game);
        self.pondering = limits.ponder;
        let last = self.last_clocked.take();
        self.clocked_search = match (limits.clock, limits.ponder, limits.analysis) {
            (Some(clock), false, false) => {
                if let Some(last) = last.filter(|l| l.followed_by(game.position())) {
                    self.latency.observe(&last.clock, last.think, clock.time);
                }
                Some((*game.position(), clock))
            }
            _ => None,
        };
        // A strength level weakens games, never analysis.
        let strength = Strength::of(self.params.strength).filter(|_| !limits.analysis);
        if let Some(s) = &strength {
            s.limit(&mut limits);
        }
        let book = self.book.clone().filter(|_| self.params.book);
        let engine = self.engine();
        if let Some(s) = strength {
            if s.weak_eval {
                engine.set_evaluation(Evaluation::Pst);
            }
            engine.set_book(book, BookPolicy { max_ply: s.book_ply, margin: s.book_margin });
        }
        engine
            .start(
                &game,
                &limits,
                Box::new(|info| info_lines(info).iter().for_each(|l| emit(l))),
                Box::new(|result| emit(&done_line(result))),
            )
            .map_err(|e| format!("cannot start the search thread: {e}"))
    }

    /// Says once a game, on stderr (GUIs read stdout only), that the game
    /// went on past a draw by rule and that the engine now plays it under
    /// repetition alone (the engine's search does so by itself).
    fn note_passed_draw(&mut self, game: &Game) {
        if let Some(reason) = game.draw_point() {
            eprintln!(
                "dammer: every move here ends the game ({}): playing the move that is best if the game goes on",
                reason.describe()
            );
            return;
        }
        let Some(passed) = game.passed_draw() else { return };
        let key = (*game.start(), passed.ply);
        if self.passed_noted != Some(key) {
            self.passed_noted = Some(key);
            eprintln!(
                "dammer: the game was drawn at ply {} ({}) and goes on: playing it under repetition alone \
                 (set-param name=draw-rules value=repetition says so from the start)",
                passed.ply,
                passed.reason.describe()
            );
        }
    }

    /// Stops a running search and waits for its `done`.
    pub(super) fn finish_search(&mut self) {
        self.pondering = false;
        let clocked = self.clocked_search.take();
        if let Some(engine) = &mut self.engine {
            engine.stop();
            if let (Some(result), Some((root, clock))) = (engine.wait(), clocked) {
                if let Some(played) = result.best {
                    self.last_clocked = Some(ClockedMove { root, clock, think: result.time, played });
                }
            }
        }
    }

    /// Handles one input line; returns false when the engine must exit.
    pub(super) fn handle_line(&mut self, line: &str) -> bool {
        log::debug!("< {}", line.trim_end());
        match Message::parse(line) {
            Ok(None) => true,
            Ok(Some(msg)) => self.handle(&msg),
            Err(e) => {
                error(&e);
                true
            }
        }
    }

    /// Handles one message; returns false when the engine must exit.
    fn handle(&mut self, msg: &Message) -> bool {
        match Meets::of(&msg.command) {
            Meets::Ping => {
                emit("pong");
                return true;
            }
            Meets::Stop => {
                self.finish_search();
                return true;
            }
            Meets::PonderHit => {
                if self.pondering {
                    self.pondering = false;
                    if let Some(engine) = &self.engine {
                        engine.ponder_hit();
                    }
                }
                return true;
            }
            Meets::Unknown => {
                unknown(&msg.command);
                return true;
            }
            Meets::EndsIt => {}
        }
        // Any other command ends a running search first.
        self.finish_search();
        if msg.command == "quit" {
            return false;
        }
        let outcome = match msg.command.as_str() {
            "hub" => {
                self.hub();
                Ok(())
            }
            "init" => {
                self.engine();
                emit("ready");
                Ok(())
            }
            "set-param" => self.set_param(msg),
            "new-game" => {
                self.last_clocked = None;
                self.engine().clear();
                self.game = Game::with_variant(Position::start(), self.params.variant)
                    .with_draw_rules(self.params.draw_rules);
                self.level = Level::default();
                Ok(())
            }
            "pos" => {
                // Parameters set since `init` (a new table size, tables to
                // load) take effect now rather than at `go`, where the work
                // would run on the engine's clock.
                if self.tables_stale || self.params != self.applied {
                    self.engine();
                }
                self.pos(msg)
            }
            "level" => self.level(msg),
            "go" => self.go(msg),
            // Unknown commands were answered above.
            _ => Ok(()),
        };
        if let Err(e) = outcome {
            error(&e);
        }
        true
    }
}

/// Runs the Hub protocol on stdin and stdout until `quit` or end of input.
pub fn run() {
    let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
    spawn_reader(tx);
    let mut hub = Hub::new(None);
    loop {
        let input = rx.recv().unwrap_or(Input::Eof);
        match input {
            Input::Eof => {
                hub.finish_search();
                return;
            }
            Input::TooLong => error("line too long, ignored"),
            Input::Line(line) => {
                if !hub.handle_line(&line) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables the host delivers (a browser's download) serve the next
    /// search while `bb-path` is empty, by the `bb-size` policy; a damaged
    /// delivery is refused and the tables in use stay.
    #[test]
    fn delivered_tables_serve_the_next_search() {
        use crate::engine::egdb::{Signature, Table, Wdl};
        let tables: Vec<Table> = Signature::all(2)
            .into_iter()
            .map(|sig| Table::compress(sig, sig.size(), |_| Some(Wdl::Draw)))
            .collect();
        let mut hub = Hub::new(None);
        hub.engine();
        assert!(hub.egdb.is_none());
        host::deliver_tables(Pack::write(&tables));
        hub.engine();
        assert_eq!(hub.egdb.as_ref().map(|t| t.max_pieces()), Some(2));
        assert!(hub.handle_line("set-param name=bb-size value=0"));
        hub.engine();
        assert!(hub.egdb.is_none());
        assert!(hub.handle_line("set-param name=bb-size value=2"));
        hub.engine();
        assert_eq!(hub.egdb.as_ref().map(|t| t.max_pieces()), Some(2));
        host::deliver_tables(b"not a pack".to_vec());
        hub.engine();
        assert!(hub.pack.is_some());
        assert_eq!(hub.egdb.as_ref().map(|t| t.max_pieces()), Some(2));
    }

    #[test]
    fn tt_size_matches_hash() {
        assert_eq!(tt_size_of(64), 22);
        assert_eq!(tt_size_of(1), 16);
    }

    /// The clock of the next `go` measures the GUI's charge only when it is
    /// the same side's, one move later in the same game.
    #[test]
    fn a_clocked_move_is_followed_by_the_next_move_of_the_same_side() {
        let mut game = Game::default();
        let root = *game.position();
        let played = game.play_text("32-28").unwrap();
        let last = ClockedMove { root, clock: NO_CLOCK, think: Duration::ZERO, played };
        assert!(!last.followed_by(game.position()));
        game.play_text("18-23").unwrap();
        assert!(last.followed_by(game.position()));
        game.play_text("28-22").unwrap();
        assert!(!last.followed_by(game.position()));
        // Another move of ours than the one played: another game.
        let mut other = Game::default();
        other.play_text("31-27").unwrap();
        other.play_text("18-23").unwrap();
        assert!(!last.followed_by(other.position()));
    }
}
