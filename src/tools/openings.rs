//! `dammer openings`: opening sets that cut draws. Every position a few
//! plies beyond a set of openings (by default the 2-move ballots) is
//! searched deeply with a cleared table; those where one side has an edge
//! (by default 0.60 to 1.60 men: on Dammer's scale smaller edges, 0.15 to
//! 0.60, still drew 19 of 21 self-play games at 10 s + 0.1 s) are kept. Each is played with
//! both colours in a match, so the edge cancels over a pair, while the side
//! that has it plays for a win: fewer draws.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::engine::options;
use crate::engine::score;
use crate::engine::time::Limits;
use crate::engine::Engine;
use crate::rules::game::Game;
use crate::rules::movegen::{legal_moves, Move};
use crate::rules::openings::{load_openings, parse_openings, DEFAULT_OPENINGS};
use crate::rules::position::{Color, Position};

/// A position beyond an opening, and what the deep search said of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Which opening of the source set it comes from (0-based).
    pub source: usize,
    /// The moves played beyond that opening.
    pub line: Vec<Move>,
    /// The position reached.
    pub position: Position,
    /// The search score for White, hundredths of a man.
    pub white_score: score::Score,
    /// The depth the search completed.
    pub depth: u32,
}

/// Every position `plies` plies beyond each opening's position, once each
/// (transpositions are kept at their first line), none where the side to
/// move has no move (the game is over: a position without history has no
/// draw by the rules yet) or a single one (the engine would play it at
/// once).
pub fn expand(openings: &[Position], plies: usize) -> Vec<(usize, Vec<Move>, Position)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (source, start) in openings.iter().enumerate() {
        let mut frontier = vec![(Vec::new(), *start)];
        for _ in 0..plies {
            let mut next = Vec::new();
            for (line, pos) in &frontier {
                for &m in legal_moves(pos).iter() {
                    let mut l: Vec<Move> = line.clone();
                    l.push(m);
                    next.push((l, pos.make(&m)));
                }
            }
            frontier = next;
        }
        for (line, pos) in frontier {
            if legal_moves(&pos).len() >= 2 && seen.insert(pos) {
                out.push((source, line, pos));
            }
        }
    }
    out
}

/// Searches every position with its own cleared table (`threads` at once,
/// one search thread each) under `limits`; `progress` hears how many are
/// done now and then.
pub fn search_all(
    positions: &[(usize, Vec<Move>, Position)],
    limits: &Limits,
    hash_mb: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<Candidate> {
    let done = AtomicUsize::new(0);
    positions
        .par_iter()
        .map_init(
            || Engine::new(1, hash_mb),
            |engine, (source, line, pos)| {
                engine.clear();
                let r = engine.search_quietly(&Game::new(*pos), limits);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress(n);
                let white_score = if pos.side() == Color::White { r.score } else { -r.score };
                Candidate { source: *source, line: line.clone(), position: *pos, white_score, depth: r.depth }
            },
        )
        .collect()
}

/// The arguments of `dammer openings`.
#[derive(clap::Args, Debug)]
pub struct OpeningsArgs {
    /// The openings to go beyond: one FEN/Hub position a line, or a PDN
    /// file (default: the 79 two-move ballots).
    #[arg(long)]
    pub from: Option<PathBuf>,
    /// Plies played beyond each opening (every legal move).
    #[arg(long, default_value_t = 2)]
    pub plies: usize,
    /// Depth of each search.
    #[arg(long, default_value_t = 16, value_parser = options::depth)]
    pub depth: u32,
    /// Smallest edge kept, men (for either side).
    #[arg(long, default_value_t = 0.60)]
    pub min: f64,
    /// Largest edge kept, men.
    #[arg(long, default_value_t = 1.60)]
    pub max: f64,
    /// Positions searched at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = options::threads)]
    pub threads: usize,
    /// Hash table of each search, MiB.
    #[arg(long, default_value_t = 64, value_parser = options::hash_mb)]
    pub hash: usize,
    /// The opening set to write (FEN lines, each after a comment line that
    /// says where it comes from and its score).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `dammer openings`.
pub fn run_cli(a: OpeningsArgs) -> Result<(), String> {
    if !(a.min.is_finite() && a.max.is_finite() && 0.0 <= a.min && a.min <= a.max) {
        return Err(format!("--min {} and --max {} must be 0 <= min <= max (men)", a.min, a.max));
    }
    if a.plies > 4 {
        return Err(format!("--plies {} is too many (at most 4: the positions grow tenfold a ply)", a.plies));
    }
    let (openings, source_name) = match &a.from {
        Some(path) => (load_openings(path)?, path.display().to_string()),
        None => (parse_openings(DEFAULT_OPENINGS, false)?, "the 2-move ballots".to_string()),
    };
    // The file is created before the first search, so that a bad path fails at once.
    let mut out =
        std::fs::File::create(&a.out).map_err(|e| format!("cannot write {}: {e}", a.out.display()))?;
    let starts: Vec<Position> = openings.iter().map(|o| o.position()).collect();
    let positions = expand(&starts, a.plies);
    eprintln!(
        "{} positions {} plies beyond {} openings of {source_name}",
        positions.len(),
        a.plies,
        starts.len()
    );
    let pool = rayon::ThreadPoolBuilder::new().num_threads(a.threads).build().map_err(|e| e.to_string())?;
    let limits = Limits { depth: Some(a.depth), analysis: true, ..Limits::default() };
    let total = positions.len();
    let started = std::time::Instant::now();
    let progress = |n: usize| {
        if n.is_multiple_of(25) || n == total {
            eprintln!("searched {n}/{total} ({:.0} s)", started.elapsed().as_secs_f64());
        }
    };
    let found = pool.install(|| search_all(&positions, &limits, a.hash, &progress));
    let (lo, hi) = ((a.min * 100.0).round() as i32, (a.max * 100.0).round() as i32);
    let kept: Vec<&Candidate> = found.iter().filter(|c| (lo..=hi).contains(&c.white_score.abs())).collect();
    let white = kept.iter().filter(|c| c.white_score > 0).count();
    let (plies, depth, min, max) = (a.plies, a.depth, a.min, a.max);
    let (kept_n, found_n, black) = (kept.len(), found.len(), kept.len() - white);
    let mut text = format!(
        "# Openings with an edge, made by `dammer openings --plies {plies} --depth {depth} --min {min:.2} --max {max:.2}`\n\
         # from {source_name}: every position {plies} plies beyond each, searched to depth {depth} with a cleared\n\
         # table, kept where one side is {min:.2} to {max:.2} men ahead. {kept_n} of {found_n} kept ({white} for White, {black} for Black).\n"
    );
    for c in &kept {
        let line: Vec<String> = c.line.iter().map(Move::to_string).collect();
        text.push_str(&format!(
            "# {} for White at depth {}: opening {} then {}\n{}\n",
            score::format(c.white_score),
            c.depth,
            c.source + 1,
            line.join(" "),
            c.position.to_fen()
        ));
    }
    out.write_all(text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", a.out.display()))?;
    // How the scores spread, so that the band can be chosen from one run.
    let bands = [0, 10, 20, 40, 60, 100, 200];
    let mut summary = Vec::new();
    for w in bands.windows(2) {
        let n = found.iter().filter(|c| (w[0]..w[1]).contains(&c.white_score.abs())).count();
        summary.push(format!("{:.2}-{:.2}: {n}", f64::from(w[0]) / 100.0, f64::from(w[1]) / 100.0));
    }
    let beyond = found.iter().filter(|c| c.white_score.abs() >= 200).count();
    println!("|score| in men: {}, 2.00+: {beyond}", summary.join(", "));
    println!(
        "kept {} of {} ({white} with White ahead) in {} ({:.0} s)",
        kept.len(),
        found.len(),
        a.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_counts_each_position_once() {
        let start = Position::start();
        // Nine first moves, each answered by nine: 81 positions, none
        // twice, less those where White has a single move (a capture).
        assert_eq!(expand(&[start], 1).len(), 9);
        let two = expand(&[start], 2);
        let mut forced = 0;
        for &a in legal_moves(&start).iter() {
            let p = start.make(&a);
            for &b in legal_moves(&p).iter() {
                forced += usize::from(legal_moves(&p.make(&b)).len() < 2);
            }
        }
        assert!(forced > 0);
        assert_eq!(two.len(), 81 - forced);
        assert!(two.iter().all(|(_, _, p)| legal_moves(p).len() >= 2));
        // The same opening twice gives its positions once.
        assert_eq!(expand(&[start, start], 1).len(), 9);
        for (source, line, pos) in &two {
            assert_eq!(*source, 0);
            assert_eq!(line.iter().fold(start, |p, m| p.make(m)), *pos);
        }
    }
}
