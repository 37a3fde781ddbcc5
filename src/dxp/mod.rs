//! The DXP (DamExchange) front end: Dammer in engine tournaments over TCP.
//!
//! [`message`] is the wire format, [`session`] one connection's games; this
//! module opens the connections: a server listens and, when a peer leaves,
//! listens again; a client connects (to `--connect HOST:PORT`, or to
//! `DXP_HOST`/`DXP_PORT` from its environment, which is how tournament
//! runners start DXP clients) and, with `--reconnect`, connects again when
//! the peer goes away. Either side may initiate (send the game requests)
//! or follow (answer them). Only the engine facade is shared with the Hub
//! front end.

pub mod message;
pub mod session;

use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::engine::Engine;
use crate::rules::position::{Color, Position};

pub use session::{Closed, GameOver, Initiate, SessionConfig};

/// The customary DXP port.
pub const DEFAULT_PORT: u16 = 27531;

/// How long a client keeps trying to reach its server.
const CONNECT_PATIENCE: Duration = Duration::from_secs(30);

/// The arguments of `dammer dxp` (the engine's own options come beside
/// them, see the binary).
#[derive(clap::Args, Debug, Clone)]
pub struct DxpArgs {
    /// Serve: listen on `[ADDR:]PORT` (default address 0.0.0.0) for peers,
    /// one at a time.
    #[arg(long, value_name = "[ADDR:]PORT", conflicts_with = "connect")]
    pub listen: Option<String>,
    /// Connect to a peer at `HOST:PORT` (default: `DXP_HOST` and
    /// `DXP_PORT` from the environment).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    /// As a client, connect again whenever the peer goes away (until a
    /// GAMEEND with stop code 1).
    #[arg(long)]
    pub reconnect: bool,
    /// Send the game requests (else answer them).
    #[arg(long)]
    pub initiate: bool,
    /// As initiator: Dammer's colour in the first game, `white` or `black`
    /// (games alternate colours).
    #[arg(long, default_value = "white", value_parser = colour_arg)]
    pub colour: Color,
    /// As initiator: thinking time per side in minutes (fractions allowed).
    #[arg(long, default_value_t = 5.0, value_parser = minutes_arg)]
    pub minutes: f64,
    /// As initiator: moves in that time (0: the whole game).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=999))]
    pub moves: u32,
    /// As initiator: games to play.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub games: u32,
    /// As initiator: start position (FEN or Hub string), instead of the
    /// initial position.
    #[arg(long, conflicts_with = "openings")]
    pub fen: Option<String>,
    /// As initiator: a file of start positions (FEN lines or PDN games),
    /// each played with both colours in turn.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Dammer's name in the messages.
    #[arg(long, default_value = "Dammer")]
    pub name: String,
    /// Append every game to this PDN file.
    #[arg(long)]
    pub pdn: Option<PathBuf>,
    /// Do not claim the results the endgame tables know.
    #[arg(long)]
    pub no_table_claims: bool,
}

fn colour_arg(text: &str) -> Result<Color, String> {
    match text.to_ascii_lowercase().as_str() {
        "white" | "w" => Ok(Color::White),
        "black" | "b" | "z" => Ok(Color::Black),
        _ => Err(format!("colour must be white or black, not {text:?}")),
    }
}

fn minutes_arg(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(m) if m.is_finite() && m > 0.0 && m <= 999.0 => Ok(m),
        _ => Err(format!("minutes must be a number above 0 and at most 999, not {text:?}")),
    }
}

/// The session settings the arguments give.
pub fn session_config(args: &DxpArgs) -> Result<SessionConfig, String> {
    let initiate = if args.initiate {
        let openings = match (&args.fen, &args.openings) {
            (Some(fen), _) => vec![Position::parse(fen).map_err(|e| format!("bad position {fen:?}: {e}"))?],
            (None, Some(path)) => {
                crate::rules::openings::load_openings(path)?.iter().map(|o| o.position()).collect()
            }
            (None, None) => vec![Position::start()],
        };
        Some(Initiate {
            colour: args.colour,
            minutes: args.minutes,
            moves: args.moves,
            games: args.games,
            openings,
        })
    } else {
        None
    };
    Ok(SessionConfig {
        name: args.name.clone(),
        initiate,
        pdn: args.pdn.clone(),
        claim_tables: !args.no_table_claims,
    })
}

/// Where a client connects: `--connect`, else the environment.
fn client_address(args: &DxpArgs) -> Result<String, String> {
    if let Some(a) = &args.connect {
        return Ok(a.clone());
    }
    match (std::env::var("DXP_HOST"), std::env::var("DXP_PORT")) {
        (Ok(host), Ok(port)) => Ok(format!("{host}:{port}")),
        (Err(_), Ok(port)) => Ok(format!("127.0.0.1:{port}")),
        _ => Err("give --listen [ADDR:]PORT or --connect HOST:PORT (or DXP_HOST and DXP_PORT)".into()),
    }
}

fn listen_address(text: &str) -> String {
    if text.contains(':') {
        text.to_string()
    } else {
        format!("0.0.0.0:{text}")
    }
}

/// Dammer's games over the connections so far, from its side.
#[derive(Debug, Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    unfinished: u32,
}

impl Tally {
    /// Counts a game and prints it as the match runner does: one line each.
    fn add(&mut self, g: &GameOver, name: &str) {
        let (white, black) = match g.ours {
            Color::White => (name, g.opponent.as_str()),
            Color::Black => (g.opponent.as_str(), name),
        };
        let ours_won = match g.ours {
            Color::White => "2-0",
            Color::Black => "0-2",
        };
        match g.result.as_str() {
            "1-1" => self.draws += 1,
            "*" => self.unfinished += 1,
            r if r == ours_won => self.wins += 1,
            _ => self.losses += 1,
        }
        println!("game {}: {white} - {black} {} ({})", g.round, g.result, g.why);
    }

    /// Games counted, finished or not.
    fn played(&self) -> u32 {
        self.wins + self.draws + self.losses + self.unfinished
    }

    /// The final line: Dammer's wins, draws and losses and its score.
    fn summary(&self, name: &str) -> String {
        let played = self.wins + self.draws + self.losses;
        let points = 2 * self.wins + self.draws;
        let share = if played > 0 { 50.0 * f64::from(points) / f64::from(played) } else { 0.0 };
        let mut line = format!(
            "{name}: +{} ={} -{} in {played} games, {points}/{} points ({share:.1}%)",
            self.wins,
            self.draws,
            self.losses,
            2 * played
        );
        if self.unfinished > 0 {
            line.push_str(&format!(", {} unfinished", self.unfinished));
        }
        line
    }
}

/// Runs `dammer dxp` with a configured engine until the games are done.
/// Each game's result is printed as it ends, and a score line at the end.
pub fn run(args: &DxpArgs, engine: &mut Engine) -> Result<(), String> {
    let cfg = session_config(args)?;
    let mut tally = Tally::default();
    let outcome = serve(args, &cfg, engine, &mut tally);
    if tally.played() > 0 {
        println!("{}", tally.summary(&cfg.name));
    }
    outcome
}

/// Listens or connects, and plays, until the games are done.
fn serve(args: &DxpArgs, cfg: &SessionConfig, engine: &mut Engine, tally: &mut Tally) -> Result<(), String> {
    if let Some(listen) = &args.listen {
        let addr = listen_address(listen);
        let listener = TcpListener::bind(&addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        log::info!("listening on {addr}");
        eprintln!(
            "dammer dxp: listening on {}",
            listener.local_addr().map_or(addr.clone(), |a| a.to_string())
        );
        loop {
            let (stream, peer) = match listener.accept() {
                Ok(s) => s,
                Err(e) => {
                    log::info!("accept failed: {e}");
                    continue;
                }
            };
            log::info!("peer {peer} connected");
            match session::Session::new(engine, cfg, stream) {
                Ok(s) => {
                    let mut s = s.on_game_over(|g| tally.add(g, &cfg.name));
                    if s.run() == Closed::Stop && cfg.initiate.is_some() {
                        return Ok(());
                    }
                }
                Err(e) => log::info!("cannot use the connection: {e}"),
            }
            if tally.played() > 0 {
                // A server runs until it is killed: the score so far after
                // each peer, since there is no final line.
                println!("{} (so far)", tally.summary(&cfg.name));
            }
            engine.clear();
            log::info!("listening again");
        }
    }
    let addr = client_address(args)?;
    loop {
        let stream = connect(&addr)?;
        log::info!("connected to {addr}");
        let closed = session::Session::new(engine, cfg, stream)
            .map_err(|e| format!("cannot use the connection to {addr}: {e}"))?
            .on_game_over(|g| tally.add(g, &cfg.name))
            .run();
        if closed == Closed::Stop || !args.reconnect {
            return Ok(());
        }
        engine.clear();
        log::info!("the peer went away; connecting again");
    }
}

/// Connects, retrying for a while: a tournament runner may start its
/// listener a moment after the engine. The first failure says so on
/// stderr, the last one is the error.
fn connect(addr: &str) -> Result<TcpStream, String> {
    let started = Instant::now();
    let mut said = false;
    loop {
        let mut last = format!("{addr} resolves to no address");
        for a in addr.to_socket_addrs().map_err(|e| format!("bad address {addr}: {e}"))? {
            match TcpStream::connect_timeout(&a, Duration::from_secs(5)) {
                Ok(s) => return Ok(s),
                Err(e) => last = format!("{a}: {e}"),
            }
        }
        if started.elapsed() > CONNECT_PATIENCE {
            return Err(format!(
                "cannot connect to {addr}: tried for {} s, last error: {last}",
                CONNECT_PATIENCE.as_secs()
            ));
        }
        if !said {
            eprintln!(
                "dammer dxp: cannot connect to {addr} ({last}); retrying for up to {} s",
                CONNECT_PATIENCE.as_secs()
            );
            said = true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
