//! `dammer selfplay`: Dammer plays itself at a small fixed budget to make
//! training data for the evaluation. Every quiet position (no capture for
//! the side to move) of a game is stored with the search score and the
//! game's result.
//!
//! The data file is a header followed by fixed-size records; a game's
//! records are written together, so an interrupted run loses at most the
//! games in progress, and a rerun of the same command plays only the games
//! still missing (each game's opening comes from its number and the seed).

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::base::rng::SplitMix;
use crate::engine::eval::Evaluation;
use crate::engine::score::WIN_BAND;
use crate::engine::time::Limits;
use crate::engine::{Engine, SearchResult};
use crate::rules::game::{Game, GameResult};
use crate::rules::moves::Move;
use crate::rules::openings::{parse_openings, Opening, DEFAULT_OPENINGS};
use crate::rules::pdn::PdnResult;
use crate::rules::position::{Color, Position};
use crate::rules::variant::Variant;

/// Bytes of one record.
pub const RECORD_SIZE: usize = 32;
const MAGIC: &[u8; 8] = b"DAMMERSP";

/// The header of a data file of `variant`'s games: the international
/// game's files keep the first header, so that older files still read.
fn magic(variant: Variant) -> &'static [u8; 8] {
    match variant {
        Variant::Normal => MAGIC,
        Variant::Breakthrough => b"DAMMERBT",
        Variant::Losing => b"DAMMERLO",
        Variant::Frisian => b"DAMMERFR",
        Variant::Killer => b"DAMMERKI",
    }
}

/// The variant whose games a file holds, from its header.
fn variant_of(header: &[u8]) -> Option<Variant> {
    Variant::ALL.into_iter().find(|&v| header.starts_with(magic(v)))
}

/// One stored position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position (side to move has no capture).
    pub position: Position,
    /// The game it comes from.
    pub game: u32,
    /// The search score from White's side, hundredths of a man.
    pub score: i16,
    /// The game's result from White's side: 1 win, 0 draw, -1 loss.
    pub result: i8,
}

impl Record {
    /// The record as stored: white, black, kings (u64 each), game (u32),
    /// score (i16), side (u8: 0 White, 1 Black), result (i8), little endian.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let p = &self.position;
        let mut b = [0u8; RECORD_SIZE];
        b[0..8].copy_from_slice(&p.pieces(Color::White).to_le_bytes());
        b[8..16].copy_from_slice(&p.pieces(Color::Black).to_le_bytes());
        b[16..24].copy_from_slice(&p.kings().to_le_bytes());
        b[24..28].copy_from_slice(&self.game.to_le_bytes());
        b[28..30].copy_from_slice(&self.score.to_le_bytes());
        b[30] = u8::from(p.side() == Color::Black);
        b[31] = self.result as u8;
        b
    }

    /// Reads a stored record; None when it does not hold a legal position.
    pub fn from_bytes(b: &[u8; RECORD_SIZE]) -> Option<Record> {
        let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        let side = match b[30] {
            0 => Color::White,
            1 => Color::Black,
            _ => return None,
        };
        let position = Position::from_parts(word(0), word(8), word(16), side).ok()?;
        let result = b[31] as i8;
        if !(-1..=1).contains(&result) {
            return None;
        }
        Some(Record {
            position,
            game: u32::from_le_bytes([b[24], b[25], b[26], b[27]]),
            score: i16::from_le_bytes([b[28], b[29]]),
            result,
        })
    }
}

/// Reads every record of a data file of the international game. A partly
/// written last record (an interrupted run) is ignored; anything else wrong
/// (a variant's file included) is an error.
pub fn read_records(path: &Path) -> Result<Vec<Record>, String> {
    international(path, read_data(path)?)
}

/// The records of a data file read from `path`, if its games are of the
/// international game.
fn international(path: &Path, data: (Variant, Vec<Record>)) -> Result<Vec<Record>, String> {
    match data {
        (Variant::Normal, records) => Ok(records),
        (other, _) => {
            Err(format!("{} holds games of {other}, not of the international game", path.display()))
        }
    }
}

/// The variant whose games a data file holds, from its header alone.
pub fn read_variant(path: &Path) -> Result<Variant, String> {
    let mut header = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    variant_in(path, &header)
}

/// The variant a data file's header names, or why it names none.
fn variant_in(path: &Path, header: &[u8]) -> Result<Variant, String> {
    variant_of(header).ok_or_else(|| format!("{} is not a Dammer self-play file", path.display()))
}

/// Reads a data file: the variant of its games and every record.
pub fn read_data(path: &Path) -> Result<(Variant, Vec<Record>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    data_of(path, &bytes)
}

/// The variant and records of a data file's bytes, read from `path`.
fn data_of(path: &Path, bytes: &[u8]) -> Result<(Variant, Vec<Record>), String> {
    let variant = variant_in(path, bytes)?;
    let body = &bytes[MAGIC.len()..];
    let mut out = Vec::with_capacity(body.len() / RECORD_SIZE);
    for (i, chunk) in body.chunks_exact(RECORD_SIZE).enumerate() {
        let rec = chunk.try_into().ok().and_then(Record::from_bytes);
        out.push(rec.ok_or_else(|| format!("{}: record {i} is corrupt", path.display()))?);
    }
    Ok((variant, out))
}

/// The quiet positions (no capture for the side to move) of the finished
/// games of a PDN text, as records with the game's result and no score
/// (a search gives it): games numbered from 1 in file order. Unfinished
/// games are left out; a game of another variant or one that does not
/// replay by the rules is an error naming it. Also returns how many games
/// were left out.
pub fn records_of_pdn(text: &str) -> Result<(Vec<Record>, u32), String> {
    let games = crate::rules::pdn::read(text)?;
    let mut records = Vec::new();
    let mut skipped = 0;
    for (i, g) in games.iter().enumerate() {
        let number = i as u32 + 1;
        match g.variant() {
            Ok(Variant::Normal) => {}
            Ok(v) => return Err(format!("game {number} is of {v}, not of the international game")),
            Err(e) => return Err(format!("game {number}: {e}")),
        }
        let result = match g.finished() {
            Some(PdnResult::Win(Color::White)) => 1,
            Some(PdnResult::Win(Color::Black)) => -1,
            Some(PdnResult::Draw) => 0,
            None => {
                skipped += 1;
                continue;
            }
        };
        let game = g.replay().map_err(|e| format!("game {number}: {e}"))?;
        for pos in game.positions() {
            if !crate::rules::movegen::has_capture(pos) {
                records.push(Record { position: *pos, game: number, score: 0, result });
            }
        }
    }
    Ok((records, skipped))
}

/// The records `relabel` searches: a self-play data file's, or the quiet
/// positions of a PDN file's finished games ([`records_of_pdn`]).
fn relabel_input(path: &Path, progress: &mut dyn FnMut(&str)) -> Result<Vec<Record>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if variant_of(&bytes).is_some() {
        return international(path, data_of(path, &bytes)?);
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{} is neither a Dammer self-play file nor a PDN text", path.display()))?;
    let (records, skipped) = records_of_pdn(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if records.is_empty() {
        return Err(format!("{} holds no finished game", path.display()));
    }
    let games = records.chunk_by(|a, b| a.game == b.game).count();
    progress(&format!(
        "{}: {} quiet positions of {games} finished games ({skipped} unfinished left out)",
        path.display(),
        records.len()
    ));
    Ok(records)
}

/// What a self-play run does.
#[derive(Clone, Debug)]
pub struct Config {
    /// The data file (created, or extended).
    pub out: PathBuf,
    /// Games the file should hold when the run ends.
    pub games: u32,
    /// Nodes per move.
    pub nodes: u64,
    /// Worker threads (each plays its own games, single-threaded).
    pub threads: usize,
    /// Up to this many random plies after the opening, for variety.
    pub random_plies: usize,
    /// Seed of the openings and random plies.
    pub seed: u64,
    /// The evaluation the games are played with.
    pub eval: Evaluation,
    /// Draw a game after this many plies.
    pub max_plies: usize,
    /// The start positions (2-move ballots by default).
    pub openings: Vec<Opening>,
    /// This run plays only the games of one shard: `(k, n)` takes the
    /// games whose number is `k - 1` modulo `n` (`(1, 1)`: all of them).
    pub shard: (u32, u32),
    /// The game played (a variant plays with its own evaluation).
    pub variant: Variant,
    /// What widens the games beyond the ballots ([`Diversity::NONE`]:
    /// the ballots, the random plies and the best move every ply).
    pub diversity: Diversity,
}

/// What makes self-play visit more kinds of positions than the best moves
/// from a few dozen ballots do. Each draw comes from the game's own random
/// sequence, so a game still depends only on its number, the seed, the
/// budget and the weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Diversity {
    /// Random plies after the ballot are drawn again (up to
    /// [`BALANCE_TRIES`] times) until a search at the game's budget scores
    /// the start within this many hundredths of a man of level; `None`
    /// keeps the first draw, however lopsided.
    pub balance: Option<i32>,
    /// In this many plies after the start, the move is drawn among the
    /// best [`SAMPLED_LINES`] lines with weight exp((score - best) /
    /// temperature) instead of always the best.
    pub sample_plies: usize,
    /// The softmax temperature of those draws, hundredths of a man.
    pub temperature: i32,
    /// Per mille of the games in which one side, drawn at random, plays at
    /// an eighth of the budget: other games than an equal engine's. Only
    /// the full-budget side's positions are stored, so that every label
    /// comes from the same search.
    pub weak_share: u32,
}

impl Diversity {
    /// Today's games: the ballots, random plies and the best move.
    pub const NONE: Diversity = Diversity { balance: None, sample_plies: 0, temperature: 0, weak_share: 0 };
}

/// Draws of random plies tried before a start that the balance filter
/// rejects is kept anyway.
pub const BALANCE_TRIES: usize = 16;
/// The lines a sampled move is drawn from.
pub const SAMPLED_LINES: usize = 4;

/// How a run went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games played in this run.
    pub games: u32,
    /// Positions written in this run.
    pub positions: u64,
    /// Games in the file now.
    pub total_games: u32,
    /// White wins, draws, Black wins in this run.
    pub results: [u32; 3],
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
}

/// Opens (or creates) the data file of `variant`'s games, drops a partial
/// last record, and returns the games it already holds.
fn prepare(path: &Path, variant: Variant) -> Result<HashSet<u32>, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut f =
        OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(err)?;
    let len = f.metadata().map_err(err)?.len() as usize;
    if len == 0 {
        f.write_all(magic(variant)).map_err(err)?;
        return Ok(HashSet::new());
    }
    if len < MAGIC.len() {
        return Err(format!("{} is not a Dammer self-play file", path.display()));
    }
    let whole = MAGIC.len() + (len - MAGIC.len()) / RECORD_SIZE * RECORD_SIZE;
    if whole != len {
        f.set_len(whole as u64).map_err(err)?;
        f.seek(SeekFrom::End(0)).map_err(err)?;
    }
    match read_data(path)? {
        (v, records) if v == variant => Ok(records.iter().map(|r| r.game).collect()),
        (v, _) => Err(format!("{} holds games of {v}, not of {variant}", path.display())),
    }
}

/// The start of game `number`: its ballot and random plies, drawn again
/// while the balance filter rejects them.
fn start_of(cfg: &Config, engine: &mut Engine, rng: &mut SplitMix) -> Game {
    let opening = &cfg.openings[rng.below(cfg.openings.len())];
    let mut start = Game::with_variant(opening.start, cfg.variant);
    for m in &opening.moves {
        let _ = start.play(*m);
    }
    let limits = Limits { nodes: Some(cfg.nodes), ..Limits::default() };
    let mut game = start.clone();
    for _ in 0..BALANCE_TRIES {
        game = start.clone();
        for _ in 0..rng.below(cfg.random_plies + 1) {
            let moves = game.legal_moves();
            if moves.is_empty() || game.result() != GameResult::Ongoing {
                break;
            }
            let m = moves.as_slice()[rng.below(moves.len())];
            let _ = game.play(m);
        }
        let Some(margin) = cfg.diversity.balance else { break };
        if game.result() != GameResult::Ongoing {
            continue;
        }
        engine.clear();
        if engine.search_quietly(&game, &limits).score.abs() <= margin {
            break;
        }
    }
    game
}

/// A move drawn among the search's best lines by softmax(score /
/// temperature), or the best move when the search has no lines.
fn sampled_move(r: &SearchResult, temperature: i32, rng: &mut SplitMix) -> Option<Move> {
    let best = r.lines.first().map_or(r.score, |l| l.score);
    let t = f64::from(temperature.max(1));
    let weights: Vec<f64> = r
        .lines
        .iter()
        .map(|l| if l.score.abs() >= WIN_BAND { 0.0 } else { ((l.score - best) as f64 / t).exp() })
        .collect();
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return r.best;
    }
    let mut x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
    for (line, w) in r.lines.iter().zip(&weights) {
        if x < *w {
            return line.pv.first().copied().or(r.best);
        }
        x -= w;
    }
    r.best
}

/// The random sequence of game `number`.
fn game_rng(cfg: &Config, number: u32) -> SplitMix {
    SplitMix(cfg.seed ^ u64::from(number).wrapping_mul(0xd1b5_4a32_d192_ed03))
}

/// The position game `number` starts from (its ballot, random plies and
/// balance filter), as [`play_game`] plays it.
pub fn start_position(cfg: &Config, engine: &mut Engine, number: u32) -> Game {
    start_of(cfg, engine, &mut game_rng(cfg, number))
}

/// Plays game number `number`: its records and its result from White's side.
pub fn play_game(cfg: &Config, engine: &mut Engine, number: u32) -> (Vec<Record>, i8) {
    let mut rng = game_rng(cfg, number);
    let diversity = cfg.diversity;
    let mut game = start_of(cfg, engine, &mut rng);
    // Drawn after the start, so that games without a weak side keep the
    // openings they had before the share existed.
    let weak = (diversity.weak_share > 0 && (rng.below(1000) as u32) < diversity.weak_share).then(|| {
        if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        }
    });
    engine.clear();
    let limits = Limits { nodes: Some(cfg.nodes), ..Limits::default() };
    let weak_limits = Limits { nodes: Some((cfg.nodes / 8).max(1)), ..Limits::default() };
    let sample_limits = Limits { multipv: SAMPLED_LINES, ..limits.clone() };
    let mut records = Vec::new();
    let start_ply = game.moves().len();
    let result = loop {
        match game.result() {
            GameResult::Win(Color::White) => break 1,
            GameResult::Win(Color::Black) => break -1,
            GameResult::Draw(_) => break 0,
            GameResult::Ongoing => {}
        }
        let ply = game.moves().len() - start_ply;
        if ply >= cfg.max_plies {
            break 0;
        }
        let pos = *game.position();
        let is_weak = weak == Some(pos.side());
        let sample = !is_weak && ply < diversity.sample_plies;
        let r = engine.search_quietly(
            &game,
            if is_weak {
                &weak_limits
            } else if sample {
                &sample_limits
            } else {
                &limits
            },
        );
        let Some(mut best) = r.best else { break 0 };
        let score = r.lines.first().map_or(r.score, |l| l.score);
        let capture = game.legal_moves().iter().any(|m| m.is_capture());
        if !capture && !is_weak && score.abs() < WIN_BAND {
            let white = if pos.side() == Color::White { score } else { -score };
            records.push(Record {
                position: pos,
                game: number,
                score: white.clamp(i16::MIN.into(), i16::MAX.into()) as i16,
                result: 0,
            });
        }
        if sample {
            best = sampled_move(&r, diversity.temperature, &mut rng).unwrap_or(best);
        }
        if game.play(best).is_err() {
            break 0;
        }
    };
    for r in &mut records {
        r.result = result;
    }
    (records, result)
}

/// Works through `jobs` on `threads` threads, each with an engine of its
/// own (`eval`, a 16 MiB table), and appends each job's records to `out`
/// as they come, in the order the jobs finish; `done` sees each job's
/// records and what else `work` returned, on the calling thread. After
/// Ctrl-C no further job starts. The first write error is returned once
/// the jobs are over.
fn work_in_parallel<J: Sync, T: Send>(
    jobs: &[J],
    threads: usize,
    eval: &Evaluation,
    out: &Path,
    work: impl Fn(&mut Engine, &J) -> (Vec<Record>, T) + Sync,
    mut done: impl FnMut(&[Record], T),
) -> Result<(), String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("dammer-selfplay-{i}"))
        .build()
        .map_err(|e| format!("cannot start threads: {e}"))?;
    let mut file =
        OpenOptions::new().append(true).open(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let (tx, rx) = mpsc::channel::<(Vec<Record>, T)>();
    let mut write_error = None;
    std::thread::scope(|scope| {
        let work = &work;
        scope.spawn(move || {
            pool.install(|| {
                jobs.par_iter().for_each_init(
                    || {
                        let mut engine = Engine::new(1, 16);
                        engine.set_evaluation(eval.clone());
                        (engine, tx.clone())
                    },
                    |(engine, tx), job| {
                        if crate::tools::interrupt::requested() {
                            return;
                        }
                        let _ = tx.send(work(engine, job));
                    },
                );
            });
            drop(tx);
        });
        for (records, extra) in rx {
            let bytes: Vec<u8> = records.iter().flat_map(|r| r.to_bytes()).collect();
            if let Err(e) = file.write_all(&bytes) {
                write_error.get_or_insert(format!("{}: {e}", out.display()));
            }
            done(&records, extra);
        }
    });
    write_error.map_or(Ok(()), Err)
}

/// Plays the games still missing from the file, `cfg.threads` at a time.
/// `progress` gets a line every few seconds and at the end.
pub fn run(cfg: &Config, progress: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    if cfg.openings.is_empty() {
        return Err("no openings".into());
    }
    let (k, n) = cfg.shard;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: expected K/N with 1 <= K <= N"));
    }
    let done = prepare(&cfg.out, cfg.variant)?;
    let todo: Vec<u32> = (0..cfg.games).filter(|g| g % n == k - 1 && !done.contains(g)).collect();
    let mut summary = Summary { total_games: done.len() as u32, ..Summary::default() };
    progress(&format!(
        "{}: {} games there, {} to play at {} nodes a move on {} threads{}",
        cfg.out.display(),
        done.len(),
        todo.len(),
        cfg.nodes,
        cfg.threads,
        if n > 1 { format!(" (shard {k}/{n})") } else { String::new() }
    ));
    if todo.is_empty() {
        return Ok(summary);
    }
    let started = Instant::now();
    let mut last = Instant::now();
    work_in_parallel(
        &todo,
        cfg.threads,
        &cfg.eval,
        &cfg.out,
        |engine, &number| play_game(cfg, engine, number),
        |records, result| {
            summary.games += 1;
            summary.total_games += 1;
            summary.positions += records.len() as u64;
            summary.results[(1 - result) as usize] += 1;
            if last.elapsed() >= Duration::from_secs(10) {
                last = Instant::now();
                let rate = f64::from(summary.games) / started.elapsed().as_secs_f64();
                let left = (todo.len() as u32 - summary.games) as f64 / rate.max(1e-9);
                progress(&format!(
                    "{} / {} games, {} positions, {:.2} games/s ({:.1} M positions an hour), {} left",
                    summary.games,
                    todo.len(),
                    summary.positions,
                    rate,
                    summary.positions as f64 / started.elapsed().as_secs_f64() * 3600.0 / 1e6,
                    crate::base::duration::format_duration(Duration::from_secs_f64(left))
                ));
            }
        },
    )?;
    summary.interrupted = crate::tools::interrupt::requested();
    progress(&format!(
        "played {} games ({} positions, White +{} ={} -{}) in {}; the file holds {} games{}",
        summary.games,
        summary.positions,
        summary.results[0],
        summary.results[1],
        summary.results[2],
        crate::base::duration::format_duration(started.elapsed()),
        summary.total_games,
        if summary.interrupted { " (interrupted: rerun to finish)" } else { "" }
    ));
    Ok(summary)
}

/// Writes the records of `inputs` (self-play files, for example the shards
/// of one run) to `out` with the games in number order, each game's
/// records in the order played: the same bytes however the games were
/// split or in whatever order they finished. A game found in two inputs is
/// an error (shards of different runs share game numbers). Returns the
/// games and positions written.
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<(u32, u64), String> {
    if inputs.iter().any(|i| i == out) {
        return Err(format!("{} is also an input", out.display()));
    }
    let mut games: std::collections::BTreeMap<u32, (usize, Vec<Record>)> = std::collections::BTreeMap::new();
    let mut variant = None;
    for (i, path) in inputs.iter().enumerate() {
        let (v, records) = read_data(path)?;
        if variant.is_some_and(|first| first != v) {
            return Err(format!("{} holds games of {v}, the files before it another game's", path.display()));
        }
        variant = Some(v);
        for r in records {
            let entry = games.entry(r.game).or_insert_with(|| (i, Vec::new()));
            if entry.0 != i {
                return Err(format!(
                    "game {} is in both {} and {}: shards of different runs?",
                    r.game,
                    inputs[entry.0].display(),
                    path.display()
                ));
            }
            entry.1.push(r);
        }
    }
    let mut bytes =
        Vec::with_capacity(MAGIC.len() + games.values().map(|g| g.1.len()).sum::<usize>() * RECORD_SIZE);
    bytes.extend_from_slice(magic(variant.unwrap_or_default()));
    let mut positions = 0u64;
    for (_, records) in games.values() {
        positions += records.len() as u64;
        records.iter().for_each(|r| bytes.extend_from_slice(&r.to_bytes()));
    }
    // Written aside and renamed, so that an interrupted merge leaves no
    // half file under the final name.
    let mut tmp = out.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, &bytes).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, out)
        .map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), out.display()))?;
    Ok((games.len() as u32, positions))
}

/// The arguments of `dammer merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Self-play data files (shards of one run, or parts of one file).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The merged file (replaced).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `dammer merge`.
pub fn merge_cli(args: MergeArgs) -> Result<(), String> {
    let (games, positions) = merge(&args.inputs, &args.out)?;
    println!("{}: {games} games, {positions} positions", args.out.display());
    Ok(())
}

/// A shard `K/N`: this run plays the games whose number is `K - 1` modulo
/// `N` (`dammer match`: the opening pairs). One parse for both commands.
pub(crate) fn shard_arg(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("invalid shard {text:?}: expected K/N with 1 <= K <= N (for example 3/8)");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u32, u32) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// A number of games that the data file's counter holds.
fn games_arg(text: &str) -> Result<u32, crate::engine::options::OptionError> {
    crate::engine::options::integer("games", text, 1, u64::from(u32::MAX)).map(|n| n as u32)
}

/// The arguments of `dammer selfplay`.
#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    /// The data file.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Games the file should hold at the end.
    #[arg(long, value_parser = games_arg)]
    pub games: u32,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5000, value_parser = crate::engine::options::nodes)]
    pub nodes: u64,
    /// Games played at once (default: every core of the machine, unlike analyse, match and the
    /// Hub, which take one unless told).
    #[arg(long, value_parser = crate::engine::options::threads)]
    pub threads: Option<usize>,
    /// Up to this many random plies after the opening ballot.
    #[arg(long, default_value_t = 6)]
    pub random_plies: usize,
    /// Seed of the openings and random plies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Draw a game after this many plies.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Play only shard K of N (the games whose number is K-1 modulo N),
    /// for a cluster's job array: each task writes its own file, and
    /// `dammer merge` joins them into the file one run would make.
    #[arg(long, default_value = "1/1", value_parser = shard_arg)]
    pub shard: (u32, u32),
    /// The evaluation: a variant plays with its own network when a learned
    /// one is chosen (or with a network file of its own game), with its
    /// material evaluation when `pst` or `hand` is.
    #[command(flatten)]
    pub eval: crate::cli::EvalArgs,
    /// The game: normal, bt (breakthrough), frisian, losing (antidraughts)
    /// or killer; the file's header says which, and a file of one is never
    /// extended with another's games.
    #[arg(long, default_value = "normal", value_parser = crate::cli::variant)]
    pub variant: Variant,
    /// Draw the random plies again until a search at the game's budget scores the start within
    /// this many hundredths of a man of level (up to 16 draws): wide openings that stay playable.
    #[arg(long)]
    pub balance: Option<u32>,
    /// In this many plies after the start, draw the move among the best four lines by
    /// softmax(score / --temperature) instead of always the best.
    #[arg(long, default_value_t = 0)]
    pub sample_plies: usize,
    /// The temperature of those draws, hundredths of a man.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub temperature: u32,
    /// The share of games (0 to 1) in which one side, drawn at random, searches an eighth of the
    /// nodes; only the other side's positions are stored.
    #[arg(long, default_value_t = 0.0, value_parser = share_arg)]
    pub weak_share: f64,
}

/// A share of the games, 0 to 1.
fn share_arg(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("invalid share {text:?}: expected a number from 0 to 1")),
    }
}

/// Runs `dammer selfplay`.
pub fn run_cli(args: SelfplayArgs) -> Result<(), String> {
    let SelfplayArgs {
        out,
        games,
        nodes,
        threads,
        random_plies,
        seed,
        max_plies,
        shard,
        eval,
        variant,
        balance,
        sample_plies,
        temperature,
        weak_share,
    } = args;
    let diversity = Diversity {
        balance: balance.map(|b| b.min(10_000) as i32),
        sample_plies,
        temperature: temperature as i32,
        weak_share: (weak_share * 1000.0).round() as u32,
    };
    let cfg = Config {
        out,
        games,
        nodes: nodes.max(1),
        threads: threads.unwrap_or_else(crate::cli::default_threads).max(1),
        random_plies,
        seed,
        eval: eval.evaluation()?,
        max_plies: max_plies.max(1),
        openings: parse_openings(DEFAULT_OPENINGS, false)?,
        shard,
        variant,
        diversity,
    };
    crate::tools::interrupt::catch();
    run(&cfg, &mut |line| println!("{line}")).map(|_| ())
}

/// How a relabelling run went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relabelled {
    /// Games relabelled in this run.
    pub games: u32,
    /// Positions written in this run.
    pub positions: u64,
    /// Stopped by Ctrl-C.
    pub interrupted: bool,
}

/// Searches every position of `input` again with `nodes` nodes and `eval`
/// and writes the records with the new score to `out` (game and result
/// kept): deeper labels for positions from fast games. `input` may also be
/// a PDN file (a match's games, e.g. against another engine): its finished
/// games' quiet positions are searched and kept with their game's result,
/// so that a fit learns from the games Dammer played. A game's positions
/// are searched in order with one table, cleared between games; positions
/// whose new score is a win or a loss are dropped, as self-play drops them.
/// Resumable: games already in `out` are skipped.
pub fn relabel(
    input: &Path,
    out: &Path,
    nodes: u64,
    threads: usize,
    eval: &Evaluation,
    progress: &mut dyn FnMut(&str),
) -> Result<Relabelled, String> {
    let records = relabel_input(input, progress)?;
    let done = prepare(out, Variant::Normal)?;
    let games: Vec<&[Record]> =
        records.chunk_by(|a, b| a.game == b.game).filter(|g| !done.contains(&g[0].game)).collect();
    progress(&format!(
        "{}: {} games there, {} to relabel at {nodes} nodes a position on {threads} threads",
        out.display(),
        done.len(),
        games.len()
    ));
    let started = Instant::now();
    let mut summary = Relabelled::default();
    let mut last = Instant::now();
    let limits = Limits { nodes: Some(nodes), ..Limits::default() };
    work_in_parallel(
        &games,
        threads,
        eval,
        out,
        |engine, game| {
            engine.clear();
            let mut records = Vec::with_capacity(game.len());
            for r in game.iter() {
                let s = engine.search_quietly(&Game::new(r.position), &limits).score;
                if s.abs() >= WIN_BAND {
                    continue;
                }
                let white = if r.position.side() == Color::White { s } else { -s };
                records.push(Record { score: white.clamp(i16::MIN.into(), i16::MAX.into()) as i16, ..*r });
            }
            (records, ())
        },
        |records, ()| {
            summary.games += 1;
            summary.positions += records.len() as u64;
            if last.elapsed() >= Duration::from_secs(10) {
                last = Instant::now();
                progress(&format!(
                    "{} / {} games, {} positions, {:.1} M positions an hour",
                    summary.games,
                    games.len(),
                    summary.positions,
                    summary.positions as f64 / started.elapsed().as_secs_f64() * 3600.0 / 1e6
                ));
            }
        },
    )?;
    summary.interrupted = crate::tools::interrupt::requested();
    progress(&format!(
        "relabelled {} games ({} positions) in {}{}",
        summary.games,
        summary.positions,
        crate::base::duration::format_duration(started.elapsed()),
        if summary.interrupted { " (interrupted: rerun to finish)" } else { "" }
    ));
    Ok(summary)
}

/// The arguments of `dammer relabel`.
#[derive(clap::Args, Debug)]
pub struct RelabelArgs {
    /// The self-play data file to relabel, or a PDN file (a match's games): every quiet position
    /// of its finished games, searched and kept with the game's result.
    pub input: std::path::PathBuf,
    /// The data file to write (created, or extended).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Nodes searched per position.
    #[arg(long, default_value_t = 8000, value_parser = crate::engine::options::nodes)]
    pub nodes: u64,
    /// Worker threads (default: every core of the machine, unlike analyse, match and the Hub,
    /// which take one unless told).
    #[arg(long, value_parser = crate::engine::options::threads)]
    pub threads: Option<usize>,
    /// The evaluation.
    #[command(flatten)]
    pub eval: crate::cli::EvalArgs,
}

/// Runs `dammer relabel`.
pub fn relabel_cli(args: RelabelArgs) -> Result<(), String> {
    let RelabelArgs { input, out, nodes, threads, eval } = args;
    if input == out {
        return Err("--out must be another file than the input".into());
    }
    let threads = threads.unwrap_or_else(crate::cli::default_threads).max(1);
    crate::tools::interrupt::catch();
    relabel(&input, &out, nodes, threads, &eval.evaluation()?, &mut |line| println!("{line}")).map(|_| ())
}
