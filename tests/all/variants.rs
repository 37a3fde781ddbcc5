//! The variants: breakthrough (the first to crown wins) and losing
//! draughts (who cannot move wins), which share the international moves:
//! game results, draw rules, and a search that plays for the variant's
//! goal; and Frisian's own moves, results and draws (rules only so far).

use dammer::engine::score::WIN_BAND;
use dammer::engine::time::Limits;
use dammer::engine::Engine;
use dammer::rules::game::{draw_by_rule, DrawReason, DrawRules, EndgameRule, Game, GameResult, PlyState};
use dammer::rules::position::{Color, Position};
use dammer::rules::variant::Variant;

fn game(fen: &str, variant: Variant) -> Game {
    Game::with_variant(Position::from_fen(fen).unwrap(), variant)
}

#[test]
fn breakthrough_is_won_by_the_first_crowning() {
    let mut g = game("W:W7,40:B3,45", Variant::Breakthrough);
    assert_eq!(g.result(), GameResult::Ongoing);
    g.play_text("7-1").unwrap();
    assert_eq!(g.result(), GameResult::Win(Color::White));
    // The same move in the international game only crowns.
    let mut n = game("W:W7,40:B3,45", Variant::Normal);
    n.play_text("7-1").unwrap();
    assert_eq!(n.result(), GameResult::Ongoing);
}

#[test]
fn in_losing_draughts_who_cannot_move_wins() {
    // White gives its last man away: Black must take it, and White, to
    // move without a piece, has won.
    let mut g = game("W:W28:B19", Variant::Losing);
    g.play_text("28-23").unwrap();
    g.play_text("19x28").unwrap();
    assert_eq!(g.result(), GameResult::Win(Color::White));
    let mut n = game("W:W28:B19", Variant::Normal);
    n.play_text("28-23").unwrap();
    n.play_text("19x28").unwrap();
    assert_eq!(n.result(), GameResult::Win(Color::Black));
}

#[test]
fn only_repetition_draws_outside_the_international_game() {
    let kings_only = PlyState { reversible: 60, endgame: None };
    assert_eq!(
        draw_by_rule(Variant::Normal, DrawRules::Fmjd, kings_only, 1),
        Some(DrawReason::TwentyFiveMoves)
    );
    assert_eq!(draw_by_rule(Variant::Losing, DrawRules::Fmjd, kings_only, 1), None);
    assert_eq!(draw_by_rule(Variant::Breakthrough, DrawRules::Fmjd, kings_only, 1), None);
    assert_eq!(draw_by_rule(Variant::Losing, DrawRules::Fmjd, kings_only, 3), Some(DrawReason::Repetition));
}

#[test]
fn the_search_plays_for_the_variants_goal() {
    let mut engine = Engine::new(1, 16);
    let limits = Limits { depth: Some(6), ..Limits::default() };
    // Breakthrough: crown first, even though the man that crowns is lost
    // in the international game's eyes (here Black takes on 40 meanwhile).
    let r = engine.search_quietly(&game("W:W12,40:B3,45", Variant::Breakthrough), &limits);
    assert!(r.score >= WIN_BAND, "{}", r.score);
    assert_eq!(r.best.unwrap().to_string(), "12-7");
    // Losing: give the last man away; the international game keeps it.
    let r = engine.search_quietly(&game("W:W28:B19", Variant::Losing), &limits);
    assert!(r.score >= WIN_BAND, "{}", r.score);
    assert_eq!(r.best.unwrap().to_string(), "28-23");
    let r = engine.search_quietly(&game("W:W28:B19", Variant::Normal), &limits);
    assert_eq!(r.best.unwrap().to_string(), "28-22");
    // Without a move: lost, or in losing draughts won.
    let r = engine.search_quietly(&game("W:W:B19", Variant::Losing), &limits);
    assert!(r.best.is_none() && r.score >= WIN_BAND);
}

#[test]
fn analyse_takes_a_variant() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dammer"))
        .args(["analyse", "W:W28:B19", "--variant", "antidraughts", "--depth", "4"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("best move 28-23") && text.contains("win in"), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dammer"))
        .args(["analyse", "--variant", "turkish"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown variant"));
}

/// `dammer match --variant`: Hub engines are told the variant, games end by
/// its rules, and the PDN says which game it was; an engine that is not a
/// Hub engine is refused.
#[test]
fn a_match_in_a_variant() {
    let dir = std::env::temp_dir().join(format!("dammer-variant-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pdn = dir.join("bt.pdn");
    let bin = env!("CARGO_BIN_EXE_dammer");
    let engine = format!("cmd={bin} hub");
    let out = std::process::Command::new(bin)
        .args(["match", "--engine", "name=a", &engine, "--engine", "name=b", &engine])
        .args(["--movetime", "0.02", "--games", "2", "--variant", "breakthrough", "--pdn"])
        .arg(&pdn)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert_eq!(text.matches("[Variant \"bt\"]").count(), 2, "{text}");
    assert_eq!(text.matches("[Termination \"crowned first\"]").count(), 2, "{text}");
    let out = std::process::Command::new(bin)
        .args(["match", "--engine", "name=a", &engine, "--engine", "name=s", "early-hub=/bin/true"])
        .args(["--movetime", "0.02", "--games", "2", "--variant", "losing"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("only Hub engines play losing"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Self-play of a variant writes a file that says so: it is never extended
/// with another game's games, merged with them, read as international
/// data, or fitted with the international endgame tables.
#[test]
fn variant_data_stays_apart() {
    use dammer::engine::eval::Evaluation;
    use dammer::tools::selfplay;
    let dir = std::env::temp_dir().join(format!("dammer-variant-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = |out: std::path::PathBuf, variant: Variant| selfplay::Config {
        out,
        games: 3,
        nodes: 200,
        threads: 2,
        random_plies: 2,
        seed: 5,
        eval: Evaluation::Hand,
        // A breakthrough game ends long before: men only go forward.
        max_plies: 400,
        openings: dammer::rules::openings::parse_openings(dammer::rules::openings::DEFAULT_OPENINGS, false)
            .unwrap(),
        shard: (1, 1),
        variant,
        diversity: selfplay::Diversity::NONE,
    };
    let (bt, normal) = (dir.join("bt.bin"), dir.join("normal.bin"));
    selfplay::run(&cfg(bt.clone(), Variant::Breakthrough), &mut |_| {}).unwrap();
    selfplay::run(&cfg(normal.clone(), Variant::Normal), &mut |_| {}).unwrap();
    let (variant, records) = selfplay::read_data(&bt).unwrap();
    assert_eq!(variant, Variant::Breakthrough);
    assert!(!records.is_empty());
    // Breakthrough games end at the first crowning: every game is decided.
    assert!(records.iter().all(|r| r.result != 0), "a breakthrough game drawn");
    let err = selfplay::run(&cfg(bt.clone(), Variant::Normal), &mut |_| {}).unwrap_err();
    assert!(err.contains("holds games of bt"), "{err}");
    assert!(selfplay::read_records(&bt).unwrap_err().contains("not of the international game"));
    let err = selfplay::merge(&[normal.clone(), bt.clone()], &dir.join("m.bin")).unwrap_err();
    assert!(err.contains("another game's"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn show_gives_the_variants_result() {
    let run = |variant: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_dammer"))
            .args(["show", "--fen", "W:W28:B19", "--moves", "28-23 19x28", "--variant", variant])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(run("antidraughts").contains("result 2-0"));
    assert!(run("normal").contains("result 0-2"));
}

/// Frisian's rules: perft from the start (distinct moves: a man's capture
/// around a ring of four is one move whichever way round; pydraughts
/// counts both paths), and a game's results and draws.
#[test]
fn frisian_moves_and_results() {
    use dammer::rules::frisian::KingRuns;
    use dammer::rules::perft::perft_frisian;
    let start = Position::start();
    let counts: Vec<u64> = (1..=6).map(|d| perft_frisian(&start, &KingRuns::default(), d)).collect();
    assert_eq!(counts, vec![9, 81, 658, 3874, 21265, 102431]);
    // Men capture along the column; the game knows the variant's moves.
    let mut g = game("W:W28:B18,K38", Variant::Frisian);
    assert_eq!(g.legal_moves().iter().map(|m| m.to_string()).collect::<Vec<_>>(), vec!["28x48x38"]);
    g.play_text("28x48x38").unwrap();
    assert_eq!(g.result(), GameResult::Ongoing);
    // One king against one: drawn after 2 moves each without a capture
    // (each move chosen so that the other king has nothing to take).
    let mut g = game("W:WK50:BK1", Variant::Frisian);
    for ply in 0..4 {
        assert_eq!(g.result(), GameResult::Ongoing, "ply {ply}");
        let safe = g.legal_moves().iter().copied().find(|&m| {
            let mut next = g.clone();
            next.play(m).unwrap();
            !next.legal_moves().iter().any(|r| r.is_capture())
        });
        g.play(safe.expect("a quiet move that gives nothing away")).unwrap();
    }
    assert_eq!(g.result(), GameResult::Draw(DrawReason::FrisianKings));
    // With men left, a king moves three times in a row at most.
    let mut g = three_king_moves();
    assert!(g.legal_moves().iter().all(|m| m.from_square() == 45), "{:?}", g.legal_moves());
    assert!(g.play_text("33-28").is_err());
}

/// White's king on 28 moves three times in a row (28-33-28-33) with a man
/// left on 45; Black replies with moves that give nothing to take.
fn three_king_moves() -> Game {
    let mut g = game("W:W45,K28:B1,2,3", Variant::Frisian);
    for m in ["28-33", "33-28", "28-33"] {
        g.play_text(m).unwrap();
        let reply = g.legal_moves().iter().copied().find(|&r| {
            let mut next = g.clone();
            next.play(r).unwrap();
            !next.legal_moves().iter().any(|w| w.is_capture())
        });
        g.play(reply.expect("a reply that gives nothing away")).unwrap();
    }
    g
}

/// The engine plays Frisian: it takes the most valuable capture (here a
/// king and two men, turning twice) and the commands take the variant.
#[test]
fn the_engine_plays_frisian() {
    let dammer = env!("CARGO_BIN_EXE_dammer");
    let run = |args: &[&str]| std::process::Command::new(dammer).args(args).output().unwrap();
    let out = run(&["analyse", "--variant", "frisian", "--depth", "4", "W:W28,K46:B29,39,K41"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("best move 46x") && text.contains("(win in 1)"), "{text}");
    // From the start, a search of some depth plays a legal Frisian move.
    let mut engine = Engine::new(1, 16);
    let g = Game::with_variant(Position::start(), Variant::Frisian);
    let r = engine.search_quietly(&g, &Limits { depth: Some(6), ..Limits::default() });
    assert!(g.legal_moves().iter().any(|m| Some(*m) == r.best));
    // A king that has moved three times in a row is not moved again.
    let g = three_king_moves();
    let r = engine.search_quietly(&g, &Limits { depth: Some(4), ..Limits::default() });
    assert_eq!(r.best.map(|m| m.from_square()), Some(45), "{:?}", r.best);
    let out = run(&["legal", "--variant", "frysk!", "W:W28:B18"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "28x8x18");
    let out = run(&["perft", "4", "--variant", "frisian"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("perft(4) = 3874"));
    assert!(Variant::from_name("chess").is_err());
}

/// Killer draughts: a king that takes a king last stops right behind it;
/// a man taken last leaves every landing square; the endgame draw rules
/// of the international game do not end its king endings.
#[test]
fn killer_kings_stop_behind_a_captured_king() {
    let moves = |fen: &str| {
        let mut v: Vec<String> =
            game(fen, Variant::Killer).legal_moves().iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(moves("W:WK46:BK28"), vec!["46x23x28"]);
    assert_eq!(moves("W:WK46:B28").len(), 5);
    // The king flies on over 37 and takes the king on 19 last.
    assert_eq!(moves("W:WK46:B37,K19"), vec!["46x14x19x37"]);
    assert_eq!(moves("W:WK46:BK37,19").len(), 3);
    // Three kings against one, 16 moves each played: the international
    // game is drawn, killer goes on; its 25-move king rule still holds.
    let pos = Position::from_fen("W:WK1,K2,K3:BK46").unwrap();
    let state = PlyState { reversible: 32, endgame: Some((EndgameRule::of(&pos).unwrap(), 32)) };
    assert_eq!(draw_by_rule(Variant::Normal, DrawRules::Fmjd, state, 1), Some(DrawReason::SixteenMoves));
    assert_eq!(draw_by_rule(Variant::Killer, DrawRules::Fmjd, state, 1), None);
    let state = PlyState { reversible: 50, endgame: None };
    assert_eq!(draw_by_rule(Variant::Killer, DrawRules::Fmjd, state, 1), Some(DrawReason::TwentyFiveMoves));
}
