//! The transposition table, shared by all search threads without locks.
//!
//! Each entry is two `AtomicU64`s: the packed data and the position key XORed
//! with that data. A reader accepts an entry only if `stored_key ^ data` gives
//! back its key, so a torn entry (two writers racing on the same slot) reads as
//! a miss instead of wrong data. All accesses are relaxed atomics: there is no
//! data race, only the benign loss of an entry now and then.
//!
//! Entries sit in buckets of four (one 64-byte cache line). A store replaces
//! the entry of the same position if there is one, else the entry that is
//! least worth keeping: the oldest search first, then the shallowest.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use crate::engine::score::Score;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score (no move reached alpha).
    Upper = 1,
    /// The true value is at least the score (a move reached beta).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

/// A decoded entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Score, with won/lost scores relative to the stored node (see [`crate::engine::score::to_tt`]).
    pub score: Score,
    /// Remaining depth the score was searched to.
    pub depth: i32,
    /// Bound type.
    pub bound: Bound,
    /// Best or refuting move as (from bit, to bit), if any.
    pub mv: Option<(u8, u8)>,
}

#[derive(Default)]
#[repr(C)]
struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    slots: [Slot; 4],
}

/// Packs an entry: score (16 bits), depth (8), bound (2), age (6), move (13: a
/// valid bit, then from and to as 6 bits each).
fn pack(e: &Entry, age: u8) -> u64 {
    let mv = match e.mv {
        Some((f, t)) => (1u64 << 12) | (u64::from(f) << 6) | u64::from(t),
        None => 0,
    };
    (e.score as i16 as u16 as u64)
        | (u64::from(e.depth.clamp(0, 255) as u8) << 16)
        | ((e.bound as u64) << 24)
        | (u64::from(age & 63) << 26)
        | (mv << 32)
}

fn unpack(d: u64) -> Option<Entry> {
    let bound = match (d >> 24) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    let mv = (d >> 32) & 0x1FFF;
    Some(Entry {
        score: Score::from(d as u16 as i16),
        depth: ((d >> 16) & 0xFF) as i32,
        bound,
        mv: if mv >> 12 == 1 { Some((((mv >> 6) & 63) as u8, (mv & 63) as u8)) } else { None },
    })
}

fn age_of(d: u64) -> u8 {
    ((d >> 26) & 63) as u8
}

/// Zeroed, 2 MiB-aligned memory for the buckets. Large tables are probed at
/// random, so on Linux the memory is marked for transparent huge pages: one
/// TLB entry then covers 2 MiB instead of 4 KiB, which saves a page walk on
/// most probes.
struct BucketMemory {
    ptr: std::ptr::NonNull<Bucket>,
    len: usize,
}

const HUGE_PAGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
extern "C" {
    fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
}

impl BucketMemory {
    fn layout(len: usize) -> std::alloc::Layout {
        let size = len * std::mem::size_of::<Bucket>();
        std::alloc::Layout::from_size_align(size, HUGE_PAGE.min(size.next_power_of_two()).max(64))
            .expect("table size fits the address space")
    }

    /// `len` zeroed buckets, or `None` when the memory cannot be had.
    fn new(len: usize) -> Option<BucketMemory> {
        let len = len.max(1);
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size (at least one bucket). The
        // memory is zeroed below, after the huge-page advice, so that the
        // first touch already faults in huge pages.
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr = std::ptr::NonNull::new(raw as *mut Bucket)?;
        #[cfg(target_os = "linux")]
        if layout.size() >= HUGE_PAGE {
            const MADV_HUGEPAGE: i32 = 14;
            // SAFETY: the range is exactly the allocation just made; the advice
            // only changes how the kernel backs it, never its contents. A failure
            // (no THP support) leaves ordinary pages, which is fine.
            let _ = unsafe { madvise(raw as *mut std::ffi::c_void, layout.size(), MADV_HUGEPAGE) };
        }
        // SAFETY: `raw` is valid for writes of `layout.size()` bytes; zero bytes
        // make every bucket empty.
        unsafe { std::ptr::write_bytes(raw, 0, layout.size()) };
        Some(BucketMemory { ptr, len })
    }

    fn buckets(&self) -> &[Bucket] {
        // SAFETY: `ptr` points to `len` buckets allocated (zeroed) by `new` and
        // owned by `self`; all-zero bytes are a valid `Bucket` (atomics at 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for BucketMemory {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this same layout and not freed before.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, Self::layout(self.len)) };
    }
}

// SAFETY: `BucketMemory` owns its allocation like a `Box<[Bucket]>`, and
// `Bucket` holds only atomics, which are `Send` and `Sync`.
unsafe impl Send for BucketMemory {}
// SAFETY: as above: shared access only hands out `&[Bucket]`, whose atomics
// are safe to use from many threads.
unsafe impl Sync for BucketMemory {}

/// Memory available to new allocations in MiB, where the system says.
fn available_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// The shared transposition table.
pub struct TranspositionTable {
    memory: BucketMemory,
    age: AtomicU8,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} MiB)", self.size_mb())
    }
}

impl TranspositionTable {
    /// A table of about `mb` MiB (at least one bucket). When that much memory
    /// cannot be had, the size is halved until it can: a GUI asking for more
    /// than the machine has gets a smaller table, not a crash.
    pub fn new(mb: usize) -> TranspositionTable {
        // Linux hands out more memory than it has and kills the process when
        // it is touched, so stay within half of what is available.
        let mb = match available_mb() {
            Some(avail) if mb > avail / 2 => {
                log::warn!("{mb} MiB asked for the table, {avail} MiB available: using {} MiB", avail / 2);
                (avail / 2).max(1)
            }
            _ => mb,
        };
        let mut n = (mb.max(1) << 20) / std::mem::size_of::<Bucket>();
        loop {
            if let Some(memory) = BucketMemory::new(n) {
                if n < (mb.max(1) << 20) / std::mem::size_of::<Bucket>() {
                    log::warn!("transposition table reduced to {} MiB", (n * 64) >> 20);
                }
                return TranspositionTable { memory, age: AtomicU8::new(0) };
            }
            if n <= 1 {
                std::alloc::handle_alloc_error(BucketMemory::layout(1));
            }
            n /= 2;
        }
    }

    /// Size in MiB.
    pub fn size_mb(&self) -> usize {
        (self.memory.len * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        for b in self.memory.buckets() {
            for s in &b.slots {
                s.key.store(0, Ordering::Relaxed);
                s.data.store(0, Ordering::Relaxed);
            }
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become cheaper to replace.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let buckets = self.memory.buckets();
        let i = ((u128::from(key) * buckets.len() as u128) >> 64) as usize;
        &buckets[i]
    }

    /// Starts loading the bucket of `key` into the cache, so that a probe
    /// soon after does not wait for memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: `p` points into `self.buckets`, which is alive for the
            // call; a prefetch only hints the cache and never faults or
            // changes memory.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, if the table holds one.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in &self.bucket(key).slots {
            let data = s.data.load(Ordering::Relaxed);
            if s.key.load(Ordering::Relaxed) ^ data == key {
                return unpack(data);
            }
        }
        None
    }

    /// Stores an entry for `key`.
    #[inline]
    pub fn store(&self, key: u64, mut e: Entry) {
        let age = self.age.load(Ordering::Relaxed) & 63;
        let bucket = self.bucket(key);
        let mut victim = &bucket.slots[0];
        let mut victim_worth = i32::MAX;
        for s in &bucket.slots {
            let data = s.data.load(Ordering::Relaxed);
            let k = s.key.load(Ordering::Relaxed) ^ data;
            if k == key || data == 0 {
                if k == key {
                    if let Some(old) = unpack(data) {
                        // A shallower result without a move keeps the old move
                        // for ordering; a much deeper exact one is not overwritten
                        // by a shallow bound.
                        if e.mv.is_none() {
                            e.mv = old.mv;
                        }
                        if old.depth > e.depth + 2 && old.bound == Bound::Exact && e.bound != Bound::Exact {
                            return;
                        }
                    }
                }
                victim = s;
                break;
            }
            let stale = i32::from(age.wrapping_sub(age_of(data)) & 63);
            let worth = ((data >> 16) & 0xFF) as i32 - 8 * stale;
            if worth < victim_worth {
                victim_worth = worth;
                victim = s;
            }
        }
        let data = pack(&e, age);
        victim.key.store(key ^ data, Ordering::Relaxed);
        victim.data.store(data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trips() {
        for score in [-9_990, -1, 0, 1, 123, 9_999] {
            for bound in [Bound::Upper, Bound::Lower, Bound::Exact] {
                for mv in [None, Some((0u8, 53u8)), Some((53, 0))] {
                    let e = Entry { score, depth: 17, bound, mv };
                    assert_eq!(unpack(pack(&e, 5)), Some(e));
                }
            }
        }
    }

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        assert_eq!(tt.size_mb(), 1);
        let e = Entry { score: 42, depth: 5, bound: Bound::Exact, mv: Some((3, 9)) };
        tt.store(0xDEAD_BEEF, e);
        assert_eq!(tt.probe(0xDEAD_BEEF), Some(e));
        assert_eq!(tt.probe(0xDEAD_BEEE), None);
    }

    #[test]
    fn table_entries_are_never_torn() {
        let tt = TranspositionTable::new(1);
        let entry_for = |k: u64| Entry {
            score: (k % 2000) as i32 - 1000,
            depth: (k % 50) as i32,
            bound: Bound::Exact,
            mv: Some(((k % 54) as u8, (k / 7 % 54) as u8)),
        };
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let tt = &tt;
                s.spawn(move || {
                    let mut rng = crate::base::rng::SplitMix::new(t + 10);
                    for _ in 0..200_000 {
                        // Few keys, so writers collide on the same slots.
                        let k = (rng.next_u64() % 5_000) | (1 << 40);
                        let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                        if rng.below(2) == 0 {
                            tt.store(key, entry_for(k));
                        } else if let Some(e) = tt.probe(key) {
                            assert_eq!(e, entry_for(k));
                        }
                    }
                });
            }
        });
    }
}
