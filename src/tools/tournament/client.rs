//! A Hub engine seen from the other side: a child process driven through
//! its standard input and output, with deadlines on every answer; and what
//! every engine of a match has (its spec, its errors, its replies).
//!
//! Two dialects: today's Hub (`set-param`, `pos pos=... moves="..."`,
//! `level move-time=`, `go think` -> `done move=`) and the early one of
//! Scan 2.0 and the engines of its time (`set NAME VALUE`, `pos <w|b>...`
//! plus one `move` a ply, `time MS` or `level MOVES MS INC`, `go` ->
//! `move M [PONDER]`, `info` with positional fields).

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::base::lines::{read_line, Line};
use crate::hub::{quote, Message};
use crate::rules::game::Game;

/// How long an engine may take to answer `hub` and `init`.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an engine may take to answer `ping` before the runner takes it
/// not to know the command.
pub const SYNC_TIMEOUT: Duration = Duration::from_secs(3);

/// Longest line read from an engine; the rest of a longer one is dropped.
const MAX_LINE: usize = 1 << 16;

/// Lines read ahead of the runner: an engine that writes faster than the
/// runner reads waits on its pipe instead of filling the runner's memory.
const READ_AHEAD: usize = 256;

/// How to start and configure one engine.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// The name used in results and PDN files.
    pub name: String,
    /// Program and arguments (none for an engine reached at an address).
    pub command: Vec<String>,
    /// How the runner talks to it.
    pub protocol: Protocol,
    /// Working directory (the runner's own when unset).
    pub dir: Option<PathBuf>,
    /// Hub parameters sent with `set-param` before `init`.
    pub params: Vec<(String, String)>,
}

/// The protocol an engine speaks to the runner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Hub over the child's standard input and output.
    Hub,
    /// The early Hub dialect (Scan 2.0's) over standard input and output.
    EarlyHub,
    /// DXP: the child connects to the runner (`DXP_HOST`, `DXP_PORT`).
    DxpClient,
    /// DXP: the engine listens at this address and the runner connects.
    DxpConnect(String),
}

impl Protocol {
    /// Whether the engine is reached over DXP (a clock without increment,
    /// no parameters, one connection a game at a time).
    pub fn is_dxp(&self) -> bool {
        matches!(self, Protocol::DxpClient | Protocol::DxpConnect(_))
    }
}

/// What the engine has for its next move, by the runner's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// A fixed time for this move, seconds.
    MoveTime(f64),
    /// A clock: `left` seconds now, `inc` added each move, `to_go` moves
    /// to the next time control (None: the rest of the game).
    Clock {
        /// Moves until the clock gets its next period.
        to_go: Option<u32>,
        /// Seconds on the engine's clock.
        left: f64,
        /// Seconds added each move.
        inc: f64,
    },
}

impl EngineSpec {
    /// Reads `name=N cmd="program args" dir=D option.P=V ...` (one token
    /// each, as the shell passes them). A `cmd` of a single word gets the
    /// `hub` argument that every Hub engine is started with;
    /// `early-hub="program args"` is an engine of the early Hub dialect
    /// (Scan 2.0), its `option.P=V` sent as `set P V`. A DXP engine
    /// comes as `dxp-client="program args"` (started with `DXP_HOST` and
    /// `DXP_PORT` in its environment, it connects to the runner) or
    /// `dxp-connect=HOST:PORT` (already listening).
    pub fn parse(tokens: &[String]) -> Result<EngineSpec, String> {
        let mut name = None;
        let mut command = None;
        let mut protocol = Protocol::Hub;
        let mut ways = 0;
        let mut dir = None;
        let mut params = Vec::new();
        for token in tokens {
            let Some((key, value)) = token.split_once('=') else {
                return Err(format!("engine option {token:?} is not key=value"));
            };
            match key {
                "name" => name = Some(value.to_string()),
                "cmd" | "early-hub" | "dxp-client" => {
                    let mut words = split_command(value)?;
                    if words.is_empty() {
                        return Err(format!("empty engine command ({key}=)"));
                    }
                    if key != "dxp-client" && words.len() == 1 {
                        words.push("hub".into());
                    }
                    protocol = match key {
                        "early-hub" => Protocol::EarlyHub,
                        "dxp-client" => Protocol::DxpClient,
                        _ => Protocol::Hub,
                    };
                    command = Some(words);
                    ways += 1;
                }
                "dxp-connect" => {
                    if !value.contains(':') {
                        return Err(format!("dxp-connect={value}: expected HOST:PORT"));
                    }
                    protocol = Protocol::DxpConnect(value.to_string());
                    command = Some(Vec::new());
                    ways += 1;
                }
                "dir" => dir = Some(PathBuf::from(value)),
                _ => match key.strip_prefix("option.").or_else(|| key.strip_prefix("param.")) {
                    Some(p) if !p.is_empty() => params.push((p.to_string(), value.to_string())),
                    _ => {
                        return Err(format!(
                            "unknown engine option {key:?} (expected name=, cmd=, early-hub=, dxp-client=, dxp-connect=, dir= or option.NAME=)"
                        ))
                    }
                },
            }
        }
        let command = command.ok_or(
            "an engine needs cmd=\"program hub\" (or early-hub=\"program hub\", dxp-client=\"program\", dxp-connect=HOST:PORT)",
        )?;
        if ways > 1 {
            return Err("an engine takes one of cmd=, early-hub=, dxp-client= and dxp-connect=".into());
        }
        if protocol.is_dxp() && !params.is_empty() {
            return Err("DXP engines take no option.NAME= (DXP has no parameters): configure them on their command line".into());
        }
        let name = name.unwrap_or_else(|| match (&protocol, command.first()) {
            (Protocol::DxpConnect(addr), _) => addr.clone(),
            (_, Some(program)) => program.rsplit('/').next().unwrap_or(program).to_string(),
            (_, None) => "engine".into(),
        });
        Ok(EngineSpec { name, command, protocol, dir, params })
    }
}

/// Splits a command line into words: whitespace separates, single or
/// double quotes group, a backslash escapes the next character.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') | (Some('"'), '\\') => {
                word.push(chars.next().ok_or("command ends with a backslash")?);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(format!("unterminated quote in command {text:?}"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Why an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The process could not be started.
    Spawn(String),
    /// The process closed its output (exited or crashed).
    Exited,
    /// No answer before the deadline.
    Timeout,
    /// The runner was told to stop (Ctrl-C or a decided SPRT).
    Aborted,
    /// The engine answered its set-up (parameters, `init`, a game request) with an error.
    Refused(String),
    /// A DXP engine ended the game itself (GAMEEND with this reason, from
    /// its view: 0 unknown, 1 it loses, 2 draw, 3 it wins).
    Ended(u8),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spawn(e) => write!(f, "could not start: {e}"),
            EngineError::Exited => write!(f, "exited or crashed"),
            EngineError::Timeout => write!(f, "did not answer in time"),
            EngineError::Aborted => write!(f, "aborted"),
            EngineError::Refused(e) => write!(f, "refused its set-up: {e}"),
            EngineError::Ended(r) => write!(f, "ended the game (GAMEEND reason {r})"),
        }
    }
}

impl std::error::Error for EngineError {}

/// An engine's answer to `go think`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The move as the engine wrote it (not yet checked).
    pub mv: String,
    /// The last reported score, in men, from the mover's side.
    pub score: Option<f64>,
    /// The last reported depth.
    pub depth: Option<u32>,
    /// Wall time from sending `go` to reading `done`.
    pub elapsed: Duration,
    /// Of `elapsed`, the time the engine's busiest thread waited for a CPU
    /// (the machine's stall, not the engine's thinking; Linux only, else 0).
    pub stall: Duration,
    /// `error` lines the engine wrote while it thought.
    pub errors: Vec<String>,
}

/// A running engine process.
#[derive(Debug)]
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    /// Each line with the moment the reader got it, so that the runner's
    /// own delays are not charged to the engine's clock.
    lines: Receiver<(Instant, String)>,
    /// The name the engine gave in `id name=` (`name ...` in the early
    /// dialect; informational).
    pub id_name: Option<String>,
    /// Whether the engine answered `ping` (until it fails to).
    answers_ping: bool,
    /// Whether it speaks the early dialect.
    early: bool,
}

impl EngineProcess {
    /// Starts the engine and takes it through `hub` ... `wait`, the
    /// parameters, and `init` ... `ready`.
    pub fn start(spec: &EngineSpec, stop: &AtomicBool) -> Result<EngineProcess, EngineError> {
        // Parameters the runner adds itself (its draw rules): only for the
        // engines that declare them, since an engine may refuse, or even
        // exit on, a parameter it does not know.
        const SENT_WHEN_DECLARED: [&str; 1] = ["draw-rules"];
        if let Some(dir) = spec.dir.as_ref().filter(|d| !d.is_dir()) {
            return Err(EngineError::Spawn(format!("working directory {} does not exist", dir.display())));
        }
        let mut cmd = Command::new(&spec.command[0]);
        cmd.args(&spec.command[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(dir) = &spec.dir {
            cmd.current_dir(dir);
        }
        // Its own process group: Ctrl-C in the terminal reaches the runner,
        // which ends the games and reports, not the engines mid-move.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|e| EngineError::Spawn(format!("{}: {e}", spec.command[0])))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EngineError::Spawn("no pipes to the engine".into()));
        };
        let (tx, lines) = mpsc::sync_channel(READ_AHEAD);
        let reader = std::thread::Builder::new()
            .name("dammer-match-reader".into())
            .spawn(move || read_lines(BufReader::new(stdout), &tx));
        if let Err(e) = reader {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EngineError::Spawn(format!("no reader thread: {e}")));
        }
        let early = spec.protocol == Protocol::EarlyHub;
        let mut engine = EngineProcess { child, stdin, lines, id_name: None, answers_ping: true, early };
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        engine.send("hub")?;
        let mut declared = Vec::new();
        loop {
            let msg = engine.receive(deadline, stop)?;
            match msg.command.as_str() {
                "id" => engine.id_name = msg.get("name").map(str::to_string),
                "name" if early => engine.id_name = Some(words(&msg)),
                "param" => declared.extend(msg.get("name").map(str::to_string)),
                "wait" => break,
                _ => {}
            }
        }
        let mut params = spec.params.clone();
        // Engines play single-threaded unless told otherwise: matches run
        // several games at once and compare engines core for core. (An
        // early engine declares nothing: its own settings file rules.)
        if declared.iter().any(|p| p == "threads") && !params.iter().any(|(p, _)| p == "threads") {
            params.insert(0, ("threads".into(), "1".into()));
        }
        for (name, value) in &params {
            if SENT_WHEN_DECLARED.contains(&name.as_str()) && !declared.iter().any(|p| p == name) {
                continue;
            }
            if early {
                engine.send(&format!("set {name} {value}"))?;
            } else {
                engine.send(&format!("set-param name={} value={}", quote(name), quote(value)))?;
            }
        }
        engine.send("init")?;
        // An engine that refuses a parameter says so with `error` before
        // `ready`: a match must not run on with settings it did not take.
        let mut refused = Vec::new();
        loop {
            let msg = engine.receive(deadline, stop)?;
            match msg.command.as_str() {
                "error" => refused.push(error_text(&msg, early)),
                "ready" => break,
                _ => {}
            }
        }
        if !refused.is_empty() {
            return Err(EngineError::Refused(refused.join("; ")));
        }
        Ok(engine)
    }

    /// Tells the engine a new game begins (`new-game`, early `new`) and
    /// waits until it has cleared its state.
    pub fn new_game(&mut self, stop: &AtomicBool) -> Result<(), EngineError> {
        self.send(if self.early { "new" } else { "new-game" })?;
        self.sync(stop)
    }

    /// Sends `ping` and waits for `pong`: whatever the engine was doing
    /// (clearing its table at `new-game`) is done before a clock starts.
    /// An engine that does not answer within [`SYNC_TIMEOUT`] is taken not
    /// to know `ping` and is not asked again.
    pub fn sync(&mut self, stop: &AtomicBool) -> Result<(), EngineError> {
        if !self.answers_ping {
            return Ok(());
        }
        self.send("ping")?;
        let deadline = Instant::now() + SYNC_TIMEOUT;
        loop {
            match self.receive(deadline, stop) {
                Ok(msg) if msg.command == "pong" => return Ok(()),
                Ok(_) => {}
                Err(EngineError::Timeout) => {
                    self.answers_ping = false;
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Writes one line to the engine.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        let mut text = String::with_capacity(line.len() + 1);
        text.push_str(line);
        text.push('\n');
        self.stdin
            .write_all(text.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|_| EngineError::Exited)
    }

    /// The next parsable line, waiting until `deadline`; unreadable lines
    /// are skipped, as the protocol asks of both sides.
    fn receive(&mut self, deadline: Instant, stop: &AtomicBool) -> Result<Message, EngineError> {
        self.receive_timed(deadline, stop).map(|(_, msg)| msg)
    }

    /// [`EngineProcess::receive`] with the moment the line was read.
    fn receive_timed(
        &mut self,
        deadline: Instant,
        stop: &AtomicBool,
    ) -> Result<(Instant, Message), EngineError> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(EngineError::Aborted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineError::Timeout);
            }
            // Wake up now and then to notice a stop request.
            let wait = (deadline - now).min(Duration::from_millis(50));
            match self.lines.recv_timeout(wait) {
                Ok((at, line)) => {
                    if let Ok(Some(msg)) = Message::parse(&line) {
                        return Ok((at, msg));
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(EngineError::Exited),
            }
        }
    }

    /// Sends the game so far, the budget and `go think` (early: `go`), and
    /// waits for the move until `allowed` has passed since `go` was sent.
    pub fn think(
        &mut self,
        game: &Game,
        budget: Budget,
        allowed: Duration,
        stop: &AtomicBool,
    ) -> Result<Reply, EngineError> {
        let lines = if self.early {
            early_position(game, budget)
        } else {
            vec![hub_position(game), hub_level(budget)]
        };
        for line in &lines {
            self.send(line)?;
        }
        let waits = cpu_waits(self.child.id());
        self.send(if self.early { "go" } else { "go think" })?;
        let start = Instant::now();
        let mut deadline = start + allowed;
        let (mut score, mut depth) = (None, None);
        let mut errors = Vec::new();
        // The line that carries the engine's move.
        let answer = if self.early { "move" } else { "done" };
        loop {
            let (at, msg) = match self.receive_timed(deadline, stop) {
                Ok(received) => received,
                // A machine too busy to run the engine is not the engine's
                // fault: the time its thread waited for a CPU extends the
                // deadline, up to MAX_STALL in all.
                Err(EngineError::Timeout) => {
                    let stall = stall_since(self.child.id(), &waits).min(MAX_STALL);
                    if start + allowed + stall > Instant::now() {
                        deadline = start + allowed + stall;
                        continue;
                    }
                    return Err(EngineError::Timeout);
                }
                Err(e) => return Err(e),
            };
            match msg.command.as_str() {
                "info" if self.early => {
                    // `info DEPTH MEAN-DEPTH SCORE NODES TIME SPEED PV...`,
                    // the score in hundredths of a man. Depth 0 is a move
                    // played unsearched (the only one): its 0 says nothing.
                    let field = |i: usize| msg.args.get(i).map(|(w, _)| w.as_str());
                    let searched = field(0).and_then(|v| v.parse::<u32>().ok()).filter(|&d| d > 0);
                    if let (Some(d), Some(s)) = (searched, field(2).and_then(|v| v.parse::<i32>().ok())) {
                        depth = Some(d);
                        score = Some(f64::from(s) / 100.0);
                    }
                }
                "info" => {
                    if let Some(s) = msg.get("score").and_then(|v| v.parse::<f64>().ok()) {
                        score = Some(s);
                    }
                    if let Some(d) = msg.get("depth").and_then(|v| v.parse::<u32>().ok()) {
                        depth = Some(d);
                    }
                }
                command if command == answer => {
                    let mv = if self.early {
                        msg.args.first().map(|(w, _)| w.clone()).unwrap_or_default()
                    } else {
                        msg.get("move").unwrap_or("").to_string()
                    };
                    let elapsed = at.saturating_duration_since(start);
                    let stall = stall_since(self.child.id(), &waits).min(elapsed);
                    return Ok(Reply { mv, score, depth, elapsed, stall, errors });
                }
                "error" if errors.len() < 10 => errors.push(error_text(&msg, self.early)),
                _ => {}
            }
        }
    }

    /// Asks the engine to quit, then makes sure it is gone.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Drop kills it.
    }
}

/// `pos pos=START moves="..."`: the game from its start, so that the
/// engine knows the history its draw rules need.
fn hub_position(game: &Game) -> String {
    let history: Vec<String> = game.moves().iter().map(ToString::to_string).collect();
    format!("pos pos={} moves=\"{}\"", game.start().to_hub(), history.join(" "))
}

/// `level move-time=S` or `level [moves=N] time=S inc=S`.
fn hub_level(budget: Budget) -> String {
    match budget {
        Budget::MoveTime(t) => format!("level move-time={t:.3}"),
        Budget::Clock { to_go, left, inc } => {
            let to_go = to_go.map(|m| format!("moves={m} ")).unwrap_or_default();
            format!("level {to_go}time={left:.3} inc={inc:.3}")
        }
    }
}

/// The early dialect's lines before `go`: `pos` with the start (side to
/// move in lower case), a `move` a ply (it keeps no game of its own across
/// `go`, and it needs the history for repetitions), then `time MS` or
/// `level MOVES MS INC` (after `pos`, which resets the engine's level).
fn early_position(game: &Game, budget: Budget) -> Vec<String> {
    let hub = game.start().to_hub();
    let (side, squares) = hub.split_at(1);
    let mut lines = vec![format!("pos {}{squares}", side.to_lowercase())];
    lines.extend(game.moves().iter().map(|m| format!("move {m}")));
    let ms = |s: f64| (s.max(0.0) * 1000.0).round() as u64;
    lines.push(match budget {
        Budget::MoveTime(t) => format!("time {}", ms(t)),
        Budget::Clock { to_go, left, inc } => {
            format!("level {} {} {}", to_go.unwrap_or(0), ms(left), ms(inc))
        }
    });
    lines
}

/// The words of a message again (the early dialect's fields have no names).
fn words(msg: &Message) -> String {
    msg.args
        .iter()
        .map(|(w, v)| if v.is_empty() { w.clone() } else { format!("{w}={v}") })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What an `error` line says (`error message=...`, early `error TEXT`).
fn error_text(msg: &Message, early: bool) -> String {
    let text = if early { words(msg) } else { msg.get("message").unwrap_or_default().to_string() };
    if text.is_empty() {
        "(no message)".into()
    } else {
        text
    }
}

/// Most of a move's time forgiven as the machine's stall.
pub(crate) const MAX_STALL: Duration = Duration::from_secs(10);

/// How long each thread of process `pid` has waited for a CPU so far, by
/// thread id (Linux's per-thread schedstat: run time, run-queue wait,
/// slices). Empty where the system does not say.
pub(crate) fn cpu_waits(pid: u32) -> HashMap<u32, u64> {
    let mut waits = HashMap::new();
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return waits };
    for entry in dir.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("schedstat")) else { continue };
        if let Some(wait) = stat.split_whitespace().nth(1).and_then(|w| w.parse::<u64>().ok()) {
            waits.insert(tid, wait);
        }
    }
    waits
}

/// The longest wait for a CPU of any one thread of `pid` since `before`
/// (a thread started since then counts from zero): the time the machine
/// kept the engine's search from running.
pub(crate) fn stall_since(pid: u32, before: &HashMap<u32, u64>) -> Duration {
    let now = cpu_waits(pid);
    let most = now.iter().map(|(tid, w)| w.saturating_sub(before.get(tid).copied().unwrap_or(0))).max();
    Duration::from_nanos(most.unwrap_or(0))
}

/// The reader thread: passes each line of `out` (cut at [`MAX_LINE`]
/// bytes) with the moment it arrived, until the engine closes its output or
/// the runner goes away.
fn read_lines(mut out: impl BufRead, tx: &mpsc::SyncSender<(Instant, String)>) {
    let mut buf = Vec::new();
    loop {
        // An over-long line is passed on cut, its rest dropped.
        if read_line(&mut out, &mut buf, MAX_LINE) == Line::End {
            return;
        }
        let at = Instant::now();
        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
        if tx.send((at, line)).is_err() {
            return;
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(split_command("dame hub").unwrap(), words(&["dame", "hub"]));
        assert_eq!(split_command("  'a b' \"c d\" e\\ f ").unwrap(), words(&["a b", "c d", "e f"]));
        assert_eq!(split_command("x ''").unwrap(), words(&["x", ""]));
        assert!(split_command("x 'open").is_err());
    }

    #[test]
    fn long_lines_are_cut_and_reading_stays_bounded() {
        let mut text = b"info depth=1\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE + 10));
        text.extend(b"\ndone move=32-28\n");
        let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
        read_lines(std::io::Cursor::new(text), &tx);
        drop(tx);
        let lines: Vec<String> = rx.iter().map(|(_, l)| l).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "info depth=1");
        assert_eq!(lines[1].len(), MAX_LINE);
        assert_eq!(lines[2], "done move=32-28");
    }

    #[test]
    fn engine_specs_parse() {
        let spec = EngineSpec::parse(&words(&[
            "name=Old",
            "cmd=/opt/dammer-old hub",
            "dir=/tmp",
            "option.hash=16",
            "param.threads=1",
        ]))
        .unwrap();
        assert_eq!(spec.name, "Old");
        assert_eq!(spec.command, words(&["/opt/dammer-old", "hub"]));
        assert_eq!(spec.dir, Some(PathBuf::from("/tmp")));
        assert_eq!(spec.params, vec![("hash".into(), "16".into()), ("threads".into(), "1".into())]);
        let bare = EngineSpec::parse(&words(&["cmd=/usr/bin/scan"])).unwrap();
        assert_eq!(bare.name, "scan");
        assert_eq!(bare.command, words(&["/usr/bin/scan", "hub"]));
        assert!(EngineSpec::parse(&words(&["name=x"])).is_err());
        assert!(EngineSpec::parse(&words(&["cmd=x", "colour=red"])).is_err());
        assert!(EngineSpec::parse(&words(&["cmd"])).is_err());
        let dxp = EngineSpec::parse(&words(&["dxp-client=/opt/mobydam -c"])).unwrap();
        assert_eq!(
            (dxp.protocol, dxp.command, dxp.name),
            (Protocol::DxpClient, words(&["/opt/mobydam", "-c"]), "mobydam".into())
        );
        let at = EngineSpec::parse(&words(&["dxp-connect=10.0.0.2:27531"])).unwrap();
        assert_eq!(at.protocol, Protocol::DxpConnect("10.0.0.2:27531".into()));
        assert!(EngineSpec::parse(&words(&["dxp-connect=nohost"])).is_err());
        assert!(EngineSpec::parse(&words(&["dxp-client=x", "option.hash=1"])).is_err());
        assert!(EngineSpec::parse(&words(&["dxp-client=x", "cmd=y"])).is_err());
    }
}
