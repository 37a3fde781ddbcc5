//! The opening book: building (and going on with) a book, its file format
//! and damage, the choice of a book move, and where the engine plays from it.

use crate::common::temp_dir;
use std::path::PathBuf;
use std::sync::Arc;

use dammer::engine::book::{Book, BookError, BookPolicy};
use dammer::engine::eval::Evaluation;
use dammer::engine::{Engine, Limits};
use dammer::rules::game::Game;
use dammer::rules::movegen::legal_moves;
use dammer::rules::position::Position;
use dammer::tools::book::{build, count_below, roots, BuildConfig};

fn config(out: PathBuf, expansions: usize) -> BuildConfig {
    BuildConfig {
        out,
        roots: roots(&["start".to_string()]).unwrap(),
        nodes: 3000,
        expansions,
        max_ply: 6,
        ply_cost: 10,
        threads: 1,
        hash_mb: 4,
        eval: Evaluation::default(),
    }
}

/// The value of every expanded position is the best of its successors'
/// values, negated; every book move is legal.
fn check_minimax(book: &Book, pos: &Position, depth: u32) {
    let Some(entry) = book.get(pos.key()) else { return };
    let Some(moves) = book.moves(pos) else {
        assert!(!entry.expanded());
        return;
    };
    assert_eq!(moves.len(), legal_moves(pos).len(), "an expanded position has every move");
    assert_eq!(i32::from(entry.value), moves[0].score);
    assert!(moves.windows(2).all(|w| w[0].score >= w[1].score), "best first");
    if depth > 0 {
        for b in &moves {
            assert!(legal_moves(pos).iter().any(|m| *m == b.mv));
            check_minimax(book, &pos.make(&b.mv), depth - 1);
        }
    }
}

#[test]
fn a_built_book_is_a_minimax_tree_and_the_build_goes_on() {
    let dir = temp_dir("book-build");
    let out = dir.join("book.bin");
    let s = build(&config(out.clone(), 6), &mut |_| {}, &|| false).unwrap();
    assert_eq!(s.expansions, 6);
    assert_eq!(s.expanded, 6);
    let book = Book::load(&out).unwrap();
    assert_eq!(book.len(), s.positions);
    assert_eq!(book.nodes(), 3000);
    let start = Position::start();
    assert!(book.get(start.key()).unwrap().root());
    check_minimax(&book, &start, 6);
    assert_eq!(count_below(&book, &start), book.len(), "every position hangs below the root");

    // A rerun goes on from the file.
    let s2 = build(&config(out.clone(), 4), &mut |_| {}, &|| false).unwrap();
    assert_eq!((s2.expansions, s2.expanded), (4, 10));
    let book2 = Book::load(&out).unwrap();
    assert!(book2.len() > book.len());
    check_minimax(&book2, &start, 6);
    // Stopped at once, it writes the book it has.
    let s3 = build(&config(out.clone(), 100), &mut |_| {}, &|| true).unwrap();
    assert_eq!((s3.expansions, s3.expanded), (0, 10));
    // Other search settings are not mixed into a book.
    let mut other = config(out.clone(), 1);
    other.nodes = 5000;
    assert!(build(&other, &mut |_| {}, &|| false).unwrap_err().contains("--nodes 3000"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_book_files_are_refused_with_a_reason() {
    let book = Book::embedded();
    let bytes = book.to_bytes();
    assert_eq!(Book::from_bytes(&bytes).unwrap(), book);
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    assert!(matches!(Book::from_bytes(&flipped), Err(BookError::Checksum)));
    assert!(matches!(Book::from_bytes(&bytes[..bytes.len() - 1]), Err(BookError::Length { .. })));
    assert!(matches!(Book::from_bytes(b"DAMMBOOK"), Err(BookError::NotABook)));
    assert!(matches!(Book::from_bytes(b"not a book at all, just some text here."), Err(BookError::NotABook)));
    let mut version = bytes.clone();
    version[8] = 9;
    assert!(matches!(Book::from_bytes(&version), Err(BookError::Version(9))));
    let missing = Book::load(std::path::Path::new("/nonexistent/book.bin")).unwrap_err();
    assert!(missing.to_string().contains("No such file"), "{missing}");
    for e in [BookError::Checksum, BookError::Keys, BookError::Order, BookError::NotABook] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn the_embedded_book_has_moves_for_the_start_and_the_ballots() {
    let book = Book::embedded();
    for root in roots(&["start".to_string(), "ballots".to_string()]).unwrap() {
        let moves = book.moves(&root).unwrap_or_else(|| panic!("no book moves for {root}"));
        assert!(!moves.is_empty());
    }
    check_minimax(&book, &Position::start(), 3);
}

#[test]
fn book_moves_vary_within_the_margin_only() {
    let book = Book::embedded();
    let start = Position::start();
    let moves = book.moves(&start).unwrap();
    let best = moves[0].score;
    let tight = BookPolicy { margin: 0, ..BookPolicy::default() };
    let wide = BookPolicy { margin: 1000, ..BookPolicy::default() };
    let mut seen = std::collections::HashSet::new();
    for seed in 0..200u64 {
        let seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        assert_eq!(book.choose(&start, &tight, seed).unwrap().score, best);
        seen.insert(book.choose(&start, &wide, seed).unwrap().mv);
    }
    assert_eq!(seen.len(), moves.len(), "every move is drawn with a margin wider than the spread");
    // Beyond the ply limit there is no book.
    let shallow = BookPolicy { max_ply: 0, ..BookPolicy::default() };
    let after = start.make(&moves[0].mv);
    if book.moves(&after).is_some() {
        assert!(book.choose(&after, &shallow, 1).is_none());
        assert!(book.choose(&start, &shallow, 1).is_some());
    }
    // A position outside the book has no book move.
    let far = Position::parse("W:W28,K50:B12,19").unwrap();
    assert!(book.choose(&far, &wide, 1).is_none());
}

#[test]
fn the_engine_plays_from_the_book_only_in_games() {
    let mut engine = Engine::new(1, 4);
    engine.set_book(Some(Arc::new(Book::embedded())), BookPolicy::default());
    engine.set_book_seed(7);
    let game = Game::default();
    let clock = Limits { move_time: Some(std::time::Duration::from_millis(200)), ..Limits::default() };
    let r = engine.search_quietly(&game, &clock);
    assert_eq!((r.depth, r.nodes), (0, 0), "a book move comes at once");
    let moves = Book::embedded().moves(game.position()).unwrap();
    assert!(moves.iter().any(|b| Some(b.mv) == r.best));
    // Analysis, a depth or a node limit: a search.
    for limits in [
        Limits { move_time: Some(std::time::Duration::from_millis(50)), analysis: true, ..Limits::default() },
        Limits { depth: Some(3), ..Limits::default() },
        Limits { nodes: Some(5000), ..Limits::default() },
    ] {
        assert!(engine.search_quietly(&game, &limits).depth > 0, "{limits:?}");
    }
    // Without a book, a search.
    engine.set_book(None, BookPolicy::default());
    assert!(engine.search_quietly(&game, &clock).depth > 0);
}
