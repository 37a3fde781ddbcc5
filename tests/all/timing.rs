//! Time safety: thousands of searches at 5-100 ms move times, from played
//! positions, king-rich random positions and crowded random positions,
//! each timed from the call that starts it to its result callback (the path
//! of a Hub `go`). It reports the median, 99th, 99.9th percentile and worst
//! overshoot of the move time, and the positions of the worst cases.
//!
//! Ignored, because it takes minutes and measures the machine as much as
//! the engine: `cargo test --release -- --ignored time_safety --nocapture`.
//! `DAMMER_TIME_SAFETY_SEARCHES` sets the number of searches (default
//! 10,000). It fails when an answer comes later than the match runner's
//! default margin (100 ms) after its move time.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{random_game, random_position, Rng};
use dammer::engine::{Engine, Limits};
use dammer::rules::game::{Game, GameResult};

#[test]
#[ignore = "slow: minutes; measures the machine"]
fn time_safety() {
    let searches: usize =
        std::env::var("DAMMER_TIME_SAFETY_SEARCHES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let mut engine = Engine::new(1, 16);
    let mut rng = Rng::new(0x71_4E);
    // (overshoot in seconds, move time in ms, kind, FEN)
    let mut results: Vec<(f64, u64, &str, String)> = Vec::with_capacity(searches);
    let started = Instant::now();
    while results.len() < searches {
        let (kind, game) = match results.len() % 3 {
            0 => {
                let plies = rng.below(160);
                ("played", random_game(&mut rng, plies))
            }
            1 => {
                let fill = 8 + rng.below(25);
                ("kings", Game::new(random_position(&mut rng, fill, 70)))
            }
            _ => {
                let fill = 30 + rng.below(40);
                ("crowded", Game::new(random_position(&mut rng, fill, 15)))
            }
        };
        if game.result() != GameResult::Ongoing {
            continue;
        }
        let ms = 5 + rng.below(96) as u64;
        let move_time = Duration::from_millis(ms);
        let limits = Limits { move_time: Some(move_time), ..Limits::default() };
        let done_at = Arc::new(Mutex::new(None));
        let done = Arc::clone(&done_at);
        let start = Instant::now();
        engine
            .start(
                &game,
                &limits,
                Box::new(|_| {}),
                Box::new(move |_| {
                    *done.lock().unwrap() = Some(Instant::now());
                }),
            )
            .expect("a search thread");
        engine.wait();
        let answered = done_at.lock().unwrap().expect("the search answered");
        let over = answered.duration_since(start).as_secs_f64() - move_time.as_secs_f64();
        results.push((over, ms, kind, game.position().to_fen()));
    }
    results.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| results[((results.len() - 1) as f64 * q).round() as usize].0 * 1e3;
    println!(
        "{} searches at 5-100 ms in {:.0} s; overshoot of the move time (ms): median {:+.2}, 99th {:+.2}, \
         99.9th {:+.2}, worst {:+.2}",
        results.len(),
        started.elapsed().as_secs_f64(),
        at(0.5),
        at(0.99),
        at(0.999),
        at(1.0)
    );
    for (over, ms, kind, fen) in results.iter().rev().take(5) {
        println!("  {:+.2} ms over {ms} ms ({kind}): {fen}", over * 1e3);
    }
    let worst = results.last().map_or(0.0, |r| r.0);
    assert!(worst < 0.1, "an answer came {:.0} ms after its move time", worst * 1e3);
}
