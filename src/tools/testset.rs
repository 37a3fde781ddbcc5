//! `dammer testset`: test sets of positions with a known outcome, drawn from
//! self-play data, and how often an evaluation at a shallow depth favours
//! the side that went on to win.
//!
//! The breakthrough set: in a decided game, the last stored position where
//! the search still scored the game level (|score| at most `near`) while
//! the winner, still without a king, crowned a man within `within` stored
//! positions, with the men level (at most one apart). Such positions are
//! decided by a breakthrough the search did not yet see. Only the held-out
//! games (number ending in 0, which `tune` never trains on) are used.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::engine::time::Limits;
use crate::engine::Engine;
use crate::rules::game::Game;
use crate::rules::position::{Color, Position};
use crate::tools::selfplay::{read_records, Record};

/// A position and the side that won the game it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The position.
    pub position: Position,
    /// The side that won.
    pub winner: Color,
}

/// The breakthrough positions of `records` (in file order, one game's
/// records together).
pub fn breakthroughs(records: &[Record], near: i16, within: usize) -> Vec<Case> {
    let mut out = Vec::new();
    for game in records.chunk_by(|a, b| a.game == b.game) {
        let first = &game[0];
        if first.game % 10 != 0 || first.result == 0 {
            continue;
        }
        let winner = if first.result > 0 { Color::White } else { Color::Black };
        let loser = winner.opponent();
        let crowned = |r: &Record| r.position.kings_of(winner) != 0;
        let Some(crown) = game.iter().position(crowned) else { continue };
        let candidate = (crown.saturating_sub(within)..crown).rev().find(|&i| {
            let p = &game[i].position;
            let men = |c: Color| p.men(c).count_ones() as i32;
            game[i].score.abs() <= near && (men(winner) - men(loser)).abs() <= 1 && p.kings() == 0
        });
        if let Some(i) = candidate {
            out.push(Case { position: game[i].position, winner });
        }
    }
    out
}

/// Writes a test set: one position a line, FEN and the winner as a result.
pub fn write_set(path: &Path, cases: &[Case]) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(err)?);
    for c in cases {
        let result = if c.winner == Color::White { "1-0" } else { "0-1" };
        writeln!(f, "{} {result}", c.position.to_fen()).map_err(err)?;
    }
    f.flush().map_err(err)
}

/// Reads a test set written by [`write_set`].
pub fn read_set(path: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: String| format!("{}:{}: {why}", path.display(), n + 1);
        let (fen, result) =
            line.rsplit_once(' ').ok_or_else(|| bad("expected a FEN and 1-0 or 0-1".into()))?;
        let winner = match result {
            "1-0" => Color::White,
            "0-1" => Color::Black,
            other => return Err(bad(format!("result must be 1-0 or 0-1, not {other:?}"))),
        };
        let position = Position::parse(fen).map_err(|e| bad(e.to_string()))?;
        out.push(Case { position, winner });
    }
    Ok(out)
}

/// How an evaluation did on a test set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scored {
    /// Positions.
    pub positions: usize,
    /// Positions whose score favoured the winner (above zero for it).
    pub correct: usize,
    /// Positions scored at least `margin` for the winner.
    pub clear: usize,
    /// Mean score for the winner, hundredths of a man.
    pub mean: f64,
}

/// Searches every case to `depth` with `eval` and counts how often the
/// score favours the winner.
pub fn score(cases: &[Case], depth: u32, eval: &crate::engine::eval::Evaluation, margin: i32) -> Scored {
    let limits = Limits { depth: Some(depth), analysis: true, ..Limits::default() };
    let scores: Vec<i32> = cases
        .par_iter()
        .map_init(
            || {
                let mut e = Engine::new(1, 4);
                e.set_evaluation(eval.clone());
                e
            },
            |engine, c| {
                engine.clear();
                let r = engine.search_quietly(&Game::new(c.position), &limits);
                if c.position.side() == c.winner {
                    r.score
                } else {
                    -r.score
                }
            },
        )
        .collect();
    Scored {
        positions: cases.len(),
        correct: scores.iter().filter(|&&s| s > 0).count(),
        clear: scores.iter().filter(|&&s| s >= margin).count(),
        mean: scores.iter().map(|&s| f64::from(s)).sum::<f64>() / cases.len().max(1) as f64,
    }
}

/// What `dammer testset` does.
#[derive(clap::Subcommand, Debug)]
pub enum TestsetCommand {
    /// Draw the breakthrough positions from self-play data files.
    Breakthroughs {
        /// Self-play data files.
        #[arg(required = true)]
        data: Vec<PathBuf>,
        /// The test set to write.
        #[arg(long)]
        out: PathBuf,
        /// Largest |search score| (hundredths of a man) that counts as level.
        #[arg(long, default_value_t = 25)]
        near: i16,
        /// Stored positions (about plies) from the position to the crowning.
        #[arg(long, default_value_t = 20)]
        within: usize,
    },
    /// Search every position of a test set and count how often the score
    /// favours the winner.
    Score {
        /// The test set.
        set: PathBuf,
        /// Search depth.
        #[arg(long, default_value_t = 4, value_parser = crate::engine::options::depth)]
        depth: u32,
        /// Score (hundredths of a man) that counts as a clear advantage.
        #[arg(long, default_value_t = 30)]
        margin: i32,
        /// The evaluation.
        #[command(flatten)]
        eval: crate::cli::EvalArgs,
    },
}

/// Runs `dammer testset`.
pub fn run_cli(cmd: TestsetCommand) -> Result<(), String> {
    match cmd {
        TestsetCommand::Breakthroughs { data, out, near, within } => {
            let mut cases = Vec::new();
            for path in &data {
                let found = breakthroughs(&read_records(path)?, near, within);
                println!("{}: {} breakthrough positions", path.display(), found.len());
                cases.extend(found);
            }
            write_set(&out, &cases)?;
            println!("wrote {} positions to {}", cases.len(), out.display());
            Ok(())
        }
        TestsetCommand::Score { set, depth, margin, eval } => {
            let cases = read_set(&set)?;
            let evaluation = eval.evaluation()?;
            let s = score(&cases, depth, &evaluation, margin);
            let pct = |n: usize| 100.0 * n as f64 / s.positions.max(1) as f64;
            println!(
                "{} positions, eval {}, depth {depth}: winner favoured in {} ({:.1}%), by {margin} or more in {} ({:.1}%), mean {:+.1}",
                s.positions,
                evaluation.name(),
                s.correct,
                pct(s.correct),
                s.clear,
                pct(s.clear),
                s.mean
            );
            Ok(())
        }
    }
}
