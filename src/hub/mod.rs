//! The Hub protocol front end (the text protocol of Scan and the Hub GUI):
//! the wire format in [`protocol`], the command loop in `session`.

pub mod protocol;
mod session;

pub use protocol::{quote, Message};
pub use session::run;
