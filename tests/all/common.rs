//! Helpers shared by the integration tests: the crate's generator and
//! random positions and games.

#![allow(dead_code)]

use dammer::rules::bitboard::square_bb;
use dammer::rules::game::{Game, GameResult};
use dammer::rules::movegen::{has_capture, legal_moves};
use dammer::rules::position::{Color, Position};

/// The crate's one generator: deterministic, good enough to pick moves
/// and squares.
pub use dammer::base::rng::SplitMix as Rng;

/// A random legal position: each square empty or holding a man or king of
/// either colour, with `king_share` in percent deciding kings. Draws that
/// the rules do not allow (more than 20 pieces a side, no piece for the side
/// that moved last) are drawn again.
pub fn random_position(rng: &mut Rng, fill: usize, king_share: usize) -> Position {
    loop {
        if let Some(p) = random_draw(rng, fill, king_share) {
            return p;
        }
    }
}

fn random_draw(rng: &mut Rng, fill: usize, king_share: usize) -> Option<Position> {
    let (mut w, mut b, mut k) = (0u64, 0u64, 0u64);
    for s in 1..=50u8 {
        if rng.below(100) >= fill {
            continue;
        }
        let white = rng.below(2) == 0;
        let mut king = rng.below(100) < king_share;
        if (white && s <= 5) || (!white && s >= 46) {
            king = true;
        }
        let bb = square_bb(s);
        if white {
            w |= bb;
        } else {
            b |= bb;
        }
        if king {
            k |= bb;
        }
    }
    let side = if rng.below(2) == 0 { Color::White } else { Color::Black };
    Position::from_parts(w, b, k, side).ok()
}

/// Plays up to `plies` random legal moves from the start position, stopping
/// when the game ends; returns the game.
pub fn random_game(rng: &mut Rng, plies: usize) -> Game {
    let mut game = Game::default();
    for _ in 0..plies {
        let moves = legal_moves(game.position());
        if moves.is_empty() {
            break;
        }
        let m = moves.as_slice()[rng.below(moves.len())];
        game.play(m).expect("generated move is legal");
    }
    game
}

/// Plays `plies` quiet king moves, each chosen so that the opponent gets no
/// capture and the new position has occurred as rarely as possible.
pub fn shuffle_kings(g: &mut Game, plies: usize) {
    for _ in 0..plies {
        assert_eq!(g.result(), GameResult::Ongoing, "ply {}", g.moves().len());
        let pos = *g.position();
        let best = legal_moves(&pos)
            .iter()
            .filter(|m| !m.is_capture() && pos.kings() >> m.from & 1 == 1)
            .min_by_key(|m| {
                let next = pos.make(m);
                (has_capture(&next), g.positions().iter().filter(|p| **p == next).count())
            })
            .copied()
            .expect("a king move");
        assert!(!has_capture(&pos.make(&best)), "no safe king move in {}", pos.to_fen());
        g.play(best).unwrap();
    }
}

/// Whether the side to move can force the opponent out of moves within `n`
/// plies (plain minimax over every legal move: slow, but independent of the
/// engine's search).
pub fn wins_within(pos: &Position, n: u32) -> bool {
    if n == 0 {
        return false;
    }
    legal_moves(pos).iter().any(|m| loses_within(&pos.make(m), n - 1))
}

/// Whether the side to move runs out of moves within `n` plies whatever it plays.
pub fn loses_within(pos: &Position, n: u32) -> bool {
    let moves = legal_moves(pos);
    if moves.is_empty() {
        return true;
    }
    n > 0 && moves.iter().all(|m| wins_within(&pos.make(m), n - 1))
}

/// The shortest forced win in plies, up to `max`.
pub fn shortest_win(pos: &Position, max: u32) -> Option<u32> {
    (1..=max).step_by(2).find(|&n| wins_within(pos, n))
}

/// A fresh, empty directory for one test: `dammer-test-NAME-PID` under the
/// system's temporary directory.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dammer-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
