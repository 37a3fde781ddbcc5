//! The neural evaluation: a small network over piece-square inputs whose
//! first layer is kept as an accumulator and updated by the pieces a move
//! changes (NNUE's idea, for a 10x10 board).
//!
//! Shape: each side's view of the board (White's as it is, Black's turned
//! half a turn with the colours swapped) is 4 x 50 inputs (own man, own king,
//! other man, other king on each square) feeding [`HIDDEN`] accumulator
//! cells with shared weights. The side to move's cells, then the other
//! side's, go through a clipped ReLU into [`L2`] cells, clipped again, into
//! one output: the score in men from the side to move's view. The last two
//! layers come in [`BUCKETS`] copies chosen by the number of pieces (the
//! game stage). A position and its colour-flipped mirror score the same by
//! construction.
//!
//! A network may also have pattern inputs ([`pattern_rows`]): one learned
//! row of the first layer per state of each 4x4 window of its side's half,
//! eight windows a view, the tables shared by the two views as the
//! piece-square rows are. A window's row changes only when a man in it
//! moves, so the update swaps a few rows a move. The rows are i8 (at
//! [`WP_LIMIT`]): 52,488 rows of [`HIDDEN`], 6.7 MB.
//!
//! Inference is integer ([`Network`]): the accumulator in i16 (activation 1
//! is [`QA`]), the second layer's weights in i16 (1 is [`QB`]), its sums in
//! i32, the output in i64. An 8-bit network's second layer reads the clipped
//! cells in 7 bits ([`input7`]), so that every 8-bit multiply-add (AVX-512
//! VNNI's, WebAssembly's relaxed dot product, which is exact only for 7-bit
//! unsigned inputs) computes the same sums. Every kernel (chosen at run time)
//! and the scalar path do the same integer operations, so they agree bit for
//! bit; the float network ([`FloatNetwork`], what training fits) is the
//! reference that the integer one approximates.

use crate::base::checksum::fnv1a;
use crate::engine::eval::pattern;
use crate::engine::eval::weights::WeightsError;
use crate::engine::score::{Score, EVAL_LIMIT};
use crate::rules::bitboard::{Bitboard, Bits, BIT_TO_SQUARE};
use crate::rules::position::{Color, Position};
use crate::rules::variant::Variant;

/// Inputs of one view: 4 piece kinds x 50 squares.
pub const INPUTS: usize = 200;
/// Accumulator cells of one view.
pub const HIDDEN: usize = 128;
/// Cells of the second layer.
pub const L2: usize = 16;
/// Copies of the last two layers, by the number of pieces on the board.
pub const BUCKETS: usize = 4;
/// Integer value of activation 1 in the accumulator.
pub const QA: i32 = 255;
/// Integer value of weight 1 in the second layer.
pub const QB: i32 = 4096;
/// Integer value of weight 1 (one man) in the output layer.
pub const QO: i32 = 256;
/// The second-layer weights of an 8-bit network are multiples of this (at
/// scale [`QB`]: steps of 1/64), at most 127 steps either way. A network
/// fitted so (`dammer tune --w2-8bit`) evaluates its second layer with 8-bit
/// weights where the processor allows, four cells a multiply-add lane
/// instead of two; a network that is not keeps the 16-bit path.
pub const W2_STEP: i32 = 64;
/// The largest input of an 8-bit network's second layer ([`input7`]).
pub const IN7_MAX: i32 = 127;
/// Largest first-layer weight and bias in the float network: keeps a
/// full board's sum (at most 40 inputs) well inside i16 at scale [`QA`].
pub const W1_LIMIT: f32 = 2.0;
/// Largest second-layer weight: keeps 512 products inside i32 at scale [`QB`].
pub const W2_LIMIT: f32 = 2.0;
/// Largest output weight and bias (men per activation): inside i16 at [`QO`].
pub const W3_LIMIT: f32 = 100.0;
/// Largest pattern-row weight: inside an i8 at scale [`QA`], so that the
/// pattern tables take half the memory (and the cache) of i16 rows. Fits
/// leave all but a few in a million of them smaller than this anyway. A
/// view's eight rows add at most 1,016 to a cell, which the i16 sums hold
/// beside 40 pieces at [`W1_LIMIT`].
pub const WP_LIMIT: f32 = 127.0 / QA as f32;

/// Pattern tables of a network with pattern inputs: one per canonical
/// 4x4 window of [`super::pattern`], shared by the two views.
pub const PATTERN_TABLES: usize = pattern::WINDOWS;
/// States of one window: eight squares, each empty, an own man or another
/// man (kings read as empty).
pub const PATTERN_STATES: usize = pattern::WINDOW_SIZE;
/// First-layer rows of the pattern inputs, one per window state.
pub const PATTERN_ROWS: usize = PATTERN_TABLES * PATTERN_STATES;

/// The pattern rows active for these men, per view: in each view the eight
/// windows of that side's half (rows 4-9 seen from its own side, so the
/// two views cover the board and overlap on its middle two rows), read
/// with that side's men as "own". Black's view of a position is White's
/// view of the colour-flipped one, as for the piece-square inputs.
#[inline(always)]
pub fn pattern_rows(white_men: Bitboard, black_men: Bitboard) -> [[u32; PATTERN_TABLES]; 2] {
    let w = pattern::window_indices_of(white_men, black_men);
    let row = |k: usize, i: u16| (k * PATTERN_STATES) as u32 + u32::from(i);
    [std::array::from_fn(|k| row(k, w[k].0)), std::array::from_fn(|k| row(k, w[k].1))]
}

/// The bucket of a position with `pieces` pieces (1..=40 in play).
#[inline]
pub fn bucket(pieces: u32) -> usize {
    (pieces.saturating_sub(1) as usize / 10).min(BUCKETS - 1)
}

/// The input of a piece kind (0 own man, 1 own king, 2 other man, 3 other
/// king) on bit `bit`, in White's view and in Black's view.
#[inline]
fn inputs(kind: usize, bit: u32) -> (usize, usize) {
    let sq = BIT_TO_SQUARE[bit as usize] as usize; // 1..=50
    (kind * 50 + sq - 1, (kind ^ 2) * 50 + 50 - sq)
}

/// Black's view of a White-view input: colours swapped, board turned.
#[inline]
pub fn mirror_input(f: usize) -> usize {
    let (kind, sq) = (f / 50, f % 50);
    (kind ^ 2) * 50 + 49 - sq
}

/// The pieces of a position as the four bitboards the inputs read: White's
/// men, White's kings, Black's men, Black's kings.
#[inline]
fn piece_sets(pos: &Position) -> [Bitboard; 4] {
    [pos.men(Color::White), pos.kings_of(Color::White), pos.men(Color::Black), pos.kings_of(Color::Black)]
}

/// Calls `f` with the White-view input of every piece of `pos`.
pub fn for_each_input(pos: &Position, mut f: impl FnMut(usize)) {
    for (kind, set) in piece_sets(pos).into_iter().enumerate() {
        for bit in Bits(set) {
            f(inputs(kind, bit).0);
        }
    }
}

/// The network in floating point: what training fits, and the reference
/// that the integer [`Network`] is tested against.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// First layer, `INPUTS x HIDDEN` (input-major).
    pub w1: Vec<f32>,
    /// First layer's biases.
    pub b1: Vec<f32>,
    /// Second layer per bucket, `BUCKETS x L2 x 2 HIDDEN` (side to move's
    /// cells first).
    pub w2: Vec<f32>,
    /// Second layer's biases, `BUCKETS x L2`.
    pub b2: Vec<f32>,
    /// Output weights, `BUCKETS x L2`.
    pub w3: Vec<f32>,
    /// Output biases, `BUCKETS`.
    pub b3: Vec<f32>,
    /// Pattern rows, `PATTERN_ROWS x HIDDEN`, or none (a network of piece
    /// squares alone).
    pub wp: Vec<f32>,
}

impl FloatNetwork {
    /// All weights zero.
    pub fn zeros() -> FloatNetwork {
        FloatNetwork {
            w1: vec![0.0; INPUTS * HIDDEN],
            b1: vec![0.0; HIDDEN],
            w2: vec![0.0; BUCKETS * L2 * 2 * HIDDEN],
            b2: vec![0.0; BUCKETS * L2],
            w3: vec![0.0; BUCKETS * L2],
            b3: vec![0.0; BUCKETS],
            wp: Vec::new(),
        }
    }

    /// The same network with pattern inputs, their rows zero where it had
    /// none (so it scores as before).
    pub fn with_patterns(mut self) -> FloatNetwork {
        self.wp.resize(PATTERN_ROWS * HIDDEN, 0.0);
        self
    }

    /// Whether it has pattern inputs.
    pub fn has_patterns(&self) -> bool {
        !self.wp.is_empty()
    }

    /// Every weight array, in file order (the pattern rows last, empty in a
    /// network without them).
    pub fn arrays(&self) -> [&Vec<f32>; 7] {
        [&self.w1, &self.b1, &self.w2, &self.b2, &self.w3, &self.b3, &self.wp]
    }

    /// Every weight array, in file order, to change.
    pub fn arrays_mut(&mut self) -> [&mut Vec<f32>; 7] {
        [&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2, &mut self.w3, &mut self.b3, &mut self.wp]
    }

    /// Clips every weight into the range the integer network can hold.
    pub fn clip(&mut self) {
        let limits = [W1_LIMIT, W1_LIMIT, W2_LIMIT, W2_LIMIT, W3_LIMIT, W3_LIMIT, WP_LIMIT];
        for (a, l) in self.arrays_mut().into_iter().zip(limits) {
            for x in a.iter_mut() {
                *x = x.clamp(-l, l);
            }
        }
    }

    /// Adds to each view's cells `acc` that view's pattern rows `rows`
    /// (what [`pattern_rows`] gives; the network has pattern inputs).
    pub fn add_pattern_rows<A: AsMut<[f32]>>(&self, rows: &[[u32; PATTERN_TABLES]; 2], acc: &mut [A; 2]) {
        for (cells, rows) in acc.iter_mut().zip(rows) {
            for &r in rows {
                let row = &self.wp[r as usize * HIDDEN..][..HIDDEN];
                cells.as_mut().iter_mut().zip(row).for_each(|(a, w)| *a += w);
            }
        }
    }

    /// The score of `pos` in men, from the side to move's view.
    pub fn evaluate(&self, pos: &Position) -> f32 {
        let mut acc = [self.b1.clone(), self.b1.clone()];
        for_each_input(pos, |f| {
            for (view, input) in [f, mirror_input(f)].into_iter().enumerate() {
                let row = &self.w1[input * HIDDEN..(input + 1) * HIDDEN];
                for (a, w) in acc[view].iter_mut().zip(row) {
                    *a += w;
                }
            }
        });
        if self.has_patterns() {
            self.add_pattern_rows(&pattern_rows(pos.men(Color::White), pos.men(Color::Black)), &mut acc);
        }
        let us = pos.side() as usize;
        let mut a1 = Vec::with_capacity(2 * HIDDEN);
        a1.extend(acc[us].iter().chain(&acc[1 - us]).map(|x| x.clamp(0.0, 1.0)));
        let b = bucket(pos.occupied().count_ones());
        let mut out = self.b3[b];
        for j in 0..L2 {
            let row = &self.w2[(b * L2 + j) * 2 * HIDDEN..(b * L2 + j + 1) * 2 * HIDDEN];
            let z: f32 = self.b2[b * L2 + j] + row.iter().zip(&a1).map(|(w, a)| w * a).sum::<f32>();
            out += self.w3[b * L2 + j] * z.clamp(0.0, 1.0);
        }
        out
    }

    /// Puts every second-layer weight on the nearest of the 8-bit network's
    /// steps ([`W2_STEP`]: multiples of 1/64, at most 127 of them either
    /// way), so that [`FloatNetwork::quantise`] gives an 8-bit network.
    pub fn snap_w2(&mut self) {
        let steps = (QB / W2_STEP) as f32;
        for x in &mut self.w2 {
            *x = (*x * steps).round().clamp(-127.0, 127.0) / steps;
        }
    }

    /// The integer network nearest to this one (weights clipped first).
    pub fn quantise(&self) -> Network {
        let mut f = self.clone();
        f.clip();
        let q16 = |x: f32, s: i32| (x * s as f32).round().clamp(-32767.0, 32767.0) as i16;
        Network::from_parts(NetworkParts {
            w1: f.w1.iter().map(|&x| q16(x, QA)).collect(),
            b1: f.b1.iter().map(|&x| q16(x, QA)).collect(),
            w2: f.w2.iter().map(|&x| q16(x, QB)).collect(),
            b2: f.b2.iter().map(|&x| (f64::from(x) * f64::from(QA * QB)).round() as i32).collect(),
            w3: f.w3.iter().map(|&x| q16(x, QO)).collect(),
            b3: f
                .b3
                .iter()
                .map(|&x| (f64::from(x) * f64::from(QA) * f64::from(QB) * f64::from(QO)).round() as i64)
                .collect(),
            wp: f.wp.iter().map(|&x| (x * QA as f32).round().clamp(-127.0, 127.0) as i8).collect(),
        })
    }

    /// The float network an integer one stands for: each weight divided by
    /// its scale. Lets a fit start from a network whose float weights are
    /// gone (the embedded one, say); quantising it again gives the same
    /// integers, but for output biases off by a few parts in 10^8 of a man.
    pub fn from_network(n: &Network) -> FloatNetwork {
        let p = n.parts();
        let f16 = |a: &[i16], s: i32| a.iter().map(|&x| f32::from(x) / s as f32).collect();
        FloatNetwork {
            w1: f16(&p.w1, QA),
            b1: f16(&p.b1, QA),
            w2: f16(&p.w2, QB),
            b2: p.b2.iter().map(|&x| (f64::from(x) / f64::from(QA * QB)) as f32).collect(),
            w3: f16(&p.w3, QO),
            b3: p
                .b3
                .iter()
                .map(|&x| (x as f64 / (f64::from(QA) * f64::from(QB) * f64::from(QO))) as f32)
                .collect(),
            wp: p.wp.iter().map(|&x| f32::from(x) / QA as f32).collect(),
        }
    }

    /// The weights as bytes (f32 little endian, file order), for resuming
    /// training.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 * self.len());
        for a in self.arrays() {
            for x in a {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// Reads what [`FloatNetwork::to_bytes`] wrote (with pattern rows or
    /// without, told apart by the length).
    pub fn from_bytes(bytes: &[u8]) -> Option<FloatNetwork> {
        let mut net = FloatNetwork::zeros();
        if bytes.len() == 4 * (net.len() + PATTERN_ROWS * HIDDEN) {
            net = net.with_patterns();
        }
        if bytes.len() != 4 * net.len() {
            return None;
        }
        let mut words = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        for a in net.arrays_mut() {
            for x in a.iter_mut() {
                *x = words.next()?;
            }
        }
        Some(net)
    }

    /// Number of weights.
    pub fn len(&self) -> usize {
        self.arrays().iter().map(|a| a.len()).sum()
    }

    /// Whether it has no weights (never: the shape is fixed).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The integer weights of a [`Network`], as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkParts {
    /// First layer at scale [`QA`], `INPUTS x HIDDEN`.
    pub w1: Vec<i16>,
    /// First layer's biases at scale [`QA`].
    pub b1: Vec<i16>,
    /// Second layer at scale [`QB`], `BUCKETS x L2 x 2 HIDDEN`.
    pub w2: Vec<i16>,
    /// Second layer's biases at scale `QA * QB`.
    pub b2: Vec<i32>,
    /// Output weights at scale [`QO`].
    pub w3: Vec<i16>,
    /// Output biases at scale `QA * QB * QO`.
    pub b3: Vec<i64>,
    /// Pattern rows at scale [`QA`], `PATTERN_ROWS x HIDDEN`, or none.
    pub wp: Vec<i8>,
}

/// The instructions a [`Network`] evaluates with. Every kernel does the
/// same integer operations (sums of exact products, in any order, never
/// overflowing), so all of them give the same score bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kernel {
    /// Plain Rust (which the compiler vectorises for the build's processor).
    Scalar,
    /// AVX2: 16 cells an instruction.
    Avx2,
    /// AVX-512 with VNNI: 32 cells an instruction, multiply and add in one.
    Avx512,
    /// NEON (every aarch64 processor): 8 cells an instruction.
    Neon,
    /// WebAssembly SIMD128 (every browser of the last years; chosen when
    /// the build enables it, as `web/build.sh` does): 8 cells an instruction.
    Simd128,
}

impl Kernel {
    /// The fastest kernel this processor runs. `DAMMER_NO_SIMD` (set to
    /// anything) forces the scalar one, `DAMMER_NO_AVX512` stops at AVX2.
    pub fn best_available() -> Kernel {
        if std::env::var_os("DAMMER_NO_SIMD").is_some() {
            return Kernel::Scalar;
        }
        let no_avx512 = std::env::var_os("DAMMER_NO_AVX512").is_some();
        if Kernel::Neon.runs_here() {
            Kernel::Neon
        } else if Kernel::Simd128.runs_here() {
            Kernel::Simd128
        } else if !no_avx512 && Kernel::Avx512.runs_here() {
            Kernel::Avx512
        } else if Kernel::Avx2.runs_here() {
            Kernel::Avx2
        } else {
            Kernel::Scalar
        }
    }

    /// Whether this processor has the kernel's instructions.
    pub fn runs_here(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => x86_common(),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                x86_common()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vnni")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
            }
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            // WebAssembly has no detection at run time: a module that uses
            // SIMD128 does not load where it is missing.
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => true,
            _ => false,
        }
    }

    /// Its name, as `dammer bench --network` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Avx2 => "AVX2",
            Kernel::Avx512 => "AVX-512 VNNI",
            Kernel::Neon => "NEON",
            Kernel::Simd128 if cfg!(target_feature = "relaxed-simd") => "SIMD128 and relaxed SIMD",
            Kernel::Simd128 => "SIMD128",
        }
    }
}

/// What both SIMD kernels' code is compiled for besides their own
/// instructions (every AVX2 processor has them).
#[cfg(target_arch = "x86_64")]
fn x86_common() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// The integer network the search evaluates with.
pub struct Network {
    p: NetworkParts,
    /// The second layer regrouped for the AVX-512 kernel: per bucket, per
    /// pair of inputs (`2 k`, `2 k + 1` of the 2 [`HIDDEN`] clipped cells),
    /// per output cell, the two weights. A pair of inputs, broadcast, then
    /// meets all [`L2`] output cells in one row, so the sums need no
    /// horizontal reduction.
    w2_pairs: Vec<i16>,
    /// For an 8-bit network (see [`W2_STEP`]) the second layer in steps, as
    /// the AVX-512 kernel takes it: per bucket, per quad of inputs, per
    /// output cell, the four weights; `None` for another network.
    w2_quads: Option<Vec<i8>>,
    /// The layers after the second one, a row per bucket: whole arrays, so
    /// that the last steps compile to a few vector instructions with no
    /// bounds check per cell.
    out_rows: Vec<OutputRow>,
    /// The instructions it evaluates with (never one the processor lacks).
    kernel: Kernel,
    /// The game whose positions it learned.
    game: Variant,
    /// A view's cells on the empty board: the biases, plus the rows of the
    /// empty windows where the network has pattern inputs (so that an
    /// update from no pieces, as [`Network::refresh`] does, swaps each
    /// window's row like any other).
    empty: Cells,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bits = if self.w2_quads.is_some() { 8 } else { 16 };
        let patterns = if self.has_patterns() { ", pattern inputs" } else { "" };
        write!(
            f,
            "Network({HIDDEN}x2-{L2}-1, {BUCKETS} buckets{patterns}, {}, {}, {bits}-bit second layer)",
            self.game,
            self.kernel.name()
        )
    }
}

/// One bucket's second-layer biases, output weights and output bias.
#[derive(Clone, Debug)]
struct OutputRow {
    b2: [i32; L2],
    w3: [i32; L2],
    b3: i64,
}

/// [`NetworkParts`]' last layers as [`Network::out_rows`] holds them
/// (shapes checked by the caller).
fn output_rows(p: &NetworkParts) -> Vec<OutputRow> {
    (0..BUCKETS)
        .map(|b| {
            let mut row = OutputRow { b2: [0; L2], w3: [0; L2], b3: p.b3[b] };
            row.b2.copy_from_slice(&p.b2[b * L2..(b + 1) * L2]);
            for (w, &v) in row.w3.iter_mut().zip(&p.w3[b * L2..(b + 1) * L2]) {
                *w = i32::from(v);
            }
            row
        })
        .collect()
}

/// [`NetworkParts::w2`] regrouped as [`Network::w2_pairs`] describes.
fn pair_layout(w2: &[i16]) -> Vec<i16> {
    let mut out = vec![0i16; w2.len()];
    for b in 0..BUCKETS {
        for k in 0..HIDDEN {
            for j in 0..L2 {
                for t in 0..2 {
                    out[((b * HIDDEN + k) * L2 + j) * 2 + t] = w2[(b * L2 + j) * 2 * HIDDEN + 2 * k + t];
                }
            }
        }
    }
    out
}

/// [`NetworkParts::w2`] in steps of [`W2_STEP`], regrouped as
/// [`Network::w2_quads`] describes; `None` when a weight is not a whole
/// number of steps or outside an i8.
fn quad_layout(w2: &[i16]) -> Option<Vec<i8>> {
    let step = |w: i16| {
        let w = i32::from(w);
        (w % W2_STEP == 0).then(|| i8::try_from(w / W2_STEP).ok()).flatten()
    };
    let mut out = vec![0i8; w2.len()];
    for b in 0..BUCKETS {
        for k in 0..HIDDEN / 2 {
            for j in 0..L2 {
                for t in 0..4 {
                    out[((b * HIDDEN / 2 + k) * L2 + j) * 4 + t] =
                        step(w2[(b * L2 + j) * 2 * HIDDEN + 4 * k + t])?;
                }
            }
        }
    }
    Some(out)
}

/// The network shipped in the binary (see `docs/training.md`): n7, an
/// 8-bit network (n6's shape refitted on 12 M diverse self-play positions).
pub const EMBEDDED: &[u8] = include_bytes!("nn.bin");

/// The networks of the variants shipped in the binary, learned from their
/// own self-play (see `docs/training.md`); killer draughts plays with the
/// international game's.
pub const EMBEDDED_VARIANTS: [(Variant, &[u8]); 3] = [
    (Variant::Breakthrough, include_bytes!("nn-bt.bin")),
    (Variant::Frisian, include_bytes!("nn-frisian.bin")),
    (Variant::Losing, include_bytes!("nn-losing.bin")),
];

const MAGIC: &[u8; 8] = b"DAMMERNN";
/// Version 1 files are the international game's; version 2 adds the game
/// after the shape; version 3 adds, after the game, the number of pattern
/// rows, and the rows (one byte a weight) after the output biases. A
/// network is written in the oldest version that holds it, so that older
/// builds read it.
const VERSION: u32 = 2;
const VERSION_PATTERNS: u32 = 3;
const HEADER_V1: usize = MAGIC.len() + 5 * 4;

/// The game's number in a version 2 file (fixed: files keep it).
fn game_code(v: Variant) -> u32 {
    match v {
        Variant::Normal => 0,
        Variant::Breakthrough => 1,
        Variant::Losing => 2,
        Variant::Frisian => 3,
        Variant::Killer => 4,
    }
}

fn game_of_code(code: u32) -> Option<Variant> {
    Variant::ALL.into_iter().find(|&v| game_code(v) == code)
}

/// One view's accumulator cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Cells(pub [i16; HIDDEN]);

/// The first layer's output for one position, both views, with the pieces
/// it was computed for (so that it can be updated to another position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accumulator {
    sets: [Bitboard; 4],
    views: [Cells; 2],
}

impl Network {
    /// The network of these weights (shapes checked by the caller).
    fn from_parts(p: NetworkParts) -> Network {
        let w2_pairs = pair_layout(&p.w2);
        let w2_quads = quad_layout(&p.w2);
        let out_rows = output_rows(&p);
        let mut empty = Cells([0; HIDDEN]);
        empty.0.copy_from_slice(&p.b1);
        if !p.wp.is_empty() {
            let none = pattern_rows(0, 0)[0];
            for r in none {
                let row = &p.wp[r as usize * HIDDEN..][..HIDDEN];
                empty.0.iter_mut().zip(row).for_each(|(c, w)| *c = c.wrapping_add(i16::from(*w)));
            }
        }
        Network {
            p,
            w2_pairs,
            w2_quads,
            out_rows,
            kernel: Kernel::best_available(),
            game: Variant::Normal,
            empty,
        }
    }

    /// Whether it reads the pattern inputs as well as the piece squares.
    pub fn has_patterns(&self) -> bool {
        !self.p.wp.is_empty()
    }

    /// The same network, marked as learned from `game`'s positions.
    pub fn for_game(self, game: Variant) -> Network {
        Network { game, ..self }
    }

    /// The game whose positions it learned (what its file says).
    pub fn game(&self) -> Variant {
        self.game
    }

    /// The stored weights.
    pub fn parts(&self) -> &NetworkParts {
        &self.p
    }

    /// The same network evaluated with `kernel`, or `None` when this
    /// processor lacks its instructions (to test the kernels against each
    /// other).
    pub fn with_kernel(&self, kernel: Kernel) -> Option<Network> {
        kernel.runs_here().then(|| Network {
            p: self.p.clone(),
            w2_pairs: self.w2_pairs.clone(),
            w2_quads: self.w2_quads.clone(),
            out_rows: self.out_rows.clone(),
            kernel,
            game: self.game,
            empty: self.empty,
        })
    }

    /// Whether the second layer is on the 8-bit steps ([`W2_STEP`]).
    pub fn is_8_bit(&self) -> bool {
        self.w2_quads.is_some()
    }

    /// The instructions evaluation runs on.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The file: magic, version, the shape (inputs, hidden, L2, buckets),
    /// in version 2 the game, the weights little endian in the order of
    /// [`NetworkParts`], then the FNV-1a checksum of everything before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.p;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        let version = match (self.has_patterns(), self.game) {
            (true, _) => VERSION_PATTERNS,
            (false, Variant::Normal) => 1,
            (false, _) => VERSION,
        };
        for v in [version, INPUTS as u32, HIDDEN as u32, L2 as u32, BUCKETS as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if version >= VERSION {
            out.extend_from_slice(&game_code(self.game).to_le_bytes());
        }
        if version >= VERSION_PATTERNS {
            out.extend_from_slice(&(PATTERN_ROWS as u32).to_le_bytes());
        }
        for a in [&p.w1, &p.b1, &p.w2] {
            a.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        }
        p.b2.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        p.w3.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        p.b3.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        p.wp.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Whether `bytes` start like a network file.
    pub fn is_network_file(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
    }

    /// Reads a network file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, WeightsError> {
        if bytes.len() < HEADER_V1 + 12 || !Network::is_network_file(bytes) {
            return Err(WeightsError::NotAWeightsFile);
        }
        let word = |i: usize| {
            let at = MAGIC.len() + 4 * i;
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let (header, game, patterns) = match word(0) {
            1 => (HEADER_V1, Variant::Normal, 0),
            2 => (HEADER_V1 + 4, game_of_code(word(5)).ok_or(WeightsError::Corrupt)?, 0),
            // The length check above covers the two words after the shape.
            3 if word(6) == PATTERN_ROWS as u32 => {
                (HEADER_V1 + 8, game_of_code(word(5)).ok_or(WeightsError::Corrupt)?, PATTERN_ROWS * HIDDEN)
            }
            3 => return Err(WeightsError::Layout),
            v => return Err(WeightsError::Version(v)),
        };
        if [word(1), word(2), word(3), word(4)] != [INPUTS as u32, HIDDEN as u32, L2 as u32, BUCKETS as u32] {
            return Err(WeightsError::Layout);
        }
        let n16 = INPUTS * HIDDEN + HIDDEN + BUCKETS * L2 * 2 * HIDDEN;
        let expected = header + 2 * n16 + 4 * BUCKETS * L2 + 2 * BUCKETS * L2 + 8 * BUCKETS + patterns + 8;
        if bytes.len() != expected {
            return Err(WeightsError::Length { expected, found: bytes.len() });
        }
        let (body, sum) = bytes.split_at(expected - 8);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().map_err(|_| WeightsError::Corrupt)?) {
            return Err(WeightsError::Checksum);
        }
        let mut at = header;
        let mut take = |n: usize| {
            let s = &body[at..at + n];
            at += n;
            s
        };
        let i16s = |b: &[u8]| b.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect::<Vec<_>>();
        let w1 = i16s(take(2 * INPUTS * HIDDEN));
        let b1 = i16s(take(2 * HIDDEN));
        let w2 = i16s(take(2 * BUCKETS * L2 * 2 * HIDDEN));
        let b2 = take(4 * BUCKETS * L2)
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let w3 = i16s(take(2 * BUCKETS * L2));
        let b3 = take(8 * BUCKETS)
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        let wp = take(patterns).iter().map(|&b| b as i8).collect();
        let net = Network::from_parts(NetworkParts { w1, b1, w2, b2, w3, b3, wp }).for_game(game);
        if !net.within_limits() {
            return Err(WeightsError::Corrupt);
        }
        Ok(net)
    }

    /// Whether the weights are small enough that no sum can overflow (a
    /// file from [`FloatNetwork::quantise`] always is).
    fn within_limits(&self) -> bool {
        let l1 = (W1_LIMIT * QA as f32) as i32;
        let l2 = (W2_LIMIT * QB as f32) as i32;
        self.p.w1.iter().chain(&self.p.b1).all(|&x| i32::from(x).abs() <= l1)
            && self.p.wp.iter().all(|&x| x != i8::MIN)
            && self.p.w2.iter().all(|&x| i32::from(x).abs() <= l2)
            && self.p.b2.iter().all(|&x| x.abs() <= l2 * QA)
            && self
                .p
                .b3
                .iter()
                .all(|&x| x.abs() <= (f64::from(W3_LIMIT) * f64::from(QA * QB) * f64::from(QO)) as i64)
    }

    /// Loads a network file.
    pub fn load(path: &std::path::Path) -> Result<Network, WeightsError> {
        let bytes = std::fs::read(path).map_err(|e| WeightsError::Io(format!("{}: {e}", path.display())))?;
        Network::from_bytes(&bytes)
    }

    /// The accumulator of `pos`, computed from scratch.
    #[inline(always)]
    pub fn refresh(&self, pos: &Position) -> Accumulator {
        // The empty board, updated by every piece of `pos`.
        let empty = Accumulator { sets: [0; 4], views: [self.empty; 2] };
        let mut acc = empty;
        // SAFETY: both point to whole accumulators, and no reference to
        // `acc` is live during the call.
        unsafe { self.update_raw(&empty, &mut acc, &piece_sets(pos)) };
        acc
    }

    /// Turns `acc` into the accumulator of `pos` by the pieces that differ.
    pub fn update(&self, acc: &mut Accumulator, pos: &Position) {
        let acc: *mut Accumulator = acc;
        // SAFETY: source and destination are the same whole accumulator,
        // which `update_raw` allows; the `&mut` it came from is not used
        // during the call.
        unsafe { self.update_raw(acc, acc, &piece_sets(pos)) };
    }

    /// Writes into `dst` the accumulator of the pieces `sets`, computed
    /// from `src` by the rows of the pieces that differ: both views, each
    /// read once, changed in registers, and written once.
    ///
    /// # Safety
    /// `src` and `dst` point to valid accumulators (they may be the same
    /// one), and no reference to `dst` is live during the call.
    #[inline(always)]
    unsafe fn update_raw(&self, src: *const Accumulator, dst: *mut Accumulator, sets: &[Bitboard; 4]) {
        // SAFETY: the caller's contract; the sets are copied out before
        // `dst` is written.
        let old = unsafe { (*src).sets };
        // The windows whose state the move changed, per view: their old
        // and new rows, applied with the pieces' rows.
        let mut changed = [[(0u32, 0u32); PATTERN_TABLES]; 2];
        let mut counts = [0usize; 2];
        if self.has_patterns() && (old[0] != sets[0] || old[2] != sets[2]) {
            let (before, after) = (pattern_rows(old[0], old[2]), pattern_rows(sets[0], sets[2]));
            for view in 0..2 {
                for (&from, &to) in before[view].iter().zip(&after[view]) {
                    if from != to {
                        changed[view][counts[view]] = (from, to);
                        counts[view] += 1;
                    }
                }
            }
        }
        for view in 0..2 {
            let swaps = Swaps { wp: &self.p.wp, rows: &changed[view][..counts[view]] };
            // SAFETY: in bounds of the two accumulators (the caller's
            // contract); the kernels read all of a view before writing it.
            let (from, to) = unsafe {
                (
                    std::ptr::addr_of!((*src).views[view]).cast::<i16>(),
                    std::ptr::addr_of_mut!((*dst).views[view]).cast::<i16>(),
                )
            };
            let w1 = &self.p.w1;
            match self.kernel {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: `kernel` is AVX-512 only when the processor has
                // it (`best_available`, `with_kernel`); the pointers are
                // whole views, the rows whole rows of `w1`.
                Kernel::Avx512 => unsafe { avx512::update_view(from, to, w1, &old, sets, view, swaps) },
                #[cfg(target_arch = "x86_64")]
                // SAFETY: as above, for AVX2.
                Kernel::Avx2 => unsafe { avx2::update_view(from, to, w1, &old, sets, view, swaps) },
                #[cfg(target_arch = "aarch64")]
                // SAFETY: whole views of aligned cells (the caller's
                // contract); `kernel` is NEON only when the processor has it.
                Kernel::Neon => unsafe { neon::update_view(from, to, w1, &old, sets, view, swaps) },
                #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
                // SAFETY: whole views of aligned cells (the caller's
                // contract); the build has SIMD128.
                Kernel::Simd128 => unsafe { simd128::update_view(from, to, w1, &old, sets, view, swaps) },
                // SAFETY: whole views (the caller's contract).
                _ => unsafe { update_view_scalar(from, to, w1, &old, sets, view, swaps) },
            }
        }
        // SAFETY: `dst` is valid and unshared (the caller's contract).
        unsafe { (*dst).sets = *sets };
    }

    /// The score of the position `acc` holds, White or Black to move
    /// (`side`), in hundredths of a man from the side to move's view.
    #[inline(always)]
    pub fn output(&self, acc: &Accumulator, side: Color) -> Score {
        let us = side as usize;
        let pieces = acc.sets.iter().map(|s| s.count_ones()).sum::<u32>();
        let b = bucket(pieces);
        let mut z = [0i32; L2];
        let (own, other) = (&acc.views[us], &acc.views[1 - us]);
        let bucket = b * L2 * 2 * HIDDEN..(b + 1) * L2 * 2 * HIDDEN;
        // An 8-bit network reads its cells in 7 bits (`input7`).
        let seven = self.w2_quads.is_some();
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => match &self.w2_quads {
                // SAFETY: `kernel` is AVX-512 only when the processor has
                // it; `quads` is one bucket's whole second layer in steps.
                Some(quads) => unsafe { avx512::layer2_8bit(own, other, &quads[bucket], &mut z) },
                // SAFETY: as above; the slice is one bucket's whole second
                // layer in pairs.
                None => unsafe { avx512::layer2(own, other, &self.w2_pairs[bucket], &mut z) },
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for AVX2; the slice is one bucket's whole
            // second layer.
            Kernel::Avx2 => unsafe {
                match seven {
                    true => avx2::layer2::<true>(own, other, &self.p.w2[bucket], &mut z),
                    false => avx2::layer2::<false>(own, other, &self.p.w2[bucket], &mut z),
                }
            },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: `kernel` is NEON only when the processor has it (every
            // aarch64 processor does).
            Kernel::Neon => unsafe {
                match seven {
                    true => neon::layer2::<true>(own, other, &self.p.w2[bucket], &mut z),
                    false => neon::layer2::<false>(own, other, &self.p.w2[bucket], &mut z),
                }
            },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => match &self.w2_quads {
                #[cfg(target_feature = "relaxed-simd")]
                Some(quads) => simd128::layer2_relaxed(own, other, &quads[bucket], &mut z),
                _ => match seven {
                    true => simd128::layer2::<true>(own, other, &self.p.w2[bucket], &mut z),
                    false => simd128::layer2::<false>(own, other, &self.p.w2[bucket], &mut z),
                },
            },
            _ => layer2_scalar(&own.0, &other.0, &self.p.w2[bucket], seven, &mut z),
        }
        let row = &self.out_rows[b];
        let mut out = row.b3;
        for ((zj, b2), w3) in z.iter().zip(&row.b2).zip(&row.w3) {
            let a = (zj + b2).clamp(0, QA * QB);
            out += i64::from(a) * i64::from(*w3);
        }
        let denom = i64::from(QA) * i64::from(QB) * i64::from(QO);
        let cp = (out * 100).div_euclid(denom) as i32;
        (cp as Score).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// Evaluates `pos` from scratch, from the side to move's view.
    pub fn evaluate(&self, pos: &Position) -> Score {
        self.output(&self.refresh(pos), pos.side())
    }

    /// Evaluates `pos` through `cache`: the accumulator is updated from the
    /// last position evaluated at `slot` (usually a sibling in the tree) or
    /// the last one evaluated anywhere, whichever differs less, and
    /// computed afresh when both differ too much.
    ///
    /// Scores are also remembered by position (see [`NetCache`]): a
    /// position met again, mostly by another order of the same moves, is
    /// not evaluated twice.
    pub fn evaluate_cached(&self, pos: &Position, cache: &mut NetCache, slot: usize) -> Score {
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `kernel` is AVX-512 only when the processor has it
            // (`best_available`, `with_kernel`).
            Kernel::Avx512 => unsafe { self.evaluate_cached_avx512(pos, cache, slot) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for AVX2.
            Kernel::Avx2 => unsafe { self.evaluate_cached_avx2(pos, cache, slot) },
            _ => self.evaluate_cached_body(pos, cache, slot),
        }
    }

    /// [`Network::evaluate_cached`] compiled for AVX2 as a whole, so that
    /// the kernels inline into it and the code around them uses the same
    /// instructions, whatever the rest of the binary was built for (a
    /// portable build's baseline is x86-64-v2).
    ///
    /// # Safety
    /// The processor must have what [`Kernel::Avx2`] requires.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn evaluate_cached_avx2(&self, pos: &Position, cache: &mut NetCache, slot: usize) -> Score {
        self.evaluate_cached_body(pos, cache, slot)
    }

    /// [`Network::evaluate_cached`] compiled for AVX-512 as a whole.
    ///
    /// # Safety
    /// The processor must have what [`Kernel::Avx512`] requires.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx512vl,avx512dq,avx2,bmi1,bmi2,lzcnt,popcnt")]
    unsafe fn evaluate_cached_avx512(&self, pos: &Position, cache: &mut NetCache, slot: usize) -> Score {
        self.evaluate_cached_body(pos, cache, slot)
    }

    #[inline(always)]
    fn evaluate_cached_body(&self, pos: &Position, cache: &mut NetCache, slot: usize) -> Score {
        let sets = piece_sets(pos);
        let (index, check) = score_entry(&sets, pos.side(), cache.scores.len());
        let known = cache.scores[index];
        if known & CHECK_MASK == check {
            return Score::from(known as u16 as i16);
        }
        let slot = slot.min(cache.slots.len() - 1);
        let distance = |i: usize| match cache.valid[i] {
            true => cache.slots[i].sets.iter().zip(&sets).map(|(x, y)| (x ^ y).count_ones()).sum::<u32>(),
            false => u32::MAX,
        };
        let (d_slot, d_last) = (distance(slot), distance(cache.last));
        // A refresh adds a row per piece; an update one per changed piece.
        if d_slot.min(d_last) > pos.occupied().count_ones() {
            cache.slots[slot] = self.refresh(pos);
        } else {
            let from = if d_last < d_slot { cache.last } else { slot };
            let base = cache.slots.as_mut_ptr();
            // SAFETY: both indices are below `slots.len()` (`slot` was
            // clamped, `last` is always a slot's index), and no reference
            // into `slots` is live during the call.
            unsafe { self.update_raw(base.add(from), base.add(slot), &sets) };
        }
        cache.valid[slot] = true;
        cache.last = slot;
        let score = self.output(&cache.slots[slot], pos.side());
        cache.scores[index] = check | u64::from(score as i16 as u16);
        score
    }
}

/// Accumulators a search thread keeps between evaluations, one per ply,
/// and the scores of the positions it evaluated last.
///
/// The scores are a direct-mapped table of [`SCORE_ENTRIES`] words: the
/// high 48 bits of a 64-bit hash of the pieces and the side to move, the low
/// 16 the score. In a search 10-15% of the evaluations are of a position
/// the thread evaluated shortly before (the same men moved in another
/// order), and a word read from this core's cache is far cheaper than the
/// output layers. A false match needs two of the positions a thread meets
/// to agree on 62 bits of the hash (14 of the index, 48 checked). The
/// table belongs to one thread and one network: a search makes a new one.
#[derive(Clone, Debug)]
pub struct NetCache {
    slots: Vec<Accumulator>,
    valid: Vec<bool>,
    last: usize,
    scores: Vec<u64>,
}

/// Words in [`NetCache`]'s score table (128 KiB).
const SCORE_ENTRIES: usize = 1 << 14;
/// The checked part of a score word: the hash's high 48 bits.
const CHECK_MASK: u64 = !0xffff;
const _: () = assert!(EVAL_LIMIT <= i16::MAX as Score);

impl NetCache {
    /// Room for `slots` plies.
    pub fn new(slots: usize) -> NetCache {
        let empty = Accumulator { sets: [0; 4], views: [Cells([0; HIDDEN]); 2] };
        NetCache {
            slots: vec![empty; slots.max(1)],
            valid: vec![false; slots.max(1)],
            last: 0,
            // No position hashes to a zero check: see `score_entry`.
            scores: vec![0; SCORE_ENTRIES],
        }
    }
}

/// Where the score of the position of `sets` with `side` to move lives in a
/// table of `len` (a power of two) words, and the check its word carries
/// (never zero, so that an empty word matches nothing).
#[inline(always)]
fn score_entry(sets: &[Bitboard; 4], side: Color, len: usize) -> (usize, u64) {
    const MULTIPLIERS: [u64; 4] =
        [0xff51_afd7_ed55_8ccd, 0xc4ce_b9fe_1a85_ec53, 0x2545_f491_4f6c_dd1d, 0x9e37_79b9_7f4a_7c15];
    let mut h = (side as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for (set, m) in sets.iter().zip(MULTIPLIERS) {
        h = (h ^ set.wrapping_mul(m)).rotate_left(29);
    }
    // Murmur3's finaliser: every input bit reaches every output bit.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    let check = (h & CHECK_MASK).max(1 << 16);
    (h as usize & (len - 1), check)
}

/// Second layer on the scalar path: `z[j] = sum own.w2[j][..H] + other.w2[j][H..]`.
fn layer2_scalar(own: &[i16; HIDDEN], other: &[i16; HIDDEN], w2: &[i16], seven: bool, z: &mut [i32; L2]) {
    // The 7-bit inputs (`seven`) are in steps of two activation units.
    let (relu, scale): (fn(i16) -> i32, i32) = match seven {
        false => (|x| i32::from(x).clamp(0, QA), 1),
        true => (input7, 2),
    };
    for (j, zj) in z.iter_mut().enumerate() {
        let row = &w2[j * 2 * HIDDEN..(j + 1) * 2 * HIDDEN];
        let mut s = 0i32;
        for i in 0..HIDDEN {
            s += relu(own[i]) * i32::from(row[i]) + relu(other[i]) * i32::from(row[HIDDEN + i]);
        }
        *zj = s * scale;
    }
}

/// A cell as an 8-bit network's second layer reads it: clipped to
/// 0..=2 [`IN7_MAX`] (254, just under [`QA`]) and halved, rounding halves
/// up, into 0..=[`IN7_MAX`]: steps of two activation units, which the
/// second layer's sums take back (times 2). An unsigned byte holds 0..=255,
/// but the 8-bit dot products of WebAssembly (relaxed SIMD) and of x86
/// without VNNI (`pmaddubsw`, whose pair sums saturate) are exact only for
/// 7 bits; one rounding for every platform keeps the scores the same
/// everywhere. It moves a cell by one activation unit at most, and n7's
/// scores by 1.4 hundredths of a man (standard deviation, self-play
/// positions).
#[inline(always)]
pub fn input7(x: i16) -> i32 {
    (i32::from(x).clamp(0, 2 * IN7_MAX) + 1) >> 1
}

/// The pattern rows one view's update swaps: each (old row, new row) of a
/// window whose state changed, with the rows they index.
#[derive(Clone, Copy)]
struct Swaps<'a> {
    wp: &'a [i8],
    rows: &'a [(u32, u32)],
}

impl<'a> Swaps<'a> {
    /// The old and the new row of each swap.
    #[inline(always)]
    fn pairs(self) -> impl Iterator<Item = (&'a [i8], &'a [i8])> {
        self.rows.iter().map(move |&(from, to)| {
            (&self.wp[from as usize * HIDDEN..][..HIDDEN], &self.wp[to as usize * HIDDEN..][..HIDDEN])
        })
    }
}

/// The first-layer row of piece kind `kind` on `bit` in `view`.
#[inline(always)]
fn row_of(kind: usize, bit: u32, view: usize) -> usize {
    let (w, b) = inputs(kind, bit);
    if view == 0 {
        w
    } else {
        b
    }
}

/// One view of an update on the scalar path (see `update_view_body`).
///
/// # Safety
/// `src` and `dst` point to [`HIDDEN`] cells each (possibly the same).
unsafe fn update_view_scalar(
    src: *const i16,
    dst: *mut i16,
    w1: &[i16],
    old: &[Bitboard; 4],
    new: &[Bitboard; 4],
    view: usize,
    swaps: Swaps,
) {
    // SAFETY: `src` holds HIDDEN cells (the caller's contract).
    let mut cells: [i16; HIDDEN] = unsafe { src.cast::<[i16; HIDDEN]>().read_unaligned() };
    for kind in 0..4 {
        for (set, add) in [(old[kind] & !new[kind], false), (new[kind] & !old[kind], true)] {
            for bit in Bits(set) {
                let at = row_of(kind, bit, view) * HIDDEN;
                let row = &w1[at..at + HIDDEN];
                if add {
                    cells.iter_mut().zip(row).for_each(|(c, w)| *c = c.wrapping_add(*w));
                } else {
                    cells.iter_mut().zip(row).for_each(|(c, w)| *c = c.wrapping_sub(*w));
                }
            }
        }
    }
    for (old, new) in swaps.pairs() {
        for ((c, o), n) in cells.iter_mut().zip(old).zip(new) {
            *c = c.wrapping_sub(i16::from(*o)).wrapping_add(i16::from(*n));
        }
    }
    // SAFETY: `dst` holds HIDDEN cells (the caller's contract).
    unsafe { dst.cast::<[i16; HIDDEN]>().write_unaligned(cells) };
}

/// The body of a SIMD kernel's `update_view` (one per register width, the
/// same steps): `src` plus the rows of the pieces of `new` not in `old`,
/// minus those of `old` not in `new`, with each pattern row of `$swaps`
/// swapped, into `dst`, for one view, with the cells held in registers
/// across all the rows (wrapping i16 sums, as the scalar path). `$zero`,
/// `$load_cells` (aligned), `$load` (unaligned: the weight rows), `$add`,
/// `$sub` and `$store_cells` (aligned) are the width's intrinsics,
/// `$widen` its load of `$lanes` i8 weights as i16, `$lanes` its cells a
/// register.
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
macro_rules! update_view_body {
    ($src:ident, $dst:ident, $w1:ident, $old:ident, $new:ident, $view:ident, $swaps:ident;
     $lanes:expr, $zero:ident, $load_cells:ident, $load:ident, $add:ident, $sub:ident, $store_cells:ident, $widen:ident) => {{
        debug_assert!($src as usize % 64 == 0 && $dst as usize % 64 == 0);
        let mut c = [$zero(); HIDDEN / $lanes];
        for (i, x) in c.iter_mut().enumerate() {
            // SAFETY: `src` holds HIDDEN cells, aligned as `Cells`.
            *x = unsafe { $load_cells($src.add($lanes * i).cast()) };
        }
        // Removals and additions in loops of their own: no branch per row.
        for kind in 0..4 {
            for bit in Bits($old[kind] & !$new[kind]) {
                let row = &$w1[row_of(kind, bit, $view) * HIDDEN..][..HIDDEN];
                for (i, x) in c.iter_mut().enumerate() {
                    // SAFETY: `row` has HIDDEN elements; unaligned load.
                    *x = $sub(*x, unsafe { $load(row.as_ptr().add($lanes * i).cast()) });
                }
            }
            for bit in Bits($new[kind] & !$old[kind]) {
                let row = &$w1[row_of(kind, bit, $view) * HIDDEN..][..HIDDEN];
                for (i, x) in c.iter_mut().enumerate() {
                    // SAFETY: as above.
                    *x = $add(*x, unsafe { $load(row.as_ptr().add($lanes * i).cast()) });
                }
            }
        }
        for (old, new) in $swaps.pairs() {
            for (i, x) in c.iter_mut().enumerate() {
                // SAFETY: both rows have HIDDEN elements; unaligned loads.
                *x = unsafe {
                    $add($sub(*x, $widen(old.as_ptr().add($lanes * i))), $widen(new.as_ptr().add($lanes * i)))
                };
            }
        }
        for (i, x) in c.iter().enumerate() {
            // SAFETY: `dst` holds HIDDEN cells, aligned as `Cells`; every
            // read of `src` is done.
            unsafe { $store_cells($dst.add($lanes * i).cast(), *x) };
        }
    }};
}

// The AVX2 kernel reads the weights with `lddqu`, not `loadu`: a portable
// build's baseline (x86-64-v2) tunes for processors where an unaligned
// 32-byte load is slow, and LLVM then splits every `loadu` into two 16-byte
// halves, even inside these AVX2 functions (1.16 times the native build's
// time on `bench`). `lddqu` is the same load and is never split; the
// accumulator's cells, 64-byte aligned, are read and written aligned.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{row_of, Bitboard, Bits, Cells, Swaps, HIDDEN, IN7_MAX, L2, QA};
    use std::arch::x86_64::*;

    const LANES: usize = 16;
    const CHUNKS: usize = HIDDEN / LANES;
    const _: () = assert!(HIDDEN.is_multiple_of(LANES));

    /// One view of an update (see `update_view_body`), 16 cells a register.
    ///
    /// # Safety
    /// The processor must have AVX2; `src` and `dst` point to [`HIDDEN`]
    /// cells each (possibly the same); `w1` is the whole first layer.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn update_view(
        src: *const i16,
        dst: *mut i16,
        w1: &[i16],
        old: &[Bitboard; 4],
        new: &[Bitboard; 4],
        view: usize,
        swaps: Swaps,
    ) {
        update_view_body!(src, dst, w1, old, new, view, swaps;
            LANES, _mm256_setzero_si256, _mm256_load_si256, _mm256_lddqu_si256, _mm256_add_epi16, _mm256_sub_epi16,
            _mm256_store_si256, widen)
    }

    /// 16 i8 weights at `p` as i16 cells.
    ///
    /// # Safety
    /// The processor must have AVX2; `p` points to 16 readable bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn widen(p: *const i8) -> __m256i {
        // SAFETY: 16 readable bytes (the caller's contract); unaligned load.
        _mm256_cvtepi8_epi16(unsafe { _mm_loadu_si128(p.cast()) })
    }

    /// The second layer: clipped ReLU of both views, then one i16 x i16 ->
    /// i32 dot product per output cell (the same sums as the scalar path:
    /// the products and their sums fit in i32). Eight output cells at a
    /// time, so that each input chunk is loaded and clipped once per eight.
    /// (The pair layout of the AVX-512 kernel measured 1% slower here: with
    /// 16 cells a register it needs twice the broadcasts.) `SEVEN`: the
    /// cells as an 8-bit network reads them (`input7`), the sums doubled.
    ///
    /// # Safety
    /// The processor must have AVX2; `w2` is one bucket's second layer
    /// (`L2 x 2 HIDDEN`, as stored).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn layer2<const SEVEN: bool>(
        own: &Cells,
        other: &Cells,
        w2: &[i16],
        z: &mut [i32; L2],
    ) {
        const BLOCK: usize = 8;
        const _: () = assert!(L2.is_multiple_of(BLOCK));
        assert!(w2.len() >= L2 * 2 * HIDDEN);
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(if SEVEN { 2 * IN7_MAX } else { QA } as i16);
        for block in 0..L2 / BLOCK {
            let mut sums = [_mm256_setzero_si256(); BLOCK];
            for k in 0..2 * HIDDEN / LANES {
                let src = if k < CHUNKS { &own.0[LANES * k..] } else { &other.0[LANES * k - HIDDEN..] };
                // SAFETY: `src` has at least 16 cells, 32-byte aligned
                // (chunk k of a 64-byte aligned `Cells`); row (block * BLOCK
                // + r) of w2 has 2 HIDDEN elements, of which 16 are read at
                // 16 k (the length is asserted).
                unsafe {
                    let x = _mm256_load_si256(src.as_ptr().cast());
                    let x = _mm256_min_epi16(_mm256_max_epi16(x, zero), top);
                    // (x + 1) >> 1, as `input7` rounds.
                    let x = if SEVEN { _mm256_avg_epu16(x, zero) } else { x };
                    for (r, sum) in sums.iter_mut().enumerate() {
                        let at = (block * BLOCK + r) * 2 * HIDDEN + LANES * k;
                        let w = _mm256_lddqu_si256(w2.as_ptr().add(at).cast());
                        *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(x, w));
                    }
                }
            }
            for (r, sum) in sums.iter().enumerate() {
                let lo = _mm256_castsi256_si128(*sum);
                let hi = _mm256_extracti128_si256(*sum, 1);
                let s = _mm_add_epi32(lo, hi);
                let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
                let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
                z[block * BLOCK + r] = _mm_cvtsi128_si32(s) << u32::from(SEVEN);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{row_of, Bitboard, Bits, Cells, Swaps, HIDDEN, IN7_MAX, L2, QA, W2_STEP};
    use std::arch::x86_64::*;

    const LANES: usize = 32;
    const _: () = assert!((W2_STEP as u32).is_power_of_two() && (HIDDEN / 2).is_multiple_of(8));
    const CHUNKS: usize = HIDDEN / LANES;
    // One register holds the 16 outputs; the pair loop takes 8 at a time.
    const _: () = assert!(HIDDEN.is_multiple_of(LANES) && HIDDEN.is_multiple_of(8) && L2 == 16);

    /// One view of an update (see `update_view_body`), 32 cells a register.
    ///
    /// # Safety
    /// The processor must have AVX-512 F and BW; `src` and `dst` point to
    /// [`HIDDEN`] cells each (possibly the same); `w1` is the whole first
    /// layer.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) unsafe fn update_view(
        src: *const i16,
        dst: *mut i16,
        w1: &[i16],
        old: &[Bitboard; 4],
        new: &[Bitboard; 4],
        view: usize,
        swaps: Swaps,
    ) {
        update_view_body!(src, dst, w1, old, new, view, swaps;
            LANES, _mm512_setzero_si512, _mm512_load_si512, _mm512_loadu_si512, _mm512_add_epi16, _mm512_sub_epi16,
            _mm512_store_si512, widen)
    }

    /// 32 i8 weights at `p` as i16 cells.
    ///
    /// # Safety
    /// The processor must have AVX-512 BW; `p` points to 32 readable bytes.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    unsafe fn widen(p: *const i8) -> __m512i {
        // SAFETY: 32 readable bytes (the caller's contract); unaligned load.
        _mm512_cvtepi8_epi16(unsafe { _mm256_loadu_si256(p.cast()) })
    }

    /// The second layer: both views clipped into one buffer, then each
    /// pair of clipped cells, broadcast, multiplied with its row of `pairs`
    /// (the pair's weights for all 16 outputs, one register) and added,
    /// multiply and add fused (`vpdpwssd`): the same exact i32 sums as the
    /// scalar path, in another order, and no horizontal sums at the end.
    ///
    /// # Safety
    /// The processor must have AVX-512 F, BW and VNNI; `pairs` is one
    /// bucket's second layer in the layout of `Network::w2_pairs`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    pub(super) unsafe fn layer2(own: &Cells, other: &Cells, pairs: &[i16], z: &mut [i32; L2]) {
        assert!(pairs.len() >= 2 * HIDDEN * L2);
        let mut x = Cells2([0; 2 * HIDDEN]);
        for (half, cells) in [own, other].into_iter().enumerate() {
            for i in 0..CHUNKS {
                // SAFETY: the processor has AVX-512 BW (this function's own
                // requirement); chunk i of HIDDEN cells, and of the half of `x`.
                unsafe {
                    let v = clipped(cells, i);
                    _mm512_storeu_si512(x.0.as_mut_ptr().add(half * HIDDEN + LANES * i).cast(), v);
                }
            }
        }
        // Each broadcast reads its pair from memory (a volatile read, which
        // the compiler keeps): a baseline-tuned build otherwise takes the
        // pairs out of the stored registers with shuffles, 1.5 times the
        // time of this kernel.
        let xs = x.0.as_ptr().cast::<i32>();
        let w = pairs.as_ptr();
        // Eight sums in flight: the fused multiply-add's latency (about
        // five cycles) over its rate (two a cycle) needs about ten.
        let mut acc = [_mm512_setzero_si512(); 8];
        for k in (0..HIDDEN).step_by(8) {
            for (t, a) in acc.iter_mut().enumerate() {
                // SAFETY: pair k + t of the HIDDEN pairs in `x`, 4-byte
                // aligned; its row (2 L2 weights) lies inside `pairs`
                // (asserted).
                unsafe {
                    let v = _mm512_set1_epi32(xs.add(k + t).read_volatile());
                    *a = _mm512_dpwssd_epi32(*a, v, _mm512_loadu_si512(w.add((k + t) * 2 * L2).cast()));
                }
            }
        }
        let sum = sum8(&acc);
        // SAFETY: z has 16 i32, one unaligned store.
        unsafe { _mm512_storeu_si512(z.as_mut_ptr().cast(), sum) };
    }

    /// The second layer of an 8-bit network: both views' cells in 7 bits
    /// (`input7`) into one buffer of bytes, then each quad of them,
    /// broadcast, multiplied with its row of `quads` (the quad's weights in
    /// steps for all 16 outputs, one register) and added (`vpdpbusd`:
    /// unsigned bytes by signed bytes, four products a lane): half the
    /// multiply-adds of `layer2`. The sums times 2 [`W2_STEP`] are the
    /// scalar path's exactly (at most 256 x 127 x 128 x 128 in size, inside
    /// i32).
    ///
    /// # Safety
    /// The processor must have AVX-512 F, BW and VNNI; `quads` is one
    /// bucket's second layer in the layout of `Network::w2_quads`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    pub(super) unsafe fn layer2_8bit(own: &Cells, other: &Cells, quads: &[i8], z: &mut [i32; L2]) {
        assert!(quads.len() >= 2 * HIDDEN * L2);
        let mut x = Bytes2([0; 2 * HIDDEN]);
        for (half, cells) in [own, other].into_iter().enumerate() {
            for i in 0..CHUNKS {
                // SAFETY: as in `layer2`; 32-byte aligned (chunk i of a
                // half of the 64-byte aligned buffer), so the store is never
                // split in two.
                unsafe {
                    let v = _mm512_loadu_si512(cells.0.as_ptr().add(LANES * i).cast());
                    let zero = _mm512_setzero_si512();
                    let v =
                        _mm512_min_epi16(_mm512_max_epi16(v, zero), _mm512_set1_epi16(2 * IN7_MAX as i16));
                    // (x + 1) >> 1, as `input7` rounds.
                    let bytes = _mm512_cvtepi16_epi8(_mm512_avg_epu16(v, zero));
                    _mm256_store_si256(x.0.as_mut_ptr().add(half * HIDDEN + LANES * i).cast(), bytes);
                }
            }
        }
        // Broadcasts from memory, as in `layer2`.
        let xs = x.0.as_ptr().cast::<i32>();
        let w = quads.as_ptr();
        let mut acc = [_mm512_setzero_si512(); 8];
        for k in (0..HIDDEN / 2).step_by(8) {
            for (t, a) in acc.iter_mut().enumerate() {
                // SAFETY: quad k + t of the HIDDEN / 2 quads in `x`, 4-byte
                // aligned; its row (4 L2 weights) lies inside `quads`
                // (asserted).
                unsafe {
                    let v = _mm512_set1_epi32(xs.add(k + t).read_volatile());
                    *a = _mm512_dpbusd_epi32(*a, v, _mm512_loadu_si512(w.add((k + t) * 4 * L2).cast()));
                }
            }
        }
        let sum = _mm512_slli_epi32(sum8(&acc), W2_STEP.trailing_zeros() + 1);
        // SAFETY: z has 16 i32, one unaligned store.
        unsafe { _mm512_storeu_si512(z.as_mut_ptr().cast(), sum) };
    }

    /// Chunk `i` (below `CHUNKS`) of `cells` clipped to 0..=QA: the input
    /// of the 16-bit second layer.
    ///
    /// # Safety
    /// The processor must have AVX-512 F and BW; `i` < `CHUNKS`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn clipped(cells: &Cells, i: usize) -> __m512i {
        debug_assert!(i < CHUNKS);
        // SAFETY: chunk i lies inside the HIDDEN cells (the caller's `i`).
        let v = unsafe { _mm512_loadu_si512(cells.0.as_ptr().add(LANES * i).cast()) };
        _mm512_min_epi16(_mm512_max_epi16(v, _mm512_setzero_si512()), _mm512_set1_epi16(QA as i16))
    }

    /// The sum of the eight accumulators the second-layer kernels keep in
    /// flight.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn sum8(a: &[__m512i; 8]) -> __m512i {
        let half =
            |a: &[__m512i]| _mm512_add_epi32(_mm512_add_epi32(a[0], a[1]), _mm512_add_epi32(a[2], a[3]));
        _mm512_add_epi32(half(&a[..4]), half(&a[4..]))
    }

    /// Both views' clipped cells as bytes, aligned for whole-register access.
    #[repr(C, align(64))]
    struct Bytes2([u8; 2 * HIDDEN]);

    /// Both views' clipped cells, aligned for whole-register access.
    #[repr(C, align(64))]
    struct Cells2([i16; 2 * HIDDEN]);
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use super::{row_of, Bitboard, Bits, Cells, Swaps, HIDDEN, IN7_MAX, L2, QA};
    use std::arch::aarch64::*;

    // The functions name NEON as their target feature (which every aarch64
    // processor has), so that the intrinsics are safe to call inside them.

    const LANES: usize = 8;
    const _: () = assert!(HIDDEN.is_multiple_of(LANES));

    /// One view of an update (see `update_view_body`), 8 cells a register:
    /// the 16 registers of a view stay in the 32 the processor has.
    ///
    /// # Safety
    /// `src` and `dst` point to [`HIDDEN`] cells each (possibly the same),
    /// 64-byte aligned; `w1` is the whole first layer.
    #[target_feature(enable = "neon")]
    #[inline]
    pub(super) unsafe fn update_view(
        src: *const i16,
        dst: *mut i16,
        w1: &[i16],
        old: &[Bitboard; 4],
        new: &[Bitboard; 4],
        view: usize,
        swaps: Swaps,
    ) {
        update_view_body!(src, dst, w1, old, new, view, swaps;
            LANES, zero, vld1q_s16, vld1q_s16, vaddq_s16, vsubq_s16, vst1q_s16, widen)
    }

    #[target_feature(enable = "neon")]
    #[inline]
    fn zero() -> int16x8_t {
        vdupq_n_s16(0)
    }

    /// 8 i8 weights at `p` as i16 cells.
    ///
    /// # Safety
    /// `p` points to 8 readable bytes.
    #[target_feature(enable = "neon")]
    #[inline]
    unsafe fn widen(p: *const i8) -> int16x8_t {
        // SAFETY: 8 readable bytes (the caller's contract).
        vmovl_s8(unsafe { vld1_s8(p) })
    }

    /// The second layer: clipped ReLU of both views, then one i16 x i16 ->
    /// i32 dot product per output cell, widening multiply-adds of the low
    /// and high halves (the same exact sums as the scalar path, in another
    /// order). Eight output cells at a time, so that each input chunk is
    /// loaded and clipped once per eight. `SEVEN`: the cells as an 8-bit
    /// network reads them (`input7`), the sums doubled.
    #[target_feature(enable = "neon")]
    #[inline]
    pub(super) fn layer2<const SEVEN: bool>(own: &Cells, other: &Cells, w2: &[i16], z: &mut [i32; L2]) {
        const BLOCK: usize = 8;
        const _: () = assert!(L2.is_multiple_of(BLOCK));
        assert!(w2.len() >= L2 * 2 * HIDDEN);
        let zero = vdupq_n_s16(0);
        let top = vdupq_n_s16(if SEVEN { 2 * IN7_MAX } else { QA } as i16);
        for block in 0..L2 / BLOCK {
            let mut sums = [vdupq_n_s32(0); BLOCK];
            for k in 0..2 * HIDDEN / LANES {
                let src =
                    if k < HIDDEN / LANES { &own.0[LANES * k..] } else { &other.0[LANES * k - HIDDEN..] };
                // SAFETY: `src` has at least 8 cells; row (block * BLOCK + r)
                // of w2 has 2 HIDDEN elements, of which 8 are read at 8 k
                // (the length is asserted).
                unsafe {
                    let x = vminq_s16(vmaxq_s16(vld1q_s16(src.as_ptr()), zero), top);
                    // (x + 1) >> 1, as `input7` rounds.
                    let x = if SEVEN {
                        vreinterpretq_s16_u16(vrhaddq_u16(vreinterpretq_u16_s16(x), vdupq_n_u16(0)))
                    } else {
                        x
                    };
                    for (r, sum) in sums.iter_mut().enumerate() {
                        let w = vld1q_s16(w2.as_ptr().add((block * BLOCK + r) * 2 * HIDDEN + LANES * k));
                        *sum = vmlal_high_s16(vmlal_s16(*sum, vget_low_s16(x), vget_low_s16(w)), x, w);
                    }
                }
            }
            for (r, sum) in sums.iter().enumerate() {
                z[block * BLOCK + r] = vaddvq_s32(*sum) << u32::from(SEVEN);
            }
        }
    }
}

/// The WebAssembly kernel: NEON's shapes in SIMD128, whose integer
/// instructions the browser maps to SSE or NEON.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::{row_of, Bitboard, Bits, Cells, Swaps, HIDDEN, IN7_MAX, L2, QA};
    use std::arch::wasm32::*;

    const LANES: usize = 8;
    const _: () = assert!(HIDDEN.is_multiple_of(LANES));

    /// One view of an update (see `update_view_body`), 8 cells a register.
    ///
    /// # Safety
    /// `src` and `dst` point to [`HIDDEN`] cells each (possibly the same),
    /// 64-byte aligned; `w1` is the whole first layer.
    #[inline]
    pub(super) unsafe fn update_view(
        src: *const i16,
        dst: *mut i16,
        w1: &[i16],
        old: &[Bitboard; 4],
        new: &[Bitboard; 4],
        view: usize,
        swaps: Swaps,
    ) {
        update_view_body!(src, dst, w1, old, new, view, swaps;
            LANES, zero, load, load, i16x8_add, i16x8_sub, store, widen)
    }

    #[inline]
    fn zero() -> v128 {
        i16x8_splat(0)
    }

    /// 8 cells at `p` (WebAssembly loads need no alignment).
    ///
    /// # Safety
    /// `p` points to 8 readable cells.
    #[inline]
    unsafe fn load(p: *const v128) -> v128 {
        // SAFETY: 16 readable bytes (the caller's contract).
        unsafe { v128_load(p) }
    }

    /// Stores 8 cells at `p`.
    ///
    /// # Safety
    /// `p` points to 8 writable cells.
    #[inline]
    unsafe fn store(p: *mut v128, x: v128) {
        // SAFETY: 16 writable bytes (the caller's contract).
        unsafe { v128_store(p, x) }
    }

    /// 8 i8 weights at `p` as i16 cells.
    ///
    /// # Safety
    /// `p` points to 8 readable bytes.
    #[inline]
    unsafe fn widen(p: *const i8) -> v128 {
        // SAFETY: 8 readable bytes (the caller's contract).
        unsafe { i16x8_load_extend_i8x8(p) }
    }

    /// The second layer: clipped ReLU of both views, then one i16 x i16 ->
    /// i32 dot product per output cell (`i32x4.dot_i16x8_s`, SSE's
    /// `pmaddwd`; the same exact sums as the scalar path, in another
    /// order). Eight output cells at a time, so that each input chunk is
    /// loaded and clipped once per eight. `SEVEN`: the cells as an 8-bit
    /// network reads them (`input7`), the sums doubled.
    #[inline]
    pub(super) fn layer2<const SEVEN: bool>(own: &Cells, other: &Cells, w2: &[i16], z: &mut [i32; L2]) {
        const BLOCK: usize = 8;
        const _: () = assert!(L2.is_multiple_of(BLOCK));
        assert!(w2.len() >= L2 * 2 * HIDDEN);
        let zero = i16x8_splat(0);
        let top = i16x8_splat(if SEVEN { 2 * IN7_MAX } else { QA } as i16);
        for block in 0..L2 / BLOCK {
            let mut sums = [i32x4_splat(0); BLOCK];
            for k in 0..2 * HIDDEN / LANES {
                let src =
                    if k < HIDDEN / LANES { &own.0[LANES * k..] } else { &other.0[LANES * k - HIDDEN..] };
                // SAFETY: `src` has at least 8 cells; row (block * BLOCK + r)
                // of w2 has 2 HIDDEN elements, of which 8 are read at 8 k
                // (the length is asserted).
                unsafe {
                    let x = i16x8_min(i16x8_max(v128_load(src.as_ptr().cast()), zero), top);
                    // (x + 1) >> 1, as `input7` rounds.
                    let x = if SEVEN { u16x8_avgr(x, zero) } else { x };
                    for (r, sum) in sums.iter_mut().enumerate() {
                        let w =
                            v128_load(w2.as_ptr().add((block * BLOCK + r) * 2 * HIDDEN + LANES * k).cast());
                        *sum = i32x4_add(*sum, i32x4_dot_i16x8(x, w));
                    }
                }
            }
            for (r, sum) in sums.iter().enumerate() {
                z[block * BLOCK + r] = (i32x4_extract_lane::<0>(*sum)
                    + i32x4_extract_lane::<1>(*sum)
                    + i32x4_extract_lane::<2>(*sum)
                    + i32x4_extract_lane::<3>(*sum))
                    << u32::from(SEVEN);
            }
        }
    }

    /// The second layer of an 8-bit network with relaxed SIMD (a build
    /// that enables it: `web/build.sh`'s first module): the cells in 7 bits
    /// (`input7`) as bytes, then AVX-512's shape in four registers: each
    /// quad of bytes, broadcast, against its row of `quads` (the quad's
    /// weights in steps for 4 outputs a register), `i32x4.relaxed_dot_i8x16_i7x16_add_s`:
    /// 16 products an instruction, against 8 for `layer2`'s. The dot product
    /// is relaxed only for a second operand over 127 (signed or unsigned,
    /// as the processor has it) and for pair sums over i16 (saturated or
    /// wrapped); 7-bit inputs by 8-bit weights meet neither (pairs at most
    /// 2 x 127 x 128), so the sums are exact everywhere. Times 2 [`W2_STEP`]
    /// they are the scalar path's.
    #[cfg(target_feature = "relaxed-simd")]
    #[inline]
    pub(super) fn layer2_relaxed(own: &Cells, other: &Cells, quads: &[i8], z: &mut [i32; L2]) {
        const GROUPS: usize = L2 / 4;
        assert!(quads.len() >= 2 * HIDDEN * L2);
        let mut x = [0u8; 2 * HIDDEN];
        let (zero, top) = (i16x8_splat(0), i16x8_splat(2 * IN7_MAX as i16));
        for (half, cells) in [own, other].into_iter().enumerate() {
            for i in (0..HIDDEN).step_by(2 * LANES) {
                // SAFETY: cells i..i + 16 lie inside the view's HIDDEN
                // cells, bytes half * HIDDEN + i.. (16 of them) inside `x`.
                unsafe {
                    let seven = |p: *const i16| {
                        u16x8_avgr(i16x8_min(i16x8_max(v128_load(p.cast()), zero), top), zero)
                    };
                    let lo = seven(cells.0.as_ptr().add(i));
                    let hi = seven(cells.0.as_ptr().add(i + LANES));
                    v128_store(x.as_mut_ptr().add(half * HIDDEN + i).cast(), u8x16_narrow_i16x8(lo, hi));
                }
            }
        }
        // Two sets of sums, for even and odd quads: two chains of
        // dependent multiply-adds instead of one, each half as long.
        let mut acc = [[i32x4_splat(0); GROUPS]; 2];
        for k in 0..HIDDEN / 2 {
            // SAFETY: quad k of the 2 HIDDEN bytes of `x`; its row (4 L2
            // weights) lies inside `quads` (asserted).
            unsafe {
                let v = v128_load32_splat(x.as_ptr().add(4 * k).cast());
                for (g, a) in acc[k % 2].iter_mut().enumerate() {
                    let w = v128_load(quads.as_ptr().add((k * L2 + 4 * g) * 4).cast());
                    *a = i32x4_relaxed_dot_i8x16_i7x16_add(w, v, *a);
                }
            }
        }
        let shift = super::W2_STEP.trailing_zeros() + 1;
        for (g, (even, odd)) in acc[0].iter().zip(&acc[1]).enumerate() {
            let sum = i32x4_shl(i32x4_add(*even, *odd), shift);
            // SAFETY: outputs 4 g..4 g + 4 of the L2 in `z`.
            unsafe { v128_store(z.as_mut_ptr().add(4 * g).cast(), sum) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix;
    use crate::rules::movegen::legal_moves;

    /// n7's scores (`the_embedded_network_keeps_its_scores`): the sum over
    /// 5,000 positions and the first eight. Change only with the network or
    /// its integer inference (8-bit networks read 7-bit inputs since
    /// 2026-12-07).
    const EMBEDDED_SCORES: (i64, [Score; 8]) = (89180, [16, -4, -24, 8, 8, -16, 24, -27]);

    fn random_net(seed: u64) -> FloatNetwork {
        let mut rng = SplitMix(seed);
        let mut net = FloatNetwork::zeros();
        let scales = [0.15f32, 0.3, 0.08, 0.2, 2.0, 0.3];
        for (a, s) in net.arrays_mut().into_iter().zip(scales) {
            for x in a.iter_mut() {
                *x = (rng.next_u64() % 20001) as f32 / 10000.0 * s - s;
            }
        }
        net
    }

    /// A random network with pattern inputs.
    fn random_pattern_net(seed: u64) -> FloatNetwork {
        let mut net = random_net(seed).with_patterns();
        let mut rng = SplitMix(seed ^ 0x9a77);
        net.w1.iter_mut().for_each(|x| *x *= 0.7);
        for x in &mut net.wp {
            *x = (rng.next_u64() % 20001) as f32 / 10000.0 * 0.12 - 0.12;
        }
        net
    }

    /// Positions of random games from the start.
    fn random_positions(seed: u64, n: usize) -> Vec<Position> {
        let mut rng = SplitMix(seed);
        let mut out = Vec::new();
        while out.len() < n {
            let mut pos = Position::start();
            for _ in 0..(rng.next_u64() % 120) {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos = pos.make(&moves.as_slice()[rng.below(moves.len())]);
                out.push(pos);
            }
        }
        out.truncate(n);
        out
    }

    #[test]
    fn integer_network_follows_the_float_one() {
        for float in [random_net(7), random_pattern_net(7)] {
            let net = float.quantise();
            let mut worst = 0f32;
            for pos in random_positions(3, 500) {
                let f = float.evaluate(&pos) * 100.0;
                let i = net.evaluate(&pos) as f32;
                if f.abs() < EVAL_LIMIT as f32 - 10.0 {
                    worst = worst.max((f - i).abs());
                }
            }
            assert!(worst < 5.0, "integer and float networks differ by {worst} hundredths");
        }
    }

    #[test]
    fn black_s_pattern_rows_are_white_s_of_the_flipped_position() {
        for pos in random_positions(37, 500) {
            let m = pos.flipped();
            let (a, b) = (
                pattern_rows(pos.men(Color::White), pos.men(Color::Black)),
                pattern_rows(m.men(Color::White), m.men(Color::Black)),
            );
            assert_eq!((a[0], a[1]), (b[1], b[0]), "{}", pos.to_fen());
        }
        // The empty window is state 0 of every table.
        let empty = pattern_rows(0, 0);
        assert!(empty.iter().flatten().enumerate().all(|(i, &r)| r as usize == (i % 8) * PATTERN_STATES));
    }

    #[test]
    fn zero_pattern_rows_score_as_the_network_without_them() {
        let plain = Network::from_bytes(EMBEDDED).expect("embedded network");
        let with = FloatNetwork::from_network(&plain).with_patterns().quantise();
        assert!(with.has_patterns() && !plain.has_patterns());
        for pos in random_positions(47, 300) {
            assert_eq!(with.evaluate(&pos), plain.evaluate(&pos), "{}", pos.to_fen());
        }
    }

    #[test]
    fn an_integer_network_turned_into_floats_quantises_back_to_itself() {
        let net = Network::from_bytes(EMBEDDED).expect("embedded network");
        let back = FloatNetwork::from_network(&net).quantise();
        let (a, b) = (net.parts(), back.parts());
        assert!(a.w1 == b.w1 && a.b1 == b.b1 && a.w2 == b.w2 && a.b2 == b.b2 && a.w3 == b.w3);
        for (x, y) in a.b3.iter().zip(&b.b3) {
            // One man is QA * QB * QO (2.7e8) at this scale; f32 keeps 24 bits.
            assert!((x - y).abs() <= x.abs() / (1 << 22) + 1, "output bias {x} came back as {y}");
        }
        for pos in random_positions(5, 300) {
            assert_eq!(net.evaluate(&pos), back.evaluate(&pos), "{pos:?}");
        }
    }

    #[test]
    fn every_kernel_gives_the_scalar_scores_bit_for_bit() {
        let eight_bit = {
            // Second-layer weights across the whole 8-bit range.
            let mut f = random_net(29);
            f.w2.iter_mut().for_each(|x| *x *= 10.0);
            f.snap_w2();
            f.quantise()
        };
        assert!(eight_bit.w2_quads.is_some());
        let nets = [
            random_net(11).quantise(),
            random_pattern_net(11).quantise(),
            Network::from_bytes(EMBEDDED).expect("embedded network"),
            Network::from_bytes(EMBEDDED_VARIANTS[0].1).expect("embedded network"),
            eight_bit,
        ];
        for net in nets {
            let scalar = net.with_kernel(Kernel::Scalar).expect("scalar runs anywhere");
            let positions = random_positions(5, 2000);
            // Every aarch64 processor has NEON: there it is always tested;
            // SIMD128 wherever the WebAssembly build enables it.
            assert_eq!(Kernel::Neon.runs_here(), cfg!(target_arch = "aarch64"));
            assert_eq!(
                Kernel::Simd128.runs_here(),
                cfg!(all(target_arch = "wasm32", target_feature = "simd128"))
            );
            for kernel in [Kernel::Avx2, Kernel::Avx512, Kernel::Neon, Kernel::Simd128] {
                let Some(fast) = net.with_kernel(kernel) else {
                    eprintln!("no {} here: not tested", kernel.name());
                    continue;
                };
                let (mut a, mut b) = (fast.refresh(&positions[0]), scalar.refresh(&positions[0]));
                let (mut ca, mut cb) = (NetCache::new(4), NetCache::new(4));
                for (i, pos) in positions.iter().enumerate() {
                    assert_eq!(fast.refresh(pos), scalar.refresh(pos));
                    fast.update(&mut a, pos);
                    scalar.update(&mut b, pos);
                    assert_eq!(a, b);
                    assert_eq!(
                        fast.output(&a, pos.side()),
                        scalar.output(&b, pos.side()),
                        "{}",
                        pos.to_fen()
                    );
                    assert_eq!(
                        fast.evaluate_cached(pos, &mut ca, i % 3),
                        scalar.evaluate_cached(pos, &mut cb, i % 3)
                    );
                }
            }
        }
    }

    #[test]
    fn an_8_bit_network_reads_its_cells_in_7_bits_rounding_halves_up() {
        let cases =
            [(-300, 0), (0, 0), (1, 1), (2, 1), (3, 2), (128, 64), (253, 127), (254, 127), (255, 127)];
        for (cell, input) in cases {
            assert_eq!(input7(cell), input, "cell {cell}");
        }
        assert_eq!(input7(i16::MAX), IN7_MAX);
        // Twice the input is never more than one activation unit off the
        // clipped cell (below the clip).
        for cell in 0..=254i16 {
            assert!((2 * input7(cell) - i32::from(cell)).abs() <= 1);
        }
    }

    #[test]
    fn only_a_network_on_the_steps_is_8_bit() {
        // n7 was fitted on the steps; the variants' networks were not.
        assert!(Network::from_bytes(EMBEDDED).expect("embedded network").is_8_bit());
        for (_, bytes) in EMBEDDED_VARIANTS {
            assert!(!Network::from_bytes(bytes).expect("embedded network").is_8_bit());
        }
        assert!(!random_net(31).quantise().is_8_bit());
        let mut f = random_net(31);
        f.snap_w2();
        let net = f.quantise();
        let quads = net.w2_quads.as_ref().expect("an 8-bit network");
        // Every weight once, in steps.
        assert_same_weights(
            quads.iter().map(|&q| i32::from(q) * W2_STEP).collect(),
            net.p.w2.iter().map(|&w| i32::from(w)).collect(),
        );
        // One weight off the steps, or beyond an i8 of them, and the
        // network keeps the 16-bit path.
        for w in [W2_STEP + 1, 128 * W2_STEP] {
            let mut p = net.p.clone();
            p.w2[77] = w as i16;
            assert!(Network::from_parts(p).w2_quads.is_none(), "{w}");
        }
    }

    #[test]
    fn the_second_layer_in_pairs_holds_every_weight_once() {
        let net = random_net(31).quantise();
        let a = net.parts().w2.clone();
        let b = pair_layout(&a);
        assert_ne!(a, b);
        assert_same_weights(a, b);
    }

    /// Asserts that two layouts hold the same weights, each as often.
    fn assert_same_weights<T: Ord + std::fmt::Debug>(mut a: Vec<T>, mut b: Vec<T>) {
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }

    /// The embedded network's scores of fixed positions, as computed before
    /// the kernels were rewritten: any speed work must keep them exactly.
    #[test]
    fn the_embedded_network_keeps_its_scores() {
        let net = Network::from_bytes(EMBEDDED).expect("embedded network");
        let sum: i64 = random_positions(41, 5000).iter().map(|p| i64::from(net.evaluate(p))).sum();
        let first: Vec<Score> = random_positions(43, 8).iter().map(|p| net.evaluate(p)).collect();
        assert_eq!((sum, first), (EMBEDDED_SCORES.0, EMBEDDED_SCORES.1.to_vec()));
    }

    #[test]
    fn updates_and_the_cache_give_the_refreshed_score() {
        for net in [random_net(13).quantise(), random_pattern_net(13).quantise()] {
            let mut cache = NetCache::new(8);
            let positions = random_positions(9, 3000);
            let mut acc = net.refresh(&positions[0]);
            for (i, pos) in positions.iter().enumerate() {
                net.update(&mut acc, pos);
                let fresh = net.refresh(pos);
                assert_eq!(acc, fresh);
                assert_eq!(net.evaluate_cached(pos, &mut cache, i % 5), net.output(&fresh, pos.side()));
            }
        }
    }

    #[test]
    fn a_position_met_again_is_scored_from_the_table() {
        let net = random_net(19).quantise();
        let positions = random_positions(21, 500);
        let mut cache = NetCache::new(4);
        for (i, pos) in positions.iter().enumerate() {
            let score = net.evaluate_cached(pos, &mut cache, i % 3);
            // With no accumulator to start from, only the score table can
            // answer without a refresh, which would mark its slot valid.
            cache.valid.iter_mut().for_each(|v| *v = false);
            assert_eq!(net.evaluate_cached(pos, &mut cache, i % 3), score);
            assert!(cache.valid.iter().all(|&v| !v));
        }
    }

    #[test]
    fn the_score_table_tells_the_sides_to_move_apart() {
        let net = random_net(23).quantise();
        let mut cache = NetCache::new(4);
        for fen in ["W:W31,32,33,34,35,36:B1,2,3,4,5", "W:W28,K44:B7,K19,23", "W:W31-50:B1-20"] {
            let white = Position::from_fen(fen).expect("fen");
            let black = Position::from_fen(&fen.replacen('W', "B", 1)).expect("fen");
            for pos in [white, black, white] {
                assert_eq!(net.evaluate_cached(&pos, &mut cache, 0), net.evaluate(&pos));
            }
            let sets = piece_sets(&white);
            assert_ne!(
                score_entry(&sets, Color::White, SCORE_ENTRIES),
                score_entry(&sets, Color::Black, SCORE_ENTRIES)
            );
        }
    }

    #[test]
    fn mirrored_positions_score_the_same() {
        for float in [random_net(17), random_pattern_net(17)] {
            let net = float.quantise();
            for pos in random_positions(21, 300) {
                let m = pos.flipped();
                assert_eq!(net.evaluate(&pos), net.evaluate(&m), "{}", pos.to_fen());
                assert!((float.evaluate(&pos) - float.evaluate(&m)).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn the_embedded_network_decodes_and_is_sane() {
        let net = Network::from_bytes(EMBEDDED).expect("embedded network");
        assert_eq!(net.evaluate(&Position::start()).abs().min(30), net.evaluate(&Position::start()).abs());
        // A man up is better than level, for either side to move.
        let up = Position::from_fen("W:W31,32,33,34,35,36:B1,2,3,4,5").expect("fen");
        assert!(net.evaluate(&up) > 50, "{}", net.evaluate(&up));
        let down = Position::from_fen("B:W31,32,33,34,35,36:B1,2,3,4,5").expect("fen");
        assert!(net.evaluate(&down) < -50, "{}", net.evaluate(&down));
        assert_eq!(net.evaluate(&up.flipped()), net.evaluate(&up));
    }

    #[test]
    fn the_file_round_trips_and_damage_is_refused() {
        let net = random_net(19).quantise();
        let bytes = net.to_bytes();
        let back = Network::from_bytes(&bytes).expect("reads back");
        assert_eq!(back.parts(), net.parts());
        let mut bad = bytes.clone();
        bad[HEADER_V1 + 10] ^= 1;
        assert_eq!(Network::from_bytes(&bad).err(), Some(WeightsError::Checksum));
        assert!(matches!(Network::from_bytes(&bytes[..bytes.len() - 3]), Err(WeightsError::Length { .. })));
        assert_eq!(
            Network::from_bytes(b"DAMMERW\0xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx").err(),
            Some(WeightsError::NotAWeightsFile)
        );
        let float = random_net(23);
        assert_eq!(FloatNetwork::from_bytes(&float.to_bytes()), Some(float));
    }

    #[test]
    fn a_network_with_pattern_inputs_is_a_version_3_file_and_round_trips() {
        let float = random_pattern_net(25);
        assert_eq!(FloatNetwork::from_bytes(&float.to_bytes()).as_ref(), Some(&float));
        let net = float.quantise();
        let bytes = net.to_bytes();
        assert_eq!(&bytes[8..12], &3u32.to_le_bytes());
        let back = Network::from_bytes(&bytes).expect("reads back");
        assert!(back.has_patterns());
        assert_eq!((back.game(), back.parts()), (Variant::Normal, net.parts()));
        let frisian = Network::from_bytes(&net.for_game(Variant::Frisian).to_bytes()).expect("reads back");
        assert_eq!(frisian.game(), Variant::Frisian);
        // Another number of pattern rows is another layout.
        let mut other = bytes.clone();
        other[HEADER_V1 + 4..HEADER_V1 + 8].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(Network::from_bytes(&other).err(), Some(WeightsError::Layout));
        assert!(matches!(Network::from_bytes(&bytes[..bytes.len() - 2]), Err(WeightsError::Length { .. })));
    }

    #[test]
    fn a_variant_network_keeps_its_game_and_the_international_one_stays_version_1() {
        let net = random_net(29).quantise();
        assert_eq!(&net.to_bytes()[8..12], &1u32.to_le_bytes());
        for game in Variant::ALL {
            let bytes = random_net(29).quantise().for_game(game).to_bytes();
            let back = Network::from_bytes(&bytes).expect("reads back");
            assert_eq!((back.game(), back.parts()), (game, net.parts()));
        }
        let mut unknown = random_net(29).quantise().for_game(Variant::Frisian).to_bytes();
        unknown[HEADER_V1..HEADER_V1 + 4].copy_from_slice(&99u32.to_le_bytes());
        assert_eq!(Network::from_bytes(&unknown).err(), Some(WeightsError::Corrupt));
    }

    #[test]
    fn the_embedded_variant_networks_are_their_games_and_sane() {
        for (game, bytes) in EMBEDDED_VARIANTS {
            let net = Network::from_bytes(bytes).expect("embedded network");
            assert_eq!(net.game(), game);
            let pos = Position::start();
            assert!(net.evaluate(&pos).abs() < 100, "{game}: {}", net.evaluate(&pos));
        }
    }
}
