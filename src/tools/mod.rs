//! The tools around the engine: the match runner, self-play, the tuner, the
//! endgame-table generator and the bench. Nothing in the engine or a front
//! end imports them.

pub mod annotate;
pub mod bench;
pub mod book;
pub mod coverage;
pub mod egdb;
pub mod interrupt;
pub mod loss;
pub mod openings;
pub mod selfplay;
pub mod testset;
pub mod tournament;
pub mod train_nn;
pub mod tune;
