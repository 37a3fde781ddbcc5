//! The learned evaluation: feature extraction against a slow reference,
//! colour symmetry, the training model, self-play data files and training.

use crate::common::{random_game, random_position, Rng};
use dammer::engine::eval::pattern::{self, CANONICAL, WINDOW_SIZE};
use dammer::engine::eval::regions::{self, REGION_SIZE};
use dammer::engine::eval::weights::{Layout, PatternWeights};
use dammer::engine::eval::Evaluation;
use dammer::rules::position::{Color, Piece, Position};
use dammer::tools::selfplay::{self, Record};
use dammer::tools::tune::{self, Samples};

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

/// The index of the `rows` x 4 block at (r0, c0) read square by square,
/// row-major.
fn slow_block(pos: &Position, r0: usize, c0: usize, rows: usize, own: Color) -> usize {
    let mut index = 0;
    let mut power = 1;
    for row in r0..r0 + rows {
        for col in c0..c0 + 4 {
            if let Some(s) = square_at(row, col) {
                index += power * digit(pos, s, own);
                power *= 3;
            }
        }
    }
    assert_eq!(power, 3usize.pow(2 * rows as u32));
    index
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

#[test]
fn region_indices_match_a_slow_reference() {
    for pos in positions(13, 20_000) {
        let fast = regions::region_indices(&pos);
        let turned = pos.flipped();
        for (k, &(w, b)) in fast.iter().enumerate() {
            assert_eq!(
                w as usize,
                slow_block(&pos, 4, 2 * k, 6, Color::White),
                "region {k} of {}",
                pos.to_fen()
            );
            assert_eq!(
                b as usize,
                slow_block(&turned, 4, 2 * k, 6, Color::White),
                "region {k} of {}",
                pos.to_fen()
            );
            assert!((w as usize) < REGION_SIZE && (b as usize) < REGION_SIZE);
        }
    }
}

/// A slow reference of the dense region features.
fn slow_dense(pos: &Position) -> Vec<i32> {
    let mut f = vec![0i32; regions::DENSE];
    let coords = |s: u8| {
        let i = i32::from(s) - 1;
        let row = i / 5;
        (row, 2 * (i % 5) + i32::from(row % 2 == 0))
    };
    let white_to_move = pos.side() == Color::White;
    for s in 1..=50u8 {
        let (row, col) = coords(s);
        let Some(piece) = pos.piece_at(s) else { continue };
        let (c, king) = match piece {
            Piece::Man(c) => (c, false),
            Piece::King(c) => (c, true),
        };
        let sign = if c == Color::White { 1 } else { -1 };
        if king {
            f[regions::F_KINGS] += sign;
            let seen = if c == Color::White { s } else { 51 - s };
            f[regions::F_KING_SQ + usize::from(seen) - 1] += sign;
            continue;
        }
        f[regions::F_MEN] += sign;
        let advance = if c == Color::White { 9 - row } else { row };
        f[regions::F_TEMPO] += sign * advance;
        let to_crown = 9 - advance;
        if (1..=regions::RUNNER_ROWS as i32).contains(&to_crown) {
            let free = (1..=50u8).all(|o| {
                let (r2, c2) = coords(o);
                let ahead = if c == Color::White { row - r2 } else { r2 - row };
                let in_cone = ahead >= 1 && (c2 - col).abs() <= ahead;
                !in_cone || pos.piece_at(o).is_none_or(|p| p.color() == c)
            });
            if free {
                let to_move = usize::from((c == Color::White) != white_to_move);
                f[regions::F_RUNNER + 2 * (to_crown as usize - 1) + to_move] += sign;
            }
        }
    }
    for c in [Color::White, Color::Black] {
        let sign = if c == Color::White { 1 } else { -1 };
        let wing = |left: bool| {
            (1..=50u8)
                .filter(|&s| pos.piece_at(s) == Some(Piece::Man(c)) && (coords(s).1 < 5) == left)
                .count() as i32
        };
        f[regions::F_BALANCE] += sign * (wing(true) - wing(false)).abs();
        let has_kings = (1..=50u8).any(|s| pos.piece_at(s) == Some(Piece::King(c)));
        if has_kings {
            f[regions::F_FIRST_KING] += sign;
        }
    }
    f[regions::F_SIDE] = if white_to_move { 1 } else { -1 };
    f
}

#[test]
fn region_features_match_a_slow_reference() {
    for pos in positions(14, 20_000) {
        let mut fast = vec![0i32; regions::DENSE];
        let men = regions::dense_features(&pos, &mut |i, v| fast[i] += v);
        let slow = slow_dense(&pos);
        // King mobility is checked by symmetry below; the rest exactly.
        fast[regions::F_KING_SAFE] = 0;
        fast[regions::F_KING_ATTACKED] = 0;
        assert_eq!(fast, slow, "{}", pos.to_fen());
        assert_eq!(
            men as usize,
            (1..=50u8).filter(|&s| matches!(pos.piece_at(s), Some(Piece::Man(_)))).count()
        );
    }
}

#[test]
fn king_mobility_counts_safe_and_attacked_squares() {
    // A white king on 28: 22 blocks the north-west diagonal; the others
    // give 23, 19, 14, 10, 5; 32, 37, 41, 46; 33, 39, 44, 50. The black man
    // on 24 could take a king on 19 (13 behind it is empty): one attacked
    // square, twelve safe ones.
    let pos = Position::parse("W:WK28:B22,24").unwrap();
    let mut f = vec![0i32; regions::DENSE];
    regions::dense_features(&pos, &mut |i, v| f[i] += v);
    assert_eq!((f[regions::F_KING_SAFE], f[regions::F_KING_ATTACKED]), (12, 1));
    // Colours swapped, the same counts for Black.
    let mut g = vec![0i32; regions::DENSE];
    regions::dense_features(&pos.flipped(), &mut |i, v| g[i] += v);
    assert_eq!((g[regions::F_KING_SAFE], g[regions::F_KING_ATTACKED]), (-12, -1));
}

fn random_weights(layout: Layout, seed: u64) -> PatternWeights {
    let mut rng = Rng::new(seed);
    let mut w = PatternWeights::material(layout);
    for (i, e) in w.w.iter_mut().enumerate() {
        if i >= 2 {
            *e = [(rng.below(4001) as i16) - 2000, (rng.below(4001) as i16) - 2000];
        }
    }
    w
}

#[test]
fn evaluations_are_colour_symmetric() {
    let windows = Evaluation::learned(&random_weights(Layout::Windows, 3)).unwrap();
    let regions = Evaluation::learned(&random_weights(Layout::Regions, 4)).unwrap();
    for pos in positions(6, 20_000) {
        for eval in [&Evaluation::Hand, &windows, &regions, &Evaluation::default()] {
            assert_eq!(eval.evaluate(&pos), eval.evaluate(&pos.flipped()), "{}", pos.to_fen());
        }
    }
}

#[test]
fn the_training_model_is_the_evaluation() {
    for layout in Layout::ALL {
        let w = random_weights(layout, 9);
        let wf: Vec<[f32; 2]> =
            w.w.iter().map(|&[a, b]| [f32::from(a) / 16.0, f32::from(b) / 16.0]).collect();
        assert_eq!(wf.len(), layout.features());
        let eval = Evaluation::learned(&w).unwrap();
        let mut short = w.clone();
        short.w.pop();
        assert!(Evaluation::learned(&short).unwrap_err().contains("weights for the"));
        let ps = positions(12, 5_000);
        let records: Vec<Record> =
            ps.iter().map(|&position| Record { position, game: 0, score: 0, result: 0 }).collect();
        let mut samples = Samples::new(layout);
        samples.extend(&records, 0.0, 200.0, None);
        for (i, pos) in ps.iter().enumerate() {
            let model = samples.score(i, &wf);
            // The engine scales drawish endings and answers from the side
            // to move; undo both where it can.
            let e = eval.evaluate(pos);
            let engine = f64::from(if pos.side() == Color::White { e } else { -e });
            if pos.kings() != 0 || e.abs() >= dammer::engine::score::EVAL_LIMIT {
                continue;
            }
            // The engine truncates to whole hundredths of a man.
            assert!(
                (model - engine).abs() < 1.0 + 1e-3,
                "{layout:?}: {model} vs {engine} for {}",
                pos.to_fen()
            );
        }
    }
}

/// The hybrid evaluation (the network plus a region term) scores what the
/// tuner's model of it scores: the network's score as a fixed offset plus
/// the region term, so a fit on top of the network starts at the network.
#[test]
fn the_hybrid_is_its_network_plus_the_region_term_as_the_tuner_models_it() {
    use dammer::engine::eval::nn::{Network, EMBEDDED};
    let net = Network::from_bytes(EMBEDDED).unwrap();
    let dir = std::env::temp_dir().join(format!("dammer-hybrid-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("regions.bin");
    let w = random_weights(Layout::Regions, 17);
    std::fs::write(&file, w.to_bytes()).unwrap();
    let hybrid = Evaluation::from_name("hybrid", Some(&file)).unwrap();
    assert_eq!(hybrid.name(), "hybrid");
    let wf: Vec<[f32; 2]> = w.w.iter().map(|&[a, b]| [f32::from(a) / 16.0, f32::from(b) / 16.0]).collect();
    let zero = vec![[0f32; 2]; Layout::Regions.features()];
    let ps = positions(14, 3_000);
    let records: Vec<Record> =
        ps.iter().map(|&position| Record { position, game: 0, score: 0, result: 0 }).collect();
    let mut samples = Samples::new(Layout::Regions);
    samples.extend(&records, 0.0, 200.0, Some(&net));
    let white = |pos: &Position, e: i32| f64::from(if pos.side() == Color::White { e } else { -e });
    for (i, pos) in ps.iter().enumerate() {
        // A zero term: the network alone.
        assert_eq!(samples.score(i, &zero), white(pos, net.evaluate(pos)));
        let e = hybrid.evaluate(pos);
        if e.abs() >= dammer::engine::score::EVAL_LIMIT {
            continue;
        }
        // The region term truncates to whole hundredths of a man.
        let model = samples.score(i, &wf);
        assert!((model - white(pos, e)).abs() < 1.0 + 1e-3, "{model} vs {e} for {}", pos.to_fen());
    }
    // Colour-symmetric, as the network and the regions are.
    for pos in ps.iter().take(500) {
        assert_eq!(hybrid.evaluate(pos), hybrid.evaluate(&pos.flipped()), "{}", pos.to_fen());
    }
    // Without its weights the term is empty (none is embedded): the
    // network alone. Windows weights are refused.
    let bare = Evaluation::from_name("hybrid", None).unwrap();
    for pos in ps.iter().take(200) {
        assert_eq!(bare.evaluate(pos), net.evaluate(pos));
    }
    let windows = dir.join("windows.bin");
    std::fs::write(&windows, random_weights(Layout::Windows, 3).to_bytes()).unwrap();
    assert!(Evaluation::from_name("hybrid", Some(&windows)).unwrap_err().contains("not regions"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn weights_files_load_or_fail_clearly() {
    let dir = std::env::temp_dir().join(format!("dammer-eval-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for layout in Layout::ALL {
        let good = dir.join("w.bin");
        let w = random_weights(layout, 5);
        std::fs::write(&good, w.to_bytes()).unwrap();
        assert_eq!(PatternWeights::load(&good).unwrap(), w);
        assert_eq!(Evaluation::from_name("learned", Some(&good)).unwrap().name(), layout.name());
        let other = if layout == Layout::Windows { "regions" } else { "windows" };
        assert!(Evaluation::from_name(other, Some(&good)).unwrap_err().contains("weights, not"));
        let bad = dir.join("bad.bin");
        std::fs::write(&bad, &w.to_bytes()[..1000]).unwrap();
        assert!(Evaluation::from_name("learned", Some(&bad)).unwrap_err().contains("truncated"));
    }
    let missing = dir.join("missing.bin");
    assert!(Evaluation::from_name("learned", Some(&missing)).unwrap_err().contains("cannot read"));
    assert!(Evaluation::from_name("neural", None).is_err());
    for name in ["hand", "windows", "regions", "learned"] {
        assert!(Evaluation::from_name(name, None).is_ok(), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn training_on_synthetic_data_lowers_the_loss() {
    // White wins exactly when it has more men: learnable by the men count
    // and the patterns.
    for layout in Layout::ALL {
        let mut rng = Rng::new(21);
        let make = |rng: &mut Rng, n: usize| -> Samples {
            let records: Vec<Record> = (0..n)
                .map(|i| {
                    let position = random_position(rng, 30 + i % 40, 0);
                    let men = |c: Color| position.men(c).count_ones() as i32;
                    let result = (men(Color::White) - men(Color::Black)).signum() as i8;
                    Record { position, game: i as u32, score: 0, result }
                })
                .collect();
            let mut s = Samples::new(layout);
            s.extend(&records, 0.0, 200.0, None);
            s
        };
        let train = make(&mut rng, 4000);
        let val = make(&mut rng, 1000);
        let zero = PatternWeights { layout, w: vec![[0, 0]; layout.features()] };
        let cfg = tune::Config {
            data: vec![],
            out: std::path::PathBuf::new(),
            layout,
            epochs: 4,
            batch: 256,
            lr: 5.0,
            l2: 0.0,
            lambda: 0.0,
            k: 200.0,
            init: None,
            seed: 1,
            base: None,
        };
        let mut saved = 0;
        let h = tune::fit(&cfg, &zero, &train, &val, &mut |_| {}, &mut |_| {
            saved += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(saved, 4);
        assert!((h.train[0] - std::f64::consts::LN_2).abs() < 1e-9);
        assert!(h.train[4] < 0.6 * h.train[0], "{layout:?}: {h:?}");
        assert!(h.validation[4] < 0.7 * h.validation[0], "{layout:?}: {h:?}");
    }
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
        openings: dammer::rules::openings::parse_openings(dammer::rules::openings::DEFAULT_OPENINGS, false)
            .unwrap(),
        shard: (1, 1),
        variant: dammer::rules::variant::Variant::Normal,
        diversity: selfplay::Diversity::NONE,
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

#[test]
fn diverse_selfplay_is_reproducible_and_stores_only_the_full_budget_side() {
    let cfg = |diversity: selfplay::Diversity| selfplay::Config {
        out: std::path::PathBuf::new(),
        games: 10,
        nodes: 300,
        threads: 1,
        random_plies: 10,
        seed: 23,
        eval: Evaluation::Hand,
        max_plies: 120,
        openings: dammer::rules::openings::parse_openings(dammer::rules::openings::DEFAULT_OPENINGS, false)
            .unwrap(),
        shard: (1, 1),
        variant: dammer::rules::variant::Variant::Normal,
        diversity,
    };
    let mut engine = dammer::engine::Engine::new(1, 16);
    engine.set_evaluation(Evaluation::Hand);
    let none = selfplay::Diversity::NONE;
    let wide =
        cfg(selfplay::Diversity { balance: Some(30), sample_plies: 20, temperature: 40, weak_share: 0 });
    let weak = cfg(selfplay::Diversity { weak_share: 1000, ..none });
    let balanced = cfg(selfplay::Diversity { balance: Some(30), ..none });
    let (mut differ, mut level, mut level_none) = (0, 0, 0);
    for game in 0..10 {
        let (records, _) = selfplay::play_game(&wide, &mut engine, game);
        assert_eq!(selfplay::play_game(&wide, &mut engine, game).0, records, "game {game}");
        if selfplay::play_game(&cfg(none), &mut engine, game).0 != records {
            differ += 1;
        }
        // One side searches an eighth of the budget; only the other's
        // positions are kept.
        let (records, _) = selfplay::play_game(&weak, &mut engine, game);
        assert!(!records.is_empty());
        assert!(records.iter().all(|r| r.position.side() == records[0].position.side()), "game {game}");
        // A balanced start is one a search at the game's budget scores
        // within 0.3 of level, unless all sixteen draws were rejected.
        let limits = dammer::engine::Limits { nodes: Some(300), ..Default::default() };
        for (c, count) in [(&balanced, &mut level), (&cfg(none), &mut level_none)] {
            let start = selfplay::start_position(c, &mut engine, game);
            engine.clear();
            if engine.search_quietly(&start, &limits).score.abs() <= 30 {
                *count += 1;
            }
        }
    }
    assert!(differ >= 8, "{differ} of 10 games changed by sampling and balance");
    assert!(
        level >= 9 && level_none <= 7,
        "{level} of 10 balanced games start within 0.3 of level, {level_none} without"
    );
}

#[test]
fn shards_merged_give_the_file_of_one_run() {
    let dir = std::env::temp_dir().join(format!("dammer-shard-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = |out: std::path::PathBuf, shard: (u32, u32)| selfplay::Config {
        out,
        games: 7,
        nodes: 200,
        threads: 2,
        random_plies: 4,
        seed: 11,
        eval: Evaluation::Hand,
        max_plies: 100,
        openings: dammer::rules::openings::parse_openings(dammer::rules::openings::DEFAULT_OPENINGS, false)
            .unwrap(),
        shard,
        variant: dammer::rules::variant::Variant::Normal,
        diversity: selfplay::Diversity::NONE,
    };
    let one = dir.join("one.bin");
    let _ = std::fs::remove_file(&one);
    assert_eq!(selfplay::run(&cfg(one.clone(), (1, 1)), &mut |_| {}).unwrap().games, 7);
    let mut shards = Vec::new();
    for k in 1..=3 {
        let path = dir.join(format!("shard{k}.bin"));
        let _ = std::fs::remove_file(&path);
        let s = selfplay::run(&cfg(path.clone(), (k, 3)), &mut |_| {}).unwrap();
        // Games 0, 3, 6 / 1, 4 / 2, 5.
        assert_eq!(s.games, if k == 1 { 3 } else { 2 });
        assert!(selfplay::read_records(&path).unwrap().iter().all(|r| r.game % 3 == k - 1));
        shards.push(path);
    }
    let (merged, canonical) = (dir.join("merged.bin"), dir.join("canonical.bin"));
    // The shards in any order give the same bytes as the one run, merged
    // alone (its games were written in the order they finished).
    shards.reverse();
    assert_eq!(selfplay::merge(&shards, &merged).unwrap().0, 7);
    selfplay::merge(std::slice::from_ref(&one), &canonical).unwrap();
    assert_eq!(std::fs::read(&merged).unwrap(), std::fs::read(&canonical).unwrap());
    assert_eq!(selfplay::read_records(&merged).unwrap().len(), selfplay::read_records(&one).unwrap().len());
    // A game in two inputs is refused, and so is a bad shard.
    let err = selfplay::merge(&[one.clone(), shards[0].clone()], &merged).unwrap_err();
    assert!(err.contains("is in both"), "{err}");
    assert!(selfplay::run(&cfg(dir.join("x.bin"), (4, 3)), &mut |_| {}).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn breakthrough_sets_take_the_last_level_position_before_the_crowning() {
    use dammer::tools::testset::{self, Case};
    let p = |fen: &str| Position::parse(fen).unwrap();
    let rec = |game: u32, fen: &str, score: i16, result: i8| Record { position: p(fen), game, score, result };
    let level = "W:W31,32,33:B18,19,20";
    let crowned = "W:W31,32:BK46,19";
    let records = vec![
        // Game 10, won by Black: positions 1 and 2 are level; 2 is the last
        // one before Black crowns; position 3 (Black ahead) is not level.
        rec(10, level, 5, -1),
        rec(10, "B:W31,32,34:B18,19,20", -20, -1),
        rec(10, "W:W31,32,34:B18,19,25", -80, -1),
        rec(10, crowned, -300, -1),
        // Game 11 is a training game, game 20 a draw: neither counts.
        rec(11, level, 0, -1),
        rec(11, crowned, -300, -1),
        rec(20, level, 0, 0),
        rec(20, crowned, 0, 0),
        // Game 30: White wins without crowning: no breakthrough.
        rec(30, level, 0, 1),
    ];
    let cases = testset::breakthroughs(&records, 25, 20);
    assert_eq!(cases, vec![Case { position: p("B:W31,32,34:B18,19,20"), winner: Color::Black }]);
    // Too far from the crowning: nothing.
    assert!(testset::breakthroughs(&records, 25, 1).is_empty());
    let dir = std::env::temp_dir().join(format!("dammer-testset-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("set.txt");
    testset::write_set(&path, &cases).unwrap();
    assert_eq!(testset::read_set(&path).unwrap(), cases);
    std::fs::write(&path, "W:W31:B20 1-0\nW:W31:B20 2-0\n").unwrap();
    let err = testset::read_set(&path).unwrap_err();
    assert!(err.contains(":2: result must be 1-0 or 0-1"), "{err}");
    std::fs::write(&path, "W:W31:B99 1-0\n").unwrap();
    assert!(testset::read_set(&path).unwrap_err().contains(":1:"));
    // A shallow search favours the side that is a move from crowning.
    let racing = vec![Case { position: p("W:W6,45:B40"), winner: Color::White }];
    let s = testset::score(&racing, 4, &Evaluation::Hand, 30);
    assert_eq!((s.positions, s.correct, s.clear), (1, 1, 1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn relabelling_keeps_games_and_results_and_resumes() {
    let dir = std::env::temp_dir().join(format!("dammer-relabel-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, out) = (dir.join("in.bin"), dir.join("out.bin"));
    let cfg = selfplay::Config {
        out: input.clone(),
        games: 3,
        nodes: 300,
        threads: 2,
        random_plies: 4,
        seed: 9,
        eval: Evaluation::Hand,
        max_plies: 120,
        openings: dammer::rules::openings::parse_openings(dammer::rules::openings::DEFAULT_OPENINGS, false)
            .unwrap(),
        shard: (1, 1),
        variant: dammer::rules::variant::Variant::Normal,
        diversity: selfplay::Diversity::NONE,
    };
    selfplay::run(&cfg, &mut |_| {}).unwrap();
    let before = selfplay::read_records(&input).unwrap();
    let r = selfplay::relabel(&input, &out, 2000, 2, &Evaluation::Hand, &mut |_| {}).unwrap();
    assert_eq!(r.games, 3);
    let after = selfplay::read_records(&out).unwrap();
    assert_eq!(after.len() as u64, r.positions);
    // Every relabelled record is an input record with only its score changed.
    for a in &after {
        assert!(before.iter().any(|b| Record { score: a.score, ..*b } == *a), "{a:?}");
    }
    assert!(after.len() + 10 >= before.len(), "few positions dropped as won or lost");
    assert_eq!(selfplay::relabel(&input, &out, 2000, 2, &Evaluation::Hand, &mut |_| {}).unwrap().games, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_match_pdn_relabels_into_data_with_its_results() {
    let dir = std::env::temp_dir().join(format!("dammer-relabel-pdn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, out) = (dir.join("games.pdn"), dir.join("out.bin"));
    // A won game from a FEN tag, a drawn one from the start, an unfinished one.
    let pdn = "[White \"a\"]\n[Black \"b\"]\n[Result \"2-0\"]\n[FEN \"W:W28,33:B18,19\"]\n\n\
               1. 33-29 19-24 2. 29x20 18-22 3. 28x17 2-0\n\n\
               [Result \"1-1\"]\n\n1. 32-28 19-23 2. 28x19 14x23 1-1\n\n\
               [Result \"*\"]\n\n1. 32-28 *\n";
    std::fs::write(&input, pdn).unwrap();
    let (records, skipped) = selfplay::records_of_pdn(pdn).unwrap();
    assert_eq!(skipped, 1);
    // Quiet positions only (no capture due): of the won game the start,
    // after 33-29, after 29x20 and the end; of the drawn one the start,
    // after 32-28 and the end. Each carries its game's number and result.
    for r in &records {
        assert!(!dammer::rules::movegen::has_capture(&r.position), "{r:?}");
        assert_eq!(r.result, if r.game == 1 { 1 } else { 0 }, "{r:?}");
    }
    assert_eq!(records.iter().filter(|r| r.game == 1).count(), 4);
    assert_eq!(records.iter().filter(|r| r.game == 2).count(), 3);
    let r = selfplay::relabel(&input, &out, 500, 2, &Evaluation::Hand, &mut |_| {}).unwrap();
    assert_eq!(r.games, 2);
    let after = selfplay::read_records(&out).unwrap();
    assert_eq!(after.len() as u64, r.positions);
    // The won game's last position (Black has nothing) is a loss: dropped.
    assert!(after.len() < records.len() && after.iter().any(|a| a.game == 1));
    for a in &after {
        assert!(records.iter().any(|b| Record { score: a.score, ..*b } == *a), "{a:?}");
    }
    assert_eq!(selfplay::relabel(&input, &out, 500, 2, &Evaluation::Hand, &mut |_| {}).unwrap().games, 0);
    // Bad input: an illegal move names its game, a text that is no PDN fails.
    let bad = "[Result \"2-0\"]\n\n1. 32-27 2-0\n\n[Result \"1-1\"]\n\n1. 31-26 19-24 2. 26-22 1-1\n";
    let e = selfplay::records_of_pdn(bad).unwrap_err();
    assert!(e.contains("game 2"), "{e}");
    // A result named only by the tag (no token after the moves) counts.
    let tagged = "[Result \"0-2\"]\n\n1. 32-28 19-23 2. 28x19 14x23\n";
    let (records, skipped) = selfplay::records_of_pdn(tagged).unwrap();
    assert_eq!((records.len(), skipped), (3, 0));
    assert!(records.iter().all(|r| r.result == -1));
    std::fs::write(&input, [0xffu8, 0xfe, 0x00]).unwrap();
    let e = selfplay::relabel(&input, &out, 500, 2, &Evaluation::Hand, &mut |_| {}).unwrap_err();
    assert!(e.contains("neither"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
