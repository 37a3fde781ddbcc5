//! The Hub protocol front end (the text protocol of Scan and the Hub GUI).

mod session;

pub use session::{emit, quote, run, Message};
