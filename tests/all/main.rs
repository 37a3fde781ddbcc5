//! The integration tests, in one test binary: each binary is linked with the
//! release profile's whole-program optimisation, so one binary instead of
//! eight saves most of `cargo test --release`'s build time.

mod analysis;
mod book;
mod common;
mod dxp;

mod egdb;
mod eval;
mod fuzz;
mod hub;
mod inputs;
mod layers;
mod matches;
mod perft;
mod random;
mod rules;
mod search;
mod timing;
mod variants;
