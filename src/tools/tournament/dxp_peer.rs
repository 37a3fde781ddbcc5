//! A DXP engine seen from the match runner: the runner is the initiator,
//! the engine the follower. A `dxp-client` engine is started with
//! `DXP_HOST`/`DXP_PORT` naming a port the runner listens on (how Moby Dam
//! runs); a `dxp-connect` engine is already listening and the runner
//! connects to it.
//!
//! Each game starts with a GAMEREQ from the position after the opening's
//! moves (DXP has no move history); the runner sends the opponent's moves
//! as MOVE messages and waits for the engine's. The runner keeps the rules
//! and the clocks as for Hub engines and ends every game with GAMEEND.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::dxp::message::{Frame, Framer, Message};
use crate::dxp::session::find_move;
use crate::rules::game::Game;
use crate::rules::position::Color;
use crate::tools::tournament::client::{
    cpu_waits, stall_since, EngineError, EngineSpec, Protocol, Reply, MAX_STALL, STARTUP_TIMEOUT,
};

/// How long an engine may take to confirm a GAMEEND.
const END_CONFIRM: Duration = Duration::from_secs(3);

/// The runner's name in its game requests.
const RUNNER_NAME: &str = "dammer match";

/// A DXP engine and its connection.
#[derive(Debug)]
pub struct DxpPeer {
    child: Option<Child>,
    stream: TcpStream,
    framer: Framer,
    pending: VecDeque<Message>,
    /// Plies of the runner's game the engine knows.
    synced: usize,
    /// The name the engine gave in GAMEACC.
    pub id_name: Option<String>,
}

impl DxpPeer {
    /// Starts (or reaches) the engine and opens the connection.
    pub fn start(spec: &EngineSpec, stop: &AtomicBool) -> Result<DxpPeer, EngineError> {
        let (child, stream) = match &spec.protocol {
            Protocol::DxpConnect(addr) => {
                let target = addr
                    .to_socket_addrs()
                    .map_err(|e| EngineError::Spawn(format!("bad address {addr}: {e}")))?
                    .next()
                    .ok_or_else(|| EngineError::Spawn(format!("no address for {addr}")))?;
                let s = TcpStream::connect_timeout(&target, Duration::from_secs(10))
                    .map_err(|e| EngineError::Spawn(format!("cannot connect to {addr}: {e}")))?;
                (None, s)
            }
            _ => {
                if let Some(dir) = spec.dir.as_ref().filter(|d| !d.is_dir()) {
                    return Err(EngineError::Spawn(format!(
                        "working directory {} does not exist",
                        dir.display()
                    )));
                }
                let listener = TcpListener::bind("127.0.0.1:0")
                    .map_err(|e| EngineError::Spawn(format!("cannot listen on the loopback: {e}")))?;
                let port = listener.local_addr().map_err(|e| EngineError::Spawn(e.to_string()))?.port();
                listener.set_nonblocking(true).map_err(|e| EngineError::Spawn(e.to_string()))?;
                let mut cmd = Command::new(&spec.command[0]);
                cmd.args(&spec.command[1..])
                    .env("DXP_HOST", "127.0.0.1")
                    .env("DXP_PORT", port.to_string())
                    // An open stdin: some engines read console commands
                    // from it and spin at end of input.
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                if let Some(dir) = &spec.dir {
                    cmd.current_dir(dir);
                }
                #[cfg(unix)]
                std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
                let mut child =
                    cmd.spawn().map_err(|e| EngineError::Spawn(format!("{}: {e}", spec.command[0])))?;
                let deadline = Instant::now() + STARTUP_TIMEOUT;
                let stream = loop {
                    match listener.accept() {
                        Ok((s, _)) => break s,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(e) => {
                            let _ = child.kill();
                            let _ = child.wait();
                            return Err(EngineError::Spawn(format!("accept: {e}")));
                        }
                    }
                    if stop.load(Ordering::Relaxed) || Instant::now() > deadline {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(if stop.load(Ordering::Relaxed) {
                            EngineError::Aborted
                        } else {
                            EngineError::Spawn("the engine did not connect".into())
                        });
                    }
                    if let Ok(Some(_)) = child.try_wait() {
                        return Err(EngineError::Exited);
                    }
                    std::thread::sleep(Duration::from_millis(10));
                };
                (Some(child), stream)
            }
        };
        stream.set_nodelay(true).map_err(|e| EngineError::Spawn(e.to_string()))?;
        stream.set_nonblocking(false).map_err(|e| EngineError::Spawn(e.to_string()))?;
        stream
            .set_read_timeout(Some(Duration::from_millis(20)))
            .map_err(|e| EngineError::Spawn(e.to_string()))?;
        Ok(DxpPeer {
            child,
            stream,
            framer: Framer::new(),
            pending: VecDeque::new(),
            synced: 0,
            id_name: None,
        })
    }

    fn send(&mut self, m: &Message) -> Result<(), EngineError> {
        let mut bytes = m.encode().into_bytes();
        bytes.push(0);
        self.stream.write_all(&bytes).map_err(|_| EngineError::Exited)
    }

    /// The next message (CHATs are skipped) before `deadline`.
    fn receive(&mut self, deadline: Instant, stop: &AtomicBool) -> Result<Message, EngineError> {
        loop {
            while let Some(m) = self.pending.pop_front() {
                if !matches!(m, Message::Chat(_)) {
                    return Ok(m);
                }
            }
            if stop.load(Ordering::Relaxed) {
                return Err(EngineError::Aborted);
            }
            if Instant::now() >= deadline {
                return Err(EngineError::Timeout);
            }
            let mut buf = [0u8; 1024];
            match self.stream.read(&mut buf) {
                Ok(0) => return Err(EngineError::Exited),
                Ok(n) => {
                    for f in self.framer.push(&buf[..n]) {
                        // Malformed messages are skipped, as Hub lines are.
                        if let Frame::Text(t) = f {
                            if let Ok(m) = Message::parse(&t) {
                                self.pending.push_back(m);
                            }
                        }
                    }
                }
                Err(e)
                    if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(EngineError::Exited),
            }
        }
    }

    /// Asks for a game from the current position of `game`, the engine
    /// playing `colour`, with `minutes` for every `moves` moves (0: the game).
    pub fn new_game(
        &mut self,
        game: &Game,
        colour: Color,
        minutes: f64,
        moves: u32,
        stop: &AtomicBool,
    ) -> Result<(), EngineError> {
        self.pending.clear();
        self.send(&Message::GameReq {
            version: 1,
            name: RUNNER_NAME.into(),
            follower: colour,
            minutes,
            moves,
            start: Some(*game.position()),
        })?;
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            match self.receive(deadline, stop)? {
                Message::GameAcc { name, code: 0 } => {
                    self.id_name = Some(name);
                    self.synced = game.moves().len();
                    return Ok(());
                }
                Message::GameAcc { code, .. } => {
                    return Err(EngineError::Refused(format!(
                        "the game request was refused (GAMEACC code {code})"
                    )))
                }
                _ => {}
            }
        }
    }

    /// Sends the moves played since the engine last moved and waits for its
    /// move until `allowed` has passed (plus what the machine kept it from
    /// running, as for Hub engines).
    pub fn think(&mut self, game: &Game, allowed: Duration, stop: &AtomicBool) -> Result<Reply, EngineError> {
        let mut pos = game.positions()[self.synced.min(game.moves().len())];
        for m in &game.moves()[self.synced.min(game.moves().len())..] {
            let captured: Vec<u8> = m.captured_squares().collect();
            self.send(&Message::Move { seconds: 0, from: m.from_square(), to: m.to_square(), captured })?;
            pos = pos.make(m);
        }
        self.synced = game.moves().len();
        let pid = self.child.as_ref().map(Child::id);
        let waits = pid.map(cpu_waits).unwrap_or_default();
        let start = Instant::now();
        let mut deadline = start + allowed;
        loop {
            let msg = match self.receive(deadline, stop) {
                Ok(m) => m,
                Err(EngineError::Timeout) => {
                    let stall = pid.map_or(Duration::ZERO, |p| stall_since(p, &waits)).min(MAX_STALL);
                    if start + allowed + stall > Instant::now() {
                        deadline = start + allowed + stall;
                        continue;
                    }
                    return Err(EngineError::Timeout);
                }
                Err(e) => return Err(e),
            };
            match msg {
                Message::Move { from, to, captured, .. } => {
                    let elapsed = start.elapsed();
                    let stall = pid.map_or(Duration::ZERO, |p| stall_since(p, &waits)).min(elapsed);
                    self.synced += 1;
                    // An illegal move is passed on as written, for the
                    // runner to judge like a Hub engine's.
                    let mv = match find_move(&pos, from, to, &captured) {
                        Some(m) => m.to_string(),
                        None => format!("{from}-{to}"),
                    };
                    return Ok(Reply { mv, score: None, depth: None, elapsed, stall, errors: Vec::new() });
                }
                Message::GameEnd { reason, .. } => return Err(EngineError::Ended(reason)),
                _ => {}
            }
        }
    }

    /// Ends the game with GAMEEND (the runner's `reason`: 0 unknown, 1 the
    /// runner's side lost, 2 draw, 3 it won) and waits for the confirmation.
    pub fn game_over(&mut self, reason: u8, stop: &AtomicBool) {
        if self.send(&Message::GameEnd { reason, stop: 0 }).is_err() {
            return;
        }
        let deadline = Instant::now() + END_CONFIRM;
        while let Ok(m) = self.receive(deadline, stop) {
            if matches!(m, Message::GameEnd { .. }) {
                break;
            }
        }
    }

    /// Says goodbye (GAMEEND with stop code 1) and makes sure a started
    /// engine is gone.
    pub fn quit(mut self) {
        let _ = self.send(&Message::GameEnd { reason: 0, stop: 1 });
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        if let Some(child) = self.child.as_mut() {
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        // Drop kills it.
    }
}

impl Drop for DxpPeer {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }
}
