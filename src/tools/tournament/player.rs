//! An engine of a match, whichever protocol it speaks: a Hub engine
//! ([`super::client`]) or a DXP engine ([`super::dxp_peer`]), for the games
//! to drive alike.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::rules::game::Game;
use crate::rules::position::Color;
use crate::tools::tournament::client::{Budget, EngineError, EngineProcess, EngineSpec, Protocol, Reply};
use crate::tools::tournament::dxp_peer::DxpPeer;
use crate::tools::tournament::TimeControl;

/// An engine of a match, whichever protocol it speaks.
#[derive(Debug)]
pub enum Player {
    /// A Hub engine process (either dialect).
    Hub(EngineProcess),
    /// A DXP engine.
    Dxp(DxpPeer),
}

impl Player {
    /// Starts (or reaches) the engine.
    pub fn start(spec: &EngineSpec, stop: &AtomicBool) -> Result<Player, EngineError> {
        match spec.protocol {
            Protocol::Hub | Protocol::EarlyHub => EngineProcess::start(spec, stop).map(Player::Hub),
            _ => DxpPeer::start(spec, stop).map(Player::Dxp),
        }
    }

    /// Readies the engine for a game from `game`'s current position in
    /// which it plays `colour` under `tc`: a Hub engine clears its state
    /// (`new-game` or `new`, then `ping` so that no clock runs meanwhile), a DXP
    /// engine gets the game request.
    pub fn new_game(
        &mut self,
        game: &Game,
        colour: Color,
        tc: &TimeControl,
        stop: &AtomicBool,
    ) -> Result<(), EngineError> {
        match self {
            Player::Hub(e) => e.new_game(stop),
            Player::Dxp(d) => {
                let (minutes, moves) = dxp_clock(tc).map_err(EngineError::Refused)?;
                d.new_game(game, colour, minutes, moves, stop)
            }
        }
    }

    /// The engine's move in `game` (a Hub engine gets the game and its
    /// `budget`, a DXP engine the moves since its last one), within `allowed`.
    pub fn think(
        &mut self,
        game: &Game,
        budget: Budget,
        allowed: Duration,
        stop: &AtomicBool,
    ) -> Result<Reply, EngineError> {
        match self {
            Player::Hub(e) => e.think(game, budget, allowed, stop),
            Player::Dxp(d) => d.think(game, allowed, stop),
        }
    }

    /// The game is over: a DXP engine gets GAMEEND with the runner's
    /// `reason` (1: the engine won, 2: draw, 3: the engine lost, 0: other).
    pub fn game_over(&mut self, reason: u8, stop: &AtomicBool) {
        if let Player::Dxp(d) = self {
            d.game_over(reason, stop);
        }
    }

    /// Ends the engine.
    pub fn quit(self) {
        match self {
            Player::Hub(e) => e.quit(),
            Player::Dxp(d) => d.quit(),
        }
    }
}

/// A clock as a DXP game request gives it: minutes for a number of moves
/// (0: the whole game). DXP has neither a time per move nor an increment.
pub fn dxp_clock(tc: &TimeControl) -> Result<(f64, u32), String> {
    match *tc {
        TimeControl::Clock { moves, time, inc: 0.0 } => Ok((time / 60.0, moves.unwrap_or(0))),
        _ => Err(format!(
            "DXP engines play on a clock without increment (e.g. --tc 300 or --tc 40/600), not {}: \
             DXP has no time per move and no increment",
            tc.pdn()
        )),
    }
}
