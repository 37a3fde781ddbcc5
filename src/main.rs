//! The `dammer` command line: parses arguments and dispatches to the library.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use dammer::game::{Game, GameResult};
use dammer::movegen::legal_moves;
use dammer::notation::to_pdn;
use dammer::perft;
use dammer::position::{Position, START_FEN};

#[derive(Parser, Debug)]
#[command(name = "dammer", version, about = "An engine for international draughts (FMJD rules)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
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

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off")).init();
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Perft { depth, fen, divide, threads } => run_perft(depth, &fen, divide, threads as usize),
        Command::Show { fen, moves } => run_show(&fen, &moves),
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
