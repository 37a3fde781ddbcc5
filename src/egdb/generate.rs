//! Table generation and verification.
//!
//! A table and its colour-swapped twin (the same material with the other side
//! to move) are generated together, since quiet moves lead from one to the
//! other. Captures and promotions lead into tables generated before (fewer
//! pieces, or fewer men), which are probed.
//!
//! Generation is a fixpoint over one byte per position: a first pass settles
//! positions without moves, capture positions and wins by promotion; then
//! each pass re-examines only positions that have a successor decided in the
//! pass before (found by generating "unmoves" from every newly decided
//! position), marks a position won when a successor is lost for the
//! opponent, lost when every successor is won for the opponent. What is left
//! undecided when nothing changes is a draw. Values only ever go from unknown
//! to decided, so threads reading a byte while another writes it see either
//! value and the fixpoint is the same.

use super::{locate, position_at, EgdbError, Signature, Table, Tables, Wdl};
use crate::bitboard::{shift, slide, Bits, Dir, DIRS};
use crate::movegen::{generate as generate_moves, has_capture, is_promotion, MoveList};
use crate::position::{Color, Position};
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
}

/// One pair of tables being generated.
struct Pair {
    sigs: Vec<Signature>,
    values: Vec<Vec<AtomicU8>>,
}

impl Pair {
    #[inline]
    fn slot(&self, sig: &Signature) -> usize {
        usize::from(self.sigs[0] != *sig)
    }

    #[inline]
    fn value(&self, pos: &Position) -> u8 {
        let (sig, i) = locate(pos);
        self.values[self.slot(&sig)][i as usize].load(Ordering::Relaxed)
    }
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
    if !(2..=super::MAX_PIECES).contains(&max_pieces) {
        return Err(EgdbError::Pieces(max_pieces));
    }
    std::fs::create_dir_all(dir).map_err(|e| EgdbError::Io(format!("{}: {e}", dir.display())))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| EgdbError::Io(format!("thread pool: {e}")))?;
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
        // One value byte and two dirty bits per position.
        report.peak_pair_bytes = report.peak_pair_bytes.max(size * 5 / 4);
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
            crate::tournament::format_duration(Duration::from_secs_f64(eta)),
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
    };
    let words: Vec<usize> = sigs.iter().map(|s| s.size().div_ceil(64) as usize).collect();
    let mut dirty: Vec<Vec<AtomicU64>> = words.iter().map(|&w| atomic_vec(w, || AtomicU64::new(0))).collect();
    let mut next: Vec<Vec<AtomicU64>> = words.iter().map(|&w| atomic_vec(w, || AtomicU64::new(0))).collect();
    let missing = AtomicBool::new(false);
    let mut last_report = Instant::now();
    let name = sigs.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" + ");

    // Pass 0: terminal positions, captures, promotions.
    for (t, sig) in sigs.iter().enumerate() {
        let len = sig.size();
        for chunk in (0..len).step_by(CHUNK as usize) {
            if crate::interrupt::requested() {
                return Err(EgdbError::Interrupted);
            }
            pool.install(|| {
                (chunk..(chunk + CHUNK).min(len)).into_par_iter().for_each_init(MoveList::new, |list, i| {
                    let v = first_value(sig, i, done, list, &missing);
                    pair.values[t][i as usize].store(v, Ordering::Relaxed);
                    if v == UNKNOWN || v == NO_LOSS {
                        dirty[t][(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
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

    // Fixpoint passes over the positions whose successors changed.
    let mut pass = 1;
    loop {
        let changed = AtomicU64::new(0);
        for (t, sig) in sigs.iter().enumerate() {
            for chunk in (0..words[t]).step_by((CHUNK / 64) as usize) {
                if crate::interrupt::requested() {
                    return Err(EgdbError::Interrupted);
                }
                let end = (chunk + (CHUNK / 64) as usize).min(words[t]);
                pool.install(|| {
                    (chunk..end).into_par_iter().for_each_init(MoveList::new, |list, w| {
                        let mut bits = dirty[t][w].swap(0, Ordering::Relaxed);
                        while bits != 0 {
                            let i = w as u64 * 64 + u64::from(bits.trailing_zeros());
                            bits &= bits - 1;
                            if let Some(pos) = settle(&pair, t, sig, i, list) {
                                changed.fetch_add(1, Ordering::Relaxed);
                                mark_predecessors(&pair, &pos, &next);
                            }
                        }
                    })
                });
            }
        }
        let changed = changed.load(Ordering::Relaxed);
        if last_report.elapsed() > Duration::from_secs(10) {
            progress(&format!("{name}: pass {pass}, {changed} positions decided"));
            last_report = Instant::now();
        }
        if changed == 0 {
            break;
        }
        std::mem::swap(&mut dirty, &mut next);
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

/// The first-pass value of index `i`: exact for broken indices, positions
/// without moves and capture positions; a win or the `NO_LOSS` flag from
/// promotions; otherwise unknown.
fn first_value(sig: &Signature, i: u64, done: &Tables, list: &mut MoveList, missing: &AtomicBool) -> u8 {
    let Some(pos) = position_at(sig, i) else {
        return BROKEN;
    };
    generate_moves(&pos, list);
    if list.is_empty() {
        return LOSS;
    }
    let capture = list.as_slice()[0].is_capture();
    let moves: Vec<_> = if capture || list.iter().any(|m| is_promotion(&pos, m)) {
        list.iter().copied().collect()
    } else {
        return UNKNOWN;
    };
    let mut best = Wdl::Loss;
    for m in moves {
        if !capture && !is_promotion(&pos, &m) {
            continue;
        }
        match done.probe_with(&pos.make(&m), list).map(Wdl::flip) {
            Some(Wdl::Win) => return WIN | if capture { CAPTURE } else { 0 },
            Some(v) => best = best.max(v),
            None => missing.store(true, Ordering::Relaxed),
        }
    }
    if capture {
        code(best) | CAPTURE
    } else if best == Wdl::Draw {
        NO_LOSS
    } else {
        UNKNOWN
    }
}

/// Re-examines an undecided position; returns it if it is now decided.
fn settle(pair: &Pair, t: usize, sig: &Signature, i: u64, list: &mut MoveList) -> Option<Position> {
    let cell = &pair.values[t][i as usize];
    let v = cell.load(Ordering::Relaxed);
    if v & VALUE != UNKNOWN {
        return None;
    }
    let pos = position_at(sig, i)?;
    generate_moves(&pos, list);
    let mut all_won = v & NO_LOSS == 0;
    for m in list.iter() {
        if is_promotion(&pos, m) {
            continue;
        }
        match pair.value(&pos.make(m)) & VALUE {
            LOSS => {
                cell.store(WIN, Ordering::Relaxed);
                return Some(pos);
            }
            WIN => {}
            _ => all_won = false,
        }
    }
    if all_won {
        cell.store(LOSS, Ordering::Relaxed);
        return Some(pos);
    }
    None
}

/// Marks, in `next`, every position of the twin table from which the
/// opponent reached `pos` by a quiet move inside the pair.
fn mark_predecessors(pair: &Pair, pos: &Position, next: &[Vec<AtomicU64>]) {
    // `pos` has White to move (tables are normalised), so Black moved last.
    let white = pos.pieces(Color::White);
    let black = pos.pieces(Color::Black);
    let kings = pos.kings();
    let occupied = white | black;
    let mark = |from: u64, to: u64, king: bool| {
        let b = black ^ from ^ to;
        let k = if king { kings ^ from ^ to } else { kings };
        if let Ok(p) = Position::from_parts(white, b, k, Color::Black) {
            if !has_capture(&p) {
                let (sig, i) = locate(&p);
                next[pair.slot(&sig)][(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
            }
        }
    };
    for b in Bits(black & !kings) {
        // Black men move toward square 50: they came from the north.
        for d in [Dir::NorthWest, Dir::NorthEast] {
            let from = shift(1 << b, d) & !occupied;
            if from != 0 {
                mark(from, 1 << b, false);
            }
        }
    }
    for b in Bits(black & kings) {
        for d in DIRS {
            for e in Bits(slide(b as usize, d, occupied).0) {
                mark(1 << e, 1 << b, true);
            }
        }
    }
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| EgdbError::Io(format!("thread pool: {e}")))?;
    let mut report = VerifyReport { missing, ..VerifyReport::default() };
    for sig in Signature::all(max_pieces) {
        let Some(table) = tables.table(&sig) else {
            continue;
        };
        if crate::interrupt::requested() {
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
                let mut best = Some(Wdl::Loss);
                for m in moves {
                    match tables.probe_with(&pos.make(&m), list).map(Wdl::flip) {
                        Some(v) => best = best.map(|b| b.max(v)),
                        None => best = None,
                    }
                }
                let Some(expected) = best else {
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
