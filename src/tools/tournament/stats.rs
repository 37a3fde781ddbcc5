//! Match statistics: Elo with its 95% margin, likelihood of superiority,
//! game-pair (pentanomial) statistics and the sequential probability ratio
//! test, all from one engine's point of view.

/// The 95% two-sided normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Results of one engine against another, counted per game and per game
/// pair (the same opening with colours swapped).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won, drawn, lost.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Completed pairs by their total in half points: index 0 = both lost
    /// ... index 4 = both won.
    pub pairs: [u32; 5],
}

impl Tally {
    /// Adds one game scoring `points` half points (0 loss, 1 draw, 2 win).
    pub fn add_game(&mut self, points: u8) {
        match points {
            0 => self.losses += 1,
            1 => self.draws += 1,
            _ => self.wins += 1,
        }
    }

    /// Adds a completed pair whose two games scored `points` half points.
    pub fn add_pair(&mut self, points: u8) {
        self.pairs[usize::from(points.min(4))] += 1;
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game in [0, 1].
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    /// Elo difference and its 95% margin from the per-game (trinomial) results.
    pub fn elo_trinomial(&self) -> Estimate {
        Estimate::from_outcomes(&self.game_outcomes(0.0))
    }

    /// (score, count) of win, draw and loss, each count plus `extra`.
    fn game_outcomes(&self, extra: f64) -> [(f64, f64); 3] {
        [(1.0, self.wins), (0.5, self.draws), (0.0, self.losses)].map(|(s, c)| (s, f64::from(c) + extra))
    }

    /// (score, count) of the five pair totals, each count plus `extra`.
    fn pair_outcomes(&self, extra: f64) -> [(f64, f64); 5] {
        std::array::from_fn(|k| (k as f64 / 4.0, f64::from(self.pairs[k]) + extra))
    }

    /// Elo difference and its 95% margin from the game pairs (pentanomial),
    /// which accounts for the correlation between the two games of an opening.
    pub fn elo_pentanomial(&self) -> Estimate {
        Estimate::from_outcomes(&self.pair_outcomes(0.0))
    }

    /// Likelihood of superiority: the probability that this engine is the
    /// stronger one, from wins and losses (draws carry no information).
    pub fn los(&self) -> f64 {
        let (w, l) = (f64::from(self.wins), f64::from(self.losses));
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }

    /// The log-likelihood ratio of H1 (Elo = `elo1`) against H0 (Elo =
    /// `elo0`), in the normal approximation of the generalised SPRT; uses
    /// the pairs when there are any, else the games.
    ///
    /// The mean and variance it uses hold [`LLR_PRIOR_SAMPLES`] more samples
    /// spread evenly over the outcomes (pair scores 0, 1/4 .. 1, or win, draw
    /// and loss): between near-equal engines most games are drawn, and a
    /// short run of draws would otherwise give a variance near zero and an
    /// LLR out of all proportion (+0 =39 -1 in 20 pairs reached -3.4, an H0
    /// accepted after 40 games). The extra samples weigh next to nothing
    /// once the test has the hundreds of games it needs.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let pairs: u32 = self.pairs.iter().sum();
        let est = if pairs > 0 {
            Estimate::from_outcomes(&self.pair_outcomes(LLR_PRIOR_SAMPLES / 5.0))
        } else if self.games() > 0 {
            Estimate::from_outcomes(&self.game_outcomes(LLR_PRIOR_SAMPLES / 3.0))
        } else {
            return 0.0;
        };
        if est.variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(elo0), score_of_elo(elo1));
        est.count * (s1 - s0) * (2.0 * est.mean - s0 - s1) / (2.0 * est.variance)
    }
}

/// Samples (pairs, or games without pairs) added evenly over the outcomes
/// to the sample an LLR is computed from; see [`Tally::llr`].
const LLR_PRIOR_SAMPLES: f64 = 2.0;

/// An Elo estimate from a sample of scores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Number of samples (games or pairs).
    pub count: f64,
    /// Mean score in [0, 1].
    pub mean: f64,
    /// Variance of one sample's score.
    pub variance: f64,
    /// The Elo difference.
    pub elo: f64,
    /// Half the width of the 95% confidence interval, in Elo.
    pub margin: f64,
    /// The interval's ends in Elo; infinite where the interval reaches a
    /// score of 0 or 1 (then `margin` means little).
    pub interval: (f64, f64),
}

impl Estimate {
    /// From (score, count) pairs.
    fn from_outcomes(outcomes: &[(f64, f64)]) -> Estimate {
        let count: f64 = outcomes.iter().map(|&(_, c)| c).sum();
        if count == 0.0 {
            return Estimate {
                count,
                mean: 0.5,
                variance: 0.0,
                elo: 0.0,
                margin: f64::INFINITY,
                interval: (f64::NEG_INFINITY, f64::INFINITY),
            };
        }
        let mean = outcomes.iter().map(|&(s, c)| s * c).sum::<f64>() / count;
        let variance = outcomes.iter().map(|&(s, c)| c * (s - mean) * (s - mean)).sum::<f64>() / count;
        let se = (variance / count).sqrt();
        let margin = (elo_of_score(mean + Z95 * se) - elo_of_score(mean - Z95 * se)) / 2.0;
        let end = |p: f64| {
            if p >= 1.0 {
                f64::INFINITY
            } else if p <= 0.0 {
                f64::NEG_INFINITY
            } else {
                elo_of_score(p)
            }
        };
        let interval = (end(mean - Z95 * se), end(mean + Z95 * se));
        Estimate { count, mean, variance, elo: elo_of_score(mean), margin, interval }
    }
}

/// The Elo difference that gives the expected score `p` (logistic model);
/// clamped so that a perfect score gives a large finite number.
pub fn elo_of_score(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / p - 1.0).log10()
}

/// The expected score at an Elo difference (logistic model).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function, to about 1.2e-7 (Numerical Recipes' erfc by a
/// Chebyshev fit).
pub fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - erfc
    } else {
        erfc - 1.0
    }
}

/// A sequential probability ratio test: H0 Elo = `elo0` against H1 Elo = `elo1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// What an SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// H1 accepted: the engine is at least `elo1` stronger (likely).
    AcceptH1,
    /// H0 accepted: the engine is not more than `elo0` stronger (likely).
    AcceptH0,
    /// Keep playing.
    Continue,
}

impl Sprt {
    /// The LLR bounds (lower, upper).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The verdict for a tally.
    pub fn verdict(&self, tally: &Tally) -> SprtVerdict {
        let llr = tally.llr(self.elo0, self.elo1);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert!(close(elo_of_score(0.5), 0.0, 1e-9));
        // 75% is 400*log10(3) = 190.85 Elo.
        assert!(close(elo_of_score(0.75), 190.848_501_9, 1e-6));
        for e in [-300.0, -50.0, 0.0, 20.0, 400.0] {
            assert!(close(elo_of_score(score_of_elo(e)), e, 1e-6));
        }
    }

    #[test]
    fn erf_matches_known_values() {
        assert!(close(erf(0.0), 0.0, 1e-7));
        assert!(close(erf(0.5), 0.520_499_877_8, 2e-7));
        assert!(close(erf(1.0), 0.842_700_792_9, 2e-7));
        assert!(close(erf(-1.5), -0.966_105_146_5, 2e-7));
        assert!(close(erf(3.0), 0.999_977_909_5, 2e-7));
    }

    /// +40 =30 -30 in 100 games, worked by hand: score 0.55, per-game
    /// variance (40*0.45^2 + 30*0.05^2 + 30*0.55^2)/100 = 0.1725, standard
    /// error 0.041533; Elo(0.55) = 34.86, interval Elo(0.46860)..Elo(0.63140),
    /// margin 57.68; LOS = (1 + erf(10/sqrt(140)))/2 = 0.8840.
    #[test]
    fn trinomial_worked_example() {
        let t = Tally { wins: 40, draws: 30, losses: 30, pairs: [0; 5] };
        let e = t.elo_trinomial();
        assert!(close(e.mean, 0.55, 1e-12));
        assert!(close(e.variance, 0.1725, 1e-12));
        assert!(close(e.elo, 34.860, 1e-3), "{e:?}");
        assert!(close(e.margin, 57.68, 0.01), "{e:?}");
        assert!(close(t.los(), 0.8840, 1e-4), "{}", t.los());
    }

    /// Pairs 0..4 half points counted [5, 10, 20, 10, 5]: symmetric, so
    /// Elo 0; pair scores 0, .25, .5, .75, 1 give variance
    /// (5*.25 + 10*.0625 + 0 + 10*.0625 + 5*.25)/50 = 0.075, standard
    /// error sqrt(0.075/50) = 0.038730, interval Elo(0.42409)..Elo(0.57591),
    /// margin 53.16.
    #[test]
    fn pentanomial_worked_example() {
        let t = Tally { pairs: [5, 10, 20, 10, 5], ..Tally::default() };
        let e = t.elo_pentanomial();
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(close(e.variance, 0.075, 1e-12));
        assert!(close(e.margin, 53.16, 0.01), "{e:?}");
    }

    /// SPRT(0, 10, 0.05, 0.05): bounds ln(0.05/0.95) = -2.944 and +2.944.
    /// 1000 pairs, 460 scoring 0.25 and 540 scoring 0.75, and the LLR's two
    /// extra pairs, 0.4 on each of the five scores: 1002 pairs, mean
    /// 521 / 1002 = 0.519960, variance 0.062226; s0 = 0.5, s1 =
    /// score_of_elo(10) = 0.514387; LLR = 1002 * 0.014387 * (1.039920 -
    /// 1.014387) / 0.124453 = 2.9576 -> accept H1 (without the extra pairs
    /// 2.9670).
    #[test]
    fn sprt_worked_example() {
        let sprt = Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.05 };
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_438_98, 1e-6) && close(hi, 2.944_438_98, 1e-6));
        let t = Tally { pairs: [0, 460, 0, 540, 0], ..Tally::default() };
        let e = t.elo_pentanomial();
        assert!(close(e.mean, 0.52, 1e-12) && close(e.variance, 0.0621, 1e-12), "{e:?}");
        let (n, mean) = (1002.0, 521.0 / 1002.0);
        let variance = [(0.0, 0.4), (0.25, 460.4), (0.5, 0.4), (0.75, 540.4), (1.0, 0.4)]
            .iter()
            .map(|&(x, c): &(f64, f64)| c * (x - mean) * (x - mean))
            .sum::<f64>()
            / n;
        let s1 = score_of_elo(10.0);
        let expected = n * (s1 - 0.5) * (2.0 * mean - 0.5 - s1) / (2.0 * variance);
        assert!(close(t.llr(0.0, 10.0), expected, 1e-9));
        assert!(close(variance, 0.062226, 1e-6) && close(expected, 2.9576, 1e-3), "{variance} {expected}");
        assert_eq!(sprt.verdict(&t), SprtVerdict::AcceptH1);
        let worse = Tally { pairs: [0, 540, 0, 460, 0], ..Tally::default() };
        assert_eq!(sprt.verdict(&worse), SprtVerdict::AcceptH0);
        let few = Tally { pairs: [0, 5, 0, 6, 0], ..Tally::default() };
        assert_eq!(sprt.verdict(&few), SprtVerdict::Continue);
    }

    /// A drawish start is no evidence: +0 =39 -1 (pairs [0, 1, 19, 0, 0])
    /// gave LLR -3.38 with the sample's own variance (0.00297 a pair), an
    /// H0 accepted after 40 games; with the two extra pairs it is -0.75.
    #[test]
    fn a_run_of_draws_decides_nothing() {
        let sprt = Sprt { elo0: 0.0, elo1: 15.0, alpha: 0.05, beta: 0.05 };
        let t = Tally { wins: 0, draws: 39, losses: 1, pairs: [0, 1, 19, 0, 0] };
        let llr = t.llr(0.0, 15.0);
        assert!((-0.8..-0.7).contains(&llr), "{llr}");
        assert_eq!(sprt.verdict(&t), SprtVerdict::Continue);
        // 60 draws: an even score leans to H0, but by far less than a bound.
        let draws = Tally { draws: 60, pairs: [0, 0, 30, 0, 0], ..Tally::default() };
        let llr = draws.llr(0.0, 15.0);
        assert!((-1.0..-0.9).contains(&llr), "{llr}");
        // Games without pairs get two thirds of a game on each result.
        let games = Tally { wins: 0, draws: 19, losses: 1, pairs: [0; 5] };
        assert_eq!(sprt.verdict(&games), SprtVerdict::Continue);
        // A real difference still decides: 300 pairs [0, 20, 200, 80, 0].
        let clear = Tally { pairs: [0, 20, 200, 80, 0], ..Tally::default() };
        assert_eq!(sprt.verdict(&clear), SprtVerdict::AcceptH1);
    }

    #[test]
    fn empty_and_perfect_tallies_stay_finite() {
        let t = Tally::default();
        assert_eq!(t.los(), 0.5);
        assert_eq!(t.llr(0.0, 5.0), 0.0);
        let all = Tally { wins: 10, ..Tally::default() };
        assert!(all.elo_trinomial().elo.is_finite() && all.elo_trinomial().elo > 1000.0);
        // +37 =3 -0: the upper end of the interval is a perfect score.
        let lopsided = Tally { wins: 37, draws: 3, ..Tally::default() }.elo_trinomial();
        assert!(lopsided.interval.1.is_infinite() && lopsided.interval.0 > 300.0, "{lopsided:?}");
        let even = Tally { wins: 40, draws: 30, losses: 30, pairs: [0; 5] }.elo_trinomial();
        assert!((even.interval.1 - even.interval.0 - 2.0 * even.margin).abs() < 1e-9);
    }
}
