//! Helpers shared by the integration tests: the crate's generator and
//! random positions and games.

#![allow(dead_code)]

use dammer::engine::time::Limits;
use dammer::engine::Engine;
use dammer::rules::bitboard::square_bb;
use dammer::rules::game::{DrawRules, Game, GameResult};
use dammer::rules::movegen::{has_capture, legal_moves, Move};
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

/// GWDGUI's game of issue 50 from the start position, in Hub notation: two
/// kings against one, played on past the 5-move rule. There the first legal
/// move, 3-8, loses both kings to 1x3x7x8.
pub const GWDGUI_PAST_FIVE_MOVES: &str =
    "32-27 18-22 27x18x22 12x23x18 33-28 23x32x28 37x28x32 13-18 41-37 17-21 39-33 9-13 44-39 \
    7-12 50-44 1-7 37-32 21-26 34-30 26x37x31 42x31x37 16-21 31-26 20-25 26x17x21 11x22x17 28x17x22 \
    12x21x17 36-31 25x34x30 39x30x34 21-26 31-27 7-11 46-41 8-12 43-39 12-17 41-36 2-8 27-21 19-23 \
    21x12x17 8x17x12 40-34 11-16 30-24 6-11 33-28 15-20 28x8x23x13 20x40x24x34 45x34x40 3x12x8 39-33 \
    16-21 44-39 17-22 32-28 11-17 34-29 4-9 39-34 21-27 35-30 9-13 30-24 27-31 36x27x31 22x31x27 \
    49-44 31-36 44-40 26-31 48-42 31-37 42x31x37 36x27x31 40-35 27-31 38-32 10-15 34-30 5-10 28-23 \
    14-20 23-19 18-22 19x8x13 12x3x8 30-25 31-37 25x5x20x10 37x39x32x33 5-37 17-21 37-32 39-44 \
    32x16x21 44-50 16-32 50-45 32-23 22-28 23x46x28 45x7x29 46-37 7-12 37-28 12-18 28-17 18-7 17-39 \
    7-23 39-30 23-45 30-43 45-18 43-49 18-34 49-32 34-48 32-38 3-9 38-32 48-39 32-23 39-43 23-12 \
    9-13 47-42 43-30 12-29 30x19x24 29-24 19x30x24 35x24x30 13-18 24-19 18-23 19x28x23 15-20 28-23 \
    20-25 23-19 25-30 19-14 30-34 42-37 34-39 14-9 39-43 9-3 43-49 37-31 49-16 31-26 16-2 26-21 2-7 \
    21-16 7-1 16-11 1-6 11-7 6-1 7-2 1-6 2-7 6-1";

/// GWDGUI's game of issue 65 as its `pos` line gives it: two kings and a
/// man against a king, Black to move on the 16-move rule's last ply (every
/// move draws by the FMJD rules; the GUI plays on).
pub const GWDGUI_SIXTEEN_MOVE_POINT: &str =
    "32-28 20-25 34-30 25x34x30 39x30x34 18-23 37-32 12-18 40-34 7-12 44-39 17-21 45-40 21-26 33-29 \
    26x37x31 42x31x37 12-17 39-33 14-20 49-44 10-14 30-25 20-24 29x20x24 15x24x20 44-39 5-10 50-45 \
    10-15 31-27 2-7 34-30 17-22 28x17x22 11x31x17x27 36x27x31 6-11 33-28 11-17 41-37 7-12 37-31 \
    24-29 31-26 29-33 38x29x33 23x34x29 40x29x34 19-23 28x10x23x14 9-14 10x19x14 13x44x19x29x39 \
    43-39 44x33x39 45-40 33-39 46-41 1-7 47-42 3-9 42-38 17-21 26x17x21 12x21x17 41-37 8-12 30-24 \
    18-22 27x18x22 12x23x18 35-30 21-27 32x21x27 16x27x21 38-32 27x38x32 48-42 38x47x42 40-34 \
    47x20x24 25x3x20x9 39-43 3-21 43-49 21-16 15-20 16x2x7 49-16 30-25 16-43 25x14x20 43x3x34x14 \
    2-24 23-28 37-31 28-32 31-26 3-17 26-21 17x26x21 24-19 32-38 19-5 26-17 5-14 38-42 14-5 17-3 \
    5-19 4-9 19-23 9-13 23-29 42-47 29-23 47-42 23-28 3-25 28-6 25-30 6-22 13-19 22-36 19-24 36-18 \
    30-25 18-22 25-30 22-6 24-29 6-11";

/// The game of [`GWDGUI_SIXTEEN_MOVE_POINT`].
pub fn gwdgui_sixteen_move_point() -> Game {
    let mut g = Game::default();
    for m in GWDGUI_SIXTEEN_MOVE_POINT.split_whitespace() {
        g.play_text(m).unwrap();
    }
    g
}

/// The game of [`GWDGUI_PAST_FIVE_MOVES`].
pub fn gwdgui_past_five_moves() -> Game {
    let mut g = Game::default();
    for m in GWDGUI_PAST_FIVE_MOVES.split_whitespace() {
        g.play_text(m).unwrap();
    }
    g
}

/// `g`'s moves replayed under repetition alone: the game a GUI that applies
/// no other draw rule goes on with.
pub fn under_repetition(g: &Game) -> Game {
    let mut r = Game::new(*g.start()).with_draw_rules(DrawRules::Repetition);
    for m in g.moves() {
        r.play(*m).unwrap();
    }
    r
}

/// The move a search chose at `g` gives no piece away where another move
/// keeps it, unless the search values that piece at nothing: in GWDGUI's
/// 16-move point (two kings and a man against a king) n7 scores both
/// endings a draw, as the 4-piece tables do, and any move is as good as
/// another; n6 valued the man a little.
pub fn keeps_what_it_values(g: &Game, best: Move) {
    if !has_capture(&g.position().make(&best)) {
        return;
    }
    let Some(safe) = legal_moves(g.position()).iter().find(|m| !has_capture(&g.position().make(m))).copied()
    else {
        return;
    };
    let value = |m: Move| {
        let mut after = under_repetition(g);
        after.play(m).unwrap();
        -Engine::new(1, 16)
            .search_quietly(&after, &Limits { depth: Some(8), analysis: true, ..Limits::default() })
            .score
    };
    let (given, kept) = (value(best), value(safe));
    assert!(given + 10 >= kept, "{best} gives a piece away ({given}) where {safe} does not ({kept})");
}
