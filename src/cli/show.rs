//! `dammer show`, `dammer legal` and `dammer perft`: the rules on the
//! command line.

use std::io::{self, BufRead, IsTerminal, Write};
use std::time::Instant;

use super::parse_position;
use crate::engine::options;
use crate::rules::game::{Game, GameResult};
use crate::rules::movegen::legal_moves;
use crate::rules::notation::to_pdn;
use crate::rules::variant::Variant;

/// The arguments of `dammer perft`.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Plies to look ahead (0 to 20).
    #[arg(allow_negative_numbers = true, value_parser = options::perft_depth)]
    pub depth: u32,
    /// The start position.
    #[command(flatten)]
    pub position: super::PositionArgs,
    /// First print every root move (Hub notation) with its count.
    #[arg(long)]
    pub divide: bool,
    /// Threads to share the root moves over.
    #[arg(long, default_value_t = 1, value_parser = options::threads)]
    pub threads: usize,
    /// The game's moves: normal (also bt and losing, whose moves are the
    /// same), frisian (also frysk!) or killer (one thread, no --divide).
    #[arg(long, default_value = "normal", value_parser = super::variant)]
    pub variant: Variant,
}

/// The arguments of `dammer show`.
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// The position.
    #[command(flatten)]
    pub position: super::PositionArgs,
    /// Moves to play first, separated by spaces (Hub or PDN notation).
    #[arg(long, default_value = "")]
    pub moves: String,
    /// The game whose moves, result and evaluation are shown: normal, bt
    /// (breakthrough), losing (antidraughts) or frisian (also frysk!).
    #[arg(long, default_value = "normal", value_parser = super::variant)]
    pub variant: Variant,
}

/// The arguments of `dammer legal`.
#[derive(clap::Args, Debug)]
pub struct LegalArgs {
    /// Positions as FEN or Hub strings, each optionally `;m1 m2 ...`;
    /// `-` reads them from standard input, one a line.
    #[arg(required_unless_present = "fen", value_name = "POSITION")]
    pub positions: Vec<String>,
    /// A position as an option, as the other commands take it (repeatable;
    /// checked after the arguments).
    #[arg(long, value_name = "POSITION")]
    pub fen: Vec<String>,
    /// Start each line with the game result (`*`, `2-0`, `0-2`, or `1-1`
    /// and the draw rule), then `:`.
    #[arg(long)]
    pub result: bool,
    /// The game: normal, bt (breakthrough) or losing (antidraughts), whose
    /// moves are the same and results differ, or frisian (also frysk!),
    /// whose moves differ too.
    #[arg(long, default_value = "normal", value_parser = super::variant)]
    pub variant: crate::rules::variant::Variant,
}

/// Runs `dammer perft`.
pub fn perft(args: &PerftArgs) -> Result<(), String> {
    let PerftArgs { depth, position, divide, threads, variant } = args;
    let (depth, divide, threads) = (*depth, *divide, *threads);
    let pos = parse_position(position.text())?;
    let start = Instant::now();
    let nodes = if variant.own_moves() {
        if divide {
            return Err(format!("--divide is for the international moves, not {variant}"));
        }
        crate::rules::perft::perft_in(*variant, &pos, &Default::default(), depth)
    } else if divide {
        let lines = crate::rules::perft::divide(&pos, depth, threads);
        let mut out = io::stdout().lock();
        for (m, n) in &lines {
            let _ = writeln!(out, "{m} {n}");
        }
        if depth == 0 {
            1
        } else {
            lines.iter().map(|(_, n)| n).sum()
        }
    } else if depth >= PROGRESS_DEPTH && io::stderr().is_terminal() {
        perft_with_progress(&pos, depth, threads)
    } else {
        crate::rules::perft::perft_threads(&pos, depth, threads)
    };
    let secs = start.elapsed().as_secs_f64();
    let mnps = if secs > 0.0 { nodes as f64 / secs / 1e6 } else { 0.0 };
    println!("perft({depth}) = {nodes} in {secs:.3}s ({mnps:.1} Mnps)");
    Ok(())
}

/// Perft depths from which a person at a terminal sees progress.
const PROGRESS_DEPTH: u32 = 8;

/// Perft one root move at a time, saying on stderr after each how far it
/// is; the count is the same as [`crate::rules::perft::perft_threads`]'s.
fn perft_with_progress(pos: &crate::rules::position::Position, depth: u32, threads: usize) -> u64 {
    let start = Instant::now();
    let moves = legal_moves(pos);
    let mut total = 0;
    for (k, m) in moves.iter().enumerate() {
        total += crate::rules::perft::perft_threads(&pos.make(m), depth - 1, threads);
        let secs = start.elapsed().as_secs_f64();
        let left = secs / (k + 1) as f64 * (moves.len() - k - 1) as f64;
        eprint!(
            "\rperft: {} of {} root moves, {total} leaves, {secs:.0}s, about {left:.0}s left   ",
            k + 1,
            moves.len()
        );
    }
    eprintln!();
    total
}

/// Runs `dammer show`, colouring with `style`.
pub fn show(args: &ShowArgs, style: super::board::Style) -> Result<(), String> {
    let game = super::game_in(args.position.text(), &args.moves, args.variant)?;
    let pos = game.position();
    println!("{}", super::board::diagram(pos, style));
    println!("hub {}", pos.to_hub());
    let legal = game.legal_moves();
    let hub: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
    // PDN's shortest capture paths are the international game's; a
    // variant with its own moves is written in Hub notation.
    let pdn: Vec<String> =
        legal.iter().map(|m| if args.variant.pdn_paths() { to_pdn(pos, m) } else { m.to_string() }).collect();
    println!("moves {}", hub.join(" "));
    println!("pdn {}", pdn.join(" "));
    let result = game.result();
    println!("result {result}");
    if result == GameResult::Ongoing {
        println!(
            "eval {} (static evaluation, men, for {}, the side to move)",
            crate::engine::score::format(
                crate::engine::eval::Evaluation::default().for_variant(args.variant).evaluate(pos)
            ),
            super::board::side_name(pos.side())
        );
    } else {
        println!("eval none: the game is over");
    }
    Ok(())
}

/// One line of `dammer legal`'s output; `Err` holds the `error ...` line
/// written in its place.
fn legal_line(text: &str, with_result: bool, variant: Variant) -> Result<String, String> {
    let (position, moves) = text.split_once(';').unwrap_or((text, ""));
    let mut game = Game::from_text(position).map_err(|e| format!("error {e}"))?.in_variant(variant);
    for m in moves.split_whitespace() {
        game.play_text(m).map_err(|e| format!("error {e}"))?;
    }
    let moves: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
    if with_result {
        let result = game.result();
        let tag = match result {
            GameResult::Draw(reason) => format!("1-1 {reason:?}"),
            other => other.pdn().to_string(),
        };
        Ok(format!("{tag}: {}", moves.join(" ")))
    } else {
        Ok(moves.join(" "))
    }
}

/// Runs `dammer legal`. A line that cannot be read gets `error ...` in its
/// place (the output stays one line per input line) and the command fails
/// at the end.
pub fn legal(args: &LegalArgs) -> Result<(), String> {
    let (positions, with_result) = (&args.positions, args.result);
    let mut out = io::BufWriter::new(io::stdout().lock());
    let (mut lines, mut errors) = (0usize, 0usize);
    let mut answer = |out: &mut io::BufWriter<io::StdoutLock>, text: &str| {
        lines += 1;
        let line = legal_line(text, with_result, args.variant).unwrap_or_else(|e| {
            errors += 1;
            e
        });
        writeln!(out, "{line}").map_err(|e| e.to_string())
    };
    for p in positions.iter().chain(&args.fen) {
        if p == "-" {
            for line in io::stdin().lock().lines() {
                let line = line.map_err(|e| format!("cannot read standard input: {e}"))?;
                if line.trim().is_empty() {
                    continue;
                }
                answer(&mut out, &line)?;
            }
        } else {
            answer(&mut out, p)?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    match errors {
        0 => Ok(()),
        _ => Err(format!("{errors} of {lines} positions could not be read")),
    }
}
