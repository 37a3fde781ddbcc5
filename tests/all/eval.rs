//! The learned evaluation: feature extraction against a slow reference,
//! colour symmetry, the training model, self-play data files and training.

use crate::common::{random_game, random_position, Rng};
use dammer::engine::eval::pattern::{self, PatternEval, PatternWeights, CANONICAL, FEATURES, WINDOW_SIZE};
use dammer::engine::eval::Evaluation;
use dammer::rules::position::{Color, Piece, Position};
use dammer::tools::selfplay::{self, Record};
use dammer::tools::tune::{self, Sample};

fn positions(seed: u64, n: usize) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                random_position(&mut rng, 10 + i % 80, i % 60)
            } else {
                *random_game(&mut rng, i % 150).position()
            }
        })
        .collect()
}

/// The digit of a square for a window read by `own` (0 empty or king,
/// 1 own man, 2 opposing man).
fn digit(pos: &Position, square: u8, own: Color) -> usize {
    match pos.piece_at(square) {
        Some(Piece::Man(c)) if c == own => 1,
        Some(Piece::Man(_)) => 2,
        _ => 0,
    }
}

/// Square at (row, column), rows from Black's back row, if it is playable.
fn square_at(row: usize, col: usize) -> Option<u8> {
    // Even rows have their squares on odd columns, odd rows on even columns.
    if (row + col).is_multiple_of(2) {
        return None;
    }
    Some((5 * row + col / 2 + 1) as u8)
}

/// The index of window (r0, c0) read square by square, row-major.
fn slow_index(pos: &Position, r0: usize, c0: usize, own: Color) -> u16 {
    let mut index = 0;
    let mut power = 1;
    for row in r0..r0 + 4 {
        for col in c0..c0 + 4 {
            if let Some(s) = square_at(row, col) {
                index += power * digit(pos, s, own);
                power *= 3;
            }
        }
    }
    assert_eq!(power, WINDOW_SIZE);
    index as u16
}

#[test]
fn window_indices_match_a_slow_reference() {
    assert_eq!(square_at(0, 1), Some(1));
    assert_eq!(square_at(1, 0), Some(6));
    assert_eq!(square_at(9, 8), Some(50));
    for pos in positions(11, 20_000) {
        let fast = pattern::window_indices(&pos);
        // Black's view is White's view of the colour-flipped board.
        let turned = pos.flipped();
        for (k, &(r0, c0)) in CANONICAL.iter().enumerate() {
            let white = slow_index(&pos, r0, c0, Color::White);
            let black = slow_index(&turned, r0, c0, Color::White);
            assert_eq!(fast[k], (white, black), "window {k} of {}", pos.to_fen());
        }
        let f = pattern::features(&pos);
        assert_eq!(f.windows, fast);
        let count = |c: Color, king: bool| {
            (1..=50u8)
                .filter(|&s| pos.piece_at(s) == Some(if king { Piece::King(c) } else { Piece::Man(c) }))
                .count() as i32
        };
        let dense =
            |i: usize| f.dense.iter().find(|(j, _)| usize::from(*j) == i).map_or(0, |&(_, v)| i32::from(v));
        assert_eq!(dense(pattern::F_MEN), count(Color::White, false) - count(Color::Black, false));
        assert_eq!(dense(pattern::F_KINGS), count(Color::White, true) - count(Color::Black, true));
        assert_eq!(dense(pattern::F_SIDE), if pos.side() == Color::White { 1 } else { -1 });
        for s in 1..=50u8 {
            let w = i32::from(pos.piece_at(s) == Some(Piece::King(Color::White)));
            let b = i32::from(pos.piece_at(51 - s) == Some(Piece::King(Color::Black)));
            assert_eq!(dense(pattern::F_KING_SQ + usize::from(s) - 1), w - b);
        }
    }
}

fn random_weights(seed: u64) -> PatternWeights {
    let mut rng = Rng::new(seed);
    let mut w = PatternWeights::material();
    for (i, e) in w.w.iter_mut().enumerate() {
        if i >= pattern::F_FIRST_KING {
            *e = [(rng.below(4001) as i16) - 2000, (rng.below(4001) as i16) - 2000];
        }
    }
    w
}

#[test]
fn evaluations_are_colour_symmetric() {
    let learned = Evaluation::learned(&random_weights(3));
    for pos in positions(6, 20_000) {
        for eval in [&Evaluation::Hand, &learned, &Evaluation::default()] {
            assert_eq!(eval.evaluate(&pos), eval.evaluate(&pos.flipped()), "{}", pos.to_fen());
        }
    }
}

#[test]
fn the_training_model_is_the_evaluation() {
    let w = random_weights(9);
    let wf: Vec<[f32; 2]> = w.w.iter().map(|&[a, b]| [f32::from(a) / 16.0, f32::from(b) / 16.0]).collect();
    assert_eq!(wf.len(), FEATURES);
    let fast = PatternEval::from(&w);
    for pos in positions(12, 5_000) {
        let r = Record { position: pos, game: 0, score: 0, result: 0 };
        let model = Sample::new(&r, 0.0, 200.0).score(&wf);
        let engine = f64::from(fast.white_score(&pos));
        // The engine truncates to whole hundredths of a man.
        assert!((model - engine).abs() < 1.0 + 1e-6, "{model} vs {engine} for {}", pos.to_fen());
    }
}

#[test]
fn weights_files_load_or_fail_clearly() {
    let dir = std::env::temp_dir().join(format!("dammer-eval-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("w.bin");
    let w = random_weights(5);
    std::fs::write(&good, w.to_bytes()).unwrap();
    assert_eq!(PatternWeights::load(&good).unwrap(), w);
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, &w.to_bytes()[..1000]).unwrap();
    assert!(Evaluation::from_name("learned", Some(&bad)).unwrap_err().contains("truncated"));
    let missing = dir.join("missing.bin");
    assert!(Evaluation::from_name("learned", Some(&missing)).unwrap_err().contains("cannot read"));
    assert!(Evaluation::from_name("neural", None).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn training_on_synthetic_data_lowers_the_loss() {
    // White wins exactly when it has more men on the three central columns
    // pairs than Black: learnable by the windows and the men count.
    let mut rng = Rng::new(21);
    let make = |rng: &mut Rng, n: usize| -> Vec<Sample> {
        (0..n)
            .map(|i| {
                let pos = random_position(rng, 30 + i % 40, 0);
                let f = pattern::features(&pos);
                let men =
                    f.dense.iter().find(|(j, _)| usize::from(*j) == pattern::F_MEN).map_or(0, |&(_, v)| v);
                let result = men.signum();
                Sample::new(&Record { position: pos, game: i as u32, score: 0, result }, 0.0, 200.0)
            })
            .collect()
    };
    let train = make(&mut rng, 4000);
    let val = make(&mut rng, 1000);
    let zero = PatternWeights { w: vec![[0, 0]; FEATURES] };
    let cfg = tune::Config {
        data: vec![],
        out: std::path::PathBuf::new(),
        epochs: 4,
        batch: 256,
        lr: 5.0,
        l2: 0.0,
        lambda: 0.0,
        k: 200.0,
        init: None,
        seed: 1,
    };
    let mut saved = 0;
    let h = tune::fit(&cfg, &zero, &train, &val, &mut |_| {}, &mut |_| {
        saved += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(saved, 4);
    assert!((h.train[0] - std::f64::consts::LN_2).abs() < 1e-9);
    assert!(h.train[4] < 0.5 * h.train[0], "{h:?}");
    assert!(h.validation[4] < 0.7 * h.validation[0], "{h:?}");
}

#[test]
fn selfplay_files_resume_and_hold_quiet_positions() {
    let dir = std::env::temp_dir().join(format!("dammer-selfplay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("sp.bin");
    let _ = std::fs::remove_file(&out);
    let mut cfg = selfplay::Config {
        out: out.clone(),
        games: 3,
        nodes: 300,
        threads: 2,
        random_plies: 4,
        seed: 7,
        eval: Evaluation::Hand,
        max_plies: 200,
        openings: dammer::tools::openings::parse_openings(dammer::tools::openings::DEFAULT_OPENINGS, false)
            .unwrap(),
    };
    let first = selfplay::run(&cfg, &mut |_| {}).unwrap();
    assert_eq!(first.games, 3);
    let records = selfplay::read_records(&out).unwrap();
    assert_eq!(records.len() as u64, first.positions);
    for r in &records {
        assert!(!dammer::rules::movegen::has_capture(&r.position));
        assert!(r.game < 3);
        // One result per game.
        assert!(records.iter().filter(|o| o.game == r.game).all(|o| o.result == r.result));
    }
    // Nothing left to do; then a partial record (a crash) is dropped and
    // one more game is added.
    assert_eq!(selfplay::run(&cfg, &mut |_| {}).unwrap().games, 0);
    let mut f = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
    std::io::Write::write_all(&mut f, &[1, 2, 3]).unwrap();
    drop(f);
    cfg.games = 4;
    let more = selfplay::run(&cfg, &mut |_| {}).unwrap();
    assert_eq!((more.games, more.total_games), (1, 4));
    let all = selfplay::read_records(&out).unwrap();
    assert_eq!(all.len() as u64, first.positions + more.positions);
    // Records round-trip.
    for r in &all {
        assert_eq!(Record::from_bytes(&r.to_bytes()), Some(*r));
    }
    // Games are reproducible from their number and the seed.
    let mut engine = dammer::engine::Engine::new(1, 16);
    engine.set_evaluation(Evaluation::Hand);
    let (again, _) = selfplay::play_game(&cfg, &mut engine, 1);
    let stored: Vec<_> = all.iter().filter(|r| r.game == 1).copied().collect();
    assert_eq!(again, stored);
    std::fs::write(&out, b"garbage").unwrap();
    assert!(selfplay::read_records(&out).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
