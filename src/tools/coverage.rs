//! `dammer coverage`: how much of the game a data set shows a fit. The
//! pattern inputs' rows that no position uses are never fitted, and the
//! positions self-play repeats teach once; so besides the count, the
//! distinct positions and the pattern states met (the 4x4 windows of
//! `eval::nn`'s pattern inputs, per view) measure what the data covers.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::engine::eval::nn::{pattern_rows, PATTERN_ROWS};
use crate::rules::position::Color;
use crate::tools::selfplay::Record;

/// What a data set covers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Positions read.
    pub positions: u64,
    /// Games they come from (distinct game numbers of each file).
    pub games: u64,
    /// Distinct positions (side to move included).
    pub distinct: u64,
    /// Pattern-input rows met by some position, of [`PATTERN_ROWS`].
    pub pattern_rows: usize,
    /// Distinct positions by stage: 31-40, 21-30, 11-20, 1-10 pieces.
    pub distinct_by_stage: [u64; 4],
}

/// Counts what a set of records covers, file by file (game numbers are a
/// file's own).
#[derive(Debug, Default)]
pub struct Counter {
    seen: HashSet<(u64, u64, u64, bool)>,
    rows: Vec<bool>,
    coverage: Coverage,
}

impl Counter {
    /// An empty count.
    pub fn new() -> Counter {
        Counter { rows: vec![false; PATTERN_ROWS], ..Counter::default() }
    }

    /// Adds whole games of one file (a game split between two calls
    /// would count twice).
    pub fn add(&mut self, records: &[Record]) {
        let c = &mut self.coverage;
        c.positions += records.len() as u64;
        c.games += records.chunk_by(|a, b| a.game == b.game).count() as u64;
        for r in records {
            let p = &r.position;
            let key = (p.pieces(Color::White), p.pieces(Color::Black), p.kings(), p.side() == Color::Black);
            if self.seen.insert(key) {
                c.distinct += 1;
                let pieces = (key.0 | key.1).count_ones();
                c.distinct_by_stage[3 - (pieces.saturating_sub(1) / 10).min(3) as usize] += 1;
                for view in pattern_rows(p.men(Color::White), p.men(Color::Black)) {
                    for row in view {
                        if !self.rows[row as usize] {
                            self.rows[row as usize] = true;
                            c.pattern_rows += 1;
                        }
                    }
                }
            }
        }
    }

    /// The count so far.
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }
}

/// The arguments of `dammer coverage`.
#[derive(clap::Args, Debug)]
pub struct CoverageArgs {
    /// Self-play or relabelled data files, counted together.
    #[arg(required = true)]
    pub data: Vec<PathBuf>,
    /// Print a line after each file's first N positions too (up to the end of the game there),
    /// N = this and its doublings: the coverage as the data grows.
    #[arg(long)]
    pub steps_from: Option<u64>,
}

fn line(c: &Coverage) -> String {
    format!(
        "{} positions, {} games, {} distinct ({:.1}%; by stage 31-40/21-30/11-20/1-10 pieces: {} {} {} {}), \
         pattern rows met {} of {PATTERN_ROWS} ({:.1}%)",
        c.positions,
        c.games,
        c.distinct,
        100.0 * c.distinct as f64 / c.positions.max(1) as f64,
        c.distinct_by_stage[0],
        c.distinct_by_stage[1],
        c.distinct_by_stage[2],
        c.distinct_by_stage[3],
        c.pattern_rows,
        100.0 * c.pattern_rows as f64 / PATTERN_ROWS as f64
    )
}

/// Where the parts of a file end that `--steps-from first` reports on:
/// after `first` positions and each doubling, each moved on to the end of
/// its game, so that no game is split between two parts (and counted
/// twice); the last part (to the end of the file) is not among them.
fn part_ends(records: &[Record], first: Option<u64>) -> Vec<usize> {
    let mut ends = Vec::new();
    let Some(first) = first else { return ends };
    let mut step = first.max(1) as usize;
    while step < records.len() {
        let mut end = step;
        while end < records.len() && records[end].game == records[end - 1].game {
            end += 1;
        }
        if end < records.len() {
            ends.push(end);
        }
        step = step.saturating_mul(2).max(end + 1);
    }
    ends
}

/// Runs `dammer coverage`.
pub fn run_cli(args: CoverageArgs) -> Result<(), String> {
    let mut counter = Counter::new();
    for path in &args.data {
        let records = crate::tools::selfplay::read_records(path)?;
        let mut at = 0;
        for end in part_ends(&records, args.steps_from) {
            counter.add(&records[at..end]);
            at = end;
            println!("{} first {end}: {}", path.display(), line(counter.coverage()));
        }
        counter.add(&records[at..]);
        println!("{}: {}", path.display(), line(counter.coverage()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Position;

    fn record(fen: &str, game: u32) -> Record {
        Record { position: Position::from_fen(fen).unwrap(), game, score: 0, result: 0 }
    }

    #[test]
    fn counts_distinct_positions_and_rows() {
        let start = record("W:W31-50:B1-20", 1);
        let mut counter = Counter::new();
        counter.add(&[start, start, record("B:W31-50:B1-20", 1), record("W:W31-50:B1-20", 2)]);
        let c = counter.coverage().clone();
        assert_eq!((c.positions, c.games, c.distinct), (4, 2, 2));
        assert_eq!(c.distinct_by_stage, [2, 0, 0, 0]);
        // The start is symmetric: both views meet the same eight rows.
        assert_eq!(c.pattern_rows, 8);
        counter.add(&[record("W:W32-50:B1-20", 7)]);
        let c = counter.coverage();
        assert_eq!((c.positions, c.games, c.distinct), (5, 3, 3));
        assert!(c.pattern_rows > 8 && c.pattern_rows <= 16, "{}", c.pattern_rows);
    }

    #[test]
    fn parts_end_between_games() {
        let games = [1, 1, 1, 2, 2, 3, 4, 4, 4, 4, 5];
        let records: Vec<Record> = games.iter().map(|&g| record("W:W31-50:B1-20", g)).collect();
        // After 2 positions (game 1 runs to 3), then 4 (game 2 to 5), then 8
        // (game 4 to 10).
        assert_eq!(part_ends(&records, Some(2)), vec![3, 5, 10]);
        assert_eq!(part_ends(&records, None), Vec::<usize>::new());
        assert_eq!(part_ends(&records, Some(20)), Vec::<usize>::new());
        // Counted by parts, every game once.
        let mut counter = Counter::new();
        let mut at = 0;
        for end in part_ends(&records, Some(1)) {
            counter.add(&records[at..end]);
            at = end;
        }
        counter.add(&records[at..]);
        assert_eq!(counter.coverage().games, 5);
    }
}
