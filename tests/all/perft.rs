//! Published perft counts of international draughts (the move-tree counts
//! that Scan, dame-rs and other generators agree on). The quick depths run with
//! `cargo test --release`; the deep ones are `#[ignore]`d (run them with
//! `cargo test --release -- --ignored`).

use dammer::rules::perft::{divide, perft, perft_threads};
use dammer::rules::position::Position;

const START: &str = "W:W31-50:B1-20";
const WOLDOUBY: &str = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";
const RANDOM178: &str = "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46";
const FRONT_ROWS: &str = "W:B16,17,18,19,20:W31,32,33,34,35";

const START_COUNTS: &[u64] = &[
    9,
    81,
    658,
    4_265,
    27_117,
    167_140,
    1_049_442,
    6_483_961,
    41_022_423,
    258_895_763,
    1_665_861_398,
    10_749_771_911,
];
const WOLDOUBY_COUNTS: &[u64] = &[
    6,
    12,
    30,
    73,
    215,
    590,
    1_944,
    6_269,
    22_369,
    88_050,
    377_436,
    1_910_989,
    9_872_645,
    58_360_286,
    346_184_885,
];
const RANDOM178_COUNTS: &[u64] =
    &[14, 55, 1_168, 5_432, 87_195, 629_010, 9_041_010, 86_724_219, 1_216_917_193];
const FRONT_ROWS_COUNTS: &[u64] =
    &[9, 81, 534, 2_538, 9_052, 29_999, 98_971, 310_315, 1_008_313, 3_174_155, 10_369_511, 34_907_891];

fn check(fen: &str, counts: &[u64], depths: std::ops::RangeInclusive<usize>) {
    let pos = Position::from_fen(fen).unwrap();
    for d in depths {
        assert_eq!(perft(&pos, d as u32), counts[d - 1], "{fen} depth {d}");
    }
}

#[test]
fn start_position() {
    check(START, START_COUNTS, 1..=9);
}

#[test]
fn woldouby() {
    check(WOLDOUBY, WOLDOUBY_COUNTS, 1..=13);
}

#[test]
fn random178() {
    check(RANDOM178, RANDOM178_COUNTS, 1..=7);
}

#[test]
fn front_rows() {
    check(FRONT_ROWS, FRONT_ROWS_COUNTS, 1..=11);
}

#[test]
fn depth_zero_is_one() {
    assert_eq!(perft(&Position::start(), 0), 1);
}

#[test]
fn divide_and_threads_agree() {
    let pos = Position::from_fen(WOLDOUBY).unwrap();
    let lines = divide(&pos, 8, 2);
    assert_eq!(lines.len(), 6);
    assert_eq!(lines.iter().map(|(_, n)| n).sum::<u64>(), WOLDOUBY_COUNTS[7]);
    assert_eq!(lines, divide(&pos, 8, 1));
    assert_eq!(perft_threads(&Position::start(), 7, 2), START_COUNTS[6]);
}

#[test]
#[ignore = "slow: a few seconds"]
fn start_position_deep() {
    check(START, START_COUNTS, 10..=10);
}

#[test]
#[ignore = "slow: about a minute"]
fn start_position_11() {
    let pos = Position::from_fen(START).unwrap();
    assert_eq!(perft_threads(&pos, 11, 2), START_COUNTS[10]);
}

#[test]
#[ignore = "slow: tens of seconds"]
fn others_deep() {
    check(WOLDOUBY, WOLDOUBY_COUNTS, 14..=15);
    check(RANDOM178, RANDOM178_COUNTS, 8..=9);
    check(FRONT_ROWS, FRONT_ROWS_COUNTS, 12..=12);
}
