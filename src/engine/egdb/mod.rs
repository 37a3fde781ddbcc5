//! Endgame tables: win/draw/loss bitbases for positions with few pieces.
//!
//! One table per material signature, always seen from the side to move
//! (positions with Black to move are turned half a turn and recoloured, see
//! [`normalise`]). A table stores one value per index for quiet positions
//! only: where the side to move must capture, the stored value is a "don't
//! care" chosen to lengthen runs, and [`Tables::probe`] resolves the capture
//! by probing its successors, which always lie in smaller tables.
//!
//! The tables know nothing of the game-level draw rules (repetition, the
//! 25-move rule, the 16- and 5-move endgame rules): a "win" is a win with
//! best play and no move counters. The search only trusts a table win or loss
//! where no endgame rule is counting (see `docs/egdb.md`).
//!
//! Index layout: the side to move's men over the 45 squares they can stand on
//! (6..=50 as White sees it), the opponent's men over theirs (1..=45), then
//! the side to move's kings over the squares the men leave free and the
//! opponent's kings over the squares left after that, each set ranked in the
//! combinatorial number system. Indices where two men share a square are
//! "broken" and never probed.

use crate::base::checksum::fnv1a;
use crate::rules::bitboard::Bitboard;
use crate::rules::movegen::{generate_captures, has_capture, MoveList};
use crate::rules::position::{Color, Position};
use std::fmt;
use std::path::{Path, PathBuf};

/// The most pieces a table can index (tables are generated up to what the
/// machine allows; see `docs/egdb.md`).
pub const MAX_PIECES: usize = 7;

/// The value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Wdl {
    /// The value for the other side.
    pub const fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    const fn code(self) -> u8 {
        match self {
            Wdl::Draw => 0,
            Wdl::Win => 1,
            Wdl::Loss => 2,
        }
    }

    const fn from_code(c: u8) -> Option<Wdl> {
        match c {
            0 => Some(Wdl::Draw),
            1 => Some(Wdl::Win),
            2 => Some(Wdl::Loss),
            _ => None,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        })
    }
}

/// Material of a position: men and kings of the side to move ("us") and of
/// the opponent ("them").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// Men of the side to move.
    pub us_men: u8,
    /// Kings of the side to move.
    pub us_kings: u8,
    /// Men of the opponent.
    pub them_men: u8,
    /// Kings of the opponent.
    pub them_kings: u8,
}

/// Squares (dense numbering, square - 1) the side to move's men can stand on
/// once normalised: all but its promotion row 1..=5.
const MEN_OFFSET_US: u32 = 5;
/// Squares a man can stand on.
const MAN_SQUARES: usize = 45;
/// Playable squares.
const SQUARES: usize = 50;
const ALL_SQUARES: u64 = (1 << SQUARES) - 1;

/// `BINOMIAL[n][k]` = n choose k, for the combinatorial number system.
const BINOMIAL: [[u64; MAX_PIECES + 1]; SQUARES + 1] = {
    let mut t = [[0u64; MAX_PIECES + 1]; SQUARES + 1];
    let mut n = 0;
    while n <= SQUARES {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_PIECES {
            t[n][k] = if n == 0 { 0 } else { t[n - 1][k - 1] + t[n - 1][k] };
            k += 1;
        }
        n += 1;
    }
    t
};

impl Signature {
    /// The material of `pos`, seen from its side to move.
    pub fn of(pos: &Position) -> Signature {
        let us = pos.side();
        let count = |b: Bitboard| b.count_ones() as u8;
        Signature {
            us_men: count(pos.men(us)),
            us_kings: count(pos.kings_of(us)),
            them_men: count(pos.men(us.opponent())),
            them_kings: count(pos.kings_of(us.opponent())),
        }
    }

    /// Pieces on the board.
    pub const fn pieces(&self) -> usize {
        (self.us_men + self.us_kings + self.them_men + self.them_kings) as usize
    }

    /// The same material with the other side to move.
    pub const fn swapped(&self) -> Signature {
        Signature {
            us_men: self.them_men,
            us_kings: self.them_kings,
            them_men: self.us_men,
            them_kings: self.us_kings,
        }
    }

    /// Number of indices in the table (broken ones included).
    pub fn size(&self) -> u64 {
        let men = (self.us_men + self.them_men) as usize;
        BINOMIAL[MAN_SQUARES][self.us_men as usize]
            * BINOMIAL[MAN_SQUARES][self.them_men as usize]
            * BINOMIAL[SQUARES - men][self.us_kings as usize]
            * BINOMIAL[SQUARES - men - self.us_kings as usize][self.them_kings as usize]
    }

    /// Every signature with 2..=`max_pieces` pieces and at least one piece a
    /// side, in an order where each table comes after every table its
    /// positions can move into: fewer pieces first (captures), then fewer
    /// men (promotions).
    pub fn all(max_pieces: usize) -> Vec<Signature> {
        let max = max_pieces.min(MAX_PIECES) as u8;
        let mut out = Vec::new();
        for n in 2..=max {
            for um in 0..=n {
                for uk in 0..=n - um {
                    for tm in 0..=n - um - uk {
                        let tk = n - um - uk - tm;
                        if um + uk > 0 && tm + tk > 0 {
                            out.push(Signature { us_men: um, us_kings: uk, them_men: tm, them_kings: tk });
                        }
                    }
                }
            }
        }
        out.sort_by_key(|s| (s.pieces(), s.us_men + s.them_men, s.us_men.max(s.them_men), *s));
        out
    }

    /// A small number unique to the signature (each count is below 8).
    #[inline]
    pub const fn code(&self) -> usize {
        ((self.us_men as usize * 8 + self.us_kings as usize) * 8 + self.them_men as usize) * 8
            + self.them_kings as usize
    }

    /// File name of the table, e.g. `2m1k-1m0k.wdl` for two men and a king
    /// to move against a man.
    pub fn file_name(&self) -> String {
        format!("{}m{}k-{}m{}k.wdl", self.us_men, self.us_kings, self.them_men, self.them_kings)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}m{}k-{}m{}k", self.us_men, self.us_kings, self.them_men, self.them_kings)
    }
}

/// Dense squares (bit `s - 1` for square `s`) of a board in the engine's
/// layout, which leaves a ghost bit after every ten squares.
#[inline]
fn dense(bb: Bitboard) -> u64 {
    let mut d = 0;
    for g in 0..5 {
        d |= ((bb >> (11 * g)) & 0x3ff) << (10 * g);
    }
    d
}

/// The inverse of [`dense`].
#[inline]
fn sparse(d: u64) -> Bitboard {
    let mut bb = 0;
    for g in 0..5 {
        bb |= ((d >> (10 * g)) & 0x3ff) << (11 * g);
    }
    bb
}

/// Square `s` becomes `51 - s` (half a turn) on a dense board.
#[inline]
fn rotate(d: u64) -> u64 {
    d.reverse_bits() >> (64 - SQUARES)
}

/// A position's pieces from the side to move's view, on dense boards turned
/// so that the side to move's men move toward square 1: (our men, their men,
/// our kings, their kings).
#[inline]
pub fn normalise(pos: &Position) -> [u64; 4] {
    let us = pos.side();
    let them = us.opponent();
    let d = [pos.men(us), pos.men(them), pos.kings_of(us), pos.kings_of(them)].map(dense);
    match us {
        Color::White => d,
        Color::Black => d.map(rotate),
    }
}

#[inline]
fn rank(mut set: u64) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        r += BINOMIAL[set.trailing_zeros() as usize][i];
        set &= set - 1;
        i += 1;
    }
    r
}

/// The `k`-subset of `0..n` with rank `r`.
#[inline]
fn unrank(mut r: u64, k: usize, n: usize) -> u64 {
    let mut set = 0;
    let mut hi = n;
    for i in (1..=k).rev() {
        // The largest c < hi with C(c, i) <= r (C grows with c).
        let (mut lo, mut top) = (i - 1, hi - 1);
        while lo < top {
            let mid = (lo + top).div_ceil(2);
            if BINOMIAL[mid][i] <= r {
                lo = mid;
            } else {
                top = mid - 1;
            }
        }
        r -= BINOMIAL[lo][i];
        set |= 1 << lo;
        hi = lo;
    }
    set
}

/// Squares of `set` renumbered over the squares not in `taken`.
#[inline]
fn compress(set: u64, taken: u64) -> u64 {
    let mut out = 0;
    let mut s = set;
    while s != 0 {
        let q = s.trailing_zeros();
        let below = taken & ((1u64 << q) - 1);
        out |= 1 << (q - below.count_ones());
        s &= s - 1;
    }
    out
}

/// The inverse of [`compress`]: the squares outside `taken` with the given
/// ranks.
#[inline]
fn expand(ranks: u64, taken: u64) -> u64 {
    let mut free = ALL_SQUARES & !taken;
    let mut out = 0;
    let mut next = 0;
    let mut r = ranks;
    while r != 0 {
        let want = r.trailing_zeros();
        while next < want {
            free &= free - 1;
            next += 1;
        }
        out |= free & free.wrapping_neg();
        r &= r - 1;
    }
    out
}

/// The index of a normalised position (see [`normalise`]) in its table.
#[inline]
pub fn index_of(sig: &Signature, n: &[u64; 4]) -> u64 {
    let [um, tm, uk, tk] = *n;
    let men = um | tm;
    let k_us = (SQUARES - (sig.us_men + sig.them_men) as usize, sig.us_kings as usize);
    let k_them = (k_us.0 - k_us.1, sig.them_kings as usize);
    let i = rank(um >> MEN_OFFSET_US);
    let i = i * BINOMIAL[MAN_SQUARES][sig.them_men as usize] + rank(tm);
    let i = i * BINOMIAL[k_us.0][k_us.1] + rank(compress(uk, men));
    i * BINOMIAL[k_them.0][k_them.1] + rank(compress(tk, men | uk))
}

/// The position (side to move White) at `index`, or `None` for a broken
/// index where two men share a square.
pub fn position_at(sig: &Signature, index: u64) -> Option<Position> {
    let men = (sig.us_men + sig.them_men) as usize;
    let n_us = BINOMIAL[SQUARES - men][sig.us_kings as usize];
    let n_them = BINOMIAL[SQUARES - men - sig.us_kings as usize][sig.them_kings as usize];
    let n_tm = BINOMIAL[MAN_SQUARES][sig.them_men as usize];
    let (rest, r_tk) = (index / n_them, index % n_them);
    let (rest, r_uk) = (rest / n_us, rest % n_us);
    let (r_um, r_tm) = (rest / n_tm, rest % n_tm);
    let um = unrank(r_um, sig.us_men as usize, MAN_SQUARES) << MEN_OFFSET_US;
    let tm = unrank(r_tm, sig.them_men as usize, MAN_SQUARES);
    if um & tm != 0 {
        return None;
    }
    let uk = expand(unrank(r_uk, sig.us_kings as usize, SQUARES - men), um | tm);
    let tk =
        expand(unrank(r_tk, sig.them_kings as usize, SQUARES - men - sig.us_kings as usize), um | tm | uk);
    let white = sparse(um | uk);
    let black = sparse(tm | tk);
    Position::from_parts(white, black, sparse(uk | tk), Color::White).ok()
}

/// Signature and index of a position in its table.
#[inline]
pub fn locate(pos: &Position) -> (Signature, u64) {
    let sig = Signature::of(pos);
    (sig, index_of(&sig, &normalise(pos)))
}

/// Positions per block: a probe decodes at most one block.
const BLOCK: u64 = 1024;
const MAGIC: &[u8; 8] = b"DAMMERDB";
const VERSION: u32 = 1;
/// Header bytes: magic, version, signature, positions, block size, blocks.
const HEADER: usize = 8 + 4 + 4 + 8 + 4 + 8;

/// Why a table or a table directory cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EgdbError {
    /// A file or directory could not be read or written.
    Io(String),
    /// A file is not a Dammer table, or is damaged.
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Bytes that are not a readable [`Pack`].
    BadPack {
        /// How the pack is named.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A piece count outside what the tables index.
    Pieces(usize),
    /// A table needed to generate another is missing.
    Missing(Signature),
    /// Generation was stopped (Ctrl-C) before it finished.
    Interrupted,
    /// A directory without even the complete set of 2-piece tables.
    NoCompleteSet(String),
}

impl fmt::Display for EgdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EgdbError::Io(e) => write!(f, "{e}"),
            EgdbError::Corrupt { path, reason } => write!(f, "{path}: not a usable endgame table ({reason})"),
            EgdbError::BadPack { name, reason } => {
                write!(f, "{name}: not a usable pack of endgame tables ({reason})")
            }
            EgdbError::Pieces(n) => write!(f, "{n} pieces: endgame tables index 2 to {MAX_PIECES} pieces"),
            EgdbError::Missing(s) => {
                write!(f, "the table {s} is missing (generate the smaller tables first)")
            }
            EgdbError::Interrupted => write!(f, "interrupted; run the same command again to resume"),
            EgdbError::NoCompleteSet(dir) => {
                write!(f, "{dir}: no complete set of endgame tables (not even 2 pieces)")
            }
        }
    }
}

impl std::error::Error for EgdbError {}

/// One table, run-length compressed in blocks of [`BLOCK`] positions.
///
/// Each byte of a block is a run: the value in the top two bits and the run
/// length minus one in the low six; runs never cross blocks, so a probe
/// decodes from its block's offset only.
#[derive(Clone, Debug)]
pub struct Table {
    sig: Signature,
    len: u64,
    offsets: Vec<u64>,
    data: Vec<u8>,
}

impl Table {
    /// Compresses `len` values; `None` is "don't care" (a capture position
    /// or a broken index) and takes whatever value lengthens the run.
    pub fn compress(sig: Signature, len: u64, value: impl Fn(u64) -> Option<Wdl>) -> Table {
        let blocks = len.div_ceil(BLOCK);
        let mut offsets = Vec::with_capacity(blocks as usize + 1);
        let mut data = Vec::new();
        let mut current = Wdl::Draw;
        for b in 0..blocks {
            offsets.push(data.len() as u64);
            let end = ((b + 1) * BLOCK).min(len);
            let mut run = 0u32;
            for i in b * BLOCK..end {
                let v = value(i).unwrap_or(current);
                if v != current || run == 64 {
                    if run > 0 {
                        data.push(current.code() << 6 | (run - 1) as u8);
                    }
                    current = v;
                    run = 0;
                }
                run += 1;
            }
            if run > 0 {
                data.push(current.code() << 6 | (run - 1) as u8);
            }
        }
        offsets.push(data.len() as u64);
        Table { sig, len, offsets, data }
    }

    /// The material this table covers.
    pub fn signature(&self) -> Signature {
        self.sig
    }

    /// Number of indices.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the table has no index (never for a real signature).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Compressed size in bytes (data and block index).
    pub fn bytes(&self) -> usize {
        self.data.len() + 8 * self.offsets.len()
    }

    /// The stored value at `index` (meaningless for capture positions and
    /// broken indices).
    #[inline]
    pub fn get(&self, index: u64) -> Wdl {
        let b = (index / BLOCK) as usize;
        let mut left = (index % BLOCK) as u32;
        let start = self.offsets[b] as usize;
        let end = self.offsets[b + 1] as usize;
        for &byte in &self.data[start..end] {
            let run = u32::from(byte & 63) + 1;
            if left < run {
                return Wdl::from_code(byte >> 6).unwrap_or(Wdl::Draw);
            }
            left -= run;
        }
        Wdl::Draw
    }

    /// The file contents: header, block offsets, runs, FNV-1a checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + 8 * self.offsets.len() + self.data.len() + 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&[self.sig.us_men, self.sig.us_kings, self.sig.them_men, self.sig.them_kings]);
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&(BLOCK as u32).to_le_bytes());
        out.extend_from_slice(&((self.offsets.len() - 1) as u64).to_le_bytes());
        for o in &self.offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out.extend_from_slice(&self.data);
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a table file, checking everything that can be checked.
    pub fn from_bytes(bytes: &[u8], path: &str) -> Result<Table, EgdbError> {
        let bad = |reason: &str| EgdbError::Corrupt { path: path.to_string(), reason: reason.to_string() };
        if bytes.len() < HEADER + 8 || &bytes[..8] != MAGIC {
            return Err(bad("no table header"));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
        let version = u32_at(8);
        if version != VERSION {
            return Err(bad(&format!("format version {version}, this build reads {VERSION}")));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body) != u64::from_le_bytes(sum.try_into().unwrap_or([0; 8])) {
            return Err(bad("checksum mismatch: truncated or damaged"));
        }
        let sig = header_signature(bytes);
        if sig.pieces() > MAX_PIECES {
            return Err(bad("bad signature"));
        }
        let len = u64_at(16);
        let blocks = u64_at(28);
        if len != sig.size() || u64::from(u32_at(24)) != BLOCK || blocks != len.div_ceil(BLOCK) {
            return Err(bad("header does not match its signature"));
        }
        let data_start = HEADER + 8 * (blocks as usize + 1);
        if body.len() < data_start {
            return Err(bad("block index truncated"));
        }
        let offsets: Vec<u64> = (0..=blocks as usize).map(|b| u64_at(HEADER + 8 * b)).collect();
        let data = body[data_start..].to_vec();
        if offsets.windows(2).any(|w| w[0] > w[1]) || offsets.last() != Some(&(data.len() as u64)) {
            return Err(bad("block index inconsistent"));
        }
        Ok(Table { sig, len, offsets, data })
    }

    /// Writes the table to `dir`, through a temporary file so that an
    /// interrupted write never leaves a table that looks finished.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, EgdbError> {
        let path = dir.join(self.sig.file_name());
        let tmp = dir.join(format!("{}.tmp", self.sig.file_name()));
        let io = |e: std::io::Error, p: &Path| EgdbError::Io(format!("{}: {e}", p.display()));
        std::fs::write(&tmp, self.to_bytes()).map_err(|e| io(e, &tmp))?;
        std::fs::rename(&tmp, &path).map_err(|e| io(e, &path))?;
        Ok(path)
    }

    /// Reads the table of `sig` from `dir`; `Ok(None)` if there is no file.
    pub fn read(dir: &Path, sig: Signature) -> Result<Option<Table>, EgdbError> {
        let path = dir.join(sig.file_name());
        match std::fs::read(&path) {
            Ok(bytes) => {
                let t = Table::from_bytes(&bytes, &path.display().to_string())?;
                if t.sig != sig {
                    return Err(EgdbError::Corrupt {
                        path: path.display().to_string(),
                        reason: format!("holds {} instead", t.sig),
                    });
                }
                Ok(Some(t))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(EgdbError::Io(format!("{}: {e}", path.display()))),
        }
    }
}

/// The signature a table file's header names (after the magic and the
/// version); `bytes` holds at least the header.
fn header_signature(bytes: &[u8]) -> Signature {
    Signature { us_men: bytes[12], us_kings: bytes[13], them_men: bytes[14], them_kings: bytes[15] }
}

/// Where tables are read from: a directory of table files, or a [`Pack`]
/// of them in memory (what a browser downloads in one piece).
pub trait Source {
    /// How messages name it.
    fn describe(&self) -> String;
    /// Whether it has a table for `sig` (by name only: [`Source::read`]
    /// checks the table itself).
    fn has(&self, sig: &Signature) -> bool;
    /// The table of `sig`, checked; `Ok(None)` if there is none.
    fn read(&self, sig: Signature) -> Result<Option<Table>, EgdbError>;
    /// An error if there is nothing to read from at all.
    fn check(&self) -> Result<(), EgdbError> {
        Ok(())
    }
}

impl Source for Path {
    fn describe(&self) -> String {
        self.display().to_string()
    }

    fn has(&self, sig: &Signature) -> bool {
        self.join(sig.file_name()).is_file()
    }

    fn read(&self, sig: Signature) -> Result<Option<Table>, EgdbError> {
        Table::read(self, sig)
    }

    fn check(&self) -> Result<(), EgdbError> {
        match self.is_dir() {
            true => Ok(()),
            false => Err(EgdbError::Io(format!("{}: no such directory", self.display()))),
        }
    }
}

impl Source for PathBuf {
    fn describe(&self) -> String {
        self.as_path().describe()
    }

    fn has(&self, sig: &Signature) -> bool {
        self.as_path().has(sig)
    }

    fn read(&self, sig: Signature) -> Result<Option<Table>, EgdbError> {
        self.as_path().read(sig)
    }

    fn check(&self) -> Result<(), EgdbError> {
        self.as_path().check()
    }
}

const PACK_MAGIC: &[u8; 8] = b"DAMMERTP";
const PACK_VERSION: u32 = 1;

/// Table files in one piece, as `dammer egdb pack` writes them: `DAMMERTP`,
/// the format version (u32), the number of tables (u32), then each table's
/// file: its length (u64) and its bytes, checked as a file is (checksum and
/// all) when the table is read.
#[derive(Clone, Debug)]
pub struct Pack {
    name: String,
    bytes: Vec<u8>,
    /// Each table's signature and where its file lies in `bytes`.
    files: Vec<(Signature, std::ops::Range<usize>)>,
}

impl Pack {
    /// The pack of `tables`' files.
    pub fn write<'a>(tables: impl IntoIterator<Item = &'a Table>) -> Vec<u8> {
        let files: Vec<Vec<u8>> = tables.into_iter().map(Table::to_bytes).collect();
        let mut out = Vec::with_capacity(16 + files.iter().map(|f| f.len() + 8).sum::<usize>());
        out.extend_from_slice(PACK_MAGIC);
        out.extend_from_slice(&PACK_VERSION.to_le_bytes());
        out.extend_from_slice(&(files.len() as u32).to_le_bytes());
        for f in &files {
            out.extend_from_slice(&(f.len() as u64).to_le_bytes());
            out.extend_from_slice(f);
        }
        out
    }

    /// Reads a pack's framing (the tables are checked as they are read),
    /// naming it `name` in messages.
    pub fn from_bytes(bytes: Vec<u8>, name: &str) -> Result<Pack, EgdbError> {
        let bad = |reason: &str| EgdbError::BadPack { name: name.to_string(), reason: reason.to_string() };
        if bytes.len() < 16 || &bytes[..8] != PACK_MAGIC {
            return Err(bad("no pack header"));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap_or([0; 4]));
        let version = u32_at(8);
        if version != PACK_VERSION {
            return Err(bad(&format!("pack version {version}, this build reads {PACK_VERSION}")));
        }
        let count = u32_at(12) as usize;
        let mut files = Vec::with_capacity(count.min(1024));
        let mut at = 16;
        for _ in 0..count {
            let len = bytes
                .get(at..at + 8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                .ok_or_else(|| bad("truncated"))?;
            let start = at + 8;
            let end =
                usize::try_from(len).ok().and_then(|l| start.checked_add(l)).filter(|&e| e <= bytes.len());
            let end = end.ok_or_else(|| bad("truncated"))?;
            if end - start < HEADER {
                return Err(bad("a table without its header"));
            }
            files.push((header_signature(&bytes[start..end]), start..end));
            at = end;
        }
        if at != bytes.len() {
            return Err(bad("bytes after the last table"));
        }
        Ok(Pack { name: name.to_string(), bytes, files })
    }
}

impl Source for Pack {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn has(&self, sig: &Signature) -> bool {
        self.files.iter().any(|(s, _)| s == sig)
    }

    fn read(&self, sig: Signature) -> Result<Option<Table>, EgdbError> {
        let Some((_, range)) = self.files.iter().find(|(s, _)| *s == sig) else { return Ok(None) };
        let path = format!("{}: {}", self.name, sig.file_name());
        Table::from_bytes(&self.bytes[range.clone()], &path).map(Some)
    }
}

/// A set of tables, probed with captures resolved.
#[derive(Debug, Default)]
pub struct Tables {
    /// Indexed by [`Signature::code`]: a probe costs no hashing.
    tables: Vec<Option<Box<Table>>>,
    max_pieces: usize,
    /// Files that were there but could not be used, each with why.
    damaged: Vec<EgdbError>,
}

impl Tables {
    /// An empty set.
    pub fn new() -> Tables {
        Tables::default()
    }

    /// Loads every table of up to `max_pieces` pieces found in `src`.
    /// Returns the set and the signatures whose file is missing. A damaged
    /// or unreadable file is left out and named in [`Tables::damaged`]: it
    /// costs its piece count and those above, not the rest. Probes beyond
    /// the complete piece counts return `None`.
    pub fn load<S: Source + ?Sized>(
        src: &S,
        max_pieces: usize,
    ) -> Result<(Tables, Vec<Signature>), EgdbError> {
        if max_pieces > MAX_PIECES {
            return Err(EgdbError::Pieces(max_pieces));
        }
        src.check()?;
        let mut tables = Tables::new();
        let mut missing = Vec::new();
        let mut unusable = Vec::new();
        for sig in Signature::all(max_pieces) {
            match src.read(sig) {
                Ok(Some(t)) => tables.insert(t),
                Ok(None) => missing.push(sig),
                Err(e) => {
                    unusable.push(sig);
                    tables.damaged.push(e);
                }
            }
        }
        // Use only piece counts that are complete, so that a probe never
        // meets a hole in the middle of a capture sequence.
        tables.max_pieces = (2..=max_pieces)
            .take_while(|&n| missing.iter().chain(&unusable).all(|s| s.pieces() != n))
            .last()
            .unwrap_or(0);
        Ok((tables, missing))
    }

    /// The files [`Tables::load`] left out because they could not be used.
    pub fn damaged(&self) -> &[EgdbError] {
        &self.damaged
    }

    /// Adds a table.
    pub fn insert(&mut self, t: Table) {
        let code = t.sig.code();
        if self.tables.len() <= code {
            self.tables.resize_with(code + 1, || None);
        }
        self.tables[code] = Some(Box::new(t));
    }

    /// Sets the most pieces that probes use (up to what is loaded).
    pub fn set_max_pieces(&mut self, n: usize) {
        self.max_pieces = n;
    }

    /// The most pieces a probe answers for.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// Number of tables held.
    pub fn len(&self) -> usize {
        self.tables.iter().flatten().count()
    }

    /// Whether no table is held.
    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(Option::is_none)
    }

    /// The tables probes use (those of up to [`Tables::max_pieces`]
    /// pieces).
    pub fn used(&self) -> impl Iterator<Item = &Table> {
        self.tables.iter().flatten().map(|t| &**t).filter(|t| t.sig.pieces() <= self.max_pieces)
    }

    /// Total compressed size in bytes.
    pub fn bytes(&self) -> usize {
        self.tables.iter().flatten().map(|t| t.bytes()).sum()
    }

    /// The table of `sig`, if held.
    pub fn table(&self, sig: &Signature) -> Option<&Table> {
        self.tables.get(sig.code()).and_then(|t| t.as_deref())
    }

    /// The value of `pos` for its side to move, or `None` if it has too
    /// many pieces or a table it needs is missing.
    pub fn probe(&self, pos: &Position) -> Option<Wdl> {
        let mut list = MoveList::new();
        self.probe_with(pos, &mut list)
    }

    /// [`Tables::probe`] with a caller's move list (no allocation when the
    /// position is quiet).
    pub fn probe_with(&self, pos: &Position, list: &mut MoveList) -> Option<Wdl> {
        let us = pos.side();
        if pos.pieces(us) == 0 {
            return Some(Wdl::Loss);
        }
        if pos.pieces(us.opponent()) == 0 {
            return Some(Wdl::Win);
        }
        if pos.occupied().count_ones() as usize > self.max_pieces {
            return None;
        }
        if has_capture(pos) {
            return self.probe_captures(pos, list);
        }
        let (sig, index) = locate(pos);
        self.table(&sig).map(|t| t.get(index))
    }

    /// The best value over the captures of `pos` (which must have one).
    fn probe_captures(&self, pos: &Position, list: &mut MoveList) -> Option<Wdl> {
        list.clear();
        generate_captures(pos, list);
        // Copied out, since the successors' probes reuse the list; small
        // positions have few captures, so a stack buffer almost always does.
        let mut buffer = [crate::rules::movegen::Move::default(); 16];
        let heap: Vec<crate::rules::movegen::Move>;
        let moves: &[crate::rules::movegen::Move] = if list.len() <= buffer.len() {
            buffer[..list.len()].copy_from_slice(list.as_slice());
            &buffer[..list.len()]
        } else {
            heap = list.as_slice().to_vec();
            &heap
        };
        self.best_after(pos, moves, list)
    }

    /// The value of `pos` for its side to move from the values of the
    /// positions its `moves` lead to: a win as soon as one move wins; `None`
    /// if no move wins and some successor is not in the tables. `list` is
    /// scratch for the successors' probes.
    pub fn best_after(
        &self,
        pos: &Position,
        moves: &[crate::rules::movegen::Move],
        list: &mut MoveList,
    ) -> Option<Wdl> {
        let mut best = Some(Wdl::Loss);
        for m in moves {
            match self.probe_with(&pos.make(m), list).map(Wdl::flip) {
                Some(Wdl::Win) => return Some(Wdl::Win),
                Some(v) => best = best.map(|b| b.max(v)),
                None => best = None,
            }
        }
        best
    }
}

/// The largest piece count for which `src` has every table (by file names
/// only; loading checks the tables themselves). 0 if not even the 2-piece
/// tables are there.
pub fn complete_pieces<S: Source + ?Sized>(src: &S) -> usize {
    (2..=MAX_PIECES)
        .take_while(|&n| Signature::all(n).iter().all(|s| s.pieces() < n || src.has(s)))
        .last()
        .unwrap_or(0)
}

/// How many pieces a user asks the tables for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pieces {
    /// Every complete piece count there is, up to this many (the default
    /// of every front end; it bounds the memory a GUI's default takes).
    UpTo(usize),
    /// Exactly this many: fewer complete piece counts get a note.
    Exactly(usize),
}

/// Tables opened for the engine, and what the user should be told.
#[derive(Debug)]
pub struct Opened {
    /// The tables; they answer for [`Tables::max_pieces`] pieces, at least 2.
    pub tables: Tables,
    /// What the user should be told, one line each: every damaged file
    /// left out, and fewer pieces used than asked for (or, with
    /// [`Pieces::UpTo`], than the directory has files for).
    pub notes: Vec<String>,
}

/// The one loading policy of the command line, the Hub front end, the
/// browser and the tools: load the complete piece counts of `src` that
/// `pieces` allows. A missing directory or not even the 2-piece tables is
/// an error; a missing table, or a damaged one (named in the note), only
/// lowers the count used.
pub fn open<S: Source + ?Sized>(src: &S, pieces: Pieces) -> Result<Opened, EgdbError> {
    let limit = match pieces {
        Pieces::UpTo(n) | Pieces::Exactly(n) => n,
    };
    if limit > MAX_PIECES {
        return Err(EgdbError::Pieces(limit));
    }
    // A missing directory is refused by Tables::load (UpTo finds no
    // complete count in it and loads nothing, which still checks it).
    // By file names first: `UpTo` never reads the tables of an incomplete
    // piece count (they can be large and would never be probed).
    let present = |s: &Signature| src.has(s);
    let load_to = match pieces {
        Pieces::Exactly(n) => n,
        Pieces::UpTo(n) => complete_pieces(src).min(n),
    };
    let (tables, _) = Tables::load(src, load_to)?;
    let used = tables.max_pieces();
    let damaged: Vec<String> = tables.damaged().iter().map(|e| format!("{e}: left out")).collect();
    if used < 2 {
        return Err(match tables.damaged().first() {
            Some(e) => e.clone(),
            None => EgdbError::NoCompleteSet(src.describe()),
        });
    }
    let wanted = match pieces {
        Pieces::Exactly(n) => n,
        Pieces::UpTo(n) => {
            Signature::all(n).iter().filter(|s| present(s)).map(|s| s.pieces()).max().unwrap_or(0)
        }
    };
    let absent = Signature::all(wanted).iter().filter(|s| !present(s)).count();
    let shortfall = (used < wanted).then(|| match absent {
        0 => format!("using endgame tables up to {used} pieces of the {wanted} in {}", src.describe()),
        n => format!(
            "{n} of the endgame tables up to {wanted} pieces are missing in {}: using up to {used} pieces",
            src.describe()
        ),
    });
    let notes = damaged.into_iter().chain(shortfall).collect();
    Ok(Opened { tables, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_are_inverse() {
        let n = 12;
        for (k, &total) in BINOMIAL[n].iter().enumerate().take(5) {
            for r in 0..total {
                let set = unrank(r, k, n);
                assert_eq!(set.count_ones() as usize, k);
                assert!(set < 1 << n);
                assert_eq!(rank(set), r);
            }
        }
    }

    #[test]
    fn index_round_trips() {
        for sig in Signature::all(3) {
            let mut broken = 0;
            for i in 0..sig.size() {
                match position_at(&sig, i) {
                    Some(p) => {
                        assert_eq!(Signature::of(&p), sig);
                        assert_eq!(locate(&p), (sig, i), "{sig} {i}");
                        let f = p.flipped();
                        assert_eq!(locate(&f), (sig, i), "flipped {sig} {i}");
                    }
                    None => broken += 1,
                }
            }
            let men_clash = if sig.us_men > 0 && sig.them_men > 0 { 1 } else { 0 };
            assert!(broken == 0 || men_clash == 1, "{sig}: {broken} broken");
        }
    }

    #[test]
    fn compression_round_trips_and_damage_is_caught() {
        let sig = Signature { us_men: 1, us_kings: 0, them_men: 0, them_kings: 1 };
        let value = |i: u64| match i % 7 {
            0 => None,
            1 | 2 => Some(Wdl::Win),
            3 => Some(Wdl::Loss),
            _ => Some(Wdl::Draw),
        };
        let t = Table::compress(sig, sig.size(), value);
        for i in 0..sig.size() {
            if let Some(v) = value(i) {
                assert_eq!(t.get(i), v);
            }
        }
        let bytes = t.to_bytes();
        let back = Table::from_bytes(&bytes, "t").unwrap();
        assert_eq!(back.data, t.data);
        let mut bad = bytes.clone();
        bad[HEADER + 3] ^= 1;
        assert!(matches!(Table::from_bytes(&bad, "t"), Err(EgdbError::Corrupt { .. })));
        assert!(Table::from_bytes(&bytes[..bytes.len() - 1], "t").is_err());
        assert!(Table::from_bytes(b"hello", "t").is_err());
    }

    /// A pack holds table files as a directory does: the same loading
    /// policy reads it, a damaged table in it is named and left out, and a
    /// damaged pack is refused with its name.
    #[test]
    fn a_pack_is_read_as_a_directory_is() {
        let value = |i: u64| Some([Wdl::Win, Wdl::Draw, Wdl::Loss][(i % 3) as usize]);
        let two: Vec<Table> =
            Signature::all(2).into_iter().map(|sig| Table::compress(sig, sig.size(), value)).collect();
        let three = Signature { us_men: 2, us_kings: 0, them_men: 0, them_kings: 1 };
        let mut tables: Vec<&Table> = two.iter().collect();
        let extra = Table::compress(three, three.size(), value);
        tables.push(&extra);
        let bytes = Pack::write(tables.iter().copied());
        let pack = Pack::from_bytes(bytes.clone(), "p").unwrap();
        assert_eq!(complete_pieces(&pack), 2);
        assert!(pack.has(&three) && !pack.has(&three.swapped()));
        let opened = open(&pack, Pieces::UpTo(MAX_PIECES)).unwrap();
        assert_eq!(opened.tables.max_pieces(), 2);
        assert_eq!(opened.tables.used().count(), 4);
        assert!(opened.notes.iter().any(|n| n.contains("missing in p")), "{:?}", opened.notes);
        for t in &two {
            let back = opened.tables.table(&t.signature()).unwrap();
            assert_eq!((back.offsets.clone(), back.data.clone()), (t.offsets.clone(), t.data.clone()));
        }
        // Tables asked for by a pack of the tables in use: the same pack.
        assert_eq!(Pack::write(opened.tables.used()), Pack::write(two.iter()));

        // A damaged table: named, and its piece count left out.
        let mut bad = bytes.clone();
        let last = bad.len() - 20;
        bad[last] ^= 1;
        let opened = open(&Pack::from_bytes(bad, "p").unwrap(), Pieces::Exactly(3)).unwrap();
        assert_eq!(opened.tables.max_pieces(), 2);
        assert!(opened.notes.iter().any(|n| n.contains("p: 2m0k-0m1k.wdl")), "{:?}", opened.notes);
        // A damaged pack: refused, named.
        for bad in [b"DAMMERTP".to_vec(), bytes[..bytes.len() - 1].to_vec(), [&bytes[..], &[0]].concat()] {
            let e = Pack::from_bytes(bad, "p").unwrap_err().to_string();
            assert!(e.starts_with("p: "), "{e}");
        }
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(Pack::from_bytes(version, "p").unwrap_err().to_string().contains("pack version 9"));
    }

    #[test]
    fn generation_order_puts_dependencies_first() {
        let all = Signature::all(5);
        let pos = |s: &Signature| all.iter().position(|x| x == s).unwrap();
        for s in &all {
            if s.us_men > 0 {
                let promoted = Signature { us_men: s.us_men - 1, us_kings: s.us_kings + 1, ..*s };
                assert!(pos(&promoted) < pos(s) || promoted.swapped() == *s);
            }
        }
        // King or man against king or man.
        assert_eq!(all.iter().filter(|s| s.pieces() == 2).count(), 4);
    }
}
