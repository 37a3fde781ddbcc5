//! `dammer tune`: fits the pattern evaluation's weights to game results by
//! logistic regression. The model: P(White wins) = sigmoid(score / K) with
//! the score linear in the features of [`crate::engine::eval::pattern`], tapered by
//! the number of men; the loss is the cross-entropy against the result
//! (optionally blended with the search score, `lambda`), minimised with Adam
//! on mini-batches, with L2 regularisation of the pattern weights. Only
//! quiet positions are used (the self-play data holds nothing else). A
//! tenth of the games (by game number) is held out for validation.

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

use crate::base::rng::SplitMix;
use crate::engine::eval::pattern::{
    self, PatternWeights, DENSE, FEATURES, WEIGHT_SCALE, WINDOWS, WINDOW_SIZE,
};
use crate::tools::selfplay::Record;

/// One training example, reduced to what the model reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Middlegame share of the weights (men / 40).
    pub phase: f32,
    /// Dense features (index, value), a few per position.
    pub dense: Vec<(u16, i8)>,
    /// Feature indices of the windows: White's (+1) and Black's (-1).
    pub windows: [(u32, u32); WINDOWS],
    /// Target probability that White wins.
    pub target: f32,
}

impl Sample {
    /// From a self-play record, with the result blended by `lambda` with
    /// the search score seen through the same sigmoid.
    pub fn new(r: &Record, lambda: f64, k: f64) -> Sample {
        let f = pattern::features(&r.position);
        let result = (f64::from(r.result) + 1.0) / 2.0;
        let searched = sigmoid(f64::from(r.score) / k);
        let windows = f.windows.map(|(a, b)| (u32::from(a), u32::from(b)));
        let mut w = [(0u32, 0u32); WINDOWS];
        for (i, (a, b)) in windows.into_iter().enumerate() {
            let base = (DENSE + i * WINDOW_SIZE) as u32;
            w[i] = (base + a, base + b);
        }
        Sample {
            phase: f32::from(f.men.min(40)) / 40.0,
            dense: f.dense,
            windows: w,
            target: ((1.0 - lambda) * result + lambda * searched) as f32,
        }
    }

    /// The model's score (White's side, hundredths of a man) for weights
    /// laid out as `[mg, eg]` per feature.
    pub fn score(&self, w: &[[f32; 2]]) -> f64 {
        let (mut mg, mut eg) = (0f64, 0f64);
        for &(f, v) in &self.dense {
            let [a, b] = w[usize::from(f)];
            mg += f64::from(a) * f64::from(v);
            eg += f64::from(b) * f64::from(v);
        }
        for &(p, q) in &self.windows {
            let ([a, b], [c, d]) = (w[p as usize], w[q as usize]);
            mg += f64::from(a) - f64::from(c);
            eg += f64::from(b) - f64::from(d);
        }
        let phase = f64::from(self.phase);
        phase * mg + (1.0 - phase) * eg
    }

    /// Adds `g` times the score's gradient to `grad`.
    fn add_gradient(&self, g: f64, grad: &mut [[f32; 2]]) {
        let phase = f64::from(self.phase);
        let (gm, ge) = ((g * phase) as f32, (g * (1.0 - phase)) as f32);
        for &(f, v) in &self.dense {
            let e = &mut grad[usize::from(f)];
            e[0] += gm * f32::from(v);
            e[1] += ge * f32::from(v);
        }
        for &(p, q) in &self.windows {
            grad[p as usize][0] += gm;
            grad[p as usize][1] += ge;
            grad[q as usize][0] -= gm;
            grad[q as usize][1] -= ge;
        }
    }
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean cross-entropy of the model on `samples`.
pub fn loss(samples: &[Sample], w: &[[f32; 2]], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = samples
        .par_iter()
        .map(|s| {
            let p = sigmoid(s.score(w) / k).clamp(1e-9, 1.0 - 1e-9);
            let y = f64::from(s.target);
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len() as f64
}

/// Training settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Self-play data files.
    pub data: Vec<PathBuf>,
    /// Where the weights go (written after every epoch).
    pub out: PathBuf,
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
}

/// Per-epoch losses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Training loss after each epoch (before the first: index 0).
    pub train: Vec<f64>,
    /// Validation loss likewise.
    pub validation: Vec<f64>,
}

/// Converts trained weights to the stored format.
pub fn quantise(w: &[[f32; 2]]) -> PatternWeights {
    let q = |x: f32| (x * WEIGHT_SCALE as f32).round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16;
    PatternWeights { w: w.iter().map(|&[a, b]| [q(a), q(b)]).collect() }
}

/// Fits weights to `train`, reporting losses on `train` and `validation`.
/// `progress` gets one line per epoch; `save` gets the weights after each.
pub fn fit(
    cfg: &Config,
    init: &PatternWeights,
    train: &[Sample],
    validation: &[Sample],
    progress: &mut dyn FnMut(&str),
    save: &mut dyn FnMut(&PatternWeights) -> Result<(), String>,
) -> Result<History, String> {
    let scale = WEIGHT_SCALE as f32;
    let mut w: Vec<[f32; 2]> =
        init.w.iter().map(|&[a, b]| [f32::from(a) / scale, f32::from(b) / scale]).collect();
    let mut m = vec![[0f32; 2]; FEATURES];
    let mut v = vec![[0f32; 2]; FEATURES];
    let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let mut step = 0i32;
    let mut history = History::default();
    history.train.push(loss(train, &w, cfg.k));
    history.validation.push(loss(validation, &w, cfg.k));
    progress(&format!(
        "epoch 0: train loss {:.5}, validation loss {:.5}",
        history.train[0], history.validation[0]
    ));
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = SplitMix(cfg.seed);
    let batch = cfg.batch.max(1);
    for epoch in 1..=cfg.epochs {
        let started = Instant::now();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        // Cosine decay of the step size over the run.
        let lr = cfg.lr * 0.5 * (1.0 + (std::f64::consts::PI * (epoch - 1) as f64 / cfg.epochs as f64).cos());
        for chunk in order.chunks(batch) {
            let grad = chunk
                .par_chunks(1024)
                .fold(
                    || vec![[0f32; 2]; FEATURES],
                    |mut g, idx| {
                        for &i in idx {
                            let s = &train[i];
                            let p = sigmoid(s.score(&w) / cfg.k);
                            s.add_gradient((p - f64::from(s.target)) / cfg.k / chunk.len() as f64, &mut g);
                        }
                        g
                    },
                )
                .reduce(
                    || vec![[0f32; 2]; FEATURES],
                    |mut a, b| {
                        for (x, y) in a.iter_mut().zip(&b) {
                            x[0] += y[0];
                            x[1] += y[1];
                        }
                        a
                    },
                );
            step += 1;
            let (c1, c2) = (1.0 - beta1.powi(step), 1.0 - beta2.powi(step));
            for f in 0..FEATURES {
                for ph in 0..2 {
                    let mut g = f64::from(grad[f][ph]);
                    if f >= DENSE {
                        g += cfg.l2 * f64::from(w[f][ph]);
                    }
                    if g == 0.0 && m[f][ph] == 0.0 {
                        continue;
                    }
                    let mf = beta1 * f64::from(m[f][ph]) + (1.0 - beta1) * g;
                    let vf = beta2 * f64::from(v[f][ph]) + (1.0 - beta2) * g * g;
                    m[f][ph] = mf as f32;
                    v[f][ph] = vf as f32;
                    let delta = lr * (mf / c1) / ((vf / c2).sqrt() + eps);
                    w[f][ph] -= delta as f32;
                }
            }
        }
        let (tl, vl) = (loss(train, &w, cfg.k), loss(validation, &w, cfg.k));
        history.train.push(tl);
        history.validation.push(vl);
        let q = quantise(&w);
        save(&q)?;
        progress(&format!(
            "epoch {epoch}: train loss {tl:.5}, validation loss {vl:.5}, man {:.0}/{:.0}, king {:.0}/{:.0} ({:.1}s)",
            w[pattern::F_MEN][0],
            w[pattern::F_MEN][1],
            w[pattern::F_KINGS][0],
            w[pattern::F_KINGS][1],
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(history)
}

/// Reads the data, splits it, fits, and writes the weights file.
pub fn run(cfg: &Config, progress: &mut dyn FnMut(&str)) -> Result<History, String> {
    let mut records = Vec::new();
    for path in &cfg.data {
        let r = crate::tools::selfplay::read_records(path)?;
        progress(&format!("{}: {} positions", path.display(), r.len()));
        records.extend(r);
    }
    if records.is_empty() {
        return Err("no training positions".into());
    }
    let started = Instant::now();
    let (val, train): (Vec<&Record>, Vec<&Record>) = records.iter().partition(|r| r.game % 10 == 0);
    let to_samples = |rs: Vec<&Record>| -> Vec<Sample> {
        rs.into_par_iter().map(|r| Sample::new(r, cfg.lambda, cfg.k)).collect()
    };
    // The hand-written evaluation's loss on the validation games, as a yardstick.
    let hand: f64 = val
        .par_iter()
        .map(|r| {
            let e = f64::from(crate::engine::eval::evaluate_hand(&r.position));
            let white = if r.position.side() == crate::rules::position::Color::White { e } else { -e };
            let p = sigmoid(white / cfg.k).clamp(1e-9, 1.0 - 1e-9);
            let y = (f64::from(r.result) + 1.0) / 2.0;
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / val.len().max(1) as f64;
    progress(&format!("hand-written evaluation: validation loss {hand:.5} (game results, same K)"));
    let (train, val) = (to_samples(train), to_samples(val));
    progress(&format!(
        "{} training and {} validation positions (features in {:.1}s)",
        train.len(),
        val.len(),
        started.elapsed().as_secs_f64()
    ));
    let init = match &cfg.init {
        Some(path) => PatternWeights::load(path).map_err(|e| e.to_string())?,
        None => PatternWeights::material(),
    };
    let out = cfg.out.clone();
    fit(cfg, &init, &train, &val, progress, &mut |w| {
        std::fs::write(&out, w.to_bytes()).map_err(|e| format!("cannot write {}: {e}", out.display()))
    })
}

/// Positions per step: 1 to 2^24.
fn batch_arg(text: &str) -> Result<usize, crate::engine::options::OptionError> {
    crate::engine::options::integer("batch", text, 1, 1 << 24).map(|n| n as usize)
}

/// Passes over the data: 1 to 10,000.
fn epochs_arg(text: &str) -> Result<usize, crate::engine::options::OptionError> {
    crate::engine::options::integer("epochs", text, 1, 10_000).map(|n| n as usize)
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
    /// Passes over the data.
    #[arg(long, default_value_t = 20, value_parser = epochs_arg)]
    pub epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 8192, value_parser = batch_arg)]
    pub batch: usize,
    /// Adam step size (hundredths of a man).
    #[arg(long, default_value_t = 1.0)]
    pub lr: f64,
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
    /// Start from these weights (default: material only).
    #[arg(long)]
    pub init: Option<std::path::PathBuf>,
    /// Threads for the gradient (default: all cores).
    #[arg(long, value_parser = crate::engine::options::threads)]
    pub threads: Option<usize>,
}

/// Runs `dammer tune`.
pub fn run_cli(args: TuneArgs) -> Result<(), String> {
    let TuneArgs { data, out, epochs, batch, lr, l2, lambda, k, init, threads } = args;
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
    let cfg = Config { data, out, epochs, batch, lr, l2, lambda, k, init, seed: 1 };
    if !(cfg.k.is_finite() && cfg.k > 0.0 && cfg.lr.is_finite() && cfg.lr > 0.0) {
        return Err("--k and --lr must be positive".into());
    }
    if !((0.0..=1.0).contains(&cfg.lambda) && cfg.l2.is_finite() && cfg.l2 >= 0.0) {
        return Err("--lambda must be between 0 and 1 and --l2 non-negative".into());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or_else(crate::cli::default_threads).max(1))
        .build()
        .map_err(|e| format!("cannot start threads: {e}"))?;
    pool.install(|| run(&cfg, &mut |line| println!("{line}"))).map(|_| ())
}
