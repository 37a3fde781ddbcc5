//! Table generation and verification.
//!
//! A table and its colour-swapped twin (the same material with the other side
//! to move) are generated together, since quiet moves lead from one to the
//! other. Captures and promotions lead into tables generated before (fewer
//! pieces, or fewer men), which are probed.
//!
//! Generation is retrograde analysis over one value byte and one counter
//! byte per position. A first pass settles positions without moves, capture
//! positions and wins by promotion, and counts each position's successors
//! inside the pair. Then each pass takes the positions decided in the pass
//! before and "unmoves" the opponent's last move to reach their
//! predecessors: a lost successor makes a predecessor won; a won successor
//! lowers its counter, and the last one makes it lost (unless a promotion
//! offered a way out). Each move is told exactly once. What is undecided
//! when a pass decides nothing is a draw. Values only go from unknown to
//! decided (by compare-and-swap), so any thread order reaches the same
//! tables.

use crate::engine::egdb::{locate, position_at, EgdbError, Signature, Table, Tables, Wdl};
use crate::rules::bitboard::{shift, slide, Bits, Dir, DIRS};
use crate::rules::movegen::{generate as generate_moves, has_capture, is_promotion, MoveList};
use crate::rules::position::{Color, Position};
use rayon::prelude::*;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

const UNKNOWN: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;
const DRAW: u8 = 3;
const BROKEN: u8 = 4;
const VALUE: u8 = 7;
/// A successor outside the pair (a promotion) is not won for the opponent,
/// so the position can never be lost.
const NO_LOSS: u8 = 8;
/// The side to move must capture: the value is exact but need not be stored.
const CAPTURE: u8 = 16;

/// Indices handled between two progress checks.
const CHUNK: u64 = 1 << 22;

/// What `generate` did.
#[derive(Clone, Debug, Default)]
pub struct GenerateReport {
    /// Tables generated in this run.
    pub generated: usize,
    /// Tables already on disk and kept.
    pub kept: usize,
    /// Positions (indices) in the generated tables.
    pub positions: u64,
    /// Bytes of the generated files.
    pub bytes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Largest memory for the values of one pair of tables, in bytes.
    pub peak_pair_bytes: u64,
}

/// What `verify` found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Tables checked.
    pub tables: usize,
    /// Quiet positions checked.
    pub checked: u64,
    /// Positions whose stored value differs from the one their successors give.
    pub errors: u64,
    /// Up to ten of them: FEN, stored and recomputed value.
    pub examples: Vec<(String, Wdl, Wdl)>,
    /// Tables in the range that were not found.
    pub missing: Vec<Signature>,
    /// Table files that could not be read, each with why (not checked).
    pub damaged: Vec<String>,
}

/// One pair of tables being generated.
struct Pair {
    sigs: Vec<Signature>,
    values: Vec<Vec<AtomicU8>>,
    /// Per undecided quiet position: its successors inside the pair not yet
    /// known to be won for the opponent.
    counts: Vec<Vec<AtomicU8>>,
}

impl Pair {
    #[inline]
    fn slot(&self, sig: &Signature) -> usize {
        usize::from(self.sigs[0] != *sig)
    }
}

fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, EgdbError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| EgdbError::Io(format!("thread pool: {e}")))
}

fn atomic_vec<T>(n: usize, f: impl Fn() -> T) -> Vec<T> {
    (0..n).map(|_| f()).collect()
}

/// Generates every table of up to `max_pieces` pieces into `dir` with
/// `threads` threads, skipping tables already there. `progress` receives
/// human-readable lines (at most one every ten seconds within a table).
pub fn generate(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    mut progress: impl FnMut(&str),
) -> Result<GenerateReport, EgdbError> {
    if !(2..=crate::engine::egdb::MAX_PIECES).contains(&max_pieces) {
        return Err(EgdbError::Pieces(max_pieces));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(EgdbError::Io(format!("{}: not a directory", dir.display())));
    }
    std::fs::create_dir_all(dir).map_err(|e| EgdbError::Io(format!("{}: {e}", dir.display())))?;
    let pool = thread_pool(threads)?;
    let start = Instant::now();
    let mut report = GenerateReport::default();
    let mut done = Tables::new();
    done.set_max_pieces(max_pieces);
    let mut pairs: Vec<Vec<Signature>> = Vec::new();
    for sig in Signature::all(max_pieces) {
        if !pairs.iter().any(|p| p.contains(&sig)) {
            let twin = sig.swapped();
            pairs.push(if twin == sig { vec![sig] } else { vec![sig, twin] });
        }
    }
    let mut todo = Vec::new();
    for pair in pairs {
        let mut kept = Vec::new();
        for &sig in &pair {
            match Table::read(dir, sig) {
                Ok(Some(t)) => kept.push(t),
                Ok(None) => {}
                Err(e) => progress(&format!("{e}: generating it again")),
            }
        }
        if kept.len() == pair.len() {
            report.kept += kept.len();
            kept.into_iter().for_each(|t| done.insert(t));
        } else {
            todo.push(pair);
        }
    }
    if report.kept > 0 {
        progress(&format!("{} tables already in {}: kept", report.kept, dir.display()));
    }
    let total: u64 = todo.iter().flatten().map(Signature::size).sum();
    let mut finished = 0u64;
    for pair in todo {
        let size: u64 = pair.iter().map(Signature::size).sum();
        let names: Vec<String> = pair.iter().map(|s| s.to_string()).collect();
        let t0 = Instant::now();
        let tables = generate_pair(&pool, &pair, &done, &mut progress)?;
        // A value byte, a counter byte and two frontier bits per position.
        report.peak_pair_bytes = report.peak_pair_bytes.max(size * 9 / 4);
        for t in tables {
            let path = t.write(dir)?;
            report.bytes += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            report.generated += 1;
            done.insert(t);
        }
        finished += size;
        report.positions += size;
        let elapsed = start.elapsed().as_secs_f64();
        let eta = elapsed * (total - finished) as f64 / finished.max(1) as f64;
        progress(&format!(
            "{} done: {} positions in {:.1} s; {:.1}% of the work, about {} left",
            names.join(" + "),
            size,
            t0.elapsed().as_secs_f64(),
            100.0 * finished as f64 / total.max(1) as f64,
            crate::base::duration::format_duration(Duration::from_secs_f64(eta)),
        ));
    }
    report.elapsed = start.elapsed();
    Ok(report)
}

/// Generates one table, or a table and its twin.
fn generate_pair(
    pool: &rayon::ThreadPool,
    sigs: &[Signature],
    done: &Tables,
    progress: &mut impl FnMut(&str),
) -> Result<Vec<Table>, EgdbError> {
    let pair = Pair {
        sigs: sigs.to_vec(),
        values: sigs.iter().map(|s| atomic_vec(s.size() as usize, || AtomicU8::new(UNKNOWN))).collect(),
        counts: sigs.iter().map(|s| atomic_vec(s.size() as usize, || AtomicU8::new(0))).collect(),
    };
    let words: Vec<usize> = sigs.iter().map(|s| s.size().div_ceil(64) as usize).collect();
    let mut frontier: Vec<Vec<AtomicU64>> =
        words.iter().map(|&w| atomic_vec(w, || AtomicU64::new(0))).collect();
    let mut next: Vec<Vec<AtomicU64>> = words.iter().map(|&w| atomic_vec(w, || AtomicU64::new(0))).collect();
    let missing = AtomicBool::new(false);
    let mut last_report = Instant::now();
    let name = sigs.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" + ");

    // First pass: terminal positions, captures, promotions, and the count of
    // each position's successors inside the pair. Everything it decides is
    // the first frontier.
    for (t, sig) in sigs.iter().enumerate() {
        let len = sig.size();
        for chunk in (0..len).step_by(CHUNK as usize) {
            if crate::tools::interrupt::requested() {
                return Err(EgdbError::Interrupted);
            }
            pool.install(|| {
                (chunk..(chunk + CHUNK).min(len)).into_par_iter().for_each_init(MoveList::new, |list, i| {
                    let (v, count) = first_value(sig, i, done, list, &missing);
                    pair.values[t][i as usize].store(v, Ordering::Relaxed);
                    pair.counts[t][i as usize].store(count, Ordering::Relaxed);
                    if matches!(v & VALUE, WIN | LOSS) {
                        frontier[t][(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
                    }
                })
            });
            if last_report.elapsed() > Duration::from_secs(10) {
                progress(&format!("{name}: first pass {:.0}% of {sig}", 100.0 * chunk as f64 / len as f64));
                last_report = Instant::now();
            }
        }
    }
    if missing.load(Ordering::Relaxed) {
        let need = sigs.iter().flat_map(|s| Signature::all(s.pieces())).find(|s| done.table(s).is_none());
        return Err(EgdbError::Missing(need.unwrap_or(sigs[0])));
    }

    // Retrograde passes: every position decided in the pass before tells
    // its predecessors (in the twin table) once. A lost successor makes a
    // win; the last successor to turn out won makes a loss.
    let mut pass = 1;
    loop {
        let decided = AtomicU64::new(0);
        for (t, sig) in sigs.iter().enumerate() {
            for chunk in (0..words[t]).step_by((CHUNK / 64) as usize) {
                if crate::tools::interrupt::requested() {
                    return Err(EgdbError::Interrupted);
                }
                let end = (chunk + (CHUNK / 64) as usize).min(words[t]);
                pool.install(|| {
                    (chunk..end).into_par_iter().for_each(|w| {
                        let mut bits = frontier[t][w].swap(0, Ordering::Relaxed);
                        while bits != 0 {
                            let i = w as u64 * 64 + u64::from(bits.trailing_zeros());
                            bits &= bits - 1;
                            let won = pair.values[t][i as usize].load(Ordering::Relaxed) & VALUE == WIN;
                            if let Some(pos) = position_at(sig, i) {
                                decided.fetch_add(propagate(&pair, &pos, won, &next), Ordering::Relaxed);
                            }
                        }
                    })
                });
            }
        }
        let decided = decided.load(Ordering::Relaxed);
        if last_report.elapsed() > Duration::from_secs(10) {
            progress(&format!("{name}: pass {pass}, {decided} positions decided"));
            last_report = Instant::now();
        }
        if decided == 0 {
            break;
        }
        std::mem::swap(&mut frontier, &mut next);
        pass += 1;
    }

    Ok(sigs
        .iter()
        .enumerate()
        .map(|(t, sig)| {
            let values = &pair.values[t];
            Table::compress(*sig, sig.size(), |i| {
                let v = values[i as usize].load(Ordering::Relaxed);
                if v & CAPTURE != 0 {
                    return None;
                }
                match v & VALUE {
                    WIN => Some(Wdl::Win),
                    LOSS => Some(Wdl::Loss),
                    BROKEN => None,
                    _ => Some(Wdl::Draw),
                }
            })
        })
        .collect())
}

fn code(v: Wdl) -> u8 {
    match v {
        Wdl::Win => WIN,
        Wdl::Loss => LOSS,
        Wdl::Draw => DRAW,
    }
}

/// The first-pass value of index `i` and its number of successors inside
/// the pair: exact values for broken indices, positions without moves and
/// capture positions; a win or the `NO_LOSS` flag from promotions; a loss
/// when every move is a promotion to a position won for the opponent;
/// otherwise unknown.
fn first_value(
    sig: &Signature,
    i: u64,
    done: &Tables,
    list: &mut MoveList,
    missing: &AtomicBool,
) -> (u8, u8) {
    let Some(pos) = position_at(sig, i) else {
        return (BROKEN, 0);
    };
    generate_moves(&pos, list);
    if list.is_empty() {
        return (LOSS, 0);
    }
    let capture = list.as_slice()[0].is_capture();
    let promotions = list.iter().filter(|m| is_promotion(&pos, m)).count();
    // At most 4 steps from each of 7 pieces' squares per direction: fits.
    let inside = if capture { 0 } else { (list.len() - promotions) as u8 };
    if !capture && promotions == 0 {
        return (UNKNOWN, inside);
    }
    let moves: Vec<_> = list.iter().copied().filter(|m| capture || is_promotion(&pos, m)).collect();
    let mut best = Wdl::Loss;
    for m in moves {
        match done.probe_with(&pos.make(&m), list).map(Wdl::flip) {
            Some(Wdl::Win) => return (WIN | if capture { CAPTURE } else { 0 }, inside),
            Some(v) => best = best.max(v),
            None => missing.store(true, Ordering::Relaxed),
        }
    }
    if capture {
        (code(best) | CAPTURE, 0)
    } else if best == Wdl::Draw {
        (NO_LOSS, inside)
    } else if inside == 0 {
        (LOSS, 0)
    } else {
        (UNKNOWN, inside)
    }
}

/// Tells every predecessor of `pos` (just decided: won if `won`, else lost)
/// in the twin table, marking the ones it decides in `next`; returns how
/// many it decided. Predecessors are the positions from which the opponent
/// reached `pos` by a quiet move that is not a promotion: each such move is
/// told exactly once, which is what the counts rely on.
fn propagate(pair: &Pair, pos: &Position, won: bool, next: &[Vec<AtomicU64>]) -> u64 {
    // `pos` has White to move (tables are normalised), so Black moved last.
    let white = pos.pieces(Color::White);
    let black = pos.pieces(Color::Black);
    let kings = pos.kings();
    let occupied = white | black;
    let mut decided = 0;
    let mut tell = |from: u64, to: u64, king: bool| {
        let b = black ^ from ^ to;
        let k = if king { kings ^ from ^ to } else { kings };
        let Ok(p) = Position::from_parts(white, b, k, Color::Black) else { return };
        if has_capture(&p) {
            // Not a legal move there: the capture was forced.
            return;
        }
        let (sig, i) = locate(&p);
        let t = pair.slot(&sig);
        let cell = &pair.values[t][i as usize];
        let v = cell.load(Ordering::Relaxed);
        if v & VALUE != UNKNOWN {
            return;
        }
        let new = if !won {
            Some(WIN)
        } else if pair.counts[t][i as usize].fetch_sub(1, Ordering::Relaxed) == 1 && v & NO_LOSS == 0 {
            Some(LOSS)
        } else {
            None
        };
        if let Some(new) = new {
            // Another thread may decide it at the same moment: one of them does.
            if cell.compare_exchange(v, new, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
                next[t][(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
                decided += 1;
            }
        }
    };
    for b in Bits(black & !kings) {
        // Black men move toward square 50: they came from the north.
        for d in [Dir::NorthWest, Dir::NorthEast] {
            let from = shift(1 << b, d) & !occupied;
            if from != 0 {
                tell(from, 1 << b, false);
            }
        }
    }
    for b in Bits(black & kings) {
        for d in DIRS {
            for e in Bits(slide(b as usize, d, occupied).0) {
                tell(1 << e, 1 << b, true);
            }
        }
    }
    decided
}

/// Checks every quiet position of every table of up to `max_pieces` pieces
/// in `dir` against its successors.
pub fn verify(
    dir: &Path,
    max_pieces: usize,
    threads: usize,
    mut progress: impl FnMut(&str),
) -> Result<VerifyReport, EgdbError> {
    let (mut tables, missing) = Tables::load(dir, max_pieces)?;
    tables.set_max_pieces(max_pieces);
    let pool = thread_pool(threads)?;
    let damaged = tables.damaged().iter().map(ToString::to_string).collect();
    let mut report = VerifyReport { missing, damaged, ..VerifyReport::default() };
    for sig in Signature::all(max_pieces) {
        let Some(table) = tables.table(&sig) else {
            continue;
        };
        if crate::tools::interrupt::requested() {
            return Err(EgdbError::Interrupted);
        }
        let checked = AtomicU64::new(0);
        let errors = AtomicU64::new(0);
        let examples = std::sync::Mutex::new(Vec::new());
        pool.install(|| {
            (0..sig.size()).into_par_iter().for_each_init(MoveList::new, |list, i| {
                let Some(pos) = position_at(&sig, i) else {
                    return;
                };
                if has_capture(&pos) {
                    return;
                }
                generate_moves(&pos, list);
                let moves: Vec<_> = list.iter().copied().collect();
                let Some(expected) = tables.best_after(&pos, &moves, list) else {
                    return;
                };
                checked.fetch_add(1, Ordering::Relaxed);
                let stored = table.get(i);
                if stored != expected {
                    errors.fetch_add(1, Ordering::Relaxed);
                    // Only on a failed check: never on the hot path.
                    if let Ok(mut ex) = examples.lock() {
                        if ex.len() < 10 {
                            ex.push((pos.to_fen(), stored, expected));
                        }
                    }
                }
            });
        });
        let (c, e) = (checked.load(Ordering::Relaxed), errors.load(Ordering::Relaxed));
        progress(&format!("{sig}: {c} quiet positions, {e} inconsistent"));
        report.tables += 1;
        report.checked += c;
        report.errors += e;
        report.examples.extend(examples.into_inner().unwrap_or_default());
    }
    report.examples.truncate(10);
    Ok(report)
}
