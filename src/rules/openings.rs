//! Openings for matches and self-play: start positions with forced first
//! moves, read from FEN lines or PDN games.

use std::path::Path;

use crate::rules::game::{Game, GameResult};
use crate::rules::movegen::Move;
use crate::rules::pdn;
use crate::rules::position::Position;

/// The 2-move ballots of `bench/openings-2move.fen` (one FEN a line), the
/// default opening set of matches and self-play.
pub const DEFAULT_OPENINGS: &str = include_str!("../../bench/openings-2move.fen");

/// A start position, with moves to play from it before the engines take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Where the game starts (written as the PDN FEN tag).
    pub start: Position,
    /// Forced first moves.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position after the forced moves, where the engines take over.
    pub fn position(&self) -> Position {
        self.moves.iter().fold(self.start, |p, m| p.make(m))
    }
}

/// Reads openings: a PDN file (each game's FEN tag and moves), or one
/// FEN or Hub position a line (`#` starts a comment line). Every opening
/// is checked: it must parse, its moves must be legal and the game must
/// not be over.
pub fn parse_openings(text: &str, is_pdn: bool) -> Result<Vec<Opening>, String> {
    let mut openings = Vec::new();
    if is_pdn {
        for (i, g) in pdn::read(text)?.iter().enumerate() {
            let game = g.replay().map_err(|e| format!("game {}: {e}", i + 1))?;
            openings.push((format!("game {}", i + 1), game));
        }
    } else {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let game = Game::from_text(line).map_err(|e| format!("line {}: bad position: {e}", i + 1))?;
            openings.push((format!("line {}", i + 1), game));
        }
    }
    openings
        .into_iter()
        .map(|(at, game)| {
            if game.result() != GameResult::Ongoing {
                return Err(format!("{at}: the game is already over ({})", game.result()));
            }
            Ok(Opening { start: *game.start(), moves: game.moves().to_vec() })
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(|o| if o.is_empty() { Err("no openings found".to_string()) } else { Ok(o) })
}

/// Reads an opening file (PDN when it ends in `.pdn` or starts with a tag).
pub fn load_openings(path: &Path) -> Result<Vec<Opening>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let is_pdn =
        path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdn")) || text.trim_start().starts_with('[');
    parse_openings(&text, is_pdn).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_openings_are_valid() {
        let openings = parse_openings(DEFAULT_OPENINGS, false).unwrap();
        assert_eq!(openings.len(), 79);
        assert!(parse_openings("W:W31-50:B1-20\nnonsense\n", false).unwrap_err().contains("line 2"));
        assert!(parse_openings("# only a comment\n", false).is_err());
        // A finished game is no opening.
        assert!(parse_openings("W:W50:B1\n", false).is_ok());
        assert!(parse_openings("B:W50:BK1,K2\n", false).is_ok());
        assert!(parse_openings("W:B1\n", false).unwrap_err().contains("already over"));
        let pdn = parse_openings("[FEN \"W:W31-50:B1-20\"]\n1. 32-28 19-23 *\n\n1. 31-27 *\n", true).unwrap();
        assert_eq!(pdn.len(), 2);
        assert_eq!(pdn[0].moves.len(), 2);
    }
}
