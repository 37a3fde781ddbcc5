//! The Hub protocol front end (the text protocol of Scan and the Hub GUI):
//! the wire format in [`protocol`], the command loop in `session`, and its
//! driver where the host lends the engine one thread in `hosted`.

mod hosted;
pub mod protocol;
mod session;

pub use hosted::run_hosted;
pub use protocol::{quote, Message};
pub use session::{game_of, run};
