//! `dammer tune --layout nn`: fits the neural evaluation ([`FloatNetwork`])
//! to self-play data by mini-batch Adam, then writes the integer network.
//!
//! The model's output `y` (men, side to move's view) predicts
//! `sigmoid(100 y / K)` against the same target as the pattern fits: the
//! game result blended with the stored search score (`lambda`), with
//! cross-entropy loss. Gradients are computed in parallel over slices of a
//! batch and summed. After every step the weights are clipped to what the
//! integer network holds, so quantisation only rounds. A tenth of the
//! games (by game number) is held out; each epoch reports the validation
//! loss of the float network and of its integer copy, and how far their
//! scores are apart.
//!
//! Memory: a position takes 16 bytes plus one a piece (about 50 bytes), so
//! 20 million positions take about 1 GB.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::base::rng::SplitMix;
use crate::engine::egdb::{Tables, Wdl};
use crate::engine::eval::nn::{
    bucket, for_each_input, mirror_input, pattern_rows, FloatNetwork, Network, BUCKETS, HIDDEN, INPUTS, L2,
    PATTERN_ROWS, PATTERN_TABLES,
};
use crate::rules::position::Color;
use crate::tools::loss::{blended_target, cross_entropy, sigmoid};
use crate::tools::selfplay::Record;

/// One position reduced to what the network reads.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Head {
    /// First input in [`NetSamples::inputs`].
    start: u64,
    /// Number of inputs (pieces).
    len: u8,
    /// Whether Black is to move.
    black: bool,
    /// Target probability that White wins.
    target: f32,
    /// The game's result for White: 0, 0.5 or 1.
    result: f32,
}

/// The pattern rows of one position: White's view's, then Black's.
type PatternRows = [[u32; PATTERN_TABLES]; 2];

/// Training positions: per position a head and its White-view inputs, and
/// its pattern rows when the samples are for a network with pattern inputs.
#[derive(Clone, Debug, Default)]
pub struct NetSamples {
    heads: Vec<Head>,
    inputs: Vec<u8>,
    patterns: Option<Vec<PatternRows>>,
}

impl NetSamples {
    /// Samples that keep each position's pattern rows too (32 bytes more a
    /// position), for a network with pattern inputs.
    pub fn with_patterns() -> NetSamples {
        NetSamples { patterns: Some(Vec::new()), ..NetSamples::default() }
    }

    /// Adds `records` with the target `(1 - lambda) * result + lambda *
    /// sigmoid(score / k)`, or the exact value where `tables` have the
    /// position (1 a White win, 0.5 a draw, 0 a loss). Returns how many
    /// took the tables' value.
    pub fn extend(&mut self, records: &[Record], lambda: f64, k: f64, tables: Option<&Tables>) -> usize {
        let mut exact = 0;
        let mut list = crate::rules::movegen::MoveList::new();
        for r in records {
            let start = self.inputs.len() as u64;
            for_each_input(&r.position, |f| self.inputs.push(f as u8));
            if let Some(p) = &mut self.patterns {
                p.push(pattern_rows(r.position.men(Color::White), r.position.men(Color::Black)));
            }
            let result = (f64::from(r.result) + 1.0) / 2.0;
            let mut target = blended_target(result, f64::from(r.score), lambda, k);
            if let Some(wdl) = tables.and_then(|t| t.probe_with(&r.position, &mut list)) {
                let to_move = match wdl {
                    Wdl::Win => 1.0,
                    Wdl::Draw => 0.5,
                    Wdl::Loss => 0.0,
                };
                target = if r.position.side() == Color::White { to_move } else { 1.0 - to_move };
                exact += 1;
            }
            self.heads.push(Head {
                start,
                len: (self.inputs.len() as u64 - start) as u8,
                black: r.position.side() == Color::Black,
                target: target as f32,
                result: result as f32,
            });
        }
        exact
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    fn inputs(&self, h: &Head) -> &[u8] {
        &self.inputs[h.start as usize..h.start as usize + usize::from(h.len)]
    }

    /// Position `i`'s pattern rows, if kept.
    fn patterns(&self, i: usize) -> Option<&PatternRows> {
        self.patterns.as_ref().map(|p| &p[i])
    }
}

/// The forward pass of one position, kept for the backward pass.
struct Pass {
    acc: [[f32; HIDDEN]; 2],
    a1: [f32; 2 * HIDDEN],
    z2: [f32; L2],
    a2: [f32; L2],
    bucket: usize,
    us: usize,
    y: f32,
}

fn forward(net: &FloatNetwork, inputs: &[u8], patterns: Option<&PatternRows>, black: bool) -> Pass {
    let mut acc = [[0f32; HIDDEN]; 2];
    acc[0].copy_from_slice(&net.b1);
    acc[1].copy_from_slice(&net.b1);
    for &f in inputs {
        for (view, input) in [usize::from(f), mirror_input(usize::from(f))].into_iter().enumerate() {
            let row = &net.w1[input * HIDDEN..(input + 1) * HIDDEN];
            acc[view].iter_mut().zip(row).for_each(|(a, w)| *a += w);
        }
    }
    if let (Some(rows), true) = (patterns, net.has_patterns()) {
        net.add_pattern_rows(rows, &mut acc);
    }
    let us = usize::from(black);
    let mut a1 = [0f32; 2 * HIDDEN];
    for i in 0..HIDDEN {
        a1[i] = acc[us][i].clamp(0.0, 1.0);
        a1[HIDDEN + i] = acc[1 - us][i].clamp(0.0, 1.0);
    }
    let b = bucket(inputs.len() as u32);
    let mut z2 = [0f32; L2];
    let mut a2 = [0f32; L2];
    let mut y = net.b3[b];
    for j in 0..L2 {
        let row = &net.w2[(b * L2 + j) * 2 * HIDDEN..(b * L2 + j + 1) * 2 * HIDDEN];
        z2[j] = net.b2[b * L2 + j] + row.iter().zip(&a1).map(|(w, a)| w * a).sum::<f32>();
        a2[j] = z2[j].clamp(0.0, 1.0);
        y += net.w3[b * L2 + j] * a2[j];
    }
    Pass { acc, a1, z2, a2, bucket: b, us, y }
}

/// Adds the gradient of the loss (for output gradient `dy`) to `g`, but for
/// the pattern rows: returns the gradient of each view's cells, which is
/// that of each of the view's pattern rows.
fn backward(
    net: &FloatNetwork,
    inputs: &[u8],
    pass: &Pass,
    dy: f32,
    g: &mut FloatNetwork,
) -> [[f32; HIDDEN]; 2] {
    let b = pass.bucket;
    g.b3[b] += dy;
    let mut da1 = [0f32; 2 * HIDDEN];
    for j in 0..L2 {
        g.w3[b * L2 + j] += dy * pass.a2[j];
        if pass.z2[j] <= 0.0 || pass.z2[j] >= 1.0 {
            continue;
        }
        let dz = dy * net.w3[b * L2 + j];
        g.b2[b * L2 + j] += dz;
        let at = (b * L2 + j) * 2 * HIDDEN;
        let (row, grow) = (&net.w2[at..at + 2 * HIDDEN], &mut g.w2[at..at + 2 * HIDDEN]);
        for i in 0..2 * HIDDEN {
            grow[i] += dz * pass.a1[i];
            da1[i] += dz * row[i];
        }
    }
    // Back through the clipped ReLU to each view's cells.
    let mut dacc = [[0f32; HIDDEN]; 2];
    for i in 0..HIDDEN {
        let (own, other) = (pass.acc[pass.us][i], pass.acc[1 - pass.us][i]);
        dacc[pass.us][i] = if own > 0.0 && own < 1.0 { da1[i] } else { 0.0 };
        dacc[1 - pass.us][i] = if other > 0.0 && other < 1.0 { da1[HIDDEN + i] } else { 0.0 };
    }
    for (i, gb) in g.b1.iter_mut().enumerate() {
        *gb += dacc[0][i] + dacc[1][i];
    }
    for &f in inputs {
        for (view, input) in [usize::from(f), mirror_input(usize::from(f))].into_iter().enumerate() {
            let row = &mut g.w1[input * HIDDEN..(input + 1) * HIDDEN];
            row.iter_mut().zip(&dacc[view]).for_each(|(r, d)| *r += d);
        }
    }
    dacc
}

/// The gradient of the pattern rows a batch touched, row by row (a dense
/// one would be megabytes to clear for a few thousand rows a step).
#[derive(Clone, Debug, Default)]
struct RowGradient {
    /// Per pattern row, its place in `rows`/`grads`, or `u32::MAX`.
    slot: Vec<u32>,
    rows: Vec<u32>,
    grads: Vec<[f32; HIDDEN]>,
}

impl RowGradient {
    fn new(patterns: bool) -> RowGradient {
        RowGradient {
            slot: if patterns { vec![u32::MAX; PATTERN_ROWS] } else { Vec::new() },
            ..Default::default()
        }
    }

    fn add(&mut self, row: u32, d: &[f32; HIDDEN]) {
        let slot = &mut self.slot[row as usize];
        if *slot == u32::MAX {
            *slot = self.rows.len() as u32;
            self.rows.push(row);
            self.grads.push(*d);
        } else {
            self.grads[*slot as usize].iter_mut().zip(d).for_each(|(g, x)| *g += x);
        }
    }

    fn merge(mut self, other: RowGradient) -> RowGradient {
        if self.slot.is_empty() {
            return other;
        }
        for (r, g) in other.rows.iter().zip(&other.grads) {
            self.add(*r, g);
        }
        self
    }
}

/// Adds `b` to `a`, weight by weight.
fn add_into(a: &mut FloatNetwork, b: &FloatNetwork) {
    for (x, y) in a.arrays_mut().into_iter().zip(b.arrays()) {
        x.iter_mut().zip(y.iter()).for_each(|(p, q)| *p += q);
    }
}

/// A network to start from: small random first and second layers with
/// biases that put the cells in the clipped ReLU's linear range.
pub fn initial(seed: u64) -> FloatNetwork {
    let mut rng = SplitMix(seed);
    let mut uniform = |s: f32| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32 * s;
    let mut net = FloatNetwork::zeros();
    net.w1.iter_mut().for_each(|x| *x = uniform(0.1));
    net.b1.iter_mut().for_each(|x| *x = 0.5);
    net.w2.iter_mut().for_each(|x| *x = uniform(1.0 / (2.0 * HIDDEN as f32).sqrt()));
    net.b2.iter_mut().for_each(|x| *x = 0.5);
    net.w3.iter_mut().for_each(|x| *x = uniform(0.5));
    net
}

/// Losses of a network on a sample set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    /// Mean cross-entropy against the targets (float network).
    pub target: f64,
    /// The same against the game results alone.
    pub results: f64,
    /// Mean cross-entropy against the targets of the integer network.
    pub integer: f64,
    /// Mean |integer - float| score, hundredths of a man.
    pub gap: f64,
    /// Mean cross-entropy against the targets per game stage (the output
    /// buckets: 1-10, 11-20, 21-30, 31-40 pieces), so that a gain can be
    /// told apart from one in the openings alone, where self-play repeats
    /// its early positions most.
    pub by_stage: [f64; BUCKETS],
}

/// The losses of `net` (and of `quantised`, its integer copy) on `samples`.
pub fn losses(samples: &NetSamples, net: &FloatNetwork, quantised: &Network, k: f64) -> Losses {
    if samples.is_empty() {
        return Losses::default();
    }
    // Per stage: the four sums and the count.
    type Sums = [[f64; 5]; BUCKETS];
    let sums = (0..samples.len())
        .into_par_iter()
        .map(|i| {
            let h = &samples.heads[i];
            let inputs = samples.inputs(h);
            let y = f64::from(forward(net, inputs, samples.patterns(i), h.black).y) * 100.0;
            let pos = position_of(inputs, h.black);
            let q = f64::from(quantised.evaluate(&pos));
            let (t, r) = if h.black {
                (1.0 - f64::from(h.target), 1.0 - f64::from(h.result))
            } else {
                (f64::from(h.target), f64::from(h.result))
            };
            let p = sigmoid(y / k);
            let mut s: Sums = [[0.0; 5]; BUCKETS];
            s[bucket(inputs.len() as u32)] = [
                cross_entropy(p, t),
                cross_entropy(p, r),
                cross_entropy(sigmoid(q / k), t),
                (q - y).abs(),
                1.0,
            ];
            s
        })
        .reduce(
            || [[0.0; 5]; BUCKETS],
            |mut a, b| {
                a.iter_mut().flatten().zip(b.iter().flatten()).for_each(|(x, y)| *x += y);
                a
            },
        );
    let total = |j: usize| sums.iter().map(|s| s[j]).sum::<f64>() / samples.len() as f64;
    Losses {
        target: total(0),
        results: total(1),
        integer: total(2),
        gap: total(3),
        by_stage: std::array::from_fn(|b| if sums[b][4] > 0.0 { sums[b][0] / sums[b][4] } else { f64::NAN }),
    }
}

/// The position of stored inputs (for the integer network, which reads
/// positions).
fn position_of(inputs: &[u8], black: bool) -> crate::rules::position::Position {
    use crate::rules::bitboard::square_bb;
    let (mut white, mut blk, mut kings) = (0, 0, 0);
    for &f in inputs {
        let (kind, sq) = (usize::from(f) / 50, (usize::from(f) % 50 + 1) as u8);
        let b = square_bb(sq);
        if kind < 2 {
            white |= b;
        } else {
            blk |= b;
        }
        if kind % 2 == 1 {
            kings |= b;
        }
    }
    let side = if black { Color::Black } else { Color::White };
    crate::rules::position::Position::from_parts(white, blk, kings, side)
        .unwrap_or_else(|_| crate::rules::position::Position::start())
}

/// Training settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Self-play data files.
    pub data: Vec<PathBuf>,
    /// The network file to write (after every epoch); the float weights go
    /// next to it with `.float` appended, for `init`.
    pub out: PathBuf,
    /// Passes over the data.
    pub epochs: usize,
    /// Positions per step.
    pub batch: usize,
    /// Adam's step size.
    pub lr: f64,
    /// Share of the search score in the target.
    pub lambda: f64,
    /// The sigmoid's scale, hundredths of a man.
    pub k: f64,
    /// Start from these float weights (a `.float` file) instead of random ones.
    pub init: Option<PathBuf>,
    /// Seed of the initial weights and the shuffling.
    pub seed: u64,
    /// Go on from the checkpoint next to `out` ([`checkpoint_path`]) when
    /// there is one, instead of starting over.
    pub resume: bool,
    /// Fit an 8-bit second layer ([`FloatNetwork::snap_w2`]): every step's
    /// gradient is taken with the weights on the steps and applied to the
    /// float weights kept between them (the straight-through estimator),
    /// so that small steps add up; the network written is on the steps.
    pub w2_8bit: bool,
    /// Give the network pattern inputs (rows starting at zero where the
    /// starting network has none); a network that has them keeps them.
    pub patterns: bool,
    /// Data files of other games (another engine's, say) never fitted:
    /// every position of them is a second validation set, which tells a
    /// fit that learns the games it was given from one that learns draughts.
    pub holdout: Vec<PathBuf>,
}

/// Where a fit stands after an epoch: the network, Adam's moments and its
/// step count. The shuffles are replayed from the seed, so the next epoch
/// goes on as if the fit had never stopped (`dammer tune --resume`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Checkpoint {
    /// Fingerprint of the settings and the data ([`fingerprint`]): a
    /// checkpoint is never resumed by a fit of other data.
    settings: u64,
    /// Epochs completed.
    epoch: usize,
    step: i32,
    m: Vec<f32>,
    s: Vec<f32>,
    net: FloatNetwork,
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"DMRFIT01";

impl Checkpoint {
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + 12 * self.m.len());
        out.extend_from_slice(CHECKPOINT_MAGIC);
        out.extend_from_slice(&self.settings.to_le_bytes());
        out.extend_from_slice(&(self.epoch as u32).to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&(self.m.len() as u32).to_le_bytes());
        for x in self.m.iter().chain(&self.s) {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.net.to_bytes());
        let sum = crate::base::checksum::fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, String> {
        if bytes.len() < 28 || &bytes[..8] != CHECKPOINT_MAGIC {
            return Err("not a checkpoint of `dammer tune --layout nn`".into());
        }
        // A network with pattern inputs or one without: the moments' count
        // tells which.
        let count = u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]) as usize;
        let plain = FloatNetwork::zeros().len();
        let n = if count == plain { count } else { plain + PATTERN_ROWS * HIDDEN };
        let size = 28 + 12 * n + 8;
        if bytes.len() != size {
            return Err(format!("{} bytes where a checkpoint of this network has {size}", bytes.len()));
        }
        let (body, sum) = bytes.split_at(size - 8);
        if crate::base::checksum::fnv1a(body).to_le_bytes() != sum {
            return Err("damaged (checksum)".into());
        }
        let u32_at = |i: usize| u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
        if u32_at(24) as usize != n {
            return Err("written for a network of another size".into());
        }
        let floats: Vec<f32> = body[28..28 + 8 * n]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let net = FloatNetwork::from_bytes(&body[28 + 8 * n..]).ok_or("the network does not read back")?;
        let mut settings = [0u8; 8];
        settings.copy_from_slice(&body[8..16]);
        Ok(Checkpoint {
            settings: u64::from_le_bytes(settings),
            epoch: u32_at(16) as usize,
            step: u32_at(20) as i32,
            m: floats[..n].to_vec(),
            s: floats[n..].to_vec(),
            net,
        })
    }
}

/// Where the checkpoint of a fit writing `out` goes.
pub fn checkpoint_path(out: &Path) -> PathBuf {
    with_suffix(out, ".ckpt")
}

/// `path` with `suffix` appended to its file name (`my.nn` -> `my.nn.float`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// What a checkpoint must have been written with to be resumed: every
/// setting that changes the fit's course, and the data's size.
fn fingerprint(cfg: &Config, train: usize, validation: usize) -> u64 {
    let text = format!(
        "{:?} {} {} {} {} {} {} {:?}{}{} {train} {validation}",
        cfg.data,
        cfg.epochs,
        cfg.batch,
        cfg.lr.to_bits(),
        cfg.lambda.to_bits(),
        cfg.k.to_bits(),
        cfg.seed,
        cfg.init,
        // Absent unless set, so that the checkpoints of earlier fits resume.
        if cfg.w2_8bit { " w2-8bit" } else { "" },
        if cfg.patterns { " patterns" } else { "" },
    );
    crate::base::checksum::fnv1a(text.as_bytes())
}

/// Losses per epoch (index 0: before training).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Running mean of the training loss over each epoch.
    pub train: Vec<f64>,
    /// Validation losses after each epoch.
    pub validation: Vec<Losses>,
    /// The losses on the other games (`holdout`) after each epoch, if any.
    pub holdout: Vec<Losses>,
}

/// The positions of a fit: those it learns from and those it is judged on.
#[derive(Clone, Copy)]
pub(crate) struct FitData<'a> {
    pub train: &'a NetSamples,
    pub validation: &'a NetSamples,
    /// Other games' positions, never learned from ([`Config::holdout`]).
    pub holdout: Option<&'a NetSamples>,
}

impl<'a> FitData<'a> {
    /// Training and validation positions, no other games.
    pub fn new(train: &'a NetSamples, validation: &'a NetSamples) -> FitData<'a> {
        FitData { train, validation, holdout: None }
    }
}

/// Fits `net` to `train`, reporting on `validation`; `save` gets the
/// checkpoint (the network with it) after each epoch. With `resume`, the
/// fit goes on after the checkpoint's epoch, from its network.
pub(crate) fn fit(
    cfg: &Config,
    net: &mut FloatNetwork,
    data: &FitData,
    resume: Option<Checkpoint>,
    progress: &mut dyn FnMut(&str),
    save: &mut dyn FnMut(&Checkpoint) -> Result<(), String>,
) -> Result<History, String> {
    let FitData { train, validation, holdout } = *data;
    let settings = fingerprint(cfg, train.len(), validation.len());
    if let Some(c) = &resume {
        if c.settings != settings {
            return Err(format!(
                "{} was written by a fit of other data or settings: run without --resume to start over",
                checkpoint_path(&cfg.out).display()
            ));
        }
        net.clone_from(&c.net);
    }
    let mut history = History::default();
    net.clip();
    let v = validate(cfg, validation, net);
    history.validation.push(v);
    history.train.push(f64::NAN);
    let at = resume.as_ref().map_or(0, |c| c.epoch);
    progress(&format!(
        "epoch {at}: validation loss {:.5} (results {:.5}; by stage, 1-10 to 31-40 pieces: {}){}",
        v.target,
        v.results,
        stages(&v),
        held_out(cfg, holdout, net, &mut history)
    ));
    let n = net.len();
    let patterns = net.has_patterns();
    if patterns && train.patterns.is_none() {
        return Err("a network with pattern inputs needs samples with their pattern rows".into());
    }
    let (mut m, mut s) = (vec![0f32; n], vec![0f32; n]);
    let mut step = 0i32;
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = SplitMix(cfg.seed ^ 0x5eed);
    let shuffle = |order: &mut Vec<u32>, rng: &mut SplitMix| {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
    };
    let mut first = 1;
    if let Some(c) = resume {
        for _ in 0..c.epoch.min(cfg.epochs) {
            shuffle(&mut order, &mut rng);
        }
        (m, s, step, first) = (c.m, c.s, c.step, c.epoch + 1);
        if first > cfg.epochs {
            progress(&format!("the fit was complete: {} epochs of {}", c.epoch, cfg.epochs));
        } else {
            progress(&format!("resumed after epoch {} of {}", c.epoch, cfg.epochs));
        }
    }
    let batch = cfg.batch.max(1);
    let slice = batch.div_ceil(4 * rayon::current_num_threads()).max(64);
    for epoch in first..=cfg.epochs {
        let started = Instant::now();
        shuffle(&mut order, &mut rng);
        let lr = cfg.lr * 0.5 * (1.0 + (std::f64::consts::PI * (epoch - 1) as f64 / cfg.epochs as f64).cos());
        let mut running = 0f64;
        for chunk in order.chunks(batch) {
            let scale = 100.0 / cfg.k / chunk.len() as f64;
            let snapped = seen(cfg, net);
            let frozen = &*snapped;
            let (grad, loss, rows) = chunk
                .par_chunks(slice)
                .map(|part| {
                    let mut g = FloatNetwork::zeros();
                    let mut rows = RowGradient::new(patterns);
                    let mut loss = 0f64;
                    for &i in part {
                        let h = &train.heads[i as usize];
                        let inputs = train.inputs(h);
                        let active = train.patterns(i as usize).filter(|_| patterns);
                        let pass = forward(frozen, inputs, active, h.black);
                        let t = if h.black { 1.0 - f64::from(h.target) } else { f64::from(h.target) };
                        let p = sigmoid(f64::from(pass.y) * 100.0 / cfg.k);
                        loss += cross_entropy(p, t);
                        let dacc = backward(frozen, inputs, &pass, ((p - t) * scale) as f32, &mut g);
                        for (view, active) in active.into_iter().flatten().enumerate() {
                            active.iter().for_each(|&r| rows.add(r, &dacc[view]));
                        }
                    }
                    (g, loss, rows)
                })
                .reduce(
                    || (FloatNetwork::zeros(), 0.0, RowGradient::default()),
                    |mut a, b| {
                        add_into(&mut a.0, &b.0);
                        (a.0, a.1 + b.1, a.2.merge(b.2))
                    },
                );
            running += loss;
            step += 1;
            let adam = Adam::at(lr, step);
            let mut k = 0;
            for (w, g) in net.arrays_mut().into_iter().zip(grad.arrays()) {
                for (x, &gx) in w.iter_mut().zip(g.iter()) {
                    adam.step(x, &mut m[k], &mut s[k], gx);
                    k += 1;
                }
            }
            // The pattern rows' moments follow the dense ones; a row moves
            // only in the steps that touch it (lazy Adam), found through
            // the gathered gradient's own row-to-place index.
            if patterns && !rows.slot.is_empty() {
                let dense = m.len() - net.wp.len();
                let (mp, sp) = (&mut m[dense..], &mut s[dense..]);
                net.wp
                    .par_chunks_mut(HIDDEN)
                    .zip(mp.par_chunks_mut(HIDDEN))
                    .zip(sp.par_chunks_mut(HIDDEN))
                    .zip(rows.slot.par_iter())
                    .filter(|(_, &at)| at != u32::MAX)
                    .for_each(|(((w, m), s), &at)| {
                        for (((x, mk), sk), &gx) in w.iter_mut().zip(m).zip(s).zip(&rows.grads[at as usize]) {
                            adam.step(x, mk, sk, gx);
                        }
                    });
            }
            net.clip();
        }
        let tl = running / train.len().max(1) as f64;
        let v = validate(cfg, validation, net);
        history.train.push(tl);
        history.validation.push(v);
        save(&Checkpoint { settings, epoch, step, m: m.clone(), s: s.clone(), net: net.clone() })?;
        let seconds = started.elapsed().as_secs_f64();
        progress(&format!(
            "epoch {epoch}: train loss {tl:.5}, validation loss {:.5} (results {:.5}; by stage, 1-10 to 31-40 pieces: {}), integer network {:.5}, integer-float gap {:.2} hundredths ({seconds:.1}s){}",
            v.target,
            v.results,
            stages(&v),
            v.integer,
            v.gap,
            held_out(cfg, holdout, net, &mut history)
        ));
    }
    Ok(history)
}

/// The losses on the other games, if the fit has them, kept in `history`
/// and said in a clause of the progress line.
fn held_out(cfg: &Config, holdout: Option<&NetSamples>, net: &FloatNetwork, history: &mut History) -> String {
    let Some(samples) = holdout else { return String::new() };
    let h = validate(cfg, samples, net);
    history.holdout.push(h);
    format!("; other games {:.5} (results {:.5}; by stage: {})", h.target, h.results, stages(&h))
}

/// One Adam step's constants: the step size and the bias corrections of
/// step number `step`.
#[derive(Clone, Copy)]
struct Adam {
    lr: f64,
    c1: f64,
    c2: f64,
}

impl Adam {
    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;
    const EPS: f64 = 1e-8;

    fn at(lr: f64, step: i32) -> Adam {
        Adam { lr, c1: 1.0 - Adam::BETA1.powi(step), c2: 1.0 - Adam::BETA2.powi(step) }
    }

    /// Moves weight `x` by gradient `g`, updating its moments `m` and `s`.
    #[inline(always)]
    fn step(self, x: &mut f32, m: &mut f32, s: &mut f32, g: f32) {
        let g = f64::from(g);
        let mn = Adam::BETA1 * f64::from(*m) + (1.0 - Adam::BETA1) * g;
        let sn = Adam::BETA2 * f64::from(*s) + (1.0 - Adam::BETA2) * g * g;
        *m = mn as f32;
        *s = sn as f32;
        *x -= (self.lr * (mn / self.c1) / ((sn / self.c2).sqrt() + Adam::EPS)) as f32;
    }
}

/// The validation loss of each stage, for the progress lines.
fn stages(v: &Losses) -> String {
    v.by_stage.iter().map(|x| format!("{x:.5}")).collect::<Vec<_>>().join(" ")
}

/// The network a step of the fit evaluates: `net` itself, or with
/// `w2_8bit` its second layer on the 8-bit steps.
fn seen<'a>(cfg: &Config, net: &'a FloatNetwork) -> std::borrow::Cow<'a, FloatNetwork> {
    if cfg.w2_8bit {
        let mut snapped = net.clone();
        snapped.snap_w2();
        std::borrow::Cow::Owned(snapped)
    } else {
        std::borrow::Cow::Borrowed(net)
    }
}

/// The validation losses of the network the fit writes.
fn validate(cfg: &Config, validation: &NetSamples, net: &FloatNetwork) -> Losses {
    let net = seen(cfg, net);
    losses(validation, &net, &net.quantise(), cfg.k)
}

/// Where the float weights of `out` go.
pub fn float_path(out: &Path) -> PathBuf {
    with_suffix(out, ".float")
}

/// The network a fit starts from: a `.float` file, or a network file (the
/// engine's integer weights, such as the embedded `src/engine/eval/nn.bin`)
/// turned back into floats, so that a fit can go on from a network whose
/// float weights were lost.
fn init_network(bytes: &[u8]) -> Result<FloatNetwork, String> {
    if Network::is_network_file(bytes) {
        let net = Network::from_bytes(bytes).map_err(|e| format!("not a network of this build: {e}"))?;
        return Ok(FloatNetwork::from_network(&net));
    }
    FloatNetwork::from_bytes(bytes).ok_or_else(|| {
        "neither a network file nor the float weights of this shape (a .float file)".to_string()
    })
}

/// Reads the data, splits it, fits, and writes the network (and its float
/// weights) after every epoch. Positions that `tables` hold are labelled
/// with their exact value.
pub fn run(cfg: &Config, tables: Option<&Tables>, progress: &mut dyn FnMut(&str)) -> Result<History, String> {
    let mut net = match &cfg.init {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            init_network(&bytes).map_err(|why| format!("{}: {why}", path.display()))?
        }
        None => initial(cfg.seed),
    };
    if cfg.patterns && !net.has_patterns() {
        net = net.with_patterns();
    }
    let ckpt_path = checkpoint_path(&cfg.out);
    let resume = if cfg.resume {
        match std::fs::read(&ckpt_path) {
            Ok(bytes) => {
                let c = Checkpoint::from_bytes(&bytes)
                    .map_err(|why| format!("{}: {why}", ckpt_path.display()))?;
                net.clone_from(&c.net);
                Some(c)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                progress(&format!(
                    "no checkpoint at {}: the fit starts from the beginning",
                    ckpt_path.display()
                ));
                None
            }
            Err(e) => return Err(format!("cannot read {}: {e}", ckpt_path.display())),
        }
    } else {
        None
    };
    // The network is marked with the game it learns, so that the engine
    // plays it in that game only.
    let game = match cfg.data.first() {
        Some(path) => crate::tools::selfplay::read_variant(path)?,
        None => return Err("no data files".into()),
    };
    let out = cfg.out.clone();
    let write_network = |n: &FloatNetwork| {
        std::fs::write(&out, seen(cfg, n).quantise().for_game(game).to_bytes())
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        let fp = float_path(&out);
        std::fs::write(&fp, n.to_bytes()).map_err(|e| format!("cannot write {}: {e}", fp.display()))
    };
    // The checkpoint is written beside and then renamed into place, so that
    // a fit stopped while writing leaves the last one whole.
    let mut save = |c: &Checkpoint| {
        write_network(&c.net)?;
        let tmp = with_suffix(&ckpt_path, ".tmp");
        std::fs::write(&tmp, c.to_bytes()).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &ckpt_path).map_err(|e| format!("cannot write {}: {e}", ckpt_path.display()))
    };
    // The starting network is written at once, so that an output that
    // cannot be written is found before the data is read, not after an epoch.
    write_network(&net)?;
    let started = Instant::now();
    let (mut train, mut val) = match net.has_patterns() {
        true => (NetSamples::with_patterns(), NetSamples::with_patterns()),
        false => (NetSamples::default(), NetSamples::default()),
    };
    let mut variant = None;
    for path in &cfg.data {
        let (v, records) = crate::tools::selfplay::read_data(path)?;
        // One network learns one game; the tables know only the
        // international one.
        if variant.is_some_and(|first| first != v) {
            return Err(format!("{} holds games of {v}, the files before it another game's", path.display()));
        }
        if v != crate::rules::variant::Variant::Normal && tables.is_some() {
            return Err(format!(
                "{}: the endgame tables are the international game's, not {v}'s",
                path.display()
            ));
        }
        variant = Some(v);
        progress(&format!("{}: {} positions of {v}", path.display(), records.len()));
        let (v, t): (Vec<Record>, Vec<Record>) = records.into_iter().partition(|r| r.game % 10 == 0);
        let exact = train.extend(&t, cfg.lambda, cfg.k, tables) + val.extend(&v, cfg.lambda, cfg.k, tables);
        if let Some(t) = tables {
            progress(&format!("{exact} positions labelled by the {}-piece tables", t.max_pieces()));
        }
    }
    let mut holdout = match net.has_patterns() {
        true => NetSamples::with_patterns(),
        false => NetSamples::default(),
    };
    for path in &cfg.holdout {
        let (v, records) = crate::tools::selfplay::read_data(path)?;
        if Some(v) != variant {
            return Err(format!("{} holds games of {v}, the training files another game's", path.display()));
        }
        progress(&format!("{}: {} positions of other games, held out", path.display(), records.len()));
        holdout.extend(&records, cfg.lambda, cfg.k, tables);
    }
    if train.is_empty() {
        return Err("no training positions".into());
    }
    progress(&format!(
        "network {INPUTS}x2-{HIDDEN}x2-{L2}-1, {BUCKETS} buckets{}, {} weights: {} training and {} validation positions (read in {:.1}s)",
        if net.has_patterns() { format!(", {PATTERN_ROWS} pattern rows") } else { String::new() },
        net.len(),
        train.len(),
        val.len(),
        started.elapsed().as_secs_f64()
    ));
    let holdout = (!cfg.holdout.is_empty()).then_some(&holdout);
    fit(cfg, &mut net, &FitData { holdout, ..FitData::new(&train, &val) }, resume, progress, &mut save)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Position;

    #[test]
    fn stored_inputs_give_back_the_position() {
        let pos = Position::from_fen("B:W6,K7,31,32:B1,K25,44").expect("fen");
        let mut s = NetSamples::default();
        s.extend(&[Record { position: pos, game: 1, score: 0, result: 0 }], 0.5, 125.0, None);
        assert_eq!(position_of(s.inputs(&s.heads[0]), true), pos);
    }

    #[test]
    fn table_positions_take_the_exact_value() {
        let dir = std::env::temp_dir().join(format!("dammer-nn-tables-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        crate::tools::egdb::generate(&dir, 3, 1, |_| {}).expect("tables");
        let tables = Tables::load(&dir, 3).expect("load").0;
        // White to move wins 2 against 1 here; the game was lost (noise).
        let won = Position::from_fen("W:WK46,K50:B5").expect("fen");
        let far = Position::from_fen("W:W31,32,33,34:B1,2,3,4").expect("fen");
        let mut s = NetSamples::default();
        let records = [
            Record { position: won, game: 1, score: 0, result: -1 },
            Record { position: won.flipped(), game: 1, score: 0, result: -1 },
            Record { position: far, game: 1, score: 0, result: -1 },
        ];
        assert_eq!(s.extend(&records, 0.5, 125.0, Some(&tables)), 2);
        let targets: Vec<f32> = s.heads.iter().map(|h| h.target).collect();
        assert_eq!(tables.probe(&won), Some(Wdl::Win));
        assert_eq!(targets[..2], [1.0, 0.0]);
        assert!((f64::from(targets[2]) - 0.25).abs() < 1e-6, "{targets:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_fit_starts_from_float_weights_or_from_a_network_file() {
        let embedded = crate::engine::eval::nn::EMBEDDED;
        let from_network = init_network(embedded).expect("network file");
        let float = from_network.to_bytes();
        assert_eq!(init_network(&float).expect("float file"), from_network);
        let mut broken = embedded.to_vec();
        broken[100] ^= 1;
        assert!(init_network(&broken).expect_err("checksum").contains("not a network of this build"));
        assert!(init_network(&float[..float.len() - 4]).expect_err("short").contains("neither"));
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let pos = Position::from_fen("W:W31,33,36,K40,45:B5,8,K12,19").expect("fen");
        let rows = pattern_rows(pos.men(Color::White), pos.men(Color::Black));
        let mut net = initial(3).with_patterns();
        // Small random pattern rows, so that the cells stay in the clipped
        // ReLU's linear range where the gradient is smooth.
        let mut rng = SplitMix(9);
        for &r in rows.iter().flatten() {
            for x in &mut net.wp[r as usize * HIDDEN..(r as usize + 1) * HIDDEN] {
                *x = ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 0.1 - 0.05) as f32;
            }
        }
        let mut inputs = Vec::new();
        for_each_input(&pos, |f| inputs.push(f as u8));
        let black = false;
        let loss = |n: &FloatNetwork| {
            let y = forward(n, &inputs, Some(&rows), black).y;
            0.5 * f64::from(y) * f64::from(y)
        };
        let pass = forward(&net, &inputs, Some(&rows), black);
        let mut g = FloatNetwork::zeros();
        let dacc = backward(&net, &inputs, &pass, pass.y, &mut g);
        // The pattern rows' gradient, as the fit gathers it.
        let mut pattern_grad = RowGradient::new(true);
        for (view, active) in rows.iter().enumerate() {
            active.iter().for_each(|&r| pattern_grad.add(r, &dacc[view]));
        }
        g.wp = vec![0.0; net.wp.len()];
        for (r, d) in pattern_grad.rows.iter().zip(&pattern_grad.grads) {
            g.wp[*r as usize * HIDDEN..(*r as usize + 1) * HIDDEN].copy_from_slice(d);
        }
        let b = bucket(inputs.len() as u32);
        let first = usize::from(inputs[0]);
        // One weight of each layer that the position uses.
        let picks = [
            (0usize, first * HIDDEN + 3),
            (1, 3),
            (2, b * L2 * 2 * HIDDEN + 5),
            (3, b * L2 + 2),
            (4, b * L2 + 1),
            (5, b),
            (6, rows[0][3] as usize * HIDDEN + 7),
            (6, rows[1][5] as usize * HIDDEN + 11),
        ];
        for (array, index) in picks {
            let analytic = f64::from(g.arrays_mut()[array][index]);
            let h = 1e-2f32;
            let mut plus = net.clone();
            plus.arrays_mut()[array][index] += h;
            let mut minus = net.clone();
            minus.arrays_mut()[array][index] -= h;
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(h));
            assert!(
                (analytic - numeric).abs() <= 1e-3 + 0.02 * numeric.abs(),
                "array {array} index {index}: analytic {analytic}, numeric {numeric}"
            );
        }
        net.clip();
    }

    /// Positions where White has a man more, won, and their mirrors, lost.
    fn material_samples() -> (NetSamples, NetSamples) {
        material_samples_with(false)
    }

    /// [`material_samples`], with their pattern rows kept or not.
    fn material_samples_with(patterns: bool) -> (NetSamples, NetSamples) {
        let mut records = Vec::new();
        let mut rng = SplitMix(5);
        for game in 0..400u32 {
            let mut squares: Vec<u8> = (1..=50).collect();
            for i in (1..squares.len()).rev() {
                squares.swap(i, rng.below(i + 1));
            }
            let (w, b) = (&squares[..6], &squares[6..11]);
            let fen = |set: &[u8]| set.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(",");
            let text = format!("W:W{}:B{}", fen(w), fen(b));
            if let Ok(pos) = Position::from_fen(&text) {
                if pos.pieces(Color::White).count_ones() == 6 {
                    records.push(Record { position: pos, game, score: 100, result: 1 });
                    records.push(Record { position: pos.flipped(), game, score: -100, result: -1 });
                }
            }
        }
        let (v, t): (Vec<Record>, Vec<Record>) = records.into_iter().partition(|r| r.game % 10 == 0);
        let (mut train, mut val) = match patterns {
            true => (NetSamples::with_patterns(), NetSamples::with_patterns()),
            false => (NetSamples::default(), NetSamples::default()),
        };
        train.extend(&t, 0.0, 125.0, None);
        val.extend(&v, 0.0, 125.0, None);
        (train, val)
    }

    fn material_config(epochs: usize) -> Config {
        Config {
            data: vec![],
            out: PathBuf::new(),
            epochs,
            batch: 64,
            lr: 0.01,
            lambda: 0.0,
            k: 125.0,
            init: None,
            seed: 1,
            resume: false,
            w2_8bit: false,
            patterns: false,
            holdout: vec![],
        }
    }

    #[test]
    fn a_fit_learns_material() {
        let (train, val) = material_samples();
        let cfg = material_config(30);
        let mut net = initial(1);
        let history = fit(&cfg, &mut net, &FitData::new(&train, &val), None, &mut |_| {}, &mut |_| Ok(()))
            .expect("fit");
        let last = history.validation.last().copied().unwrap_or_default();
        assert!(
            last.target < 0.2,
            "validation loss {} (started {})",
            last.target,
            history.validation[0].target
        );
        assert!(last.gap < 5.0, "integer network {} hundredths away", last.gap);
    }

    #[test]
    fn a_fit_with_pattern_inputs_learns_and_moves_only_the_rows_its_positions_use() {
        let (train, val) = material_samples_with(true);
        let cfg = Config { patterns: true, ..material_config(10) };
        let mut net = initial(1).with_patterns();
        let mut saved = None;
        let history = fit(&cfg, &mut net, &FitData::new(&train, &val), None, &mut |_| {}, &mut |c| {
            saved = Some(c.clone());
            Ok(())
        })
        .expect("fit");
        let last = history.validation.last().copied().unwrap_or_default();
        assert!(last.target < 0.2, "validation loss {}", last.target);
        let used: std::collections::HashSet<u32> =
            train.patterns.iter().flatten().flatten().flatten().copied().collect();
        let moved: Vec<u32> = (0..PATTERN_ROWS as u32)
            .filter(|&r| net.wp[r as usize * HIDDEN..(r as usize + 1) * HIDDEN].iter().any(|&x| x != 0.0))
            .collect();
        assert!(!moved.is_empty() && moved.iter().all(|r| used.contains(r)), "{} rows moved", moved.len());
        // The checkpoint holds the rows and their moments.
        let c = saved.expect("checkpoint");
        assert!(c.net.has_patterns());
        assert_eq!(Checkpoint::from_bytes(&c.to_bytes()), Ok(c));
        // Samples without their rows cannot fit such a network.
        let (plain, _) = material_samples_with(false);
        let refused = fit(
            &cfg,
            &mut initial(1).with_patterns(),
            &FitData::new(&plain, &val),
            None,
            &mut |_| {},
            &mut |_| Ok(()),
        );
        assert!(refused.expect_err("no rows").contains("pattern rows"));
    }

    #[test]
    fn held_out_games_are_scored_every_epoch_and_never_fitted() {
        let (train, val) = material_samples();
        let cfg = material_config(3);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        let (plain, with) = pool.install(|| {
            let mut plain = initial(1);
            fit(&cfg, &mut plain, &FitData::new(&train, &val), None, &mut |_| {}, &mut |_| Ok(()))
                .expect("fit");
            let mut lines = Vec::new();
            let mut with = initial(1);
            let history = fit(
                &cfg,
                &mut with,
                &FitData { holdout: Some(&val), ..FitData::new(&train, &val) },
                None,
                &mut |l| lines.push(l.to_string()),
                &mut |_| Ok(()),
            )
            .expect("fit");
            // The validation positions held out again: the same losses, each epoch and before.
            let sums = |l: &[Losses]| l.iter().map(|x| (x.target, x.results, x.integer)).collect::<Vec<_>>();
            assert_eq!(sums(&history.holdout), sums(&history.validation));
            assert_eq!(lines.iter().filter(|l| l.contains("other games")).count(), 4, "{lines:?}");
            (plain, with)
        });
        // Scoring them moves no weight.
        assert_eq!(plain, with);
    }

    #[test]
    fn an_8_bit_fit_learns_material_on_the_steps() {
        let (train, val) = material_samples();
        let cfg = Config { w2_8bit: true, ..material_config(30) };
        let mut net = initial(1);
        let history = fit(&cfg, &mut net, &FitData::new(&train, &val), None, &mut |_| {}, &mut |_| Ok(()))
            .expect("fit");
        let last = history.validation.last().copied().unwrap_or_default();
        assert!(last.target < 0.2, "validation loss {}", last.target);
        assert!(seen(&cfg, &net).quantise().is_8_bit());
        // The float weights move between the steps; what is written is on them.
        assert!(!net.quantise().is_8_bit());
    }

    #[test]
    fn a_fit_stopped_after_an_epoch_and_resumed_ends_where_one_straight_through_does() {
        let (train, val) = material_samples();
        let cfg = material_config(4);
        // One thread: the gradient's sums then come in one order.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        let (straight, resumed, last) = pool.install(|| {
            let mut straight = initial(1);
            fit(&cfg, &mut straight, &FitData::new(&train, &val), None, &mut |_| {}, &mut |_| Ok(()))
                .expect("fit");
            // Stopped while saving epoch 2 (the checkpoint of epoch 2 kept).
            let mut kept = None;
            let mut net = initial(1);
            let stop = fit(&cfg, &mut net, &FitData::new(&train, &val), None, &mut |_| {}, &mut |c| {
                kept = Some(c.clone());
                if c.epoch == 2 {
                    Err("stopped".into())
                } else {
                    Ok(())
                }
            });
            assert_eq!(stop.expect_err("stopped"), "stopped");
            let kept = Checkpoint::from_bytes(&kept.expect("checkpoint").to_bytes()).expect("reads back");
            assert_eq!(kept.epoch, 2);
            // The fit goes on from the checkpoint, whatever network it is given.
            let mut resumed = initial(9);
            let mut lines = Vec::new();
            let mut last = None;
            let history = fit(
                &cfg,
                &mut resumed,
                &FitData::new(&train, &val),
                Some(kept.clone()),
                &mut |l| lines.push(l.to_string()),
                &mut |c| {
                    last = Some(c.clone());
                    Ok(())
                },
            )
            .expect("resumed");
            assert!(lines.iter().any(|l| l == "resumed after epoch 2 of 4"), "{lines:?}");
            assert!(lines[0].starts_with("epoch 2: validation loss"), "{lines:?}");
            assert_eq!(history.train.len(), 3, "the checkpoint's epoch 2, then 3 and 4");
            // A checkpoint of other settings is refused.
            let other = Config { seed: 2, ..cfg.clone() };
            let refused = fit(
                &other,
                &mut initial(1),
                &FitData::new(&train, &val),
                Some(kept),
                &mut |_| {},
                &mut |_| Ok(()),
            );
            assert!(refused.expect_err("other settings").contains("other data or settings"));
            (straight, resumed, last.expect("saved"))
        });
        assert_eq!(resumed, straight);
        assert_eq!(last.epoch, 4);
        assert_eq!(last.net, straight);
    }

    #[test]
    fn a_damaged_checkpoint_is_refused() {
        let n = FloatNetwork::zeros().len();
        let c = Checkpoint {
            settings: 7,
            epoch: 3,
            step: 99,
            m: vec![0.5; n],
            s: vec![0.25; n],
            net: initial(4),
        };
        let bytes = c.to_bytes();
        assert_eq!(Checkpoint::from_bytes(&bytes), Ok(c));
        let mut broken = bytes.clone();
        broken[40] ^= 1;
        assert!(Checkpoint::from_bytes(&broken).expect_err("flipped").contains("checksum"));
        assert!(Checkpoint::from_bytes(&bytes[..bytes.len() - 1]).expect_err("short").contains("bytes"));
        assert!(Checkpoint::from_bytes(b"not one").expect_err("other").contains("not a checkpoint"));
    }
}
