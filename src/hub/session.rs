//! The Hub protocol front end (the text protocol of Scan and the Hub GUI).
//!
//! Three threads: a reader turns stdin lines into [`Message`]s, the protocol
//! loop (the caller's thread) keeps the state and answers, and a search
//! thread runs [`Engine::search`] so that `ping`, `stop` and `ponder-hit` are
//! handled while it thinks. Every output line goes through [`emit`], which
//! writes and flushes it whole. Nothing is written to stderr.

use std::io::{self, BufRead, Write};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::engine::egdb::{Signature, Tables};
use crate::engine::eval::Evaluation;
use crate::engine::score;
use crate::engine::search::{Info, SearchControl, MAX_DEPTH};
use crate::engine::time::{Clock, Limits};
use crate::engine::{Engine, SearchResult, DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS};
use crate::rules::game::Game;
use crate::rules::movegen::Move;
use crate::rules::position::Position;

const NO_CLOCK: Clock = Clock { time: 0.0, inc: 0.0, moves_to_go: None };

/// Longest line read; the rest of a longer one is dropped with an error.
const MAX_LINE: usize = 1 << 16;

/// Writes one protocol line to stdout and flushes it.
pub fn emit(line: &str) {
    log::debug!("> {line}");
    let mut out = io::stdout().lock();
    // A GUI that went away closes stdout; there is nobody left to tell.
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Quotes a value when the protocol requires it.
pub fn quote(v: &str) -> String {
    if v.is_empty() || v.contains([' ', '=', '"', '\t']) {
        format!("\"{}\"", v.replace('"', "'"))
    } else {
        v.to_string()
    }
}

fn error(msg: &str) {
    emit(&format!("error message={}", quote(msg)));
}

/// One parsed input line: the command word and its `name=value` arguments
/// (a name alone has the value "").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The command word.
    pub command: String,
    /// Arguments in order.
    pub args: Vec<(String, String)>,
}

impl Message {
    /// Parses a line; `Err` says why it cannot be read (an unterminated quote).
    pub fn parse(line: &str) -> Result<Option<Message>, String> {
        let mut chars = line.trim().chars().peekable();
        let mut words: Vec<(String, String)> = Vec::new();
        loop {
            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                chars.next();
            }
            if chars.peek().is_none() {
                break;
            }
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '=' {
                    break;
                }
                name.push(c);
                chars.next();
            }
            let mut value = String::new();
            if chars.peek() == Some(&'=') {
                chars.next();
                if chars.peek() == Some(&'"') {
                    chars.next();
                    let mut closed = false;
                    for c in chars.by_ref() {
                        if c == '"' {
                            closed = true;
                            break;
                        }
                        value.push(c);
                    }
                    if !closed {
                        return Err(format!("unterminated quote in the value of {name}"));
                    }
                } else {
                    while let Some(&c) = chars.peek() {
                        if c.is_whitespace() {
                            break;
                        }
                        value.push(c);
                        chars.next();
                    }
                }
            }
            words.push((name, value));
        }
        if words.is_empty() {
            return Ok(None);
        }
        let (command, v) = words.remove(0);
        if command == "pos" && !v.is_empty() {
            // `pos=...` without the command word: read it as `pos pos=...`.
            words.insert(0, ("pos".into(), v));
        }
        Ok(Some(Message { command, args: words }))
    }

    /// The value of the last argument called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.args.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What the reader thread passes on.
enum Input {
    Line(String),
    TooLong,
    Eof,
}

fn spawn_reader(tx: mpsc::Sender<Input>) {
    let spawned = std::thread::Builder::new().name("dammer-hub-reader".into()).spawn(move || {
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match io::Read::take(&mut lock, MAX_LINE as u64).read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(Input::Eof);
                    return;
                }
                Ok(_) => {
                    if buf.last() != Some(&b'\n') && buf.len() >= MAX_LINE {
                        // Skip the rest of the over-long line.
                        let mut rest = Vec::new();
                        let _ = lock.read_until(b'\n', &mut rest);
                        if tx.send(Input::TooLong).is_err() {
                            return;
                        }
                        continue;
                    }
                    let line = String::from_utf8_lossy(&buf).into_owned();
                    if tx.send(Input::Line(line)).is_err() {
                        return;
                    }
                }
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
    ponder: bool,
    /// `learned` or `hand`.
    eval: String,
    /// Weights file of the learned evaluation ("" = the embedded weights).
    weights: String,
    /// Directory of the endgame tables ("" = none).
    bb_path: String,
    /// Most pieces to probe the tables for (0 = do not probe).
    bb_size: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
            ponder: false,
            eval: crate::engine::eval::DEFAULT_EVAL.into(),
            weights: String::new(),
            bb_path: String::new(),
            bb_size: DEFAULT_BB_SIZE,
        }
    }
}

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

fn parse_int(name: &str, v: &str, min: u64, max: u64) -> Result<u64, String> {
    let n: u64 = v.trim().parse().map_err(|_| format!("{name} must be an integer, not {v:?}"))?;
    if n < min || n > max {
        return Err(format!("{name} must be between {min} and {max}, not {n}"));
    }
    Ok(n)
}

fn parse_seconds(name: &str, v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{name} must be a number of seconds, not {v:?}")),
    }
}

struct Search {
    handle: JoinHandle<Engine>,
    control: Arc<SearchControl>,
    pondering: bool,
}

/// The protocol state.
struct Hub {
    engine: Option<Engine>,
    params: Params,
    applied: Params,
    game: Game,
    levels: Vec<(String, String)>,
    search: Option<Search>,
    /// The evaluation the parameters select.
    evaluation: Evaluation,
    /// The endgame tables the parameters select.
    egdb: Option<Arc<Tables>>,
    /// `bb-path` or `bb-size` changed since the tables were loaded.
    tables_stale: bool,
    /// `bb-size` was set by the client (not the default).
    bb_size_set: bool,
}

fn pv_text(pv: &[Move]) -> String {
    pv.iter().map(Move::to_string).collect::<Vec<_>>().join(" ")
}

fn info_line(info: &Info) -> String {
    format!(
        "info depth={} mean-depth={:.1} score={} nodes={} time={:.3} nps={:.1} pv=\"{}\"",
        info.depth,
        info.mean_depth,
        score::format(info.score),
        info.nodes,
        info.time.as_secs_f64(),
        info.nps() / 1e6,
        pv_text(&info.pv)
    )
}

fn done_line(r: &SearchResult) -> String {
    match (r.best, r.ponder) {
        (Some(m), Some(p)) => format!("done move={m} ponder={p}"),
        (Some(m), None) => format!("done move={m}"),
        // No legal move: there is nothing to play (Scan answers the same way).
        (None, _) => "done".to_string(),
    }
}

impl Hub {
    fn new() -> Hub {
        let params = Params::default();
        Hub {
            engine: None,
            applied: params.clone(),
            params,
            game: Game::default(),
            levels: Vec::new(),
            search: None,
            evaluation: Evaluation::default(),
            egdb: None,
            tables_stale: false,
            bb_size_set: false,
        }
    }

    /// The engine, created or reconfigured to the declared parameters.
    fn engine(&mut self) -> &mut Engine {
        if self.tables_stale {
            self.tables_stale = false;
            if let Err(e) = self.load_tables() {
                error(&e);
            }
        }
        if self.engine.is_none() {
            self.applied = self.params.clone();
        }
        let engine = self.engine.get_or_insert_with(|| Engine::new(self.params.threads, self.params.hash_mb));
        engine.set_evaluation(self.evaluation.clone());
        engine.set_egdb(self.egdb.clone());
        if self.applied.threads != self.params.threads {
            engine.set_threads(self.params.threads);
        }
        if self.applied.hash_mb != self.params.hash_mb {
            engine.set_hash_mb(self.params.hash_mb);
        }
        self.applied = self.params.clone();
        engine
    }

    fn hub(&self) {
        emit(&format!(
            "id name=Dammer version={} author={} country=International",
            env!("CARGO_PKG_VERSION"),
            quote("the Dammer developers")
        ));
        emit(&format!("param name=threads value={} type=int min=1 max={MAX_THREADS}", self.params.threads));
        emit(&format!("param name=hash value={} type=int min=1 max={MAX_HASH_MB}", self.params.hash_mb));
        emit(&format!("param name=tt-size value={} type=int min=16 max=32", tt_size_of(self.params.hash_mb)));
        emit(&format!("param name=ponder value={} type=bool", self.params.ponder));
        emit(&format!("param name=eval value={} type=enum values=\"learned hand\"", self.params.eval));
        emit(&format!("param name=weights value={} type=string", quote(&self.params.weights)));
        emit(&format!("param name=bb-path value={} type=string", quote(&self.params.bb_path)));
        emit(&format!(
            "param name=bb-size value={} type=int min=0 max={}",
            self.params.bb_size,
            crate::engine::egdb::MAX_PIECES
        ));
        emit("wait");
    }

    fn set_param(&mut self, msg: &Message) -> Result<(), String> {
        let name = msg.get("name").ok_or("set-param needs name=")?;
        let value = msg.get("value").unwrap_or("");
        match name {
            "threads" => self.params.threads = parse_int(name, value, 1, MAX_THREADS as u64)? as usize,
            "hash" => self.params.hash_mb = parse_int(name, value, 1, MAX_HASH_MB as u64)? as usize,
            "tt-size" => {
                let n = parse_int(name, value, 16, 32)?;
                self.params.hash_mb = (1usize << (n - 16)).min(MAX_HASH_MB);
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
                let path = (!next.weights.is_empty()).then(|| std::path::Path::new(&next.weights));
                match Evaluation::from_name(&next.eval, path) {
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
                    if !value.is_empty() && !std::path::Path::new(value).is_dir() {
                        self.egdb = None;
                        self.tables_stale = false;
                        return Err(format!(
                            "bb-path: {value}: no such directory; playing without endgame tables"
                        ));
                    }
                } else {
                    self.params.bb_size =
                        parse_int(name, value, 0, crate::engine::egdb::MAX_PIECES as u64)? as usize;
                    self.bb_size_set = true;
                }
                // Loaded at `init` or the next search, once every parameter
                // has arrived (clients send them one by one).
                self.tables_stale = true;
            }
            // Unknown parameters are ignored, as the protocol asks.
            _ => {}
        }
        Ok(())
    }

    /// Loads the tables `bb-path` and `bb-size` name. A damaged file leaves
    /// the engine without tables; missing tables limit the piece count.
    /// Either way the engine plays on, and one message says what it uses:
    /// when it uses fewer pieces than `bb-size` asked for, or (with the
    /// default `bb-size`) than the largest tables in the directory.
    fn load_tables(&mut self) -> Result<(), String> {
        self.egdb = None;
        if self.params.bb_path.is_empty() || self.params.bb_size < 2 {
            return Ok(());
        }
        let dir = std::path::Path::new(&self.params.bb_path);
        let (tables, missing) = Tables::load(dir, self.params.bb_size)
            .map_err(|e| format!("{e}; playing without endgame tables"))?;
        let used = tables.max_pieces();
        let present = Signature::all(self.params.bb_size)
            .into_iter()
            .filter(|s| !missing.contains(s))
            .map(|s| s.pieces())
            .max()
            .unwrap_or(0);
        let wanted = if self.bb_size_set { self.params.bb_size } else { present };
        log::info!("endgame tables: {} tables, up to {used} pieces, from {}", tables.len(), dir.display());
        self.egdb = (used >= 2).then(|| Arc::new(tables));
        if used >= wanted {
            Ok(())
        } else if used >= 2 {
            Err(format!(
                "{} of the endgame tables up to {wanted} pieces are missing in {}: using up to {used} pieces",
                Signature::all(wanted).iter().filter(|s| missing.contains(s)).count(),
                dir.display()
            ))
        } else {
            Err(format!("no complete set of endgame tables in {}: playing without them", dir.display()))
        }
    }

    fn pos(&mut self, msg: &Message) -> Result<(), String> {
        let mut game = match msg.get("pos") {
            None | Some("start" | "") => Game::default(),
            Some(p) => Game::new(Position::parse(p).map_err(|e| format!("bad position: {e}"))?),
        };
        if let Some(moves) = msg.get("moves") {
            for (i, m) in moves.split_whitespace().enumerate() {
                game.play_text(m).map_err(|e| format!("illegal move {m} (move {} of moves=): {e}", i + 1))?;
            }
        }
        self.game = game;
        self.levels.clear();
        Ok(())
    }

    /// Applies one `level` field to `l` and `clock`.
    fn apply_level(l: &mut Limits, clock: &mut Clock, name: &str, value: &str) -> Result<(), String> {
        match name {
            "depth" => l.depth = Some(parse_int(name, value, 1, u64::from(MAX_DEPTH))? as u32),
            "nodes" => l.nodes = Some(parse_int(name, value, 1, u64::MAX)?),
            "move-time" => {
                let s = parse_seconds(name, value)?;
                l.move_time = Some(Duration::from_secs_f64(s.clamp(0.0, 1e9)));
            }
            "time" => clock.time = parse_seconds(name, value)?,
            "inc" => clock.inc = parse_seconds(name, value)?.max(0.0),
            "moves" => {
                let n = parse_int(name, value, 0, 10_000)? as u32;
                clock.moves_to_go = (n > 0).then_some(n);
            }
            "infinite" => l.infinite = true,
            // Unknown fields (lidraughts' handicap, ply) are ignored.
            _ => {}
        }
        Ok(())
    }

    /// Checks the fields of a `level` line before they are kept.
    fn level(&mut self, msg: &Message) -> Result<(), String> {
        let mut scratch = Limits::default();
        let mut clock = NO_CLOCK;
        for (name, value) in &msg.args {
            Self::apply_level(&mut scratch, &mut clock, name, value)?;
        }
        self.levels.extend(msg.args.iter().cloned());
        Ok(())
    }

    fn limits(&self, mode: &str) -> Result<Limits, String> {
        let mut l = Limits::default();
        let mut clock = NO_CLOCK;
        for (name, value) in &self.levels {
            Self::apply_level(&mut l, &mut clock, name, value)?;
        }
        // Only a `time` field makes a clock; `inc` or `moves` alone do not.
        if self.levels.iter().any(|(n, _)| n == "time") {
            l.clock = Some(clock);
        }
        match mode {
            "think" => {}
            "ponder" => l.ponder = true,
            "analyze" | "analyse" => l.analysis = true,
            other => return Err(format!("go needs think, ponder or analyze, not {other:?}")),
        }
        Ok(l)
    }

    fn go(&mut self, msg: &Message) -> Result<(), String> {
        let mode = msg.args.first().map(|(n, _)| n.as_str()).unwrap_or("think");
        let limits = self.limits(mode)?;
        self.levels.clear();
        let game = self.game.clone();
        self.engine();
        let mut engine = self.engine.take().unwrap_or_default();
        let control = Arc::new(SearchControl::default());
        let search_control = Arc::clone(&control);
        let pondering = limits.ponder;
        let spawned = std::thread::Builder::new()
            .name("dammer-search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let mut on_info = |info: &Info| emit(&info_line(info));
                let result = engine.search(&game, &limits, &search_control, &mut on_info);
                emit(&done_line(&result));
                engine
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))?;
        self.search = Some(Search { handle: spawned, control, pondering });
        Ok(())
    }

    /// Stops a running search and waits for its `done`.
    fn finish_search(&mut self) {
        if let Some(s) = self.search.take() {
            s.control.stop();
            match s.handle.join() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => error("the search thread failed; starting a fresh engine"),
            }
        }
    }

    /// Collects a search that ended by itself.
    fn reap(&mut self) {
        if self.search.as_ref().is_some_and(|s| s.handle.is_finished()) {
            self.finish_search();
        }
    }

    /// Handles one message; returns false when the engine must exit.
    fn handle(&mut self, msg: &Message) -> bool {
        self.reap();
        match msg.command.as_str() {
            "ping" => {
                emit("pong");
                return true;
            }
            "stop" => {
                self.finish_search();
                return true;
            }
            "ponder-hit" => {
                if let Some(s) = &mut self.search {
                    if s.pondering {
                        s.control.ponder_hit();
                        s.pondering = false;
                    }
                }
                return true;
            }
            "quit" => {
                self.finish_search();
                return false;
            }
            _ => {}
        }
        // Any other command ends a running search first.
        self.finish_search();
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
                self.engine().clear();
                self.game = Game::default();
                self.levels.clear();
                Ok(())
            }
            "pos" => self.pos(msg),
            "level" => self.level(msg),
            "go" => self.go(msg),
            // Unknown commands are ignored, as the protocol asks.
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
    let (tx, rx) = mpsc::channel();
    spawn_reader(tx);
    let mut hub = Hub::new();
    loop {
        let input = match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(i) => i,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                hub.reap();
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Input::Eof,
        };
        match input {
            Input::Eof => {
                hub.finish_search();
                return;
            }
            Input::TooLong => error("line too long, ignored"),
            Input::Line(line) => {
                log::debug!("< {}", line.trim_end());
                match Message::parse(&line) {
                    Ok(None) => {}
                    Ok(Some(msg)) => {
                        if !hub.handle(&msg) {
                            return;
                        }
                    }
                    Err(e) => error(&e),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Message {
        Message::parse(s).unwrap().unwrap()
    }

    #[test]
    fn parses_names_values_and_quotes() {
        let m = parse("pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\"");
        assert_eq!(m.command, "pos");
        assert_eq!(m.get("moves"), Some("32-28 19-23"));
        let m = parse("level time=60 inc=0.5");
        assert_eq!(m.get("time"), Some("60"));
        let m = parse("go think");
        assert_eq!(m.args, vec![("think".to_string(), String::new())]);
        assert_eq!(Message::parse("   ").unwrap(), None);
        assert!(Message::parse("pos moves=\"32-28").is_err());
        let m = parse("set-param name=threads value=\"\"");
        assert_eq!(m.get("value"), Some(""));
    }

    #[test]
    fn tt_size_matches_hash() {
        assert_eq!(tt_size_of(64), 22);
        assert_eq!(tt_size_of(1), 16);
    }
}
