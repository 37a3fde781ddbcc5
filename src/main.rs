//! The `dammer` command line: parses arguments and dispatches to the library.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use dammer::engine::Engine;
use dammer::game::{Game, GameResult};
use dammer::movegen::legal_moves;
use dammer::notation::to_pdn;
use dammer::perft;
use dammer::position::{Position, START_FEN};
use dammer::timeman::Limits;

#[derive(Parser, Debug)]
#[command(name = "dammer", version, about = "An engine for international draughts (FMJD rules)")]
struct Cli {
    /// What to do; without one, Dammer speaks the Hub protocol.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Speak the Hub protocol on standard input and output (for GUIs and
    /// tournament managers).
    Hub {
        /// Write a log of the protocol (and anything RUST_LOG asks for) to this file.
        #[arg(long)]
        log_file: Option<std::path::PathBuf>,
    },
    /// Search a position and print each iteration, then the best move.
    Analyse {
        /// Position as FEN or Hub string (default: the initial position).
        fen: Option<String>,
        /// Moves to play from the position first (Hub or PDN, space-separated).
        #[arg(long, default_value = "")]
        moves: String,
        /// Stop after this depth.
        #[arg(long)]
        depth: Option<u32>,
        /// Seconds to think (default 5 when no other limit is given).
        #[arg(long)]
        time: Option<f64>,
        /// Stop after this many nodes.
        #[arg(long)]
        nodes: Option<u64>,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = dammer::engine::DEFAULT_HASH_MB)]
        hash: usize,
    },
    /// Search a fixed set of positions to a fixed depth (speed and
    /// regression check); the last line is `<nodes> nodes <nps> nps`.
    Bench {
        /// Depth of each search.
        #[arg(long, default_value_t = dammer::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
    },
    /// Count the leaves of the legal move tree (move generator test and benchmark).
    Perft {
        /// Plies to look ahead.
        depth: u32,
        /// Start position as FEN or Hub string (default: the initial position).
        #[arg(long, default_value = START_FEN)]
        fen: String,
        /// First print every root move (Hub notation) with its count.
        #[arg(long)]
        divide: bool,
        /// Threads to share the root moves over.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: u32,
    },
    /// Show a position: board, FEN, Hub string, legal moves and game result.
    Show {
        /// Start position as FEN or Hub string.
        #[arg(long, default_value = START_FEN)]
        fen: String,
        /// Moves to play first, separated by spaces (Hub or PDN notation).
        #[arg(long, default_value = "")]
        moves: String,
    },
    /// Print the legal moves (Hub notation, one position a line) of each
    /// position given, or of each line of standard input with `-`. A
    /// position may be followed by `;` and moves to play from it first.
    Legal {
        /// Positions as FEN or Hub strings, each optionally `;m1 m2 ...`;
        /// `-` reads them from standard input, one a line.
        #[arg(required = true)]
        positions: Vec<String>,
        /// Start each line with the game result (`*`, `2-0`, `0-2`, or `1-1`
        /// and the draw rule), then `:`.
        #[arg(long)]
        result: bool,
    },
}

fn parse_position(text: &str) -> Result<Position, String> {
    Position::parse(text).map_err(|e| format!("bad position {text:?}: {e}"))
}

fn run_perft(depth: u32, fen: &str, divide: bool, threads: usize) -> Result<(), String> {
    let pos = parse_position(fen)?;
    let start = Instant::now();
    let nodes = if divide {
        let lines = perft::divide(&pos, depth, threads);
        let mut out = io::stdout().lock();
        for (m, n) in &lines {
            let _ = writeln!(out, "{m} {n}");
        }
        if depth == 0 {
            1
        } else {
            lines.iter().map(|(_, n)| n).sum()
        }
    } else {
        perft::perft_threads(&pos, depth, threads)
    };
    let secs = start.elapsed().as_secs_f64();
    let mnps = if secs > 0.0 { nodes as f64 / secs / 1e6 } else { 0.0 };
    println!("perft({depth}) = {nodes} in {secs:.3}s ({mnps:.1} Mnps)");
    Ok(())
}

fn run_show(fen: &str, moves: &str) -> Result<(), String> {
    let mut game = Game::from_text(fen).map_err(|e| format!("bad position {fen:?}: {e}"))?;
    for text in moves.split_whitespace() {
        game.play_text(text).map_err(|e| e.to_string())?;
    }
    let pos = game.position();
    println!("{pos}");
    println!("hub {}", pos.to_hub());
    let legal = legal_moves(pos);
    let hub: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
    let pdn: Vec<String> = legal.iter().map(|m| to_pdn(pos, m)).collect();
    println!("moves {}", hub.join(" "));
    println!("pdn {}", pdn.join(" "));
    println!("result {}", game.result());
    println!("eval {} (side to move)", dammer::search::format_score(dammer::eval::evaluate(pos)));
    Ok(())
}

fn legal_line(text: &str, with_result: bool) -> String {
    let (position, moves) = text.split_once(';').unwrap_or((text, ""));
    let mut game = match Game::from_text(position) {
        Ok(g) => g,
        Err(e) => return format!("error {e}"),
    };
    for m in moves.split_whitespace() {
        if let Err(e) = game.play_text(m) {
            return format!("error {e}");
        }
    }
    let moves: Vec<String> = legal_moves(game.position()).iter().map(|m| m.to_string()).collect();
    if with_result {
        let result = game.result();
        let tag = match result {
            GameResult::Draw(reason) => format!("1-1 {reason:?}"),
            other => other.pdn().to_string(),
        };
        format!("{tag}: {}", moves.join(" "))
    } else {
        moves.join(" ")
    }
}

fn run_legal(positions: &[String], with_result: bool) -> Result<(), String> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for p in positions {
        if p == "-" {
            for line in io::stdin().lock().lines() {
                let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
                if line.trim().is_empty() {
                    continue;
                }
                writeln!(out, "{}", legal_line(&line, with_result)).map_err(|e| e.to_string())?;
            }
        } else {
            writeln!(out, "{}", legal_line(p, with_result)).map_err(|e| e.to_string())?;
        }
    }
    out.flush().map_err(|e| e.to_string())
}

fn format_score(score: i32) -> String {
    let s = dammer::search::format_score(score);
    if score >= dammer::search::WIN_BAND {
        format!("{s} (win in {})", dammer::search::WIN - score)
    } else if score <= -dammer::search::WIN_BAND {
        format!("{s} (loss in {})", dammer::search::WIN + score)
    } else {
        s
    }
}

#[allow(clippy::too_many_arguments)]
fn run_analyse(
    fen: Option<String>,
    moves: &str,
    depth: Option<u32>,
    time: Option<f64>,
    nodes: Option<u64>,
    threads: usize,
    hash: usize,
) -> Result<(), String> {
    let fen = fen.unwrap_or_else(|| START_FEN.to_string());
    let mut game = Game::from_text(&fen).map_err(|e| format!("bad position {fen:?}: {e}"))?;
    for text in moves.split_whitespace() {
        game.play_text(text).map_err(|e| e.to_string())?;
    }
    let move_time = match time {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(format!("--time must be a positive number of seconds, not {t}"))
        }
        Some(t) => Some(std::time::Duration::from_secs_f64(t)),
        None if depth.is_none() && nodes.is_none() => Some(std::time::Duration::from_secs(5)),
        None => None,
    };
    if threads == 0 || threads > dammer::engine::MAX_THREADS {
        return Err(format!("--threads must be between 1 and {}", dammer::engine::MAX_THREADS));
    }
    if hash == 0 || hash > dammer::engine::MAX_HASH_MB {
        return Err(format!("--hash must be between 1 and {} MiB", dammer::engine::MAX_HASH_MB));
    }
    let limits = Limits { depth, nodes, move_time, analysis: true, ..Limits::default() };
    let mut engine = Engine::new(threads, hash);
    let start = *game.position();
    println!("{}", start);
    println!("{:>5} {:>6} {:>14} {:>12} {:>9} {:>8}  pv", "depth", "mean", "score", "nodes", "knps", "time");
    let mut on_info = |info: &dammer::search::Info| {
        println!(
            "{:>5} {:>6.1} {:>14} {:>12} {:>9.0} {:>8.3}  {}",
            info.depth,
            info.mean_depth,
            format_score(info.score),
            info.nodes,
            info.nps() / 1e3,
            info.time.as_secs_f64(),
            dammer::notation::line_to_pdn(&start, &info.pv)
        );
    };
    let result = engine.search(&game, &limits, &dammer::search::SearchControl::default(), &mut on_info);
    match result.best {
        Some(m) => {
            let secs = result.time.as_secs_f64();
            println!(
                "best move {} (hub {m}), score {}, depth {}, {} nodes in {:.3}s ({:.0} knps)",
                to_pdn(&start, &m),
                format_score(result.score),
                result.depth,
                result.nodes,
                secs,
                if secs > 0.0 { result.nodes as f64 / secs / 1e3 } else { 0.0 }
            );
        }
        None => println!("no legal move: {}", game.result()),
    }
    Ok(())
}

fn run_bench(depth: u32, threads: usize, hash: usize) -> Result<(), String> {
    if !(1..=dammer::search::MAX_DEPTH).contains(&depth) {
        return Err(format!("--depth must be between 1 and {}", dammer::search::MAX_DEPTH));
    }
    let report =
        dammer::bench::run(depth, threads.clamp(1, dammer::engine::MAX_THREADS), hash.max(1), |line| {
            println!("{line}");
        });
    let secs = report.time.as_secs_f64();
    let nps = if secs > 0.0 { (report.nodes as f64 / secs) as u64 } else { 0 };
    println!("{} nodes {} nps", report.nodes, nps);
    Ok(())
}

/// Logging goes to stderr only when RUST_LOG asks for it (Hub clients read
/// stderr as protocol), or to a file when one is given.
fn init_logging(log_file: Option<&std::path::Path>) -> Result<(), String> {
    let mut builder =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(if log_file.is_some() {
            "debug"
        } else {
            "off"
        }));
    if let Some(path) = log_file {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open log file {}: {e}", path.display()))?;
        builder.target(env_logger::Target::Pipe(Box::new(file)));
    }
    builder.init();
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Hub { log_file: None });
    let log_file = match &command {
        Command::Hub { log_file } => log_file.clone(),
        _ => None,
    };
    if let Err(msg) = init_logging(log_file.as_deref()) {
        eprintln!("dammer: {msg}");
        return ExitCode::from(2);
    }
    let outcome = match command {
        Command::Hub { .. } => {
            dammer::hub::run();
            Ok(())
        }
        Command::Perft { depth, fen, divide, threads } => run_perft(depth, &fen, divide, threads as usize),
        Command::Show { fen, moves } => run_show(&fen, &moves),
        Command::Analyse { fen, moves, depth, time, nodes, threads, hash } => {
            run_analyse(fen, &moves, depth, time, nodes, threads, hash)
        }
        Command::Bench { depth, threads, hash } => run_bench(depth, threads, hash),
        Command::Legal { positions, result } => run_legal(&positions, result),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("dammer: {msg}");
            ExitCode::from(2)
        }
    }
}
