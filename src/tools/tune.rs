//! `dammer tune`: fits a learned evaluation's weights to self-play games by
//! logistic regression. The model: P(White wins) = sigmoid(score / K) with
//! the score linear in the sparse features of the layout
//! ([`Layout::sparse`]), tapered by the number of men; the loss is the
//! cross-entropy against the target, the game result blended with the
//! stored search score (`lambda`). It is minimised with Adam on
//! mini-batches, lazily: a step updates only the weights its positions
//! touch, so a step costs the same with 50,000 weights or 4 million. L2
//! regularisation shrinks the pattern weights. Only quiet positions are
//! used (the self-play data holds nothing else). A tenth of the games (by
//! game number) is held out for validation.
//!
//! Memory: a position takes 16 bytes plus 4 a feature (about 25 with the
//! regions layout), so 20 million positions take about 2.3 GB; the weights
//! and Adam's two moments 12 bytes a weight a phase (about 50 MB for the
//! 4.25 million weights of the regions layout).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::base::rng::SplitMix;
use crate::engine::eval::nn::Network;
use crate::engine::eval::weights::{Layout, PatternWeights, F_KINGS, F_MEN, WEIGHT_SCALE};
use crate::rules::position::{Color, Position};
use crate::tools::loss::{blended_target, cross_entropy, sigmoid};
use crate::tools::selfplay::Record;

/// Bits of a packed entry that hold the feature index.
const INDEX_BITS: u32 = 22;
const _: () = assert!(Layout::Regions.features() < 1 << INDEX_BITS);
const _: () = assert!(Layout::Windows.features() < 1 << INDEX_BITS);
/// Feature values are kept within what the packed entry holds.
const VALUE_LIMIT: i32 = (1 << (31 - INDEX_BITS)) - 1;

/// Where a position's entries are and what it is fitted to.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Head {
    /// First entry.
    start: u64,
    /// Number of entries.
    len: u16,
    /// Men on the board (the phase is men / 40).
    men: u8,
    /// Target probability that White wins.
    target: f32,
    /// The game's result for White: 0, 0.5 or 1.
    result: f32,
    /// A fixed part of the score, White's view, hundredths of a man: the
    /// base network's score when the pattern term is fitted on top of one
    /// (the hybrid evaluation), else 0.
    offset: f32,
}

/// Training positions reduced to what the model reads, packed: per
/// position a head, and its features as (index, value) in one `u32` each.
#[derive(Clone, Debug)]
pub struct Samples {
    layout: Layout,
    heads: Vec<Head>,
    entries: Vec<u32>,
}

fn pack(index: usize, value: i32) -> u32 {
    let v = value.clamp(-VALUE_LIMIT, VALUE_LIMIT);
    (index as u32) | ((v as u32) << INDEX_BITS)
}

/// A score from the side to move's view (the engine's) turned to White's
/// (the model's).
fn white_view(pos: &Position, score: f64) -> f64 {
    if pos.side() == Color::White {
        score
    } else {
        -score
    }
}

fn unpack(e: u32) -> (usize, f32) {
    ((e & ((1 << INDEX_BITS) - 1)) as usize, ((e as i32) >> INDEX_BITS) as f32)
}

impl Samples {
    /// No positions yet.
    pub fn new(layout: Layout) -> Samples {
        Samples { layout, heads: Vec::new(), entries: Vec::new() }
    }

    /// Adds `records`, each with the target `(1 - lambda) * result +
    /// lambda * sigmoid(search score / k)`; with a `base` network, its
    /// score is each position's fixed offset (the hybrid's network part).
    pub fn extend(&mut self, records: &[Record], lambda: f64, k: f64, base: Option<&Network>) {
        let layout = self.layout;
        let parts: Vec<(Vec<Head>, Vec<u32>)> = records
            .par_chunks(1 << 14)
            .map(|chunk| {
                let mut heads = Vec::with_capacity(chunk.len());
                let mut entries = Vec::with_capacity(chunk.len() * 28);
                for r in chunk {
                    let start = entries.len() as u64;
                    let men = layout.sparse(&r.position, &mut |f, v| entries.push(pack(f, v)));
                    let result = (f64::from(r.result) + 1.0) / 2.0;
                    let offset = base.map_or(0.0, |net| {
                        white_view(&r.position, f64::from(net.evaluate(&r.position))) as f32
                    });
                    heads.push(Head {
                        start,
                        len: (entries.len() as u64 - start) as u16,
                        men,
                        target: blended_target(result, f64::from(r.score), lambda, k) as f32,
                        result: result as f32,
                        offset,
                    });
                }
                (heads, entries)
            })
            .collect();
        for (heads, entries) in parts {
            let base = self.entries.len() as u64;
            self.heads.extend(heads.into_iter().map(|h| Head { start: h.start + base, ..h }));
            self.entries.extend(entries);
        }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Bytes the positions take.
    pub fn bytes(&self) -> usize {
        self.heads.len() * std::mem::size_of::<Head>() + self.entries.len() * 4
    }

    fn entries(&self, h: &Head) -> &[u32] {
        &self.entries[h.start as usize..h.start as usize + usize::from(h.len)]
    }

    /// The model's score of position `i` (White's side, hundredths of a
    /// man) for weights laid out as `[mg, eg]` per feature.
    pub fn score(&self, i: usize, w: &[[f32; 2]]) -> f64 {
        let h = &self.heads[i];
        let (mut mg, mut eg) = (0f32, 0f32);
        for &e in self.entries(h) {
            let (f, v) = unpack(e);
            let [a, b] = w[f];
            mg += a * v;
            eg += b * v;
        }
        let phase = f64::from(h.men.min(40)) / 40.0;
        f64::from(h.offset) + phase * f64::from(mg) + (1.0 - phase) * f64::from(eg)
    }

    /// The target of position `i`.
    pub fn target(&self, i: usize) -> f64 {
        f64::from(self.heads[i].target)
    }
}

/// Mean cross-entropy of the model on `samples`.
pub fn loss(samples: &Samples, w: &[[f32; 2]], k: f64) -> f64 {
    losses(samples, w, k).0
}

/// Mean cross-entropy of the model on `samples` against the targets and
/// against the game results alone (the latter compares fits made with
/// different `lambda`).
pub fn losses(samples: &Samples, w: &[[f32; 2]], k: f64) -> (f64, f64) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let (t, r): (f64, f64) = (0..samples.len())
        .into_par_iter()
        .map(|i| {
            let p = sigmoid(samples.score(i, w) / k);
            (cross_entropy(p, samples.target(i)), cross_entropy(p, f64::from(samples.heads[i].result)))
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let n = samples.len() as f64;
    (t / n, r / n)
}

/// Training settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Self-play data files.
    pub data: Vec<PathBuf>,
    /// Where the weights go (written after every epoch).
    pub out: PathBuf,
    /// The feature layout (ignored when `init` is given: its layout is used).
    pub layout: Layout,
    /// Passes over the training data.
    pub epochs: usize,
    /// Examples per step.
    pub batch: usize,
    /// Adam's step size, hundredths of a man.
    pub lr: f64,
    /// L2 regularisation of the pattern weights.
    pub l2: f64,
    /// Weight of the search score in the target (0: result only).
    pub lambda: f64,
    /// The sigmoid's scale, hundredths of a man.
    pub k: f64,
    /// Start from these weights (default: material only).
    pub init: Option<PathBuf>,
    /// Seed of the shuffling.
    pub seed: u64,
    /// Fit the pattern term on top of this network (its score a fixed
    /// part of every position's): the hybrid evaluation's region term.
    pub base: Option<Arc<Network>>,
}

/// Per-epoch losses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Training loss: before the first epoch (index 0), then the running
    /// mean over each epoch's steps (each position's loss just before the
    /// step that uses it).
    pub train: Vec<f64>,
    /// Validation loss before the first epoch and after each.
    pub validation: Vec<f64>,
    /// Validation loss against the game results alone, likewise.
    pub validation_results: Vec<f64>,
}

/// Converts trained weights to the stored format.
pub fn quantise(layout: Layout, w: &[[f32; 2]]) -> PatternWeights {
    let q = |x: f32| (x * WEIGHT_SCALE as f32).round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16;
    PatternWeights { layout, w: w.iter().map(|&[a, b]| [q(a), q(b)]).collect() }
}

/// Fits weights to `train`, reporting losses on `train` and `validation`
/// (both of `init`'s layout). `progress` gets one line per epoch; `save`
/// gets the weights after each.
pub fn fit(
    cfg: &Config,
    init: &PatternWeights,
    train: &Samples,
    validation: &Samples,
    progress: &mut dyn FnMut(&str),
    save: &mut dyn FnMut(&PatternWeights) -> Result<(), String>,
) -> Result<History, String> {
    let layout = init.layout;
    if train.layout != layout || validation.layout != layout {
        return Err("the positions and the weights have different layouts".into());
    }
    let n = layout.features();
    let dense = layout.dense();
    let scale = WEIGHT_SCALE as f32;
    let mut w: Vec<[f32; 2]> =
        init.w.iter().map(|&[a, b]| [f32::from(a) / scale, f32::from(b) / scale]).collect();
    let mut m = vec![[0f32; 2]; n];
    let mut v = vec![[0f32; 2]; n];
    let mut grad = vec![[0f32; 2]; n];
    let mut touched_mark = vec![false; n];
    let mut touched: Vec<u32> = Vec::new();
    let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let mut step = 0i32;
    let mut history = History::default();
    history.train.push(loss(train, &w, cfg.k));
    let (vl, vr) = losses(validation, &w, cfg.k);
    history.validation.push(vl);
    history.validation_results.push(vr);
    progress(&format!(
        "epoch 0: train loss {:.5}, validation loss {vl:.5} (results {vr:.5})",
        history.train[0]
    ));
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    let mut rng = SplitMix(cfg.seed);
    let batch = cfg.batch.max(1);
    for epoch in 1..=cfg.epochs {
        let started = Instant::now();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        // Cosine decay of the step size over the run.
        let lr = cfg.lr * 0.5 * (1.0 + (std::f64::consts::PI * (epoch - 1) as f64 / cfg.epochs as f64).cos());
        let mut running = 0f64;
        for chunk in order.chunks(batch) {
            let scale = 1.0 / cfg.k / chunk.len() as f64;
            let errors: Vec<(f32, f64)> = chunk
                .par_iter()
                .map(|&i| {
                    let i = i as usize;
                    let p = sigmoid(train.score(i, &w) / cfg.k);
                    let y = train.target(i);
                    (((p - y) * scale) as f32, cross_entropy(p, y))
                })
                .collect();
            for (&i, &(g, l)) in chunk.iter().zip(&errors) {
                running += l;
                let h = &train.heads[i as usize];
                let phase = f32::from(h.men.min(40)) / 40.0;
                let (gm, ge) = (g * phase, g * (1.0 - phase));
                for &e in train.entries(h) {
                    let (f, val) = unpack(e);
                    if !touched_mark[f] {
                        touched_mark[f] = true;
                        touched.push(f as u32);
                    }
                    grad[f][0] += gm * val;
                    grad[f][1] += ge * val;
                }
            }
            step += 1;
            let (c1, c2) = (1.0 - beta1.powi(step), 1.0 - beta2.powi(step));
            for f in touched.drain(..) {
                let f = f as usize;
                touched_mark[f] = false;
                for ph in 0..2 {
                    let mut g = f64::from(grad[f][ph]);
                    grad[f][ph] = 0.0;
                    if f >= dense {
                        g += cfg.l2 * f64::from(w[f][ph]);
                    }
                    let mf = beta1 * f64::from(m[f][ph]) + (1.0 - beta1) * g;
                    let vf = beta2 * f64::from(v[f][ph]) + (1.0 - beta2) * g * g;
                    m[f][ph] = mf as f32;
                    v[f][ph] = vf as f32;
                    w[f][ph] -= (lr * (mf / c1) / ((vf / c2).sqrt() + eps)) as f32;
                }
            }
        }
        let tl = running / train.len().max(1) as f64;
        let (vl, vr) = losses(validation, &w, cfg.k);
        history.train.push(tl);
        history.validation.push(vl);
        history.validation_results.push(vr);
        save(&quantise(layout, &w))?;
        progress(&format!(
            "epoch {epoch}: train loss {tl:.5}, validation loss {vl:.5} (results {vr:.5}), man {:.0}/{:.0}, king {:.0}/{:.0} ({:.1}s)",
            w[F_MEN][0],
            w[F_MEN][1],
            w[F_KINGS][0],
            w[F_KINGS][1],
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(history)
}

/// Reads the data, splits it, fits, and writes the weights file.
pub fn run(cfg: &Config, progress: &mut dyn FnMut(&str)) -> Result<History, String> {
    let init = match &cfg.init {
        Some(path) => PatternWeights::load(path).map_err(|e| format!("{}: {e}", path.display()))?,
        // On top of a network the term starts at nothing: epoch 0 is the network alone.
        None if cfg.base.is_some() => PatternWeights::zero(cfg.layout),
        None => PatternWeights::material(cfg.layout),
    };
    let layout = init.layout;
    let started = Instant::now();
    let (mut train, mut val) = (Samples::new(layout), Samples::new(layout));
    // The hand-written evaluation's loss on the validation games, as a yardstick.
    let (mut hand, mut hand_n) = (0f64, 0usize);
    for path in &cfg.data {
        let records = crate::tools::selfplay::read_records(path)?;
        progress(&format!("{}: {} positions", path.display(), records.len()));
        let (v, t): (Vec<Record>, Vec<Record>) = records.into_iter().partition(|r| r.game % 10 == 0);
        hand += v
            .par_iter()
            .map(|r| {
                let white =
                    white_view(&r.position, f64::from(crate::engine::eval::evaluate_hand(&r.position)));
                cross_entropy(sigmoid(white / cfg.k), (f64::from(r.result) + 1.0) / 2.0)
            })
            .sum::<f64>();
        hand_n += v.len();
        train.extend(&t, cfg.lambda, cfg.k, cfg.base.as_deref());
        val.extend(&v, cfg.lambda, cfg.k, cfg.base.as_deref());
    }
    if train.is_empty() {
        return Err("no training positions".into());
    }
    progress(&format!(
        "hand-written evaluation: validation loss {:.5} (game results, same K)",
        hand / hand_n.max(1) as f64
    ));
    progress(&format!(
        "{} layout, {} weights: {} training and {} validation positions, {:.0} MB (features in {:.1}s)",
        layout.name(),
        2 * layout.features(),
        train.len(),
        val.len(),
        (train.bytes() + val.bytes()) as f64 / 1e6,
        started.elapsed().as_secs_f64()
    ));
    let out = cfg.out.clone();
    fit(cfg, &init, &train, &val, progress, &mut |w| {
        std::fs::write(&out, w.to_bytes()).map_err(|e| format!("cannot write {}: {e}", out.display()))
    })
}

/// What `dammer tune` fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Pattern weights of a layout.
    Pattern(Layout),
    /// The neural network ([`crate::tools::train_nn`]).
    Network,
}

/// A layout name, or `nn`.
fn model_arg(text: &str) -> Result<Model, String> {
    if text == "nn" {
        return Ok(Model::Network);
    }
    Layout::from_name(text)
        .map(Model::Pattern)
        .ok_or_else(|| format!("unknown layout {text:?} (expected regions, windows or nn)"))
}

/// Positions per step: 1 to 2^24.
fn batch_arg(text: &str) -> Result<usize, crate::engine::options::OptionError> {
    crate::engine::options::integer("batch", text, 1, 1 << 24).map(|n| n as usize)
}

/// Passes over the data: 1 to 10,000.
fn epochs_arg(text: &str) -> Result<usize, crate::engine::options::OptionError> {
    crate::engine::options::integer("epochs", text, 0, 10_000).map(|n| n as usize)
}

/// The arguments of `dammer tune`.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Self-play data files.
    #[arg(required = true)]
    pub data: Vec<std::path::PathBuf>,
    /// The weights file to write.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// The model: `regions` (12-square regions), `windows` (4x4 windows)
    /// or `nn` (the neural network). With --init, a pattern fit takes the
    /// init file's layout.
    #[arg(long, default_value = "regions", value_parser = model_arg)]
    pub layout: Model,
    /// Passes over the data (0: only the starting weights' losses, e.g. a
    /// network's on --holdout games).
    #[arg(long, default_value_t = 20, value_parser = epochs_arg)]
    pub epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 8192, value_parser = batch_arg)]
    pub batch: usize,
    /// Adam step size (default: 1 hundredth of a man for patterns, 0.001
    /// for the network).
    #[arg(long)]
    pub lr: Option<f64>,
    /// L2 regularisation of the pattern weights (per position-averaged
    /// gradient: rare patterns are shrunk, common ones hardly).
    #[arg(long, default_value_t = 1e-9)]
    l2: f64,
    /// Share of the search score in the target (0: game result only;
    /// 0.7 played far better than 0 in matches).
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f64,
    /// Scale of the sigmoid, hundredths of a man (125 fits the
    /// hand-written evaluation's search scores to the results of the
    /// first self-play data, so the weights come out in similar units).
    #[arg(long, default_value_t = 125.0)]
    pub k: f64,
    /// Start from these weights (default: material only for patterns,
    /// random for the network). For the network: the `.float` file written
    /// next to each network, or a network file itself (its integer weights
    /// divided by their scales, e.g. `src/engine/eval/nn.bin`).
    #[arg(long)]
    pub init: Option<std::path::PathBuf>,
    /// Seed of the network's initial weights and of the shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Endgame tables: the network's fit labels the positions they hold
    /// with their exact value.
    #[command(flatten)]
    pub egdb: crate::cli::EgdbArgs,
    /// Threads for the gradient (default: every core of the machine, unlike analyse, match and
    /// the Hub, which take one unless told).
    #[arg(long, value_parser = crate::engine::options::threads)]
    pub threads: Option<usize>,
    /// The network's fit goes on after the last epoch its checkpoint (OUT.ckpt, written after
    /// every epoch) holds, as if it had never stopped; the same data and settings are required.
    /// Without a checkpoint the fit starts from the beginning.
    #[arg(long)]
    pub resume: bool,
    /// The network's second layer in 8-bit steps (multiples of 1/64, at
    /// most 127 either way): the fit sees the weights on the steps (and
    /// moves them as if it did not), the network written is on them, and
    /// the engine evaluates its second layer with 8-bit weights where the
    /// processor has AVX-512 VNNI (half the multiply-adds).
    #[arg(long)]
    pub w2_8bit: bool,
    /// Give the network pattern inputs: one first-layer row per state of
    /// each 4x4 window (8 tables of 6,561 rows, shared by the two views),
    /// starting at zero where the --init network has none.
    #[arg(long)]
    pub patterns: bool,
    /// A data file of other games (another engine's, relabelled, say) that
    /// the network's fit never learns from: the loss on all its positions
    /// is reported beside the validation loss, before the fit and after
    /// every epoch. Repeat it for several files.
    #[arg(long, value_name = "FILE")]
    pub holdout: Vec<std::path::PathBuf>,
    /// Fit the pattern term on top of a network, whose score is then a
    /// fixed part of every position's (the hybrid evaluation: `--eval
    /// hybrid --weights OUT` plays the embedded network with it): `nn` for
    /// the embedded network, or a network file. The term starts at zero
    /// unless --init is given.
    #[arg(long)]
    pub base: Option<std::path::PathBuf>,
}

/// Runs `dammer tune`.
pub fn run_cli(args: TuneArgs) -> Result<(), String> {
    let TuneArgs {
        data,
        out,
        layout,
        epochs,
        batch,
        lr,
        l2,
        lambda,
        k,
        init,
        seed,
        egdb,
        threads,
        resume,
        w2_8bit,
        patterns,
        holdout,
        base,
    } = args;
    if !holdout.is_empty() && layout != Model::Network {
        return Err("--holdout is a setting of the network's fit (--layout nn)".into());
    }
    if patterns && layout != Model::Network {
        return Err("--patterns is a setting of the network's fit (--layout nn)".into());
    }
    if base.is_some() && layout == Model::Network {
        return Err("--base fits a pattern term on top of a network (--layout regions or windows)".into());
    }
    if w2_8bit && layout != Model::Network {
        return Err("--w2-8bit is a setting of the network's fit (--layout nn)".into());
    }
    let lr = lr.unwrap_or(if layout == Model::Network { 0.001 } else { 1.0 });
    if !(lr.is_finite() && lr > 0.0) {
        return Err(format!("--lr must be a positive number, not {lr}"));
    }
    if !(l2.is_finite() && l2 >= 0.0) {
        return Err(format!("--l2 must be 0 or more, not {l2}"));
    }
    if !(0.0..=1.0).contains(&lambda) {
        return Err(format!("--lambda must be between 0 and 1, not {lambda}"));
    }
    if !(k.is_finite() && k > 0.0) {
        return Err(format!("--k must be a positive number, not {k}"));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or_else(crate::cli::default_threads).max(1))
        .build()
        .map_err(|e| format!("cannot start threads: {e}"))?;
    let layout = match layout {
        Model::Pattern(l) => l,
        Model::Network => {
            let cfg = crate::tools::train_nn::Config {
                data,
                out,
                epochs,
                batch,
                lr,
                lambda,
                k,
                init,
                seed,
                resume,
                w2_8bit,
                patterns,
                holdout,
            };
            let tables = egdb.tables()?;
            return pool
                .install(|| {
                    crate::tools::train_nn::run(&cfg, tables.as_ref(), &mut |line| println!("{line}"))
                })
                .map(|_| ());
        }
    };
    if egdb.egdb.is_some() {
        return Err("--egdb labels the network's positions (--layout nn) only".into());
    }
    let base = match base {
        None => None,
        Some(path) => Some(Arc::new(if path.as_os_str() == "nn" {
            Network::from_bytes(crate::engine::eval::nn::EMBEDDED)
                .map_err(|e| format!("embedded network: {e}"))?
        } else {
            Network::load(&path).map_err(|e| format!("{}: {e}", path.display()))?
        })),
    };
    if resume {
        return Err("--resume goes on with a network's fit (--layout nn) only".into());
    }
    let cfg = Config { data, out, layout, epochs, batch, lr, l2, lambda, k, init, seed, base };
    pool.install(|| run(&cfg, &mut |line| println!("{line}"))).map(|_| ())
}
