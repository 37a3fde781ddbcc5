//! Every single-rule position of the published perft reference with its exact move
//! list, and the game-ending rules.

use crate::common::shuffle_kings;
use dammer::rules::game::{DrawReason, EndgameRule, Game, GameResult};
use dammer::rules::movegen::legal_moves;
use dammer::rules::position::{Color, Position};

fn from_to(fen: &str) -> Vec<String> {
    let pos = Position::from_fen(fen).unwrap();
    let mut v: Vec<String> =
        legal_moves(&pos).iter().map(|m| format!("{}-{}", m.from_square(), m.to_square())).collect();
    v.sort();
    v
}

fn hub(fen: &str) -> Vec<String> {
    let pos = Position::from_fen(fen).unwrap();
    let mut v: Vec<String> = legal_moves(&pos).iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn single_rule_positions() {
    let cases: &[(&str, &[&str])] = &[
        ("W:W28:B1", &["28-22", "28-23"]),
        ("W:W8:BK46", &["8-2", "8-3"]),
        ("W:W35:B30,K40", &["35-24", "35-44"]),
        ("W:WK46:B23", &["46-19", "46-14", "46-10", "46-5"]),
        ("W:W15:B8,19,20", &["15-2"]),
        ("W:WK47:B9,12,33", &["47-17", "47-21", "47-26"]),
        ("W:WK41,49:B9,10,12,19,38", &["41-43"]),
        ("B:W27,28,38,39,42:BK25", &["25-33"]),
        ("W:W48:B24,K31,34,K42,43", &["48-19"]),
        ("W:W26:B12,K21,31,32", &["26-8", "26-28"]),
        ("W:W15:B9,10", &["15-13"]),
    ];
    for (fen, expected) in cases {
        assert_eq!(from_to(fen), sorted(expected), "{fen}");
    }
}

#[test]
fn single_rule_positions_in_hub_notation() {
    assert_eq!(hub("W:W35:B30,K40"), sorted(&["35x24x30", "35x44x40"]));
    assert_eq!(hub("W:WK46:B23"), sorted(&["46x19x23", "46x14x23", "46x10x23", "46x5x23"]));
    assert_eq!(hub("W:W15:B8,19,20"), sorted(&["15x2x8x19x20"]));
    assert_eq!(hub("W:WK41,49:B9,10,12,19,38"), sorted(&["41x43x9x12x19x38"]));
    assert_eq!(hub("W:W48:B24,K31,34,K42,43"), sorted(&["48x19x24x34x43"]));
    assert_eq!(hub("W:W15:B9,10"), sorted(&["15x13x9x10"]));
    assert_eq!(hub("W:W28:B1"), sorted(&["28-22", "28-23"]));
}

#[test]
fn no_promotion_in_passing() {
    // Jumping 10 lands on 4, on the last row, but the capture must go on
    // over 9 to 13, and the man stays a man.
    let pos = Position::from_fen("W:W15:B9,10").unwrap();
    let m = legal_moves(&pos).as_slice()[0];
    let after = pos.make(&m);
    assert_eq!(after.kings(), 0);
    // Ending on the last row crowns.
    let pos = Position::from_fen("W:W15:B8,19,20").unwrap();
    let after = pos.make(&legal_moves(&pos).as_slice()[0]);
    assert_eq!(after.kings_of(Color::White).count_ones(), 1);
}

#[test]
fn duplicates_are_counted_once() {
    // Woldouby after 33-29: one 5-piece capture reachable by two paths.
    let mut g = Game::from_text("W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38").unwrap();
    g.play_text("33-29").unwrap();
    assert_eq!(legal_moves(g.position()).len(), 1);
    // Random178: 14 moves, not 178 paths.
    let pos = Position::from_fen("B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46").unwrap();
    let moves = legal_moves(&pos);
    assert_eq!(moves.len(), 14);
    assert!(moves.iter().any(|m| m.from_square() == 24 && m.to_square() == 24));
    // The 178 paths of the published count differ only where the king turns:
    // squares it merely flies over on a straight line are not part of a path.
    let mut turns: Vec<(String, Vec<u8>)> = dammer::rules::notation::capture_paths(&pos)
        .into_iter()
        .map(|p| (p.mv.to_string(), turning_points(&p.squares)))
        .collect();
    turns.sort();
    turns.dedup();
    assert_eq!(turns.len(), 178);
}

fn turning_points(path: &[u8]) -> Vec<u8> {
    let coords = |s: u8| {
        let i = i32::from(s) - 1;
        let row = i / 5;
        (row, 2 * (i % 5) + i32::from(row % 2 == 0))
    };
    let dir = |a: u8, b: u8| {
        let ((r0, c0), (r1, c1)) = (coords(a), coords(b));
        ((r1 - r0).signum(), (c1 - c0).signum())
    };
    let mut out = vec![path[0]];
    for w in path.windows(3) {
        if dir(w[0], w[1]) != dir(w[1], w[2]) {
            out.push(w[1]);
        }
    }
    out.push(path[path.len() - 1]);
    out
}

#[test]
fn no_moves_loses() {
    let g = Game::from_text("W:W46:B41,37").unwrap();
    assert!(legal_moves(g.position()).is_empty());
    assert_eq!(g.result(), GameResult::Win(Color::Black));
    let g = Game::from_text("B:W31:B").unwrap();
    assert_eq!(g.result(), GameResult::Win(Color::White));
}

fn play_all(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        assert_eq!(g.result(), GameResult::Ongoing, "before {m}");
        g.play_text(m).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn threefold_repetition() {
    let mut g = Game::from_text("W:WK46,35:BK3,16").unwrap();
    // Kings shuffle; the start position recurs after 4 and 8 plies.
    play_all(&mut g, "46-41 3-9 41-46 9-3");
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.result(), GameResult::Ongoing);
    play_all(&mut g, "46-41 3-9 41-46");
    g.play_text("9-3").unwrap();
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.result(), GameResult::Draw(DrawReason::Repetition));
    g.undo();
    assert_eq!(g.result(), GameResult::Ongoing);
}

#[test]
fn repetition_needs_the_same_side_to_move() {
    let mut g = Game::from_text("W:WK46,35:BK3,16").unwrap();
    play_all(&mut g, "46-41 3-9 41-46 9-3");
    assert_eq!(g.repetitions(), 2);
    // A man move makes every earlier position unreachable.
    play_all(&mut g, "35-30 16-21");
    assert_eq!(g.repetitions(), 1);
}

#[test]
fn twenty_five_move_rule() {
    // Men on the edges cannot be captured; only the kings move.
    let mut g = Game::from_text("W:WK47,35,45:BK4,16,6").unwrap();
    shuffle_kings(&mut g, 49);
    assert_eq!(g.state().reversible, 49);
    assert!(g.repetitions() < 3);
    assert_eq!(g.result(), GameResult::Ongoing);
    shuffle_kings(&mut g, 1);
    assert_eq!(g.result(), GameResult::Draw(DrawReason::TwentyFiveMoves));
    // A man move resets the count.
    g.undo();
    g.play_text("16-21").unwrap();
    assert_eq!(g.state().reversible, 0);
}

#[test]
fn five_move_endgame_rule() {
    let mut g = Game::from_text("W:WK47,K45:BK4").unwrap();
    shuffle_kings(&mut g, 9);
    assert_eq!(g.result(), GameResult::Ongoing);
    shuffle_kings(&mut g, 1);
    assert_eq!(g.result(), GameResult::Draw(DrawReason::FiveMoves));
}

#[test]
fn sixteen_move_endgame_rule() {
    let mut g = Game::from_text("B:WK47,K45,K36:BK4").unwrap();
    shuffle_kings(&mut g, 31);
    assert_eq!(g.result(), GameResult::Ongoing);
    shuffle_kings(&mut g, 1);
    assert_eq!(g.result(), GameResult::Draw(DrawReason::SixteenMoves));
}

#[test]
fn endgame_rule_classes() {
    let rule = |fen: &str| EndgameRule::of(&Position::from_fen(fen).unwrap());
    assert_eq!(rule("W:WK46,K50,K36:BK5"), Some(EndgameRule::Sixteen));
    assert_eq!(rule("W:WK46,K50,36:BK5"), Some(EndgameRule::Sixteen));
    assert_eq!(rule("W:WK46,37,36:BK5"), Some(EndgameRule::Sixteen));
    assert_eq!(rule("W:WK46,K50:BK5"), Some(EndgameRule::Five));
    assert_eq!(rule("W:WK46,37:BK5"), Some(EndgameRule::Five));
    assert_eq!(rule("W:WK46:BK5"), Some(EndgameRule::Five));
    assert_eq!(rule("W:WK5:BK46,K1,K2"), Some(EndgameRule::Sixteen));
    // No king on the stronger side, a man on the weaker side, or four pieces: no rule.
    assert_eq!(rule("W:W46,37,36:BK5"), None);
    assert_eq!(rule("W:WK46,K37:BK5,20"), None);
    assert_eq!(rule("W:WK46,K50,K36,K40:BK5"), None);
}

#[test]
fn endgame_count_survives_promotion_and_restarts_on_capture() {
    // 2 kings + man vs king: the man's promotion keeps the 16-move count.
    let mut g = Game::from_text("W:WK46,K50,7:BK35").unwrap();
    g.play_text("46-41").unwrap();
    g.play_text("35-30").unwrap();
    assert_eq!(g.state().endgame, Some((EndgameRule::Sixteen, 2)));
    g.play_text("7-2").unwrap();
    assert_eq!(g.state().endgame, Some((EndgameRule::Sixteen, 3)));
    // The lone king takes a king: two pieces left, the 5-move count starts.
    let mut g = Game::from_text("B:WK46,K50,K23:BK5").unwrap();
    g.play_text("5x28").unwrap();
    assert_eq!(g.state().endgame, Some((EndgameRule::Five, 0)));
}
