//! The hybrid evaluation: the neural network plus a linear term of
//! 12-square region patterns (Scan 3's kind of evaluation: eight look-ups
//! into four tables of 3^12 states, with the region layout's dense
//! features), fitted to what the network's score leaves unexplained.
//!
//! The network sees piece-squares; the regions see which of 531,441
//! configurations each part of the board holds, the local patterns that
//! strong draughts engines judge with millions of weights. Their sum is
//! the score: `network (side to move) + regions (White's view, signed for
//! the side to move)`. The layout of the linear term is the regions
//! layout ([`super::weights::Layout::Regions`]: [`super::regions`] reads
//! it for the engine and the tuner alike); `dammer tune --layout regions
//! --base nn` fits it with the network's score as a fixed offset, so its
//! epoch 0 is the network alone.

use std::sync::Arc;

use super::nn::{NetCache, Network};
use super::regions::RegionEval;
use crate::engine::score::{Score, EVAL_LIMIT};
use crate::rules::position::{Color, Position};

/// A network and the region term fitted on top of it.
#[derive(Clone, Debug)]
pub struct Hybrid {
    net: Arc<Network>,
    regions: RegionEval,
}

impl Hybrid {
    /// The network `net` with the region term `regions` (fitted with that
    /// network as its base).
    pub fn new(net: Arc<Network>, regions: RegionEval) -> Hybrid {
        Hybrid { net, regions }
    }

    /// The network underneath.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The region term of `pos` from the side to move's view.
    #[inline]
    fn regions(&self, pos: &Position) -> Score {
        let white = self.regions.white_score(pos);
        if pos.side() == Color::White {
            white
        } else {
            -white
        }
    }

    /// Evaluates `pos` from the side to move's view, in hundredths of a man.
    pub fn evaluate(&self, pos: &Position) -> Score {
        (self.net.evaluate(pos) + self.regions(pos)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The same through the network's cache (the search's way).
    #[inline]
    pub fn evaluate_cached(&self, pos: &Position, cache: &mut NetCache, slot: usize) -> Score {
        (self.net.evaluate_cached(pos, cache, slot) + self.regions(pos)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::eval::weights::{Layout, PatternWeights};

    #[test]
    fn zero_regions_leave_the_network_and_the_sum_is_symmetric() {
        let net = Arc::new(Network::from_bytes(crate::engine::eval::nn::EMBEDDED).unwrap());
        let h = Hybrid::new(net.clone(), RegionEval::new(&PatternWeights::zero(Layout::Regions).w));
        let fens = ["W:W31-50:B1-20", "B:W28,32,33,K46:B12,17,19,K3", "W:W27,28,33,38:B13,17,18,22"];
        for fen in fens {
            let pos = Position::parse(fen).unwrap();
            assert_eq!(h.evaluate(&pos), net.evaluate(&pos), "{fen}");
        }
        // A region term of material: the hybrid adds it, from each side.
        let h = Hybrid::new(net.clone(), RegionEval::new(&PatternWeights::material(Layout::Regions).w));
        let pos = Position::parse("W:W27,28,33,38,40:B13,17,18,22").unwrap();
        assert_eq!(h.evaluate(&pos) - net.evaluate(&pos), 100);
        let black = Position::parse("B:W27,28,33,38,40:B13,17,18,22").unwrap();
        assert_eq!(h.evaluate(&black) - net.evaluate(&black), -100);
        let mut cache = NetCache::new(4);
        assert_eq!(h.evaluate_cached(&pos, &mut cache, 0), h.evaluate(&pos));
    }
}
