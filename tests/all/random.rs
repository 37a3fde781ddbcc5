//! Randomised checks: many random games and positions, each checked against
//! a recomputation from scratch or a second implementation.

use std::collections::BTreeSet;

use crate::common::{random_game, random_position, Rng};
use dammer::rules::bitboard::square_to_bit;
use dammer::rules::game::{draw_by_rule, DrawRules, EndgameRule, Game, GameResult};
use dammer::rules::movegen::{count_moves, has_capture, legal_moves, Move, MoveList};
use dammer::rules::notation::{capture_paths, parse_move, to_pdn, MoveError};
use dammer::rules::position::Position;

fn move_set(pos: &Position) -> BTreeSet<(u8, u8, u64)> {
    legal_moves(pos).iter().map(|m| (m.from, m.to, m.captured)).collect()
}

/// The draw-rule counters recomputed by walking back through the game.
fn naive_result(g: &Game) -> GameResult {
    let ps = g.positions();
    let ms = g.moves();
    let now = ps[ps.len() - 1];
    if legal_moves(&now).is_empty() {
        return GameResult::Win(now.side().opponent());
    }
    let reps = ps.iter().filter(|p| **p == now).count() as u32;
    let mut king_plies = 0;
    for (i, m) in ms.iter().enumerate().rev() {
        if m.is_capture() || ps[i].kings() >> m.from & 1 == 0 {
            break;
        }
        king_plies += 1;
    }
    let rule = EndgameRule::of(&now);
    let mut rule_plies = 0;
    if rule.is_some() {
        for i in (0..ms.len()).rev() {
            if ms[i].is_capture() || EndgameRule::of(&ps[i]) != rule {
                break;
            }
            rule_plies += 1;
        }
    }
    let state =
        dammer::rules::game::PlyState { reversible: king_plies, endgame: rule.map(|r| (r, rule_plies)) };
    assert_eq!(state, g.state(), "{}", now.to_fen());
    draw_by_rule(dammer::rules::variant::Variant::Normal, DrawRules::Fmjd, state, reps)
        .map_or(GameResult::Ongoing, GameResult::Draw)
}

#[test]
fn random_games_keep_key_counters_and_result_right() {
    let mut rng = Rng::new(1);
    let mut endings = BTreeSet::new();
    for _ in 0..400 {
        let mut g = Game::default();
        for _ in 0..300 {
            let pos = *g.position();
            assert_eq!(pos.key(), pos.compute_key(), "{}", pos.to_fen());
            let result = g.result();
            assert_eq!(result, naive_result(&g), "{}", pos.to_fen());
            if result != GameResult::Ongoing {
                endings.insert(format!("{result:?}"));
                break;
            }
            let moves = legal_moves(&pos);
            for m in &moves {
                assert_eq!(pos.key_after(m), pos.make(m).key(), "{m} in {}", pos.to_fen());
            }
            let m = moves.as_slice()[rng.below(moves.len())];
            g.play(m).unwrap();
            // Undo gives back exactly the position and counters before.
            let state = g.state();
            let after = *g.position();
            assert_eq!(g.undo(), Some(m));
            assert_eq!(*g.position(), pos);
            g.play(m).unwrap();
            assert_eq!(*g.position(), after);
            assert_eq!(g.state(), state);
        }
    }
    // Random play must have reached several kinds of ending, or the test
    // would not be checking them.
    assert!(endings.len() >= 3, "{endings:?}");
}

#[test]
fn fast_generator_agrees_with_the_path_search() {
    let mut rng = Rng::new(2);
    let mut captures_seen = 0;
    let mut scratch = MoveList::new();
    for i in 0..20_000 {
        let pos = random_position(&mut rng, 20 + i % 60, i % 100);
        let fast = move_set(&pos);
        assert_eq!(count_moves(&pos, &mut scratch), fast.len() as u64, "{}", pos.to_fen());
        assert_eq!(has_capture(&pos), legal_moves(&pos).iter().any(Move::is_capture));
        if has_capture(&pos) {
            captures_seen += 1;
            let slow: BTreeSet<_> =
                capture_paths(&pos).iter().map(|p| (p.mv.from, p.mv.to, p.mv.captured)).collect();
            assert_eq!(fast, slow, "{}", pos.to_fen());
        }
    }
    assert!(captures_seen > 5_000);
}

#[test]
fn colour_flip_mirrors_the_moves() {
    let mut rng = Rng::new(3);
    let mirror = |b: u8| square_to_bit(51 - dammer::rules::bitboard::bit_to_square(b));
    for i in 0..5_000 {
        let pos = random_position(&mut rng, 30 + i % 50, i % 60);
        let flipped = pos.flipped();
        let expected: BTreeSet<_> = legal_moves(&pos)
            .iter()
            .map(|m| {
                let cap =
                    dammer::rules::bitboard::Bits(m.captured).fold(0u64, |a, b| a | 1u64 << mirror(b as u8));
                (mirror(m.from), mirror(m.to), cap)
            })
            .collect();
        assert_eq!(move_set(&flipped), expected, "{}", pos.to_fen());
    }
}

#[test]
fn formats_and_notation_round_trip() {
    let mut rng = Rng::new(4);
    let mut ambiguous_seen = 0;
    for i in 0..5_000 {
        let pos = if i % 2 == 0 {
            random_position(&mut rng, 20 + i % 70, i % 80)
        } else {
            *random_game(&mut rng, i % 120).position()
        };
        let fen = pos.to_fen();
        assert_eq!(Position::from_fen(&fen).unwrap(), pos);
        assert_eq!(Position::from_fen(&fen).unwrap().to_fen(), fen);
        assert_eq!(Position::from_hub(&pos.to_hub()).unwrap(), pos);
        assert_eq!(Position::parse(&pos.to_hub()).unwrap(), pos);
        let moves = legal_moves(&pos);
        for m in &moves {
            assert_eq!(parse_move(&pos, &m.to_string()).as_ref(), Ok(m), "{fen} {m}");
            let pdn = to_pdn(&pos, m);
            assert_eq!(parse_move(&pos, &pdn).as_ref(), Ok(m), "{fen} {pdn}");
            assert_eq!(parse_move(&pos, &pdn.replace('x', ":")).as_ref(), Ok(m), "{fen} {pdn}");
            let same_ends = moves.iter().filter(|o| o.from == m.from && o.to == m.to).count();
            if same_ends > 1 {
                ambiguous_seen += 1;
                assert!(pdn.matches('x').count() > 1, "{fen} {pdn}");
                let short = format!("{}x{}", m.from_square(), m.to_square());
                assert!(matches!(parse_move(&pos, &short), Err(MoveError::Ambiguous { .. })));
                // Captured squares in any order.
                let mut caps: Vec<u8> = m.captured_squares().collect();
                caps.reverse();
                let text =
                    format!("{short}x{}", caps.iter().map(u8::to_string).collect::<Vec<_>>().join("x"));
                assert_eq!(parse_move(&pos, &text).as_ref(), Ok(m));
            } else if m.is_capture() {
                assert_eq!(pdn, format!("{}x{}", m.from_square(), m.to_square()));
            }
        }
    }
    assert!(ambiguous_seen > 0);
}

#[test]
fn pdn_paths_are_accepted() {
    // Woldouby after 33-29: the 5-piece capture has two paths.
    let mut g = Game::from_text("W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38").unwrap();
    g.play_text("33-29").unwrap();
    let pos = *g.position();
    let m = legal_moves(&pos).as_slice()[0];
    for p in capture_paths(&pos) {
        let text: Vec<String> = p.squares.iter().map(u8::to_string).collect();
        assert_eq!(parse_move(&pos, &text.join("x")), Ok(m));
    }
}

#[test]
fn bad_moves_are_explained() {
    let pos = Position::start();
    for (text, kind) in [
        ("", "Syntax"),
        ("32", "Syntax"),
        ("32-", "Syntax"),
        ("a-b", "Syntax"),
        ("32-99", "Syntax"),
        ("32-27-", "Syntax"),
        ("32-29", "Illegal"),
        ("20-25", "Illegal"),
        ("28-23", "Illegal"),
    ] {
        let err = parse_move(&pos, text).unwrap_err();
        assert!(format!("{err:?}").starts_with(kind), "{text}: {err:?}");
        let msg = err.to_string();
        assert!(msg.contains(text.trim()), "{msg}");
        if kind == "Illegal" {
            assert!(msg.contains("31-26"), "lists the legal moves: {msg}");
        }
    }
    // A capture is mandatory and the message says so.
    let mut g = Game::default();
    g.play_text("32-28").unwrap();
    g.play_text("19-23").unwrap();
    let err = g.play_text("31-26").unwrap_err();
    assert!(err.to_string().contains("mandatory"), "{err}");
    assert!(err.to_string().contains("28x19x23"), "{err}");
    assert_eq!(g.moves().len(), 2);
    // Accepted spellings of the same capture.
    for text in ["28x19", "28x19x23", "28:19", " 28x19 ", "28X19"] {
        assert_eq!(g.clone().play_text(text).unwrap().to_string(), "28x19x23", "{text}");
    }
    // No legal move at all.
    let lost = Position::from_fen("W:W46:B41,37").unwrap();
    assert!(matches!(parse_move(&lost, "46-41"), Err(MoveError::NoLegalMoves { .. })));
}
