//! The game played: the international rules or one of the variants that
//! Scan plays and lidraughts offers, all on the international board.
//! Breakthrough and losing draughts share the international moves and
//! differ in how a game ends (and so in what the search calls a win) and in
//! their draw rules; Frisian has moves of its own.
//!
//! - `normal`: FMJD international draughts.
//! - `bt` (breakthrough): the first player to crown a man wins; no draws.
//! - `losing` (antidraughts): a player without a legal move (no pieces or
//!   all blocked) wins; threefold repetition is the only draw.
//! - `frisian` (and frysk!, the same game from 5 men a side, given as the
//!   position): captures along rows and columns too, the most valuable
//!   capture, kings limited to three moves in a row ([`crate::rules::frisian`]).
//!   Kings alone draw: two against one after 7 moves each, one against one
//!   after 2; repetition does not (as lidraughts plays it).
//!
//! - `killer`: the international game, except that a king whose capture
//!   takes a king last must stop on the square right behind it, so that two
//!   kings beat one; repetition and the 25-move king rule draw, the 16- and
//!   5-move endgame rules (made for endings a king cannot win) do not.

use std::fmt;

/// One of the games Dammer plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// International draughts.
    #[default]
    Normal,
    /// Breakthrough: the first to crown wins.
    Breakthrough,
    /// Losing draughts (antidraughts): who cannot move wins.
    Losing,
    /// Frisian draughts (and frysk!): see [`crate::rules::frisian`].
    Frisian,
    /// Killer draughts: a king whose capture takes a king last stops right
    /// behind it.
    Killer,
}

/// Why a variant name was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    /// No variant of that name.
    Unknown(String),
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::Unknown(name) => {
                write!(f, "unknown variant {name:?} (expected {})", Variant::names())
            }
        }
    }
}

impl std::error::Error for VariantError {}

impl Variant {
    /// Every variant Dammer plays, the international game first.
    pub const ALL: [Variant; 5] =
        [Variant::Normal, Variant::Breakthrough, Variant::Frisian, Variant::Losing, Variant::Killer];

    /// Whether a move changes more than the international moves do: the
    /// game then needs its own move generator and move history.
    pub const fn own_moves(self) -> bool {
        matches!(self, Variant::Frisian | Variant::Killer)
    }

    /// Whether PDN's capture paths (the international game's diagonal
    /// landings) name this variant's captures; Frisian's are written in
    /// Hub notation (every captured square) instead.
    pub const fn pdn_paths(self) -> bool {
        !matches!(self, Variant::Frisian)
    }

    /// Scan's name (what the Hub `variant` parameter declares).
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Normal => "normal",
            Variant::Breakthrough => "bt",
            Variant::Losing => "losing",
            Variant::Frisian => "frisian",
            Variant::Killer => "killer",
        }
    }

    /// The names of [`Variant::ALL`], separated by spaces.
    pub fn names() -> String {
        Variant::ALL.map(Variant::name).join(" ")
    }

    /// Reads Scan's names and lidraughts' (`standard`, `fromposition`,
    /// `breakthrough`, `antidraughts`), in any case.
    pub fn from_name(name: &str) -> Result<Variant, VariantError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "normal" | "standard" | "fromposition" | "international" => Ok(Variant::Normal),
            "bt" | "breakthrough" => Ok(Variant::Breakthrough),
            "losing" | "antidraughts" | "anti" => Ok(Variant::Losing),
            "frisian" | "frysk" | "frysk!" => Ok(Variant::Frisian),
            "killer" => Ok(Variant::Killer),
            _ => Err(VariantError::Unknown(name.to_string())),
        }
    }

    /// Whether a player without a legal move loses (everywhere but in
    /// losing draughts, where that player wins).
    #[inline]
    pub const fn no_move_loses(self) -> bool {
        !matches!(self, Variant::Losing)
    }

    /// Whether the FMJD draw rules other than repetition (the 25-move king
    /// rule, the 16- and 5-move endgame rules) apply.
    #[inline]
    pub const fn king_draw_rules(self) -> bool {
        matches!(self, Variant::Normal | Variant::Killer)
    }

    /// Whether the 16- and 5-move endgame rules apply (not in killer
    /// draughts, where the endings they end can be won).
    #[inline]
    pub const fn endgame_draw_rules(self) -> bool {
        matches!(self, Variant::Normal)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_lidraughts_names_are_read() {
        for v in Variant::ALL {
            assert_eq!(Variant::from_name(v.name()), Ok(v));
        }
        assert_eq!(Variant::from_name("Antidraughts"), Ok(Variant::Losing));
        assert_eq!(Variant::from_name("breakthrough"), Ok(Variant::Breakthrough));
        assert_eq!(Variant::from_name("fromPosition"), Ok(Variant::Normal));
        assert_eq!(Variant::from_name("Frysk!"), Ok(Variant::Frisian));
        assert_eq!(Variant::from_name("Killer"), Ok(Variant::Killer));
        assert!(matches!(Variant::from_name("chess"), Err(VariantError::Unknown(_))));
        assert!(VariantError::Unknown("x".into()).to_string().contains("normal bt frisian losing killer"));
    }
}
