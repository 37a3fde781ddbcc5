//! The opening book: positions with minimax scores, the file format, and
//! the choice of a book move.
//!
//! A book is a set of positions, each with the score its own search gave
//! (`searched`) and the score backed up from its book successors
//! (`value`, the minimax over the book tree; equal to `searched` at a
//! leaf). A position is *expanded* when every move from it leads to a
//! book position: only expanded positions have book moves, each scored
//! by its successor's value. Positions are found by Zobrist key, so
//! transpositions and positions set up from a FEN are found too.
//!
//! File (little endian): the magic `DAMMBOOK`, version `u32`, the number
//! of positions `u32`, the nodes each position was searched with `u64`,
//! the key of the start position `u64` (a book made with other Zobrist
//! keys is refused), then the positions sorted by key, 16 bytes each (key
//! `u64`, value `i16`, searched `i16`, ply `u8`, flags `u8`, reserved
//! `u16`), then the 64-bit FNV-1a of everything before it. `dammer book
//! build` writes it (see `docs/book.md`).

use std::fmt;
use std::path::Path;

use crate::base::checksum::fnv1a;
use crate::base::rng::SplitMix;
use crate::engine::score::Score;
use crate::rules::movegen::{legal_moves, Move};
use crate::rules::position::Position;

const MAGIC: &[u8; 8] = b"DAMMBOOK";
const VERSION: u32 = 1;
const HEADER: usize = 32;
const ENTRY: usize = 16;
/// Most positions a book file may hold (a sanity bound on the count field).
const MAX_POSITIONS: usize = 1 << 26;

/// Flag bit: every move from the position leads to a book position.
const EXPANDED: u8 = 1;
/// Flag bit: the position is one of the roots the book was built from.
const ROOT: u8 = 2;

/// The book shipped inside the binary (built by the command in `docs/book.md`).
const EMBEDDED: &[u8] = include_bytes!("book.bin");

/// Default of `book-margin`: book moves scoring at most this much (hundredths
/// of a man) below the best are played too, for variety.
pub const DEFAULT_MARGIN: Score = 5;
/// Default of `book-ply`: the book is used from positions up to this many
/// plies from its roots (that is, wherever it has moves).
pub const DEFAULT_MAX_PLY: u32 = 255;

/// One book position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The position's Zobrist key.
    pub key: u64,
    /// Minimax score over the book tree, side to move, hundredths of a man.
    pub value: i16,
    /// The score of the position's own search.
    pub searched: i16,
    /// Fewest plies from a root of the book.
    pub ply: u8,
    flags: u8,
}

impl Entry {
    /// A book position.
    pub fn new(key: u64, value: i16, searched: i16, ply: u8, expanded: bool, root: bool) -> Entry {
        let flags = if expanded { EXPANDED } else { 0 } | if root { ROOT } else { 0 };
        Entry { key, value, searched, ply, flags }
    }

    /// Whether every move from the position leads to a book position.
    pub fn expanded(&self) -> bool {
        self.flags & EXPANDED != 0
    }

    /// Whether the position is a root the book was built from.
    pub fn root(&self) -> bool {
        self.flags & ROOT != 0
    }
}

/// A book move and what the book knows of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Its score for the side to move (the successor's value, negated).
    pub score: Score,
    /// The successor's entry.
    pub next: Entry,
}

/// How a book is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookPolicy {
    /// Use the book only in positions at most this many plies from its roots.
    pub max_ply: u32,
    /// Play any book move within this many hundredths of a man of the best.
    pub margin: Score,
}

impl Default for BookPolicy {
    fn default() -> Self {
        BookPolicy { max_ply: DEFAULT_MAX_PLY, margin: DEFAULT_MARGIN }
    }
}

/// Why a book file was refused.
#[derive(Debug)]
pub enum BookError {
    /// The file could not be read or written.
    Io(std::io::Error),
    /// Not a book file.
    NotABook,
    /// A book of a version this build does not read.
    Version(u32),
    /// The file is shorter or longer than its header says.
    Length {
        /// Bytes expected.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// The checksum does not match: a damaged file.
    Checksum,
    /// Made with other position keys (another build's Zobrist keys).
    Keys,
    /// Positions out of order or repeated: a damaged file.
    Order,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(e) => write!(f, "{e}"),
            BookError::NotABook => write!(f, "not a Dammer book file"),
            BookError::Version(v) => write!(f, "book file version {v}, this build reads version {VERSION}"),
            BookError::Length { expected, found } => {
                write!(f, "book file of {found} bytes, its header says {expected}: truncated or damaged")
            }
            BookError::Checksum => write!(f, "book file checksum mismatch: the file is damaged"),
            BookError::Keys => write!(f, "book made with other position keys (another build); rebuild it"),
            BookError::Order => write!(f, "book positions out of order: the file is damaged"),
        }
    }
}

impl std::error::Error for BookError {}

impl From<std::io::Error> for BookError {
    fn from(e: std::io::Error) -> Self {
        BookError::Io(e)
    }
}

/// An opening book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    entries: Vec<Entry>,
    nodes: u64,
}

impl Book {
    /// A book of `entries` (any order; a repeated key keeps the first),
    /// searched with `nodes` nodes each.
    pub fn new(mut entries: Vec<Entry>, nodes: u64) -> Book {
        entries.sort_by_key(|e| e.key);
        entries.dedup_by_key(|e| e.key);
        Book { entries, nodes }
    }

    /// The book shipped inside the binary.
    pub fn embedded() -> Book {
        Book::from_bytes(EMBEDDED).expect("the embedded book is valid (checked by the tests)")
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no positions.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Nodes each position was searched with.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Every position, sorted by key.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry of the position with this key.
    pub fn get(&self, key: u64) -> Option<&Entry> {
        self.entries.binary_search_by_key(&key, |e| e.key).ok().map(|i| &self.entries[i])
    }

    /// The book moves of `pos`, best first; `None` unless `pos` is an
    /// expanded book position.
    pub fn moves(&self, pos: &Position) -> Option<Vec<BookMove>> {
        if !self.get(pos.key())?.expanded() {
            return None;
        }
        let mut moves = Vec::new();
        for m in legal_moves(pos).iter() {
            // An expanded position has every successor; one missing means
            // a damaged or foreign book: no book move here.
            let next = *self.get(pos.make(m).key())?;
            moves.push(BookMove { mv: *m, score: -Score::from(next.value), next });
        }
        moves.sort_by_key(|b| -b.score);
        Some(moves)
    }

    /// A book move for `pos` under `policy`, drawn with `random` among the
    /// moves within the margin of the best; `None` when the book has none.
    pub fn choose(&self, pos: &Position, policy: &BookPolicy, random: u64) -> Option<BookMove> {
        if u32::from(self.get(pos.key())?.ply) > policy.max_ply {
            return None;
        }
        let moves = self.moves(pos)?;
        let best = moves.first()?.score;
        let good: Vec<&BookMove> = moves.iter().filter(|b| b.score >= best - policy.margin.max(0)).collect();
        Some(*good[SplitMix::new(random).below(good.len())])
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + ENTRY * self.entries.len() + 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.nodes.to_le_bytes());
        out.extend_from_slice(&Position::start().key().to_le_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.key.to_le_bytes());
            out.extend_from_slice(&e.value.to_le_bytes());
            out.extend_from_slice(&e.searched.to_le_bytes());
            out.push(e.ply);
            out.push(e.flags);
            out.extend_from_slice(&[0, 0]);
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a book from a file's bytes, checking everything.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if bytes.len() < HEADER + 8 || &bytes[..8] != MAGIC {
            return Err(BookError::NotABook);
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(BookError::Version(version));
        }
        let count = u32_at(12) as usize;
        let expected = HEADER + ENTRY * count.min(MAX_POSITIONS) + 8;
        if count > MAX_POSITIONS || bytes.len() != expected {
            return Err(BookError::Length { expected, found: bytes.len() });
        }
        let body = bytes.len() - 8;
        if fnv1a(&bytes[..body]) != u64_at(body) {
            return Err(BookError::Checksum);
        }
        if u64_at(24) != Position::start().key() {
            return Err(BookError::Keys);
        }
        let nodes = u64_at(16);
        let mut entries = Vec::with_capacity(count);
        for chunk in bytes[HEADER..body].chunks_exact(ENTRY) {
            let i16_at = |i: usize| i16::from_le_bytes([chunk[i], chunk[i + 1]]);
            let key = u64::from_le_bytes(chunk[..8].try_into().expect("8 bytes"));
            if entries.last().is_some_and(|e: &Entry| e.key >= key) {
                return Err(BookError::Order);
            }
            entries.push(Entry {
                key,
                value: i16_at(8),
                searched: i16_at(10),
                ply: chunk[12],
                flags: chunk[13],
            });
        }
        Ok(Book { entries, nodes })
    }

    /// Reads a book file.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        Book::from_bytes(&std::fs::read(path)?)
    }

    /// Writes the book file (to a temporary file first, so that an
    /// interrupted write leaves the old file whole).
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, self.to_bytes())?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    }
}
