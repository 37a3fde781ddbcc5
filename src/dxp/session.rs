//! One DXP connection: the game requests, the games and their ends, over a
//! byte stream, with the engine thinking on its own clock.
//!
//! The loop reads the socket in short slices, so that a GAMEEND, a CHAT or
//! a disconnect is seen while the engine thinks; the search runs on the
//! facade's thread and hands its result over a channel.

use std::io::{self, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::dxp::message::{Frame, Framer, Message};
use crate::engine::egdb::Wdl;
use crate::engine::time::{Clock, Limits};
use crate::engine::{Engine, SearchResult};
use crate::rules::game::{EndgameRule, Game, GameResult};
use crate::rules::movegen::{legal_moves, Move};
use crate::rules::pdn::{self, GameTags};
use crate::rules::position::{Color, Position};

/// How long a sent GAMEEND waits for the peer's confirmation.
const END_CONFIRM: Duration = Duration::from_secs(5);
/// How long a GAMEREQ waits for its GAMEACC.
const ACC_WAIT: Duration = Duration::from_secs(30);
/// The socket is read in slices this long while nothing else happens.
const POLL: Duration = Duration::from_millis(10);
/// And in slices this long while the engine thinks, so that its move goes
/// out within a millisecond of the search's end (the peer's clock runs).
const POLL_THINKING: Duration = Duration::from_millis(1);

/// The games an initiator asks for.
#[derive(Clone, Debug)]
pub struct Initiate {
    /// Dammer's colour in the first game (they alternate when the
    /// openings repeat in pairs).
    pub colour: Color,
    /// Thinking time per side, minutes.
    pub minutes: f64,
    /// Moves in that time (0: the whole game).
    pub moves: u32,
    /// Games to play on the connection.
    pub games: u32,
    /// Start positions, used in turn, each with both colours.
    pub openings: Vec<Position>,
}

/// What a connection needs besides the engine.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Dammer's name in GAMEREQ and GAMEACC.
    pub name: String,
    /// Ask for games (else answer requests).
    pub initiate: Option<Initiate>,
    /// Append each game to this PDN file.
    pub pdn: Option<PathBuf>,
    /// Claim results the endgame tables know (wins and draws) with GAMEEND.
    pub claim_tables: bool,
}

/// A game the session ended (or abandoned when the connection went), as
/// the front end reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOver {
    /// The game's number on this connection, from 1.
    pub round: u32,
    /// Dammer's colour.
    pub ours: Color,
    /// The peer's name.
    pub opponent: String,
    /// The PDN result: `2-0`, `0-2`, `1-1`, or `*` when unfinished.
    pub result: String,
    /// How it ended.
    pub why: String,
}

/// What a session calls with each game that ends.
pub type OnGameOver<'a> = Box<dyn FnMut(&GameOver) + 'a>;

/// How a connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// A GAMEEND with stop code 1, or the initiator's games are done.
    Stop,
    /// The peer went away.
    Disconnected,
}

/// A game in progress.
#[derive(Debug)]
struct Play {
    game: Game,
    ours: Color,
    opponent: String,
    /// Seconds per period and moves per period (0: whole game).
    period: f64,
    period_moves: u32,
    clock: f64,
    our_moves: u32,
    record: Vec<(Move, Option<String>)>,
    thinking: Option<(Instant, mpsc::Receiver<SearchResult>)>,
    round: u32,
}

#[derive(Debug)]
enum State {
    Idle,
    /// GAMEREQ sent at this time for this game.
    AwaitingAcc(Instant, Box<Play>),
    Playing(Box<Play>),
    /// Our GAMEEND is sent; the peer's confirmation is awaited.
    Ending(Instant, u8),
}

/// Plays over one connection until it closes or a stop is agreed.
pub struct Session<'a> {
    engine: &'a mut Engine,
    cfg: &'a SessionConfig,
    stream: TcpStream,
    framer: Framer,
    state: State,
    games_started: u32,
    /// The last game's stop code was 1, or the initiator has no game left.
    stopping: bool,
    /// A hard limit a move set by the peer (`console time MS`).
    move_limit: Option<Duration>,
    /// Told of every game that ends.
    on_game_over: Option<OnGameOver<'a>>,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("state", &self.state)
            .field("games_started", &self.games_started)
            .field("stopping", &self.stopping)
            .finish_non_exhaustive()
    }
}

impl<'a> Session<'a> {
    /// A session on a connected stream.
    pub fn new(engine: &'a mut Engine, cfg: &'a SessionConfig, stream: TcpStream) -> io::Result<Session<'a>> {
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(POLL))?;
        Ok(Session {
            engine,
            cfg,
            stream,
            framer: Framer::new(),
            state: State::Idle,
            games_started: 0,
            stopping: false,
            move_limit: None,
            on_game_over: None,
        })
    }

    /// Calls `f` with each game the session ends, when it ends.
    pub fn on_game_over(mut self, f: impl FnMut(&GameOver) + 'a) -> Session<'a> {
        self.on_game_over = Some(Box::new(f));
        self
    }

    fn send(&mut self, msg: &Message) -> io::Result<()> {
        log::info!("> {}", msg.encode());
        self.stream.write_all(&msg.to_wire())
    }

    fn chat(&mut self, text: &str) -> io::Result<()> {
        self.send(&Message::Chat(text.to_string()))
    }

    /// Runs the connection to its end.
    pub fn run(&mut self) -> Closed {
        match self.serve() {
            Ok(closed) => closed,
            Err(e) => {
                log::info!("connection lost: {e}");
                self.abandon("the connection was lost");
                Closed::Disconnected
            }
        }
    }

    fn serve(&mut self) -> io::Result<Closed> {
        let mut poll = POLL;
        loop {
            self.step()?;
            if self.stopping && matches!(self.state, State::Idle) {
                return Ok(Closed::Stop);
            }
            let thinking = matches!(&self.state, State::Playing(p) if p.thinking.is_some());
            let wanted = if thinking { POLL_THINKING } else { POLL };
            if wanted != poll {
                self.stream.set_read_timeout(Some(wanted))?;
                poll = wanted;
            }
            let Some(frames) = self.framer.read_from(&mut self.stream)? else {
                log::info!("the peer closed the connection");
                self.abandon("the peer closed the connection");
                return Ok(Closed::Disconnected);
            };
            for frame in frames {
                match frame {
                    Frame::TooLong => {
                        log::info!("< (message over 127 characters, dropped)");
                        self.chat("error: message over 127 characters, ignored")?;
                    }
                    Frame::Text(text) => {
                        log::info!("< {text}");
                        match Message::parse(&text) {
                            Ok(msg) => self.handle(msg)?,
                            Err(e) => self.chat(&format!("error: {e}; message ignored"))?,
                        }
                    }
                }
                if self.stopping && matches!(self.state, State::Idle) {
                    return Ok(Closed::Stop);
                }
            }
        }
    }

    /// What the session does on its own between messages: ask for a game,
    /// start thinking, play the move found, give up waiting.
    fn step(&mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Idle => {
                if !self.stopping {
                    if let Some(init) = self.cfg.initiate.clone() {
                        if self.games_started >= init.games {
                            self.stopping = true;
                        } else {
                            self.request_game(&init)?;
                        }
                    }
                }
            }
            State::AwaitingAcc(sent, play) => {
                if sent.elapsed() > ACC_WAIT {
                    log::info!("no GAMEACC within {} s; giving up", ACC_WAIT.as_secs());
                    self.stopping = true;
                } else {
                    self.state = State::AwaitingAcc(sent, play);
                }
            }
            State::Ending(sent, stop) => {
                if sent.elapsed() > END_CONFIRM {
                    log::info!("no GAMEEND confirmation; the game is over all the same");
                    self.stopping |= stop == 1;
                } else {
                    self.state = State::Ending(sent, stop);
                }
            }
            State::Playing(mut play) => {
                if play.game.position().side() == play.ours {
                    match &play.thinking {
                        None => self.think(&mut play),
                        Some((_, rx)) => {
                            if let Ok(result) = rx.try_recv() {
                                return self.our_move(play, result);
                            }
                        }
                    }
                }
                self.state = State::Playing(play);
            }
        }
        Ok(())
    }

    fn request_game(&mut self, init: &Initiate) -> io::Result<()> {
        let round = self.games_started + 1;
        self.games_started = round;
        let n = init.openings.len().max(1) as u32;
        let start =
            init.openings.get(((round - 1) / 2 % n) as usize).copied().unwrap_or_else(Position::start);
        // Both colours of each opening: the second game of a pair swaps them.
        let ours = if round % 2 == 1 { init.colour } else { init.colour.opponent() };
        let play = new_play(Game::new(start), ours, String::new(), init.minutes, init.moves, round);
        self.send(&Message::GameReq {
            version: 1,
            name: self.cfg.name.clone(),
            follower: ours.opponent(),
            minutes: init.minutes,
            moves: init.moves,
            start: (start != Position::start()).then_some(start),
        })?;
        self.state = State::AwaitingAcc(Instant::now(), Box::new(play));
        Ok(())
    }

    fn handle(&mut self, msg: Message) -> io::Result<()> {
        match msg {
            Message::Chat(text) => {
                log::info!("chat from the peer: {text}");
                // Moby Dam's console command for a hard limit a move, which
                // test drivers of DXP engines send: "console time MS" (0: none).
                if let Some(arg) = text.strip_prefix("console time ") {
                    match arg.trim().parse::<u64>() {
                        Ok(0) => self.move_limit = None,
                        Ok(ms) => self.move_limit = Some(Duration::from_millis(ms)),
                        Err(_) => {
                            self.chat(&format!("error: console time {arg:?}: milliseconds expected"))?
                        }
                    }
                }
                Ok(())
            }
            Message::GameReq { version, name, follower, minutes, moves, start } => {
                // A request while our GAMEEND awaits its confirmation is
                // taken as the confirmation.
                let busy = matches!(self.state, State::Playing(_) | State::AwaitingAcc(..));
                let code = if version != 1 {
                    1
                } else if busy || self.cfg.initiate.is_some() {
                    2
                } else {
                    0
                };
                self.send(&Message::GameAcc { name: self.cfg.name.clone(), code })?;
                if code == 0 {
                    self.games_started += 1;
                    let game = Game::new(start.unwrap_or_else(Position::start));
                    let play = new_play(game, follower, name, minutes, moves, self.games_started);
                    self.state = State::Playing(Box::new(play));
                    self.check_over()?;
                }
                Ok(())
            }
            Message::GameAcc { name, code } => match std::mem::replace(&mut self.state, State::Idle) {
                State::AwaitingAcc(_, mut play) => {
                    if code == 0 {
                        play.opponent = name;
                        self.state = State::Playing(play);
                        self.check_over()
                    } else {
                        log::info!("{name} refused the game (GAMEACC code {code})");
                        self.stopping = true;
                        Ok(())
                    }
                }
                other => {
                    self.state = other;
                    self.chat("error: GAMEACC without a game request, ignored")
                }
            },
            Message::Move { seconds, from, to, captured } => {
                let State::Playing(mut play) = std::mem::replace(&mut self.state, State::Idle) else {
                    return self.chat("error: MOVE outside a game, ignored");
                };
                if play.game.position().side() == play.ours {
                    self.state = State::Playing(play);
                    return self.chat("error: MOVE while it is my turn, ignored");
                }
                let pos = *play.game.position();
                match find_move(&pos, from, to, &captured) {
                    Some(m) => {
                        play.game.play(m).expect("a legal move plays");
                        play.record.push((m, Some(format!("{seconds}s"))));
                        self.state = State::Playing(play);
                        self.check_over()
                    }
                    None => {
                        let text = Message::Move { seconds, from, to, captured }.encode();
                        self.state = State::Playing(play);
                        self.chat(&format!(
                            "illegal move {}: not legal in this position; game ended",
                            &text[5..]
                        ))?;
                        self.end(0, "illegal move by the peer", "*")
                    }
                }
            }
            Message::GameEnd { reason, stop } => {
                // Our view is the mirror of the sender's.
                let ours = match reason {
                    1 => 3,
                    3 => 1,
                    r => r,
                };
                match std::mem::replace(&mut self.state, State::Idle) {
                    State::AwaitingAcc(..) => {
                        self.send(&Message::GameEnd { reason: ours, stop })?;
                    }
                    State::Playing(play) => {
                        self.stop_thinking(&play);
                        self.send(&Message::GameEnd { reason: ours, stop })?;
                        let result = match self.rules_result(&play) {
                            Some(r) => r,
                            None => result_of(ours, play.ours),
                        };
                        let why = match reason {
                            0 => "the peer ended the game (no reason given)",
                            1 => "the peer resigned or claimed its loss",
                            2 => "the peer claimed a draw",
                            _ => "the peer claimed a win",
                        };
                        self.game_over(&play, result, why);
                    }
                    State::Ending(..) => {
                        // The confirmation of our GAMEEND.
                    }
                    State::Idle => {
                        // A GAMEEND between games: confirm it, as peers expect.
                        self.send(&Message::GameEnd { reason: ours, stop })?;
                    }
                }
                self.stopping |= stop == 1 || self.initiator_done();
                Ok(())
            }
            Message::BackReq { .. } => {
                // Taking moves back is not supported (see docs/dxp.md).
                self.send(&Message::BackAcc { code: 1 })
            }
            Message::BackAcc { .. } => self.chat("error: BACKACC without a BACKREQ, ignored"),
        }
    }

    fn initiator_done(&self) -> bool {
        self.cfg.initiate.as_ref().is_some_and(|i| self.games_started >= i.games)
    }

    /// The result the rules give the current position, if the game is over.
    fn rules_result(&self, play: &Play) -> Option<&'static str> {
        match play.game.result() {
            GameResult::Ongoing => None,
            r => Some(r.pdn()),
        }
    }

    fn think(&mut self, play: &mut Play) {
        let to_go = (play.period_moves > 0).then(|| play.period_moves - play.our_moves % play.period_moves);
        let limits = Limits {
            clock: Some(Clock { time: play.clock, inc: 0.0, moves_to_go: to_go }),
            move_time: self.move_limit,
            ..Limits::default()
        };
        let (tx, rx) = mpsc::channel();
        let started = self.engine.start(
            &play.game,
            &limits,
            Box::new(|_| {}),
            Box::new(move |r| {
                let _ = tx.send(r.clone());
            }),
        );
        match started {
            Ok(()) => play.thinking = Some((Instant::now(), rx)),
            Err(e) => log::error!("cannot start the search: {e}"),
        }
    }

    fn stop_thinking(&mut self, play: &Play) {
        if play.thinking.is_some() {
            self.engine.stop();
            self.engine.wait();
        }
    }

    fn our_move(&mut self, mut play: Box<Play>, result: SearchResult) -> io::Result<()> {
        let started = play.thinking.take().map_or_else(Instant::now, |(t, _)| t);
        let used = started.elapsed().as_secs_f64();
        let Some(m) = result.best else {
            self.state = State::Playing(play);
            return self.check_over();
        };
        play.clock -= used;
        play.our_moves += 1;
        if play.period_moves > 0 && play.our_moves.is_multiple_of(play.period_moves) {
            play.clock += play.period;
        }
        let captured: Vec<u8> = m.captured_squares().collect();
        self.send(&Message::Move {
            seconds: used.round() as u32,
            from: m.from_square(),
            to: m.to_square(),
            captured,
        })?;
        // A forced move is played unsearched: its score would be a static
        // evaluation nobody asked for, so the record gives only the time,
        // as the match runner's does.
        let forced = legal_moves(play.game.position()).len() == 1;
        let comment = if forced {
            format!("{used:.2}s")
        } else {
            format!("{} {used:.2}s", crate::engine::score::format(result.score))
        };
        play.game.play(m).expect("the engine plays legal moves");
        play.record.push((m, Some(comment)));
        self.state = State::Playing(play);
        self.check_over()
    }

    /// Ends the game when the rules (or the tables) say it is over; the
    /// side whose turn it is claims, and Dammer claims only for itself:
    /// its loss when it has no move, a draw by rule, a table result after
    /// its own move.
    fn check_over(&mut self) -> io::Result<()> {
        let State::Playing(play) = &self.state else { return Ok(()) };
        let pos = *play.game.position();
        let our_turn = pos.side() == play.ours;
        match play.game.result() {
            GameResult::Win(winner) => {
                let why = "no legal move";
                if winner == play.ours {
                    self.end(3, why, play_result(play.ours))
                } else {
                    self.end(1, why, play_result(play.ours.opponent()))
                }
            }
            GameResult::Draw(reason) => self.end(2, reason.describe(), "1-1"),
            GameResult::Ongoing if !our_turn && self.cfg.claim_tables => {
                // After our own move: the tables' verdict on the peer's turn.
                let Some(tables) = self.engine.egdb() else { return Ok(()) };
                if EndgameRule::of(&pos).is_some()
                    || pos.occupied().count_ones() as usize > tables.max_pieces()
                {
                    return Ok(());
                }
                match tables.probe(&pos) {
                    Some(Wdl::Loss) => self.end(3, "a win by the endgame tables", play_result(play.ours)),
                    Some(Wdl::Draw) => self.end(2, "a draw by the endgame tables", "1-1"),
                    _ => Ok(()),
                }
            }
            GameResult::Ongoing => Ok(()),
        }
    }

    /// Sends GAMEEND with our `reason` and writes the game.
    fn end(&mut self, reason: u8, why: &str, result: &str) -> io::Result<()> {
        let State::Playing(play) = std::mem::replace(&mut self.state, State::Idle) else { return Ok(()) };
        self.stop_thinking(&play);
        let stop = u8::from(self.initiator_done());
        self.send(&Message::GameEnd { reason, stop })?;
        self.game_over(&play, result, why);
        self.state = State::Ending(Instant::now(), stop);
        Ok(())
    }

    /// The connection is gone: a game in progress is written unfinished.
    fn abandon(&mut self, why: &str) {
        if let State::Playing(play) | State::AwaitingAcc(_, play) =
            std::mem::replace(&mut self.state, State::Idle)
        {
            self.stop_thinking(&play);
            if !play.record.is_empty() {
                self.game_over(&play, "*", why);
            }
        }
    }

    /// Reports a game that ended and writes it to the PDN file.
    fn game_over(&mut self, play: &Play, result: &str, why: &str) {
        log::info!("game {} over: {result} ({why})", play.round);
        if let Some(report) = self.on_game_over.as_mut() {
            report(&GameOver {
                round: play.round,
                ours: play.ours,
                opponent: play.opponent.clone(),
                result: result.to_string(),
                why: why.to_string(),
            });
        }
        self.write_pdn(play, result, why);
    }

    fn write_pdn(&self, play: &Play, result: &str, why: &str) {
        let Some(path) = &self.cfg.pdn else { return };
        let (white, black) = match play.ours {
            Color::White => (self.cfg.name.clone(), play.opponent.clone()),
            Color::Black => (play.opponent.clone(), self.cfg.name.clone()),
        };
        let tags = GameTags {
            event: "DXP game".into(),
            site: "dammer dxp".into(),
            date: pdn::today(),
            round: play.round,
            white,
            black,
            result: result.to_string(),
            time_control: if play.period_moves > 0 {
                format!("{}/{}", play.period_moves, play.period)
            } else {
                format!("{}", play.period)
            },
            termination: why.to_string(),
            variant: crate::rules::variant::Variant::Normal,
        };
        let text = pdn::write_game(&tags, play.game.start(), &play.record);
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(text.as_bytes()));
        if let Err(e) = written {
            log::error!("cannot write {}: {e}", path.display());
        }
    }
}

fn new_play(game: Game, ours: Color, opponent: String, minutes: f64, moves: u32, round: u32) -> Play {
    // 0 minutes is taken as no clock at all (some initiators send it for
    // untimed games); the time manager then plans with plenty.
    let period = if minutes > 0.0 { minutes * 60.0 } else { 1e9 };
    Play {
        game,
        ours,
        opponent,
        period,
        period_moves: moves,
        clock: period,
        our_moves: 0,
        record: Vec::new(),
        thinking: None,
        round,
    }
}

/// The PDN result of a win for `winner`.
fn play_result(winner: Color) -> &'static str {
    match winner {
        Color::White => "2-0",
        Color::Black => "0-2",
    }
}

/// The PDN result of a GAMEEND reason from our view.
fn result_of(reason: u8, ours: Color) -> &'static str {
    match reason {
        1 => play_result(ours.opponent()),
        2 => "1-1",
        3 => play_result(ours),
        _ => "*",
    }
}

/// The legal move with these squares: DXP names a move by its from and to
/// squares and the set of captured squares (in any order).
pub fn find_move(pos: &Position, from: u8, to: u8, captured: &[u8]) -> Option<Move> {
    let mut want: Vec<u8> = captured.to_vec();
    want.sort_unstable();
    legal_moves(pos).iter().copied().find(|m| {
        let mut got: Vec<u8> = m.captured_squares().collect();
        got.sort_unstable();
        m.from_square() == from && m.to_square() == to && got == want
    })
}
