//! The hand-written evaluation.
//!
//! Every term is computed for White on the board as it is and for Black on
//! the board turned half a turn (square `s` seen as `51 - s`), so a position
//! and its colour-flipped mirror score the same. Terms are tapered between a
//! middlegame and an endgame weight by the number of men left. All weights
//! live in [`Weights`] so they can later be fitted to game results.
//!
//! Scores are integers in hundredths of a man, from the side to move's view.
//!
//! The engine plays with a learned evaluation by default (see
//! [`DEFAULT_LAYOUT`]): the 4x4 windows ([`pattern`]) or the 12-square
//! regions ([`regions`]), whose weights [`weights`] reads, or the network
//! ([`nn`]); [`pst`] is a deliberately weak one for people to play against.
//! [`Evaluation`] selects among them.

pub mod hybrid;
pub mod nn;
pub mod pattern;
pub mod pst;
pub mod regions;
pub mod weights;

use std::sync::Arc;

use hybrid::Hybrid;
use nn::{NetCache, Network};
use pattern::PatternEval;
use regions::RegionEval;
use weights::{Layout, PatternWeights};

use crate::engine::score::{Score, EVAL_LIMIT};
use crate::rules::bitboard::{slide, square_bb, Bitboard, Bits, DIRS};
use crate::rules::movegen::forward_steps;
use crate::rules::position::{Color, Position};
use crate::rules::variant::Variant;

/// Every evaluation weight, in hundredths of a man. `_mg` weights count fully
/// with all 40 men on the board, `_eg` weights with none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A man.
    pub man: Score,
    /// A king in the middlegame.
    pub king_mg: Score,
    /// A king in the endgame.
    pub king_eg: Score,
    /// A man on each row, counted from its own back row (index 0) forward.
    pub row_mg: [Score; 10],
    /// The same in the endgame, where advancing toward the crown matters more.
    pub row_eg: [Score; 10],
    /// A man on one of the six centre squares (22-24, 27-29).
    pub centre_mg: Score,
    /// A man on the back-rank guard squares (47-49 for White, 2-4 for Black).
    pub guard_mg: Score,
    /// Per man of difference between the two wings (left and right five columns).
    pub balance_mg: Score,
    /// A man on an outpost (24 or 22 for White) with both squares behind it held.
    pub outpost_mg: Score,
    /// Per square a king can move to.
    pub king_mobility: Score,
    /// For having the move, a small tempo bonus.
    pub tempo: Score,
    /// Per forward step a man can make to an empty square (middlegame).
    pub men_mobility_mg: Score,
    /// The same in the endgame.
    pub men_mobility_eg: Score,
}

/// The weights Dammer plays with.
pub const WEIGHTS: Weights = Weights {
    man: 100,
    king_mg: 330,
    king_eg: 300,
    row_mg: [0, 2, 4, 6, 9, 12, 15, 18, 25, 0],
    row_eg: [0, 3, 6, 10, 15, 21, 28, 38, 55, 0],
    centre_mg: 6,
    guard_mg: 6,
    balance_mg: -3,
    outpost_mg: 8,
    king_mobility: 2,
    tempo: 2,
    men_mobility_mg: 3,
    men_mobility_eg: 1,
};

const fn mask(squares: &[u8]) -> Bitboard {
    let mut b = 0;
    let mut i = 0;
    while i < squares.len() {
        b |= square_bb(squares[i]);
        i += 1;
    }
    b
}

const fn row_mask(row: u8) -> Bitboard {
    let first = row * 5 + 1;
    mask(&[first, first + 1, first + 2, first + 3, first + 4])
}

/// Rows as White sees them: `ROWS_WHITE[r]` is White's row `r` from its back
/// row (squares 46-50 are row 0).
const ROWS_WHITE: [Bitboard; 10] = {
    let mut t = [0; 10];
    let mut r = 0;
    while r < 10 {
        t[r] = row_mask(9 - r as u8);
        r += 1;
    }
    t
};

const CENTRE: Bitboard = mask(&[22, 23, 24, 27, 28, 29]);
const GUARD_WHITE: Bitboard = mask(&[47, 48, 49]);
const GUARD_BLACK: Bitboard = mask(&[2, 3, 4]);

/// The left five columns of the board as White sees it.
const LEFT: Bitboard = {
    let mut b = 0;
    let mut s = 1u8;
    while s <= 50 {
        let i = s - 1;
        let row = i / 5;
        let col = 2 * (i % 5) + if row.is_multiple_of(2) { 1 } else { 0 };
        if col < 5 {
            b |= square_bb(s);
        }
        s += 1;
    }
    b
};
const RIGHT: Bitboard = crate::rules::bitboard::BOARD & !LEFT;

/// Outposts with the two squares behind them, for White; Black's mirror them.
const OUTPOSTS_WHITE: [(u8, [u8; 2]); 2] = [(24, [29, 30]), (22, [27, 28])];

/// A middlegame and an endgame value packed in one integer (middlegame in
/// the high 16 bits), so that both are summed with one addition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Packed(i32);

impl Packed {
    const fn new(mg: Score, eg: Score) -> Packed {
        Packed((mg << 16) + eg)
    }
    fn mg(self) -> Score {
        (self.0 + 0x8000) >> 16
    }
    fn eg(self) -> Score {
        self.0 as i16 as Score
    }
}

impl std::ops::Add for Packed {
    type Output = Packed;
    fn add(self, o: Packed) -> Packed {
        Packed(self.0 + o.0)
    }
}

impl std::ops::Sub for Packed {
    type Output = Packed;
    fn sub(self, o: Packed) -> Packed {
        Packed(self.0 - o.0)
    }
}

impl std::ops::Mul<Score> for Packed {
    type Output = Packed;
    fn mul(self, n: Score) -> Packed {
        Packed(self.0 * n)
    }
}

/// The weights turned into per-square tables, so that a man's material,
/// row, centre and guard terms cost one table look-up.
#[derive(Clone, Debug)]
pub struct Evaluator {
    man: [[Packed; 64]; 2],
    king: Packed,
    balance: Packed,
    outpost: Packed,
    king_mobility: Packed,
    men_mobility: Packed,
    tempo: Score,
}

impl Evaluator {
    /// Tables for `w`.
    pub fn new(w: &Weights) -> Evaluator {
        let mut man = [[Packed::default(); 64]; 2];
        for c in [Color::White, Color::Black] {
            for s in 1..=50u8 {
                let b = square_bb(s);
                let row = match c {
                    Color::White => (0..10).find(|&r| ROWS_WHITE[r] & b != 0),
                    Color::Black => (0..10).find(|&r| ROWS_WHITE[9 - r] & b != 0),
                }
                .unwrap_or(0);
                let guard = match c {
                    Color::White => GUARD_WHITE,
                    Color::Black => GUARD_BLACK,
                };
                let mut mg = w.man + w.row_mg[row];
                let eg = w.man + w.row_eg[row];
                if CENTRE & b != 0 {
                    mg += w.centre_mg;
                }
                if guard & b != 0 {
                    mg += w.guard_mg;
                }
                man[c as usize][crate::rules::bitboard::square_to_bit(s) as usize] = Packed::new(mg, eg);
            }
        }
        Evaluator {
            man,
            king: Packed::new(w.king_mg, w.king_eg),
            balance: Packed::new(w.balance_mg, 0),
            outpost: Packed::new(w.outpost_mg, 0),
            king_mobility: Packed::new(w.king_mobility, w.king_mobility),
            men_mobility: Packed::new(w.men_mobility_mg, w.men_mobility_eg),
            tempo: w.tempo,
        }
    }

    fn side(&self, pos: &Position, c: Color) -> Packed {
        let men = pos.men(c);
        let kings = pos.kings_of(c);
        let table = &self.man[c as usize];
        let mut acc = Packed::default();
        for b in Bits(men) {
            acc = acc + table[b as usize];
        }
        acc = acc + self.king * kings.count_ones() as Score;
        // LEFT seen by Black is RIGHT; the difference's size is the same either way.
        let wing = (men & LEFT).count_ones() as Score - (men & RIGHT).count_ones() as Score;
        acc = acc + self.balance * wing.abs();
        for (post, behind) in OUTPOSTS_WHITE {
            let (post, b0, b1) = match c {
                Color::White => (post, behind[0], behind[1]),
                Color::Black => (51 - post, 51 - behind[0], 51 - behind[1]),
            };
            let need = square_bb(post) | square_bb(b0) | square_bb(b1);
            if men & need == need {
                acc = acc + self.outpost;
            }
        }
        let empty = pos.empty();
        let [a, b] = forward_steps(men, c);
        let steps = (a & empty).count_ones() + (b & empty).count_ones();
        acc = acc + self.men_mobility * steps as Score;
        if kings != 0 {
            let occ = pos.occupied();
            let mut mobility = 0;
            for k in Bits(kings) {
                for d in DIRS {
                    mobility += slide(k as usize, d, occ).0.count_ones() as Score;
                }
            }
            acc = acc + self.king_mobility * mobility;
        }
        acc
    }

    /// Evaluates `pos` from the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> Score {
        let diff = self.side(pos, Color::White) - self.side(pos, Color::Black);
        let men = (pos.men(Color::White) | pos.men(Color::Black)).count_ones() as Score;
        let phase = men.min(40);
        let mut score = (diff.mg() * phase + diff.eg() * (40 - phase)) / 40;
        score = scale_drawish(pos, score);
        let from_side = match pos.side() {
            Color::White => score,
            Color::Black => -score,
        };
        (from_side + self.tempo).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

static HAND: std::sync::LazyLock<Evaluator> = std::sync::LazyLock::new(|| Evaluator::new(&WEIGHTS));

/// Evaluates `pos` with the hand-written weights, from the side to move's view.
pub fn evaluate_hand(pos: &Position) -> Score {
    HAND.evaluate(pos)
}

/// Evaluates `pos` with the default evaluation.
pub fn evaluate(pos: &Position) -> Score {
    static DEFAULT: std::sync::LazyLock<Evaluation> = std::sync::LazyLock::new(Evaluation::default);
    DEFAULT.evaluate(pos)
}

/// Which evaluation a search uses.
#[derive(Clone, Debug)]
pub enum Evaluation {
    /// The hand-written evaluation ([`WEIGHTS`]).
    Hand,
    /// Material and the men's rows only: weak on purpose ([`pst`]).
    Pst,
    /// Losing draughts: material counted against its owner ([`pst::losing`]).
    Losing,
    /// The learned 4x4-window evaluation with these weights.
    Windows(Arc<PatternEval>),
    /// The learned 12-square-region evaluation with these weights.
    Regions(Arc<RegionEval>),
    /// The neural evaluation with this network.
    Network(Arc<Network>),
    /// The network plus a region-pattern term fitted on top of it
    /// ([`hybrid`]).
    Hybrid(Arc<Hybrid>),
}

/// The evaluation Dammer plays with unless told otherwise.
pub const DEFAULT_EVAL: &str = "learned";

/// What `learned` means: the strongest learned evaluation, as measured by
/// matches (`docs/strength.md`, `docs/training.md`).
pub const DEFAULT_LEARNED: &str = "nn";

/// The pattern layout `learned` meant before the network (the regions
/// fitted so far play level with the windows).
pub const DEFAULT_LAYOUT: Layout = Layout::Windows;

/// The names [`Evaluation::from_name`] accepts.
pub const EVAL_NAMES: &str =
    "learned, nn, hybrid, regions, windows, hand or pst (pattern: learned, Scan's name)";

static EMBEDDED_WINDOWS: std::sync::LazyLock<Arc<PatternEval>> =
    std::sync::LazyLock::new(|| Arc::new(PatternEval::new(&weights::embedded(Layout::Windows).w)));
static EMBEDDED_REGIONS: std::sync::LazyLock<Arc<RegionEval>> =
    std::sync::LazyLock::new(|| Arc::new(RegionEval::new(&weights::embedded(Layout::Regions).w)));
static EMBEDDED_NETWORK: std::sync::LazyLock<Arc<Network>> = std::sync::LazyLock::new(|| {
    // The build embeds a file that the tests read back: it decodes.
    Arc::new(Network::from_bytes(nn::EMBEDDED).unwrap_or_else(|e| panic!("embedded network: {e}")))
});
static EMBEDDED_HYBRID: std::sync::LazyLock<Arc<Hybrid>> = std::sync::LazyLock::new(|| {
    Arc::new(Hybrid::new(EMBEDDED_NETWORK.clone(), RegionEval::new(&PatternWeights::zero(Layout::Regions).w)))
});
static EMBEDDED_NETWORK_EVAL: std::sync::LazyLock<Evaluation> =
    std::sync::LazyLock::new(|| Evaluation::Network(EMBEDDED_NETWORK.clone()));
static VARIANT_NETWORKS: std::sync::LazyLock<Vec<(Variant, Evaluation)>> = std::sync::LazyLock::new(|| {
    nn::EMBEDDED_VARIANTS
        .iter()
        .map(|&(v, bytes)| {
            // As above: the tests read each of them back.
            let net = Network::from_bytes(bytes).unwrap_or_else(|e| panic!("embedded {v} network: {e}"));
            (v, Evaluation::Network(Arc::new(net)))
        })
        .collect()
});

/// A variant's weak evaluation: material and the men's rows, counted
/// against their owner in losing draughts.
fn weak_for(variant: Variant) -> &'static Evaluation {
    match variant {
        Variant::Losing => &Evaluation::Losing,
        _ => &Evaluation::Pst,
    }
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation::from_name(DEFAULT_LEARNED, None).unwrap_or(Evaluation::Hand)
    }
}

impl Evaluation {
    /// Evaluates `pos` from the side to move's view.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> Score {
        match self {
            Evaluation::Hand => HAND.evaluate(pos),
            Evaluation::Pst => pst::evaluate(pos),
            Evaluation::Losing => pst::losing(pos),
            Evaluation::Windows(w) => w.evaluate(pos),
            Evaluation::Regions(w) => w.evaluate(pos),
            Evaluation::Network(n) => n.evaluate(pos),
            Evaluation::Hybrid(h) => h.evaluate(pos),
        }
    }

    /// Evaluates `pos` as [`Evaluation::evaluate`] does, reusing what
    /// `cache` kept from earlier evaluations at `slot` (a ply) and elsewhere
    /// where the evaluation can (the network's accumulator).
    #[inline]
    pub fn evaluate_cached(&self, pos: &Position, cache: &mut NetCache, slot: usize) -> Score {
        match self {
            Evaluation::Network(n) => n.evaluate_cached(pos, cache, slot),
            Evaluation::Hybrid(h) => h.evaluate_cached(pos, cache, slot),
            other => other.evaluate(pos),
        }
    }

    /// The learned evaluation of the weights' layout; an error when they
    /// are not as many as the layout has features.
    pub fn learned(w: &PatternWeights) -> Result<Evaluation, String> {
        if w.w.len() != w.layout.features() {
            return Err(format!(
                "{} weights for the {} layout, which has {}",
                w.w.len(),
                w.layout.name(),
                w.layout.features()
            ));
        }
        Ok(match w.layout {
            Layout::Windows => Evaluation::Windows(Arc::new(PatternEval::new(&w.w))),
            Layout::Regions => Evaluation::Regions(Arc::new(RegionEval::new(&w.w))),
        })
    }

    /// The evaluation a game of `variant` plays with, `self` being the
    /// one chosen (by name, and weights file): a network learned from
    /// `variant`'s own games as it is; for the international game and
    /// killer draughts (the same game but for its kings' captures) the
    /// chosen one (the embedded international network when the chosen one
    /// is a variant's); for the other variants their embedded network when
    /// a learned evaluation was chosen, and when a weak one was, material
    /// and the men's rows (material against its owner in losing draughts).
    /// The one place that choice is made (the facade's search and `show`
    /// use it).
    pub fn for_variant(&self, variant: Variant) -> &Evaluation {
        let own = if variant == Variant::Killer { Variant::Normal } else { variant };
        let another_games_network = match self {
            Evaluation::Network(n) if n.game() == own => return self,
            Evaluation::Network(_) => true,
            Evaluation::Hybrid(h) if h.network().game() == own => return self,
            Evaluation::Hybrid(_) => true,
            _ => false,
        };
        let learned = !matches!(self, Evaluation::Hand | Evaluation::Pst | Evaluation::Losing);
        match own {
            Variant::Normal if another_games_network => &EMBEDDED_NETWORK_EVAL,
            Variant::Normal => self,
            _ if learned => VARIANT_NETWORKS
                .iter()
                .find_map(|(v, e)| (*v == own).then_some(e))
                .unwrap_or_else(|| weak_for(own)),
            _ => weak_for(own),
        }
    }

    /// The learned evaluation of `layout` with the weights in the binary.
    pub fn embedded(layout: Layout) -> Evaluation {
        match layout {
            Layout::Windows => Evaluation::Windows(EMBEDDED_WINDOWS.clone()),
            Layout::Regions => Evaluation::Regions(EMBEDDED_REGIONS.clone()),
        }
    }

    /// The evaluation's name, as [`Evaluation::from_name`] reads it.
    pub fn name(&self) -> &'static str {
        match self {
            Evaluation::Hand => "hand",
            Evaluation::Pst => "pst",
            Evaluation::Losing => "losing",
            Evaluation::Windows(_) => Layout::Windows.name(),
            Evaluation::Regions(_) => Layout::Regions.name(),
            Evaluation::Network(_) => "nn",
            Evaluation::Hybrid(_) => "hybrid",
        }
    }

    /// The evaluation named `hand`, `pst`, `nn`, `windows`, `regions` or
    /// `learned` (the strongest learned one, [`DEFAULT_LEARNED`]; `pattern`,
    /// Scan's name for its full evaluation, means the same); a learned
    /// one with the weights file at `weights` when given (the embedded
    /// weights when None). With a file, `learned` takes the file's kind (a
    /// network or a pattern layout); a named one must match it.
    pub fn from_name(name: &str, weights: Option<&std::path::Path>) -> Result<Evaluation, String> {
        let layout = match name {
            "hand" => return Ok(Evaluation::Hand),
            "pst" => return Ok(Evaluation::Pst),
            "pattern" => return Evaluation::from_name("learned", weights),
            "nn" => {
                return match weights {
                    Some(path) => {
                        Ok(Evaluation::Network(Arc::new(Network::load(path).map_err(|e| e.to_string())?)))
                    }
                    None => Ok(Evaluation::Network(EMBEDDED_NETWORK.clone())),
                }
            }
            "hybrid" => {
                // The region term fitted on the embedded network; none is
                // embedded yet, so without a file the term is empty (the
                // network alone), which also lets a client name `hybrid`
                // before it names the file.
                let Some(path) = weights else {
                    return Ok(Evaluation::Hybrid(EMBEDDED_HYBRID.clone()));
                };
                let w = PatternWeights::load(path).map_err(|e| format!("{}: {e}", path.display()))?;
                if w.layout != Layout::Regions || w.w.len() != Layout::Regions.features() {
                    return Err(format!(
                        "{} holds {} weights, not regions weights",
                        path.display(),
                        w.layout.name()
                    ));
                }
                return Ok(Evaluation::Hybrid(Arc::new(Hybrid::new(
                    EMBEDDED_NETWORK.clone(),
                    RegionEval::new(&w.w),
                ))));
            }
            "learned" if weights.is_none() => return Evaluation::from_name(DEFAULT_LEARNED, None),
            "learned" => None,
            other => match Layout::from_name(other) {
                Some(l) => Some(l),
                None => return Err(format!("unknown evaluation {other:?} (expected {EVAL_NAMES})")),
            },
        };
        match weights {
            Some(path) => {
                let bytes =
                    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                if Network::is_network_file(&bytes) {
                    return match layout {
                        Some(l) => {
                            Err(format!("{} holds a network, not {} weights", path.display(), l.name()))
                        }
                        None => Ok(Evaluation::Network(Arc::new(
                            Network::from_bytes(&bytes).map_err(|e| e.to_string())?,
                        ))),
                    };
                }
                let w = PatternWeights::from_bytes(&bytes).map_err(|e| e.to_string())?;
                match layout {
                    Some(l) if l != w.layout => Err(format!(
                        "{} holds {} weights, not {} weights",
                        path.display(),
                        w.layout.name(),
                        l.name()
                    )),
                    _ => Evaluation::learned(&w),
                }
            }
            None => Ok(Evaluation::embedded(layout.unwrap_or(DEFAULT_LAYOUT))),
        }
    }
}

/// Shrinks scores of material balances that are usually drawn, so that the
/// search prefers real winning chances to a nominal material edge.
pub(crate) fn scale_drawish(pos: &Position, score: Score) -> Score {
    // Both balances below need a king on the weaker side.
    if pos.kings() == 0 {
        return score;
    }
    let (strong, weak) = if score > 0 { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
    let weak_pieces = pos.pieces(weak).count_ones();
    let strong_pieces = pos.pieces(strong).count_ones();
    let weak_kings = pos.kings_of(weak).count_ones();
    let strong_kings = pos.kings_of(strong).count_ones();
    if weak_kings >= 1 && weak_pieces == 1 && strong_pieces <= 3 {
        // A lone king holds three pieces (bar special cases): nearly a draw.
        return score / 8;
    }
    if weak_kings >= 1 && weak_kings == strong_kings {
        let men_diff = pos.men(strong).count_ones() as i32 - pos.men(weak).count_ones() as i32;
        if men_diff.abs() <= 1 {
            return score / 2;
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The game of the network an evaluation is, if it is one.
    fn network_game(e: &Evaluation) -> Option<Variant> {
        match e {
            Evaluation::Network(n) => Some(n.game()),
            _ => None,
        }
    }

    #[test]
    fn each_game_plays_with_its_own_evaluation() {
        let learned = Evaluation::default();
        for (variant, game) in [
            (Variant::Normal, Variant::Normal),
            (Variant::Killer, Variant::Normal),
            (Variant::Breakthrough, Variant::Breakthrough),
            (Variant::Frisian, Variant::Frisian),
            (Variant::Losing, Variant::Losing),
        ] {
            assert_eq!(network_game(learned.for_variant(variant)), Some(game), "{variant}");
            // The weak evaluation stays weak in every game.
            let weak = Evaluation::Pst.for_variant(variant);
            let expected = if variant == Variant::Losing { "losing" } else { "pst" };
            assert_eq!(weak.name(), expected, "{variant}");
        }
        // A variant's network plays its game, and the international one
        // elsewhere.
        let frisian = learned.for_variant(Variant::Frisian).clone();
        assert!(std::ptr::eq(frisian.for_variant(Variant::Frisian), &frisian));
        assert_eq!(network_game(frisian.for_variant(Variant::Normal)), Some(Variant::Normal));
        assert_eq!(network_game(frisian.for_variant(Variant::Losing)), Some(Variant::Losing));
        // The pattern evaluations are the international game's.
        let windows = Evaluation::embedded(Layout::Windows);
        assert!(std::ptr::eq(windows.for_variant(Variant::Killer), &windows));
        assert_eq!(network_game(windows.for_variant(Variant::Breakthrough)), Some(Variant::Breakthrough));
    }

    #[test]
    fn packed_scores_split_back() {
        for (mg, eg) in [(0, 0), (5, -3), (-700, 1200), (-1, -1), (6000, -6000)] {
            let p = Packed::new(mg, eg);
            assert_eq!((p.mg(), p.eg()), (mg, eg));
            let q = Packed::new(3, 4) * 7 - p;
            assert_eq!((q.mg(), q.eg()), (21 - mg, 28 - eg));
        }
    }

    #[test]
    fn start_is_balanced() {
        assert_eq!(evaluate_hand(&Position::start()), WEIGHTS.tempo);
    }

    #[test]
    fn masks_are_mirrored() {
        assert_eq!(LEFT.count_ones(), 25);
        for s in 1..=50u8 {
            let left = LEFT & square_bb(s) != 0;
            assert_eq!(RIGHT & square_bb(51 - s) != 0, left, "square {s}");
        }
        assert_eq!(CENTRE.count_ones(), 6);
    }
}
