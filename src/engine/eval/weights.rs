//! The weights of the learned evaluations, their feature layouts and their
//! file format.
//!
//! Two layouts exist: the 4x4 windows of [`super::pattern`] (about 52,000
//! weights a phase) and the 12-square regions of [`super::regions`] (about
//! 2.1 million). Both are linear in sparse features: a few dense features
//! with small integer values, and per pattern table one index read for
//! White (+1) and one for Black (-1). [`Layout::sparse`] lists them in that
//! form for the tuner, which is therefore the same for every layout.
//!
//! The file: magic, version, the layout's four numbers (tables, table size,
//! dense features, weight scale), the weights, then an FNV-1a checksum of
//! everything before it. Version 1 stores the weights raw (2 x i16 a
//! feature); version 2, written now, stores the stream of i16 values with
//! runs of zeros counted (most patterns of a large table never occur in
//! the training games), so that the region weights stay small enough to
//! embed.

use crate::base::checksum::fnv1a;
use crate::rules::position::Position;

use super::{pattern, regions};

/// Weights are stored in 1/16 of a hundredth of a man.
pub const WEIGHT_SCALE: i32 = pattern::WEIGHT_SCALE;

/// A feature layout of the learned evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Sixteen 4x4 windows in eight tables of 3^8 ([`super::pattern`]).
    Windows,
    /// Eight 12-square regions in four tables of 3^12 ([`super::regions`]).
    Regions,
}

impl Layout {
    /// Every layout.
    pub const ALL: [Layout; 2] = [Layout::Windows, Layout::Regions];

    /// The name used on the command line and in the Hub's `eval` option.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Windows => "windows",
            Layout::Regions => "regions",
        }
    }

    /// The layout called `name`.
    pub fn from_name(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Dense features (they come first in the weights).
    pub const fn dense(self) -> usize {
        match self {
            Layout::Windows => pattern::DENSE,
            Layout::Regions => regions::DENSE,
        }
    }

    /// Pattern tables.
    pub const fn tables(self) -> usize {
        match self {
            Layout::Windows => pattern::WINDOWS,
            Layout::Regions => regions::REGIONS,
        }
    }

    /// Entries of one pattern table.
    pub const fn table_size(self) -> usize {
        match self {
            Layout::Windows => pattern::WINDOW_SIZE,
            Layout::Regions => regions::REGION_SIZE,
        }
    }

    /// Weights of one phase.
    pub const fn features(self) -> usize {
        self.dense() + self.tables() * self.table_size()
    }

    /// Calls `add(feature, value)` for every feature of `pos` with a
    /// non-zero value (White minus Black; a pattern's entry read for White
    /// is +1, for Black -1) and returns the number of men, which sets the
    /// phase. The evaluations are exactly these linear functions.
    pub fn sparse(self, pos: &Position, add: &mut impl FnMut(usize, i32)) -> u8 {
        match self {
            Layout::Windows => {
                let f = pattern::features(pos);
                for &(i, v) in &f.dense {
                    add(usize::from(i), i32::from(v));
                }
                for (k, &(w, b)) in f.windows.iter().enumerate() {
                    let base = pattern::DENSE + k * pattern::WINDOW_SIZE;
                    add(base + usize::from(w), 1);
                    add(base + usize::from(b), -1);
                }
                f.men
            }
            Layout::Regions => {
                let men = regions::dense_features(pos, &mut |f, v| {
                    if v != 0 {
                        add(f, v)
                    }
                });
                for (k, (w, b)) in regions::region_indices(pos).into_iter().enumerate() {
                    let base = regions::DENSE + k * regions::REGION_SIZE;
                    add(base + w as usize, 1);
                    add(base + b as usize, -1);
                }
                men as u8
            }
        }
    }
}

/// Men and kings (features 0 and 1 of every layout).
pub const F_MEN: usize = 0;
/// Kings.
pub const F_KINGS: usize = 1;

/// The weights of a learned evaluation, middlegame and endgame interleaved
/// per feature, in 1/[`WEIGHT_SCALE`] of a hundredth of a man.
#[derive(Clone, PartialEq, Eq)]
pub struct PatternWeights {
    /// The features the weights belong to.
    pub layout: Layout,
    /// `[mg, eg]` per feature, dense features first.
    pub w: Vec<[i16; 2]>,
}

impl std::fmt::Debug for PatternWeights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PatternWeights({}, {} features)", self.layout.name(), self.w.len())
    }
}

const MAGIC: &[u8; 8] = b"DAMMERW\0";
/// The version written: compressed.
const VERSION: u32 = 2;
const HEADER: usize = MAGIC.len() + 5 * 4;

fn layout_fields(l: Layout) -> [u32; 4] {
    [l.tables() as u32, l.table_size() as u32, l.dense() as u32, WEIGHT_SCALE as u32]
}

/// Appends `n` as a LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads a LEB128 varint at `*at`.
fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        n |= u64::from(b & 0x7F) << shift;
        if b & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

impl PatternWeights {
    /// Every weight zero: the start of a term fitted on top of a network.
    pub fn zero(layout: Layout) -> PatternWeights {
        PatternWeights { layout, w: vec![[0i16; 2]; layout.features()] }
    }

    /// Material only: a man 1, a king 3 (what a fit starts from).
    pub fn material(layout: Layout) -> PatternWeights {
        let mut w = vec![[0i16; 2]; layout.features()];
        let s = WEIGHT_SCALE as i16;
        w[F_MEN] = [100 * s, 100 * s];
        w[F_KINGS] = [300 * s, 300 * s];
        PatternWeights { layout, w }
    }

    /// Writes the weights file (version 2: a value other than 0 as a
    /// zigzag varint, which is never a 0 byte; a run of zeros as a 0 byte
    /// and the run's length).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + self.w.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        for v in layout_fields(self.layout) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let values: Vec<i16> = self.w.iter().flatten().copied().collect();
        let mut i = 0;
        while i < values.len() {
            if values[i] == 0 {
                let run = values[i..].iter().take_while(|&&v| v == 0).count();
                out.push(0);
                put_varint(&mut out, run as u64);
                i += run;
            } else {
                let v = i64::from(values[i]);
                put_varint(&mut out, ((v << 1) ^ (v >> 63)) as u64);
                i += 1;
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a weights file of either version.
    pub fn from_bytes(bytes: &[u8]) -> Result<PatternWeights, WeightsError> {
        if bytes.len() < HEADER + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(WeightsError::NotAWeightsFile);
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let stored = u64::from_le_bytes(sum.try_into().map_err(|_| WeightsError::NotAWeightsFile)?);
        let field = |i: usize| {
            let at = MAGIC.len() + 4 * i;
            u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]])
        };
        let version = field(0);
        if version != 1 && version != VERSION {
            return Err(WeightsError::Version(version));
        }
        let fields = [field(1), field(2), field(3), field(4)];
        let layout =
            Layout::ALL.into_iter().find(|&l| layout_fields(l) == fields).ok_or(WeightsError::Layout)?;
        let n = layout.features();
        if version == 1 && body.len() != HEADER + 4 * n {
            return Err(WeightsError::Length { expected: HEADER + 4 * n + 8, found: bytes.len() });
        }
        if fnv1a(body) != stored {
            return Err(WeightsError::Checksum);
        }
        let values: Vec<i16> = if version == 1 {
            body[HEADER..].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect()
        } else {
            let mut values = Vec::with_capacity(2 * n);
            let mut at = HEADER;
            while at < body.len() && values.len() <= 2 * n {
                if body[at] == 0 {
                    at += 1;
                    let run = get_varint(body, &mut at).ok_or(WeightsError::Corrupt)?;
                    if run == 0 || run > (2 * n - values.len()) as u64 {
                        return Err(WeightsError::Corrupt);
                    }
                    values.resize(values.len() + run as usize, 0);
                } else {
                    let z = get_varint(body, &mut at).ok_or(WeightsError::Corrupt)?;
                    let v = ((z >> 1) as i64) ^ -((z & 1) as i64);
                    values.push(i16::try_from(v).map_err(|_| WeightsError::Corrupt)?);
                }
            }
            if values.len() != 2 * n {
                return Err(WeightsError::Corrupt);
            }
            values
        };
        let w = values.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
        Ok(PatternWeights { layout, w })
    }

    /// Reads a weights file from disk.
    pub fn load(path: &std::path::Path) -> Result<PatternWeights, WeightsError> {
        let bytes = std::fs::read(path).map_err(|e| WeightsError::Io(format!("{}: {e}", path.display())))?;
        PatternWeights::from_bytes(&bytes)
    }
}

/// Why a weights file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// It could not be read.
    Io(String),
    /// It does not start with the magic bytes.
    NotAWeightsFile,
    /// A version this build does not read.
    Version(u32),
    /// A feature layout this build does not know.
    Layout,
    /// A raw (version 1) file that is truncated or too long.
    Length {
        /// Bytes a file of this layout has.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// The checksum does not match: the file is corrupt.
    Checksum,
    /// The checksum matches but the weights do not decode.
    Corrupt,
}

impl std::fmt::Display for WeightsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WeightsError::Io(e) => write!(f, "cannot read the weights file: {e}"),
            WeightsError::NotAWeightsFile => write!(f, "not a Dammer weights file (bad magic, or truncated)"),
            WeightsError::Version(v) => {
                write!(f, "weights file version {v}, this build reads versions 1 and {VERSION}")
            }
            WeightsError::Layout => {
                write!(f, "the weights file has a feature layout this build does not know")
            }
            WeightsError::Length { expected, found } => {
                write!(f, "weights file has {found} bytes, expected {expected} (truncated?)")
            }
            WeightsError::Checksum => write!(f, "weights file checksum mismatch (corrupt or truncated file)"),
            WeightsError::Corrupt => write!(f, "the weights file does not decode (corrupt file)"),
        }
    }
}

impl std::error::Error for WeightsError {}

/// The weights shipped in the binary, per layout.
pub const EMBEDDED_WINDOWS: &[u8] = include_bytes!("windows.bin");
/// The region weights shipped in the binary.
pub const EMBEDDED_REGIONS: &[u8] = include_bytes!("regions.bin");

/// The embedded weights of `layout` (material only if they do not decode,
/// which the tests rule out).
pub fn embedded(layout: Layout) -> PatternWeights {
    let bytes = match layout {
        Layout::Windows => EMBEDDED_WINDOWS,
        Layout::Regions => EMBEDDED_REGIONS,
    };
    PatternWeights::from_bytes(bytes)
        .ok()
        .filter(|w| w.layout == layout)
        .unwrap_or_else(|| PatternWeights::material(layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_weights_decode() {
        for (bytes, layout) in [(EMBEDDED_WINDOWS, Layout::Windows), (EMBEDDED_REGIONS, Layout::Regions)] {
            let w = PatternWeights::from_bytes(bytes).unwrap();
            assert_eq!(w.layout, layout);
            assert_eq!(w.w.len(), layout.features());
        }
    }

    #[test]
    fn files_round_trip_and_corrupt_files_are_rejected() {
        for layout in Layout::ALL {
            let mut w = PatternWeights::material(layout);
            for (i, e) in w.w.iter_mut().enumerate().step_by(97) {
                *e = [(i % 6000) as i16 - 3000, i16::MIN + (i % 3) as i16];
            }
            let last = w.w.len() - 1;
            w.w[last] = [i16::MAX, 0];
            let bytes = w.to_bytes();
            assert_eq!(PatternWeights::from_bytes(&bytes).unwrap(), w);
            let mut flipped = bytes.clone();
            flipped[100] ^= 1;
            assert_eq!(PatternWeights::from_bytes(&flipped), Err(WeightsError::Checksum));
            assert!(PatternWeights::from_bytes(&bytes[..bytes.len() - 10]).is_err());
            assert_eq!(PatternWeights::from_bytes(b"hello"), Err(WeightsError::NotAWeightsFile));
            let mut v3 = bytes.clone();
            v3[8] = 3;
            assert_eq!(PatternWeights::from_bytes(&v3), Err(WeightsError::Version(3)));
        }
    }
}
