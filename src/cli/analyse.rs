//! `dammer analyse`: search one position and print each iteration, then
//! the best move.

use super::board::{diagram, side_name, Style};
use crate::engine::book::Book;
use crate::engine::options;
use crate::engine::score::describe;
use crate::engine::{Engine, Info, Limits};
use crate::rules::movegen::Move;
use crate::rules::notation::to_pdn;
use crate::rules::position::Position;
use crate::rules::variant::Variant;

/// The arguments of `dammer analyse`.
#[derive(clap::Args, Debug)]
pub struct AnalyseArgs {
    /// The position.
    #[command(flatten)]
    pub position: super::PositionArgs,
    /// Moves to play from the position first (Hub or PDN, space-separated).
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Stop after this depth.
    #[arg(long, allow_negative_numbers = true, value_parser = options::depth)]
    pub depth: Option<u32>,
    /// Seconds to think (default 5 when no other limit is given).
    #[arg(long, allow_negative_numbers = true, value_parser = options::time_arg)]
    pub time: Option<std::time::Duration>,
    /// Stop after this many nodes.
    #[arg(long, allow_negative_numbers = true, value_parser = options::nodes)]
    pub nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = options::threads)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = options::DEFAULT_HASH_MB, value_parser = options::hash_mb)]
    pub hash: usize,
    /// The evaluation.
    #[command(flatten)]
    pub eval: super::EvalArgs,
    /// The endgame tables.
    #[command(flatten)]
    pub egdb: super::EgdbArgs,
    /// Show the position's moves in this opening book before the search
    /// (default: the embedded book).
    #[arg(long)]
    pub book: Option<std::path::PathBuf>,
    /// Do not show book moves.
    #[arg(long, conflicts_with = "book")]
    pub no_book: bool,
    /// Show the N best moves, each with its exact score and line (one
    /// search; it costs depth against a single line).
    #[arg(long, default_value_t = 1, value_parser = options::multipv)]
    pub multipv: usize,
    /// The game: normal (international), bt (breakthrough) or losing
    /// (antidraughts); lidraughts' names are read too.
    #[arg(long, default_value = "normal", value_parser = super::variant)]
    pub variant: crate::rules::variant::Variant,
}

/// The book line of the analysis: the position's book moves with their
/// scores, or `None` when it has none. A book that cannot be read is
/// reported on stderr and the analysis goes on without it.
fn book_line(args: &AnalyseArgs, pos: &crate::rules::position::Position) -> Option<String> {
    if args.no_book || args.variant != crate::rules::variant::Variant::Normal {
        return None;
    }
    let book = match &args.book {
        Some(path) => match Book::load(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("book {}: {e}; analysing without it", path.display());
                return None;
            }
        },
        None => Book::embedded(),
    };
    let moves = book.moves(pos)?;
    let list: Vec<String> = moves
        .iter()
        .map(|b| format!("{} {}", to_pdn(pos, &b.mv), crate::engine::score::format(b.score)))
        .collect();
    Some(format!("book moves (score in men for the side to move): {}", list.join(", ")))
}

/// Runs `dammer analyse`, colouring with `style`.
pub fn run(args: &AnalyseArgs, style: Style) -> Result<(), String> {
    let AnalyseArgs { position, moves, depth, time, nodes, threads, hash, eval, egdb, multipv, .. } = args;
    let (depth, nodes, threads, hash, multipv) = (*depth, *nodes, *threads, *hash, *multipv);
    let evaluation = eval.evaluation()?;
    let tables = egdb.tables()?.map(std::sync::Arc::new);
    let game = super::game_in(position.text(), moves, args.variant)?;
    let move_time = match *time {
        Some(t) => Some(t),
        None if depth.is_none() && nodes.is_none() => Some(std::time::Duration::from_secs(5)),
        None => None,
    };
    let limits = Limits { depth, nodes, move_time, analysis: true, multipv, ..Limits::default() };
    let mut engine = Engine::new(threads, hash);
    engine.set_evaluation(evaluation);
    engine.set_egdb(tables);
    let start = *game.position();
    println!("{}", diagram(&start, style));
    if game.legal_moves().is_empty() {
        // Nothing to search: no legend or table for rows that never come.
        println!("no legal move: {}", game.result());
        return Ok(());
    }
    if let Some(line) = book_line(args, &start) {
        println!("{line}");
    }
    if let Some(reason) = game.draw_point() {
        println!(
            "{}: every move here ends the game ({}); analysing the game as it goes on (repetition alone)",
            style.dim("note"),
            reason.describe()
        );
    }
    if let Some(p) = game.passed_draw() {
        let at = if p.ply == game.moves().len() {
            "this position".to_string()
        } else {
            format!("the position after {} plies of --moves", p.ply)
        };
        println!(
            "{}: {at} is drawn by the FMJD rules ({}); analysing the game as it goes on (repetition alone)",
            style.dim("note"),
            p.reason.describe()
        );
    }
    println!("{}", style.dim(&legend(side_name(start.side()))));
    println!(
        "{:>5} {:>6} {:>SCORE_WIDTH$} {:>12} {:>9} {:>8}  pv",
        "depth", "mean", "score", "nodes", "knps", "time"
    );
    let mut last_lines = Vec::new();
    let mut last_row: Option<(u32, Vec<crate::rules::movegen::Move>)> = None;
    let mut on_info = |info: &Info| {
        // The search repeats its last iteration every second during a long
        // one, for GUIs; on the console the same row once is enough.
        let row = Some((info.depth, info.pv.clone()));
        if row == last_row {
            return;
        }
        last_row = row;
        let pv = |line: &[crate::rules::movegen::Move]| line_text(&start, line, args.variant);
        let first = match info.lines.len() {
            0 | 1 => pv(&info.pv),
            _ => format!("1. {}", pv(&info.pv)),
        };
        println!(
            "{:>5} {:>6.1} {:>SCORE_WIDTH$} {:>12} {:>9.0} {:>8.3}  {first}",
            depth_text(info.depth, info.partial),
            info.mean_depth,
            describe(info.score),
            info.nodes,
            info.nps() / 1e3,
            info.time.as_secs_f64(),
        );
        for (k, line) in info.lines.iter().enumerate().skip(1) {
            println!(
                "{:>5} {:>6} {:>SCORE_WIDTH$} {:>12} {:>9} {:>8}  {}. {}",
                "",
                "",
                describe(line.score),
                "",
                "",
                "",
                k + 1,
                pv(&line.pv)
            );
        }
        last_lines.clone_from(&info.lines);
    };
    let result = engine.search(&game, &limits, &mut on_info);
    match result.best {
        Some(m) => {
            let secs = result.time.as_secs_f64();
            let best = line_text(&start, &[m], args.variant);
            // The Hub spelling (every captured square) only where it differs.
            let hub = m.to_string();
            let hub = if hub == best { String::new() } else { format!(" (Hub notation {hub})") };
            println!(
                "best move {}{hub}, score {}, depth {}, {} nodes in {:.3}s ({:.0} knps)",
                style.strong(&best),
                describe(result.score),
                depth_text(result.depth, result.partial),
                result.nodes,
                secs,
                if secs > 0.0 { result.nodes as f64 / secs / 1e3 } else { 0.0 }
            );
            if last_lines.len() > 1 {
                println!("best lines at depth {}:", result.depth);
                for (k, line) in last_lines.iter().enumerate() {
                    println!(
                        "{:>3}. {:>SCORE_WIDTH$}  {}",
                        k + 1,
                        describe(line.score),
                        line_text(&start, &line.pv, args.variant)
                    );
                }
            }
        }
        None => println!("no legal move: {}", game.result()),
    }
    Ok(())
}

/// A line in PDN, or in Hub notation for a variant with its own moves
/// (PDN's shortest capture paths are the international game's).
fn line_text(start: &Position, line: &[Move], variant: Variant) -> String {
    if !variant.pdn_paths() {
        line.iter().map(Move::to_string).collect::<Vec<_>>().join(" ")
    } else {
        crate::rules::notation::line_to_pdn(start, line)
    }
}

/// Width of the score column: the longest description, `-89.98 (table
/// loss)` or `-99.98 (loss in 100)`, fits.
const SCORE_WIDTH: usize = 20;

/// The depth column: `18`, or `18+` when the move was found in the
/// unfinished 19th iteration.
fn depth_text(depth: u32, partial: bool) -> String {
    if partial {
        format!("{depth}+")
    } else {
        depth.to_string()
    }
}

/// What the columns of the analysis mean, for the side to move `side`.
fn legend(side: &str) -> String {
    format!(
        "scores in men (1.00 = a man) for {side}, the side to move; depth N+: iteration N done, then \
         a better move found in the unfinished N+1 (its score so far); mean: average depth of the \
         leaves; knps: thousand nodes a second; time in seconds"
    )
}
