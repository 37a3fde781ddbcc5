//! Analysis for people: multi-PV, stopping on a proven result, the console's
//! board and legend, and `dammer annotate` (PDN in, annotated PDN and SVG out).

use std::process::Command;

use dammer::engine::score::WIN_BAND;
use dammer::engine::{Engine, Limits};
use dammer::rules::game::Game;
use dammer::rules::movegen::legal_moves;
use dammer::rules::pdn;

const DAMMER: &str = env!("CARGO_BIN_EXE_dammer");

fn game(fen: &str, moves: &str) -> Game {
    let mut g = Game::from_text(fen).unwrap();
    for m in moves.split_whitespace() {
        g.play_text(m).unwrap();
    }
    g
}

#[test]
fn multipv_lines_are_distinct_ordered_and_led_by_the_best() {
    let positions = [
        ("W:W31-50:B1-20", "32-28 18-23 37-32 12-18"),
        ("W:W31-50:B1-20", "32-28 19-23 28x19 14x23 37-32 10-14 42-37 4-10"),
        ("B:W25,27,28,30,32,33,34,35,37,38,39,40,43,44,45,48,50:B1,2,3,4,6,7,9,10,12,13,14,16,17,18,19,20,23", ""),
    ];
    let mut engine = Engine::new(1, 16);
    for (fen, moves) in positions {
        let g = game(fen, moves);
        let legal = legal_moves(g.position()).len();
        let r = engine
            .search_quietly(&g, &Limits { depth: Some(7), analysis: true, multipv: 4, ..Limits::default() });
        assert_eq!(r.lines.len(), legal.min(4), "{fen}");
        assert_eq!(r.lines[0].pv, r.pv);
        assert_eq!(r.lines[0].score, r.score);
        for w in r.lines.windows(2) {
            assert!(w[0].score >= w[1].score, "{fen}: {:?}", r.lines);
        }
        let mut firsts: Vec<_> = r.lines.iter().map(|l| l.pv[0]).collect();
        firsts.dedup();
        assert_eq!(firsts.len(), r.lines.len());
        // Each line is a legal sequence from the position.
        for line in &r.lines {
            let mut p = g.clone();
            for m in &line.pv {
                p.play(*m).unwrap();
            }
        }
        // The second line's score is exact: the move searched alone
        // (multi-PV 1 from the position after it) agrees within the noise
        // of a different tree.
        let mut after = g.clone();
        after.play(r.lines[1].pv[0]).unwrap();
        let alone =
            engine.search_quietly(&after, &Limits { depth: Some(6), analysis: true, ..Limits::default() });
        assert!(
            (-alone.score - r.lines[1].score).abs() <= 30,
            "{fen}: {} vs {}",
            -alone.score,
            r.lines[1].score
        );
    }
    // Single PV keeps no lines.
    let r = engine
        .search_quietly(&Game::default(), &Limits { depth: Some(5), analysis: true, ..Limits::default() });
    assert!(r.lines.is_empty());
}

#[test]
fn a_proven_win_ends_the_analysis() {
    let out = Command::new(DAMMER).args(["analyse", "--time", "60", "W:WK28:B16"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.contains("(win in 3)"), "{text}");
    let depth: u32 = last.split("depth ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    assert!(depth < 20, "{last}");
    // A set depth is searched to the end.
    let mut engine = Engine::new(1, 16);
    let r = engine.search_quietly(&game("W:WK28:B16", ""), &Limits { depth: Some(12), ..Limits::default() });
    assert_eq!(r.depth, 12);
    assert!(r.score >= WIN_BAND);
}

#[test]
fn the_console_numbers_squares_and_explains_its_columns() {
    let out = Command::new(DAMMER)
        .args([
            "analyse",
            "--depth",
            "4",
            "--multipv",
            "2",
            "--color",
            "always",
            "--no-book",
            "B:W31-50:B1-20",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\x1b[1;31mb\x1b[0m"), "{text}");
    assert!(text.contains("Black to move"), "{text}");
    assert!(text.contains("scores in men (1.00 = a man) for Black, the side to move"), "{text}");
    assert!(text.contains("best lines at depth 4:"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("2. ")), "{text}");
    // Piped output is plain unless asked, and NO_COLOR wins over auto.
    for args in [&["analyse", "--depth", "2"][..], &["show", "--color", "auto"][..]] {
        let out = Command::new(DAMMER).args(args).env("NO_COLOR", "1").output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains('\x1b'), "{text}");
        assert!(text.contains("White to move") && text.contains(" 46 "), "{text}");
    }
    let out = Command::new(DAMMER).args(["analyse", "--multipv", "0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("multipv must be between 1 and 100"));
}

#[test]
fn a_position_without_moves_gets_no_table_and_won_scores_keep_the_columns() {
    let out = Command::new(DAMMER).args(["analyse", "W:W:B1"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("no legal move: 0-2"), "{text}");
    assert!(!text.contains("scores in men") && !text.contains("depth"), "{text}");
    // A described win ("99.97 (win in 3)") fits the score column: the node
    // count starts in the same place on every row.
    let out = Command::new(DAMMER).args(["analyse", "--depth", "8", "W:WK28:B16"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().find(|l| l.starts_with("depth")).unwrap();
    let nodes_end = header.find("nodes").unwrap() + "nodes".len();
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("depth"))
        .skip(1)
        .take_while(|l| !l.starts_with("best"))
        .collect();
    assert!(rows.iter().any(|r| r.contains("(win in")), "{text}");
    for row in rows {
        assert!(row.as_bytes()[nodes_end - 1].is_ascii_digit(), "{row:?} under {header:?}");
        assert_eq!(row.as_bytes()[nodes_end], b' ', "{row:?} under {header:?}");
    }
}

/// A short game with a blunder: Black's 19-24 lets White take four men.
const GAME: &str = r#"[Event "test"]
[White "W. Hite"]
[Black "B. Lack"]
[Result "2-0"]
[FEN "B:W25,27,28,30,32,33,34,35,37,38,39,40,43,44,45,48,50:B1,2,3,4,6,7,9,10,12,13,14,16,17,18,19,20,23"]

1... 19-24 {a comment} (1... 23-29 {a side line}) 2. 30x8 $2 2x13 2-0

[Event "second"]
[Result "*"]

1. 32-28 19-23 2. 28x19 14x23 *
"#;

#[test]
fn annotate_writes_pdn_that_reads_back_and_resumes() {
    let dir = crate::common::temp_dir("annotate");
    let input = dir.join("games.pdn");
    let out = dir.join("out.pdn");
    let svg = dir.join("graph.svg");
    std::fs::write(&input, GAME).unwrap();
    let games = pdn::read(GAME).unwrap();
    for g in &games {
        g.replay().unwrap();
    }
    let run = |extra: &[&str]| {
        let mut args =
            vec!["annotate", input.to_str().unwrap(), "--depth", "6", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        Command::new(DAMMER).args(&args).output().unwrap()
    };
    let first = run(&["--svg", svg.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{stdout}{}", String::from_utf8_lossy(&first.stderr));
    assert!(stdout.contains("White (W. Hite):") && stdout.contains("average loss"), "{stdout}");
    let text = std::fs::read_to_string(&out).unwrap();
    let read = pdn::read(&text).unwrap();
    assert_eq!(read.len(), 2);
    for (a, b) in read.iter().zip(&games) {
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.result, b.result);
        assert!(a.tag("Annotator").unwrap().starts_with("Dammer"));
        for tag in ["WhiteAverageLoss", "WhiteMistakes", "WhiteBlunders", "BlackAverageLoss", "BlackBlunders"]
        {
            assert!(a.tag(tag).is_some(), "{tag}");
        }
        assert_eq!(a.tag("Event"), b.tag("Event"));
    }
    // Every move has a comment with a score; the game's first position is kept.
    let first_game = &text[..text.find("[Event \"second\"]").unwrap()];
    assert!(first_game.contains("[FEN \"B:W25,27,28,30,32,33,34,35,37,38,39,40,43,44,45,48,50:B1,2,3,4,6,7,9,10,12,13,14,16,17,18,19,20,23\"]"));
    assert_eq!(first_game.matches('{').count(), 4, "{first_game}");
    // 19-24 loses men at once: a blunder, with the better line as a
    // variation starting at the same move number.
    assert!(first_game.contains("1... 19-24??"), "{first_game}");
    assert!(first_game.contains("(1... "), "{first_game}");
    let svg_text = std::fs::read_to_string(dir.join("graph-1.svg")).unwrap();
    assert!(svg_text.starts_with("<svg") && svg_text.trim_end().ends_with("</svg>"));
    assert!(svg_text.contains("1... 19-24??"), "the blunder is marked on the graph");
    // The plot is white, so that only the filled areas show who is better;
    // move labels stand above it, clear of the curve.
    let attr = |line: &str, name: &str| -> f64 {
        let at = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        line[at..].split('"').next().unwrap().parse().unwrap()
    };
    let plot = svg_text.lines().find(|l| l.starts_with("<rect x=")).unwrap();
    assert!(plot.contains("fill=\"#ffffff\""), "{plot}");
    let plot_top = attr(plot, "y");
    let labels: Vec<&str> =
        svg_text.lines().filter(|l| l.starts_with("<text") && l.contains("font-size=\"10\"")).collect();
    assert!(!labels.is_empty());
    for l in labels {
        assert!(attr(l, "y") < plot_top, "{l} inside the plot (top {plot_top})");
    }
    assert!(dir.join("graph-2.svg").exists());
    // Run again: nothing left to do, the file unchanged.
    let again = run(&[]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds all 2 games"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    // An output file of other games is refused, not overwritten.
    std::fs::write(&out, "1. 33-28 *\n").unwrap();
    let refused = run(&[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("already holds other games"));
    // A graph that cannot be written is refused before any search: no
    // game searched, no PDN written.
    std::fs::remove_file(&out).unwrap();
    let unwritable = run(&["--svg", "/nonexistent-dir/g.svg"]);
    assert_eq!(unwritable.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unwritable.stderr);
    assert!(stderr.contains("cannot write /nonexistent-dir/g-1.svg"), "{stderr}");
    assert!(!String::from_utf8_lossy(&unwritable.stdout).contains("game 1 of"));
    assert!(!out.exists());
    // A game that cannot be replayed is named before any search.
    std::fs::write(&input, "1. 32-28 19-23 2. 28-22 *").unwrap();
    let _ = std::fs::remove_file(&out);
    let bad = run(&[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("game 1: move 3 (28-22)"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[test]
fn judging_marks_losses_by_expected_score() {
    use dammer::engine::Line;
    use dammer::tools::annotate::{judge, summarise, PositionReport};
    let g = game("W:W31-50:B1-20", "32-28 19-23 28x19");
    let moves = g.moves().to_vec();
    let other = legal_moves(&g.positions()[0]).iter().copied().find(|m| *m != moves[0]).unwrap();
    let line = |score, m| Line { score, pv: vec![m] };
    let reports = vec![
        // 32-28 was the best by far: a strong only move.
        PositionReport { score: 10, depth: 8, lines: vec![line(10, moves[0]), line(-150, other)] },
        // 19-23 is not among Black's two best; the next search says -130 for Black.
        PositionReport { score: -10, depth: 8, lines: vec![line(-10, moves[0]), line(-40, moves[0])] },
        // 28x19 is forced.
        PositionReport { score: 130, depth: 8, lines: vec![line(130, moves[2])] },
        PositionReport { score: -125, depth: 8, lines: vec![] },
    ];
    let judged = judge(&g, &reports);
    assert_eq!(judged[0].glyph, "!");
    assert_eq!(judged[1].glyph, "??", "{:?}", judged[1]);
    assert_eq!(judged[1].played, -130);
    assert_eq!(judged[1].best, -10);
    assert_eq!(judged[2].glyph, "");
    assert_eq!(judged[2].white_score, 125);
    let black = summarise(&judged, dammer::rules::position::Color::Black);
    assert_eq!((black.moves, black.blunders, black.mistakes), (1, 1, 0));
    assert!((black.average_loss - 1.2).abs() < 1e-9);
}
