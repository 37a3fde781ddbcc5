//! The `dammer` command line: parses arguments and dispatches to the library.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use dammer::engine::time::Limits;
use dammer::engine::Engine;
use dammer::rules::game::{Game, GameResult};
use dammer::rules::movegen::legal_moves;
use dammer::rules::notation::to_pdn;
use dammer::rules::perft;
use dammer::rules::position::{Position, START_FEN};
use dammer::tools::tournament;

#[derive(Parser, Debug)]
#[command(name = "dammer", version, about = "An engine for international draughts (FMJD rules)")]
struct Cli {
    /// What to do; without one, Dammer speaks the Hub protocol.
    #[command(subcommand)]
    command: Option<Command>,
}

/// Which evaluation to use.
#[derive(clap::Args, Debug, Clone)]
struct EvalArgs {
    /// `learned` (pattern weights) or `hand` (the hand-written evaluation).
    #[arg(long, default_value = dammer::engine::eval::DEFAULT_EVAL)]
    eval: String,
    /// A weights file for the learned evaluation (default: the embedded one).
    #[arg(long)]
    weights: Option<std::path::PathBuf>,
}

impl EvalArgs {
    fn evaluation(&self) -> Result<dammer::engine::eval::Evaluation, String> {
        dammer::engine::eval::Evaluation::from_name(&self.eval, self.weights.as_deref())
    }
}

/// Endgame tables for a search.
#[derive(clap::Args, Debug, Clone)]
struct EgdbArgs {
    /// Directory of endgame tables to probe (see `dammer egdb generate`).
    #[arg(long)]
    egdb: Option<std::path::PathBuf>,
    /// Most pieces to probe the tables for (default: every complete piece count).
    #[arg(long)]
    egdb_pieces: Option<usize>,
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
        #[command(flatten)]
        eval: EvalArgs,
        #[command(flatten)]
        egdb: EgdbArgs,
    },
    /// Search a fixed set of positions to a fixed depth (speed and
    /// regression check); the last line is `<nodes> nodes <nps> nps`.
    Bench {
        /// Depth of each search.
        #[arg(long, default_value_t = dammer::tools::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
    },
    /// Play Dammer against itself at a fixed node budget and store every
    /// quiet position with the search score and the game result (training
    /// data for `tune`). Rerunning the command resumes; a larger --games
    /// extends the file.
    Selfplay {
        /// The data file.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Games the file should hold at the end.
        #[arg(long)]
        games: u32,
        /// Nodes searched per move.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Games played at once (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Up to this many random plies after the opening ballot.
        #[arg(long, default_value_t = 6)]
        random_plies: usize,
        /// Seed of the openings and random plies.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Draw a game after this many plies.
        #[arg(long, default_value_t = 300)]
        max_plies: usize,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Fit the pattern evaluation's weights to self-play games (logistic
    /// regression with Adam); prints the loss per epoch and writes the
    /// weights file after every epoch.
    Tune {
        /// Self-play data files.
        #[arg(required = true)]
        data: Vec<std::path::PathBuf>,
        /// The weights file to write.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Passes over the data.
        #[arg(long, default_value_t = 20)]
        epochs: usize,
        /// Positions per step.
        #[arg(long, default_value_t = 8192)]
        batch: usize,
        /// Adam step size (hundredths of a man).
        #[arg(long, default_value_t = 1.0)]
        lr: f64,
        /// L2 regularisation of the pattern weights (per position-averaged
        /// gradient: rare patterns are shrunk, common ones hardly).
        #[arg(long, default_value_t = 1e-9)]
        l2: f64,
        /// Share of the search score in the target (0: game result only;
        /// 0.7 played far better than 0 in matches).
        #[arg(long, default_value_t = 0.7)]
        lambda: f64,
        /// Scale of the sigmoid, hundredths of a man (125 fits the
        /// hand-written evaluation's search scores to the results of the
        /// first self-play data, so the weights come out in similar units).
        #[arg(long, default_value_t = 125.0)]
        k: f64,
        /// Start from these weights (default: material only).
        #[arg(long)]
        init: Option<std::path::PathBuf>,
        /// Threads for the gradient (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Play engine-vs-engine games between Hub engines: a match (two
    /// engines), a gauntlet or a round robin, with clocks, adjudication,
    /// PDN output and Elo statistics. Ctrl-C stops and reports.
    Match {
        #[command(flatten)]
        args: MatchArgs,
    },
    /// Endgame tables: generate, verify and probe win/draw/loss bitbases.
    Egdb {
        #[command(subcommand)]
        action: EgdbCommand,
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

#[derive(Subcommand, Debug)]
enum EgdbCommand {
    /// Generate every table of up to --pieces pieces into --dir; tables
    /// already there are kept, so an interrupted run resumes.
    Generate {
        /// Most pieces on the board (2 to 7; 5 takes about an hour here).
        #[arg(long)]
        pieces: usize,
        /// Directory of the table files.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Recompute every quiet position's value from its successors and
    /// report the positions where the table disagrees.
    Verify {
        /// Directory of the table files.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Most pieces to check (default: every complete piece count).
        #[arg(long)]
        pieces: Option<usize>,
        /// Threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print the table value of a position (FEN or Hub string) and of each
    /// of its moves.
    Probe {
        /// The position.
        fen: String,
        /// Directory of the table files.
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Most pieces to use (default: every complete piece count).
        #[arg(long)]
        pieces: Option<usize>,
    },
}

fn run_egdb(action: EgdbCommand) -> Result<(), String> {
    match action {
        EgdbCommand::Generate { pieces, dir, threads } => {
            dammer::tools::interrupt::catch();
            let threads = threads.unwrap_or_else(default_threads);
            let r = dammer::tools::egdb::generate(&dir, pieces, threads, |line| println!("{line}"))
                .map_err(|e| e.to_string())?;
            println!(
                "{} tables generated ({} positions, {:.1} MB on disk), {} kept, in {}; largest pair needed {:.0} MB",
                r.generated,
                r.positions,
                r.bytes as f64 / 1e6,
                r.kept,
                dammer::base::duration::format_duration(r.elapsed),
                r.peak_pair_bytes as f64 / 1e6
            );
            Ok(())
        }
        EgdbCommand::Verify { dir, pieces, threads } => {
            dammer::tools::interrupt::catch();
            let pieces = match pieces {
                Some(n) => n,
                None => complete_pieces(&dir)?,
            };
            let threads = threads.unwrap_or_else(default_threads);
            let r = dammer::tools::egdb::verify(&dir, pieces, threads, |line| println!("{line}"))
                .map_err(|e| e.to_string())?;
            for (fen, stored, expected) in &r.examples {
                println!("inconsistent: {fen} stored {stored}, successors give {expected}");
            }
            if !r.missing.is_empty() {
                let names: Vec<String> = r.missing.iter().map(|s| s.to_string()).collect();
                println!("missing tables (not checked): {}", names.join(" "));
            }
            println!("{} tables, {} quiet positions checked, {} inconsistent", r.tables, r.checked, r.errors);
            if r.errors > 0 {
                return Err(format!("{} inconsistent positions", r.errors));
            }
            Ok(())
        }
        EgdbCommand::Probe { fen, dir, pieces } => {
            let pos = parse_position(&fen)?;
            let tables = load_tables(&dir, pieces)?;
            let n = pos.occupied().count_ones();
            let Some(v) = tables.probe(&pos) else {
                return Err(format!(
                    "{n} pieces: the tables in {} cover up to {} pieces",
                    dir.display(),
                    tables.max_pieces()
                ));
            };
            println!("{}", pos);
            println!(
                "{v} for {} to move",
                if pos.side() == dammer::rules::position::Color::White { "white" } else { "black" }
            );
            for m in legal_moves(&pos).iter() {
                let after =
                    tables.probe(&pos.make(m)).map(|w| w.flip().to_string()).unwrap_or_else(|| "?".into());
                println!("  {:<12} {after}", to_pdn(&pos, m));
            }
            Ok(())
        }
    }
}

/// The largest piece count for which `dir` holds every table.
fn complete_pieces(dir: &std::path::Path) -> Result<usize, String> {
    if !dir.is_dir() {
        return Err(format!("{}: no such directory", dir.display()));
    }
    match dammer::engine::egdb::complete_pieces(dir) {
        0 => Err(format!("{}: no complete set of endgame tables (not even 2 pieces)", dir.display())),
        n => Ok(n),
    }
}

fn load_tables(dir: &std::path::Path, pieces: Option<usize>) -> Result<dammer::engine::egdb::Tables, String> {
    let pieces = match pieces {
        Some(n) => n,
        None => complete_pieces(dir)?,
    };
    let (tables, missing) = dammer::engine::egdb::Tables::load(dir, pieces).map_err(|e| e.to_string())?;
    if !missing.is_empty() {
        eprintln!(
            "dammer: {} of the tables up to {pieces} pieces are missing in {}; using up to {} pieces",
            missing.len(),
            dir.display(),
            tables.max_pieces()
        );
    }
    Ok(tables)
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
    println!("eval {} (side to move)", dammer::engine::score::format(dammer::engine::eval::evaluate(pos)));
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

#[allow(clippy::too_many_arguments)]
fn run_analyse(
    fen: Option<String>,
    moves: &str,
    depth: Option<u32>,
    time: Option<f64>,
    nodes: Option<u64>,
    threads: usize,
    hash: usize,
    eval: &EvalArgs,
    egdb: &EgdbArgs,
) -> Result<(), String> {
    let evaluation = eval.evaluation()?;
    let tables = match &egdb.egdb {
        Some(dir) => Some(std::sync::Arc::new(load_tables(dir, egdb.egdb_pieces)?)),
        None if egdb.egdb_pieces.is_some() => return Err("--egdb-pieces needs --egdb DIR".into()),
        None => None,
    };
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
    engine.set_evaluation(evaluation);
    engine.set_egdb(tables);
    let start = *game.position();
    println!("{}", start);
    println!("{:>5} {:>6} {:>14} {:>12} {:>9} {:>8}  pv", "depth", "mean", "score", "nodes", "knps", "time");
    let mut on_info = |info: &dammer::engine::search::Info| {
        println!(
            "{:>5} {:>6.1} {:>14} {:>12} {:>9.0} {:>8.3}  {}",
            info.depth,
            info.mean_depth,
            dammer::engine::score::describe(info.score),
            info.nodes,
            info.nps() / 1e3,
            info.time.as_secs_f64(),
            dammer::rules::notation::line_to_pdn(&start, &info.pv)
        );
    };
    let result =
        engine.search(&game, &limits, &dammer::engine::search::SearchControl::default(), &mut on_info);
    match result.best {
        Some(m) => {
            let secs = result.time.as_secs_f64();
            println!(
                "best move {} (hub {m}), score {}, depth {}, {} nodes in {:.3}s ({:.0} knps)",
                to_pdn(&start, &m),
                dammer::engine::score::describe(result.score),
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
    if !(1..=dammer::engine::search::MAX_DEPTH).contains(&depth) {
        return Err(format!("--depth must be between 1 and {}", dammer::engine::search::MAX_DEPTH));
    }
    let report = dammer::tools::bench::run(
        depth,
        threads.clamp(1, dammer::engine::MAX_THREADS),
        hash.max(1),
        |line| {
            println!("{line}");
        },
    );
    let secs = report.time.as_secs_f64();
    let nps = if secs > 0.0 { (report.nodes as f64 / secs) as u64 } else { 0 };
    println!("{} nodes {} nps", report.nodes, nps);
    Ok(())
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn run_tune(cfg: dammer::tools::tune::Config, threads: Option<usize>) -> Result<(), String> {
    if !(cfg.k.is_finite() && cfg.k > 0.0 && cfg.lr.is_finite() && cfg.lr > 0.0) {
        return Err("--k and --lr must be positive".into());
    }
    if !((0.0..=1.0).contains(&cfg.lambda) && cfg.l2.is_finite() && cfg.l2 >= 0.0) {
        return Err("--lambda must be between 0 and 1 and --l2 non-negative".into());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or_else(default_threads).max(1))
        .build()
        .map_err(|e| format!("cannot start threads: {e}"))?;
    pool.install(|| dammer::tools::tune::run(&cfg, &mut |line| println!("{line}"))).map(|_| ())
}

/// The `match` arguments as given.
#[derive(clap::Args, Debug)]
struct MatchArgs {
    /// An engine: `name=NAME cmd="PROGRAM hub" [dir=DIR] [option.PARAM=VALUE ...]`;
    /// give it once per engine (at least two).
    #[arg(long = "engine", num_args = 1.., required = true, value_name = "KEY=VALUE", action = clap::ArgAction::Append)]
    engines: Vec<String>,
    /// The first engine plays each of the others (default: every pair plays).
    #[arg(long)]
    gauntlet: bool,
    /// Fixed seconds per move.
    #[arg(long, conflicts_with = "tc")]
    movetime: Option<f64>,
    /// Game clock `[moves/]seconds[+increment]`, e.g. `10+0.1` or `40/60`.
    #[arg(long)]
    tc: Option<String>,
    /// Milliseconds an engine may exceed its time before it loses on time.
    #[arg(long, default_value_t = 100)]
    margin: u64,
    /// Openings: one FEN/Hub position a line, or a PDN file (default:
    /// the 79 two-move ballots shipped in bench/openings-2move.fen).
    #[arg(long)]
    openings: Option<std::path::PathBuf>,
    /// Games per pairing (default: every opening with both colours).
    #[arg(long)]
    games: Option<usize>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Append every game to this PDN file.
    #[arg(long)]
    pdn: Option<std::path::PathBuf>,
    /// Adjudicate a draw after this many plies (0: never).
    #[arg(long, default_value_t = 400)]
    max_plies: usize,
    /// Draw when, from ply PLY on, both engines report |score| <= SCORE
    /// men for MOVES moves each.
    #[arg(long, num_args = 3, value_names = ["PLY", "SCORE", "MOVES"])]
    draw_adjudication: Option<Vec<f64>>,
    /// A side loses when its engine reports <= -SCORE and the opponent
    /// >= SCORE men for MOVES moves each.
    #[arg(long, num_args = 2, value_names = ["SCORE", "MOVES"])]
    resign_adjudication: Option<Vec<f64>>,
    /// Stop a two-engine match when a sequential probability ratio test decides.
    #[arg(long, num_args = 4, value_names = ["ELO0", "ELO1", "ALPHA", "BETA"])]
    sprt: Option<Vec<f64>>,
    /// The PDN Event tag.
    #[arg(long, default_value = "Dammer match")]
    event: String,
}

/// `engine_groups` are the `--engine` occurrences, one per engine (the
/// derived `a.engines` is the same tokens flattened).
fn match_config(a: MatchArgs, engine_groups: &[Vec<String>]) -> Result<tournament::Config, String> {
    let engines = engine_groups
        .iter()
        .map(|tokens| tournament::client::EngineSpec::parse(tokens))
        .collect::<Result<Vec<_>, _>>()?;
    if engines.len() < 2 {
        return Err("give at least two engines (--engine ... --engine ...)".into());
    }
    let tc = match (a.movetime, a.tc) {
        (Some(t), None) if t.is_finite() && t > 0.0 => tournament::TimeControl::MoveTime(t),
        (Some(t), None) => return Err(format!("--movetime must be a positive number of seconds, not {t}")),
        (None, Some(text)) => tournament::TimeControl::parse_clock(&text)?,
        _ => return Err("give a time control: --movetime SECONDS or --tc [moves/]seconds[+increment]".into()),
    };
    let openings = match &a.openings {
        Some(path) => dammer::tools::openings::load_openings(path)?,
        None => dammer::tools::openings::parse_openings(dammer::tools::openings::DEFAULT_OPENINGS, false)?,
    };
    if a.games == Some(0) {
        return Err("--games must be at least 1".into());
    }
    if a.concurrency == 0 || a.concurrency > 256 {
        return Err("--concurrency must be between 1 and 256".into());
    }
    let positive = |v: f64, what: &str| {
        if v.is_finite() && v >= 0.0 {
            Ok(v)
        } else {
            Err(format!("{what} must be a non-negative number, not {v}"))
        }
    };
    let draw = match a.draw_adjudication {
        Some(v) => Some(tournament::DrawAdjudication {
            after_ply: positive(v[0], "the draw adjudication ply")? as usize,
            score: positive(v[1], "the draw adjudication score")?,
            moves: positive(v[2], "the draw adjudication move count")?.max(1.0) as u32,
        }),
        None => None,
    };
    let resign = match a.resign_adjudication {
        Some(v) => Some(tournament::ResignAdjudication {
            score: positive(v[0], "the resign adjudication score")?,
            moves: positive(v[1], "the resign adjudication move count")?.max(1.0) as u32,
        }),
        None => None,
    };
    let sprt = match a.sprt {
        Some(v) => {
            let s = tournament::stats::Sprt { elo0: v[0], elo1: v[1], alpha: v[2], beta: v[3] };
            let rate = |x: f64| x > 0.0 && x < 0.5;
            if !(s.elo0.is_finite() && s.elo1.is_finite() && s.elo0 < s.elo1 && rate(s.alpha) && rate(s.beta))
            {
                return Err("--sprt needs ELO0 < ELO1 and ALPHA, BETA between 0 and 0.5".into());
            }
            if engines.len() != 2 {
                return Err("--sprt is for a match between two engines".into());
            }
            Some(s)
        }
        None => None,
    };
    Ok(tournament::Config {
        engines,
        gauntlet: a.gauntlet,
        tc,
        margin: std::time::Duration::from_millis(a.margin),
        openings,
        games: a.games,
        concurrency: a.concurrency,
        pdn: a.pdn,
        max_plies: (a.max_plies > 0).then_some(a.max_plies),
        draw,
        resign,
        sprt,
        event: a.event,
    })
}

fn run_match(cfg: &tournament::Config) -> Result<(), String> {
    tournament::check_engines(cfg)?;
    dammer::tools::interrupt::catch();
    let summary = tournament::run(cfg, &mut |line| println!("{line}"))?;
    for line in tournament::report(&summary, cfg.sprt) {
        println!("{line}");
    }
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
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // The derive API flattens repeated `--engine a b --engine c d`; the
    // grouping per engine comes from the raw occurrences.
    let engine_groups: Vec<Vec<String>> = matches
        .subcommand_matches("match")
        .and_then(|m| m.get_occurrences::<String>("engines"))
        .map(|occ| occ.map(|group| group.cloned().collect()).collect())
        .unwrap_or_default();
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
        Command::Analyse { fen, moves, depth, time, nodes, threads, hash, eval, egdb } => {
            run_analyse(fen, &moves, depth, time, nodes, threads, hash, &eval, &egdb)
        }
        Command::Selfplay { out, games, nodes, threads, random_plies, seed, max_plies, eval } => {
            eval.evaluation().and_then(|evaluation| {
                let cfg = dammer::tools::selfplay::Config {
                    out,
                    games,
                    nodes: nodes.max(1),
                    threads: threads.unwrap_or_else(default_threads).max(1),
                    random_plies,
                    seed,
                    eval: evaluation,
                    max_plies: max_plies.max(1),
                    openings: dammer::tools::openings::parse_openings(
                        dammer::tools::openings::DEFAULT_OPENINGS,
                        false,
                    )?,
                };
                dammer::tools::interrupt::catch();
                dammer::tools::selfplay::run(&cfg, &mut |line| println!("{line}")).map(|_| ())
            })
        }
        Command::Tune { data, out, epochs, batch, lr, l2, lambda, k, init, threads } => run_tune(
            dammer::tools::tune::Config { data, out, epochs, batch, lr, l2, lambda, k, init, seed: 1 },
            threads,
        ),
        Command::Bench { depth, threads, hash } => run_bench(depth, threads, hash),
        Command::Egdb { action } => run_egdb(action),
        Command::Legal { positions, result } => run_legal(&positions, result),
        Command::Match { args } => match_config(args, &engine_groups).and_then(|cfg| run_match(&cfg)),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("dammer: {msg}");
            ExitCode::from(2)
        }
    }
}
