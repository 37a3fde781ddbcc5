//! `dammer bench`: a fixed set of positions searched to a fixed depth with a
//! cleared table. Its node count identifies the search's behaviour (commits
//! that change the search quote it as `Bench: <nodes>`), and its speed is a
//! quick health check.

use std::time::{Duration, Instant};

use crate::engine::eval::Evaluation;
use crate::engine::options;
use crate::engine::time::Limits;
use crate::engine::Engine;
use crate::rules::game::Game;

/// Default search depth of the bench.
pub const DEFAULT_DEPTH: u32 = 17;

/// The bench positions: openings, middlegames, endgames and tactical shots.
pub const POSITIONS: &[(&str, &str)] = &[
    ("start", "W:W31-50:B1-20"),
    ("opening 32-28 19-23", "W:W28,31,33-50:B1-18,20,23"),
    ("opening 33-29 18-22", "W:W29,31,32,34-50:B1-17,19,20,22"),
    ("opening 34-30 20-25", "W:W30,31,32,33,35-50:B1-19,25"),
    ("woldouby", "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"),
    ("front rows", "W:B16,17,18,19,20:W31,32,33,34,35"),
    ("classical centre", "W:W27,28,29,32,33,34,36,37,38,39,40,41,42,43,45,47,48:B3,6,7,8,9,11,12,13,14,16,17,18,19,20,22,23,24"),
    ("king endgame", "W:WK46,28,37:BK5,14"),
    ("kings and men", "B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29"),
    ("random178", "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46"),
];

/// Totals of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchReport {
    /// Nodes over all positions.
    pub nodes: u64,
    /// Time over all positions.
    pub time: Duration,
}

/// Searches every bench position to `depth` with a cleared table and
/// `eval`, calling `line` with one line of text per position.
pub fn run(
    depth: u32,
    threads: usize,
    hash_mb: usize,
    eval: Evaluation,
    line: impl FnMut(&str),
) -> BenchReport {
    let positions: Vec<(String, String)> =
        POSITIONS.iter().map(|(name, fen)| (name.to_string(), fen.to_string())).collect();
    run_positions(&positions, depth, threads, hash_mb, eval, line)
}

/// [`run`] over `positions` (name, FEN or Hub string) instead of the
/// built-in set. Each line also gives the position's time and nodes a
/// second: what `bench/smp.sh` compares between thread counts.
pub fn run_positions(
    positions: &[(String, String)],
    depth: u32,
    threads: usize,
    hash_mb: usize,
    eval: Evaluation,
    mut line: impl FnMut(&str),
) -> BenchReport {
    let mut engine = Engine::new(threads, hash_mb);
    engine.set_evaluation(eval);
    let limits = Limits { depth: Some(depth), analysis: true, ..Limits::default() };
    let mut nodes = 0;
    let start = Instant::now();
    for (k, (name, fen)) in positions.iter().enumerate() {
        // The position's number tells a person how far a long bench is.
        let name = format!("{:>2}/{} {name}", k + 1, positions.len());
        let Ok(game) = Game::from_text(fen) else {
            line(&format!("{name}: bad bench position {fen}"));
            continue;
        };
        engine.clear();
        let r = engine.search_quietly(&game, &limits);
        nodes += r.nodes;
        // PDN, as analyse prints moves for people.
        let best = r.best.map_or("none".to_string(), |m| crate::rules::notation::to_pdn(game.position(), &m));
        let secs = r.time.as_secs_f64();
        line(&format!(
            "{name:<26} depth {:>2} score {:>7} nodes {:>10} time {secs:>7.3} nps {:>8} best {best}",
            r.depth,
            crate::engine::score::format(r.score),
            r.nodes,
            if secs > 0.0 { (r.nodes as f64 / secs) as u64 } else { 0 }
        ));
    }
    BenchReport { nodes, time: start.elapsed() }
}

/// The arguments of `dammer bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Depth of each search.
    #[arg(long, default_value_t = DEFAULT_DEPTH, value_parser = options::depth)]
    pub depth: u32,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = options::threads)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 16, value_parser = options::hash_mb)]
    pub hash: usize,
    /// The evaluation (the `Bench:` number of commits is the default's).
    #[command(flatten)]
    pub eval: crate::cli::EvalArgs,
    /// Search the positions of this file instead of the built-in set: one
    /// FEN or Hub string a line, optionally followed by `;` and a name
    /// (blank lines and lines that start with `#` are skipped).
    #[arg(long, value_name = "FILE")]
    pub positions: Option<std::path::PathBuf>,
    /// Instead of searching, time the network's parts: a refresh, an update
    /// by one move, the output layers, and an evaluation through the
    /// search's cache (the evaluation must be the network: the default,
    /// --eval nn or a network file).
    #[arg(long)]
    pub network: bool,
}

/// Nanoseconds per operation of the network's parts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkCosts {
    /// A refresh of both views from the biases.
    pub refresh: f64,
    /// An update of both views from the parent position (one move).
    pub update: f64,
    /// The layers after the accumulator.
    pub output: f64,
    /// An evaluation through a search thread's cache, along the same games.
    pub cached: f64,
    /// Positions timed.
    pub positions: usize,
}

/// Times the parts of `net` over the positions of random games (seeded:
/// the same positions every run), each position following its parent.
pub fn network_costs(net: &crate::engine::eval::nn::Network) -> NetworkCosts {
    use crate::engine::eval::nn::NetCache;
    use crate::rules::movegen::legal_moves;
    use crate::rules::position::Position;
    let mut rng = crate::base::rng::SplitMix(2026);
    let mut positions = Vec::new();
    while positions.len() < 20_000 {
        let mut pos = Position::start();
        for _ in 0..150 {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.make(&moves.as_slice()[rng.below(moves.len())]);
            positions.push(pos);
        }
    }
    let n = positions.len();
    let per = |t: Duration, reps: usize| t.as_nanos() as f64 / (n * reps) as f64;
    let reps = 20;
    let mut sink = 0i64;
    let start = Instant::now();
    for _ in 0..reps {
        for p in &positions {
            std::hint::black_box(net.refresh(p));
        }
    }
    let refresh = per(start.elapsed(), reps);
    let mut acc = net.refresh(&positions[0]);
    let start = Instant::now();
    for _ in 0..reps {
        for p in &positions {
            net.update(std::hint::black_box(&mut acc), p);
        }
    }
    // Each game's first position follows the last one of another game:
    // about one update in 150 is a large one.
    let update = per(start.elapsed(), reps);
    // A few accumulators, read over and over: the output layers' own cost,
    // not the memory's (a search reads its ply's accumulator from cache).
    let accs: Vec<_> = positions.iter().take(64).map(|p| net.refresh(p)).collect();
    let start = Instant::now();
    for _ in 0..reps {
        for (i, p) in positions.iter().enumerate() {
            sink = sink.wrapping_add(i64::from(net.output(std::hint::black_box(&accs[i % 64]), p.side())));
        }
    }
    let output = per(start.elapsed(), reps);
    let mut cache = NetCache::new(1);
    let start = Instant::now();
    for _ in 0..reps {
        for p in &positions {
            sink = sink.wrapping_add(i64::from(net.evaluate_cached(p, &mut cache, 0)));
        }
    }
    let cached = per(start.elapsed(), reps);
    std::hint::black_box(sink);
    NetworkCosts { refresh, update, output, cached, positions: n }
}

/// The positions of a `--positions` file, each checked here so that a bad
/// line is named before any search starts.
fn read_positions(path: &std::path::Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut positions = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let (fen, name) = match raw.split_once(';') {
            Some((fen, name)) => (fen.trim(), name.trim().to_string()),
            None => (raw, format!("line {}", n + 1)),
        };
        if let Err(e) = Game::from_text(fen) {
            return Err(format!("{}:{}: {e}", path.display(), n + 1));
        }
        positions.push((name, fen.to_string()));
    }
    if positions.is_empty() {
        return Err(format!("{}: no positions", path.display()));
    }
    Ok(positions)
}

/// Runs `dammer bench`, printing a line per position and the totals.
pub fn run_cli(args: &BenchArgs) -> Result<(), String> {
    let BenchArgs { depth, threads, hash, eval, positions, network } = args;
    if *network {
        let Evaluation::Network(net) = eval.evaluation()? else {
            return Err("--network times the neural evaluation: --eval nn (or a network file)".into());
        };
        let c = network_costs(&net);
        println!(
            "network ({} kernel, {}-bit second layer), {} positions of random games, ns each: refresh {:.1}, update by one move {:.1}, output layers {:.1}, evaluation through the cache {:.1}",
            net.kernel().name(),
            if net.is_8_bit() { 8 } else { 16 },
            c.positions,
            c.refresh,
            c.update,
            c.output,
            c.cached
        );
        return Ok(());
    }
    let positions = match positions {
        Some(path) => read_positions(path)?,
        None => POSITIONS.iter().map(|(name, fen)| (name.to_string(), fen.to_string())).collect(),
    };
    let report =
        run_positions(&positions, *depth, *threads, *hash, eval.evaluation()?, |line| println!("{line}"));
    let secs = report.time.as_secs_f64();
    let nps = if secs > 0.0 { (report.nodes as f64 / secs) as u64 } else { 0 };
    println!("{} nodes {} nps", report.nodes, nps);
    Ok(())
}
