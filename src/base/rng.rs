//! The one random number generator of the crate: SplitMix64, small,
//! deterministic and usable at compile time (the Zobrist keys are drawn
//! from it), which is all that self-play openings, the tuner's shuffles and
//! the tests' random positions need.

/// SplitMix64: the state advances by a fixed odd constant and each output is
/// a mix of the state. Equal seeds give equal sequences on every machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// A generator started from `seed`.
    pub const fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub const fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sequence() {
        // The first outputs of SplitMix64 seeded with 0 (the reference
        // implementation's published values).
        let mut r = SplitMix::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut r = SplitMix::new(7);
        assert!((0..1000).all(|_| r.below(13) < 13));
    }
}
