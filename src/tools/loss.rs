//! What both evaluation fits (`tune`'s patterns and `train_nn`'s network)
//! minimise: the cross-entropy between a predicted win probability,
//! sigmoid(score / K), and a target that blends the game's result with the
//! stored search score.

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Cross-entropy of the prediction `p` against the target `y`.
pub fn cross_entropy(p: f64, y: f64) -> f64 {
    let p = p.clamp(1e-9, 1.0 - 1e-9);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// The target of a position: `(1 - lambda) * result + lambda *
/// sigmoid(score / k)`, with `result` 0, 0.5 or 1 and `score` in hundredths
/// of a man, both from the same side.
pub fn blended_target(result: f64, score: f64, lambda: f64, k: f64) -> f64 {
    (1.0 - lambda) * result + lambda * sigmoid(score / k)
}
