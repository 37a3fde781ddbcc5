//! Move notation: Hub output, PDN output, and a liberal parser.
//!
//! Output: Hub notation (`32-28`, `28x19x23`, captured squares ascending) is
//! [`Move`]'s `Display`; [`to_pdn`] writes the shortest standard form that
//! still names one legal move (`28x19`, or `47x38x24x13x36` when two captures
//! share origin and destination).
//!
//! Input ([`parse_move`]): Hub notation with the captured squares in any
//! order, PDN (`28x19`, a full or partial path of landing squares), and `:`
//! as a capture separator. The text is matched against the legal moves, so a
//! move that names no legal move, or more than one, is an error that lists
//! the candidates.

use std::fmt;

use crate::rules::bitboard::square_bb;
use crate::rules::movegen::{legal_moves, Move, MoveList};
use crate::rules::position::{Color, Piece, Position};

/// Why a move text was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not move syntax at all.
    Syntax {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The side to move has no legal move.
    NoLegalMoves {
        /// The text given.
        text: String,
    },
    /// Well-formed, but no legal move matches.
    Illegal {
        /// The text given.
        text: String,
        /// Why no move matched (for example, a capture is mandatory).
        reason: String,
        /// Every legal move in Hub notation.
        legal: Vec<String>,
    },
    /// Several legal moves match.
    Ambiguous {
        /// The text given.
        text: String,
        /// The matching moves in Hub notation.
        candidates: Vec<String>,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax { text, reason } => write!(f, "cannot read move {text:?}: {reason}"),
            MoveError::NoLegalMoves { text } => {
                write!(f, "move {text:?} is illegal: the side to move has no legal move")
            }
            MoveError::Illegal { text, reason, legal } => {
                write!(f, "move {text:?} is illegal: {reason}; legal moves: {}", legal.join(" "))
            }
            MoveError::Ambiguous { text, candidates } => write!(
                f,
                "move {text:?} is ambiguous: it matches {}; give the captured squares or the path",
                candidates.join(" ")
            ),
        }
    }
}

impl std::error::Error for MoveError {}

/// One way of playing a capture: the move and its landing squares from
/// origin to destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturePath {
    /// The move this path plays.
    pub mv: Move,
    /// Squares visited: origin, each landing square, destination last.
    pub squares: Vec<u8>,
}

fn coords(s: u8) -> (i32, i32) {
    let i = i32::from(s) - 1;
    let row = i / 5;
    let col = 2 * (i % 5) + if row % 2 == 0 { 1 } else { 0 };
    (row, col)
}

fn square_at(row: i32, col: i32) -> Option<u8> {
    if (0..10).contains(&row) && (0..10).contains(&col) && (row + col) % 2 == 1 {
        Some((row * 5 + col / 2 + 1) as u8)
    } else {
        None
    }
}

/// Every maximal capture sequence of `pos` with its path, found by a plain
/// square-by-square search that shares nothing with the bitboard generator
/// (the tests use it as a second opinion). Different paths of the same move
/// are all listed.
pub fn capture_paths(pos: &Position) -> Vec<CapturePath> {
    let us = pos.side();
    let mut out: Vec<(u32, CapturePath)> = Vec::new();
    for s in 1..=50u8 {
        let king = match pos.piece_at(s) {
            Some(Piece::Man(c)) if c == us => false,
            Some(Piece::King(c)) if c == us => true,
            _ => continue,
        };
        let mut path = vec![s];
        walk(pos, us, s, king, s, 0, &mut path, &mut out);
    }
    let best = out.iter().map(|(n, _)| *n).max().unwrap_or(0);
    out.into_iter().filter(|(n, _)| *n == best).map(|(_, p)| p).collect()
}

#[allow(clippy::too_many_arguments)]
fn walk(
    pos: &Position,
    us: Color,
    origin: u8,
    king: bool,
    at: u8,
    captured: u64,
    path: &mut Vec<u8>,
    out: &mut Vec<(u32, CapturePath)>,
) {
    let empty = |s: u8| s == origin || pos.piece_at(s).is_none();
    let enemy = |s: u8| pos.piece_at(s).is_some_and(|p| p.color() != us) && captured & square_bb(s) == 0;
    let (r, c) = coords(at);
    let mut continued = false;
    for (dr, dc) in [(-1, -1), (-1, 1), (1, -1), (1, 1)] {
        let mut k = 1;
        if king {
            while square_at(r + k * dr, c + k * dc).is_some_and(empty) {
                k += 1;
            }
        }
        let Some(victim) = square_at(r + k * dr, c + k * dc) else { continue };
        if !enemy(victim) {
            continue;
        }
        let mut j = k + 1;
        while let Some(land) = square_at(r + j * dr, c + j * dc) {
            if !empty(land) {
                break;
            }
            continued = true;
            path.push(land);
            walk(pos, us, origin, king, land, captured | square_bb(victim), path, out);
            path.pop();
            if !king {
                break;
            }
            j += 1;
        }
    }
    if !continued && captured != 0 {
        let mv = Move {
            from: crate::rules::bitboard::square_to_bit(origin),
            to: crate::rules::bitboard::square_to_bit(at),
            captured,
        };
        out.push((captured.count_ones(), CapturePath { mv, squares: path.clone() }));
    }
}

/// The tokens of a move text: square numbers and whether any separator was
/// a capture sign.
fn tokenize(text: &str) -> Result<Vec<u8>, MoveError> {
    let t = text.trim();
    let syntax = |reason: String| MoveError::Syntax { text: t.to_string(), reason };
    if t.is_empty() {
        return Err(syntax("empty move".into()));
    }
    let mut squares = Vec::new();
    for tok in t.split(['-', 'x', 'X', ':']) {
        if tok.is_empty() {
            return Err(syntax("a square number is missing".into()));
        }
        if !tok.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax(format!("{tok:?} is not a square number")));
        }
        match tok.parse::<u32>() {
            Ok(n @ 1..=50) => squares.push(n as u8),
            _ => return Err(syntax(format!("square {tok} is outside 1-50"))),
        }
    }
    if squares.len() < 2 {
        return Err(syntax("a move needs a from and a to square".into()));
    }
    Ok(squares)
}

fn is_subsequence(needle: &[u8], hay: &[u8]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

/// Finds the legal move of `pos` that `text` names.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveError> {
    parse_move_among(pos, &legal_moves(pos), true, text)
}

/// Finds the move of `legal` (the legal moves of `pos` by the game's rules)
/// that `text` names: Hub notation (from, to, then the captured squares),
/// or with `paths` also a PDN capture by its landing squares (the
/// international game's capture paths).
pub fn parse_move_among(
    pos: &Position,
    legal: &MoveList,
    paths: bool,
    text: &str,
) -> Result<Move, MoveError> {
    let squares = tokenize(text)?;
    let t = text.trim().to_string();
    if legal.is_empty() {
        return Err(MoveError::NoLegalMoves { text: t });
    }
    let (s0, s1, last) = (squares[0], squares[1], squares[squares.len() - 1]);
    let rest = &squares[2..];
    let rest_set: u64 = rest.iter().fold(0, |a, &s| a | square_bb(s));
    let rest_distinct = rest_set.count_ones() as usize == rest.len();
    let paths = if paths && squares.len() > 2 && legal.iter().any(|m| m.is_capture()) {
        capture_paths(pos)
    } else {
        Vec::new()
    };
    let path_match = |m: &Move, exact: bool| {
        paths.iter().any(|p| {
            p.mv == *m
                && if exact {
                    p.squares == squares
                } else {
                    p.squares[0] == s0
                        && p.squares.last() == Some(&last)
                        && is_subsequence(&squares[1..squares.len() - 1], &p.squares[1..p.squares.len() - 1])
                }
        })
    };
    let hub_from_to = |m: &Move| m.from_square() == s0 && m.to_square() == s1;
    // Exact readings first: from-to, the complete Hub capture, a complete path.
    let mut found: Vec<Move> = legal
        .iter()
        .filter(|m| {
            if squares.len() == 2 {
                hub_from_to(m)
            } else {
                (hub_from_to(m) && rest_distinct && m.captured == rest_set) || path_match(m, true)
            }
        })
        .copied()
        .collect();
    // Then liberal ones: some of the captured squares, or part of the path.
    if found.is_empty() && squares.len() > 2 {
        found = legal
            .iter()
            .filter(|m| (hub_from_to(m) && m.captured & rest_set == rest_set) || path_match(m, false))
            .copied()
            .collect();
    }
    match found.len() {
        1 => Ok(found[0]),
        0 => {
            let reason = if legal.iter().any(|m| m.is_capture()) {
                let n = legal.as_slice()[0].captured.count_ones();
                format!("a capture of {n} piece{} is mandatory", if n == 1 { "" } else { "s" })
            } else if pos.piece_at(s0).is_none_or(|p| p.color() != pos.side()) {
                format!("square {s0} holds no piece of the side to move")
            } else {
                "no legal move matches".to_string()
            };
            Err(MoveError::Illegal { text: t, reason, legal: legal.iter().map(Move::to_string).collect() })
        }
        _ => Err(MoveError::Ambiguous { text: t, candidates: found.iter().map(Move::to_string).collect() }),
    }
}

/// The move in standard (PDN) notation, as short as it can be while naming
/// only this move: `32-28`, `28x19`, or a capture with as few intermediate
/// landing squares as tell it apart.
pub fn to_pdn(pos: &Position, m: &Move) -> String {
    let (from, to) = (m.from_square(), m.to_square());
    if !m.is_capture() {
        return format!("{from}-{to}");
    }
    let short = format!("{from}x{to}");
    if parse_move(pos, &short).as_ref() == Ok(m) {
        return short;
    }
    let paths: Vec<Vec<u8>> =
        capture_paths(pos).into_iter().filter(|p| p.mv == *m).map(|p| p.squares).collect();
    let Some(longest) = paths.iter().map(Vec::len).max() else {
        return m.to_string();
    };
    // Try subsets of the intermediate squares by growing size.
    for size in 1..longest.saturating_sub(1) {
        for p in &paths {
            let inner = &p[1..p.len() - 1];
            if inner.len() < size || inner.len() > 20 {
                continue;
            }
            let mut pick: Vec<usize> = (0..size).collect();
            loop {
                let mut text = from.to_string();
                for &i in &pick {
                    text.push_str(&format!("x{}", inner[i]));
                }
                text.push_str(&format!("x{to}"));
                if parse_move(pos, &text).as_ref() == Ok(m) {
                    return text;
                }
                // Next combination of `size` indices out of `inner.len()`.
                let n = inner.len();
                let mut i = size;
                while i > 0 && pick[i - 1] == n - size + i - 1 {
                    i -= 1;
                }
                if i == 0 {
                    break;
                }
                pick[i - 1] += 1;
                for j in i..size {
                    pick[j] = pick[j - 1] + 1;
                }
            }
        }
    }
    m.to_string()
}

/// A line of moves from `pos` in PDN notation, separated by spaces.
pub fn line_to_pdn(pos: &Position, line: &[Move]) -> String {
    let mut p = *pos;
    let mut out = Vec::with_capacity(line.len());
    for m in line {
        if !legal_moves(&p).iter().any(|l| l == m) {
            break;
        }
        out.push(to_pdn(&p, m));
        p = p.make(m);
    }
    out.join(" ")
}
