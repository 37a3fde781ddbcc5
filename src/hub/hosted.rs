//! The Hub protocol where the host lends the engine its one thread (a
//! browser's Web Worker, [`crate::base::host`]): the same protocol state as
//! on a system, driven by the host's input lines, with every search on
//! that thread.
//!
//! A search gives the host a turn every few milliseconds
//! ([`crate::engine::control`]); after it, [`poll`] reads the lines that
//! arrived and meets them as the system's protocol loop meets them during a
//! search: `ping` is answered, `stop` and `ponder-hit` reach the search, an
//! unknown command is refused, and any other command stops the search and
//! waits, with every line after it, until the search has answered.

use std::cell::RefCell;
use std::collections::VecDeque;

use crate::base::host;
use crate::engine::SearchControl;
use crate::hub::protocol::Message;
use crate::hub::session::{emit, error, unknown, Hub, Meets, MAX_LINE};

thread_local! {
    /// Lines read from the host and not yet handled, oldest first.
    static WAITING: RefCell<VecDeque<String>> = const { RefCell::new(VecDeque::new()) };
}

/// Moves what the host holds to [`WAITING`].
fn read_host() {
    while let Some(line) = host::take_line() {
        WAITING.with_borrow_mut(|w| w.push_back(line));
    }
}

/// The next line to handle, waiting for the host when there is none.
fn next_line() -> String {
    loop {
        read_host();
        if let Some(line) = WAITING.with_borrow_mut(VecDeque::pop_front) {
            return line;
        }
        host::pause(true);
    }
}

/// The front end's turn during a search: the lines that arrived, met as a
/// running search meets them, up to the first that must wait for its end.
fn poll(control: &SearchControl) {
    read_host();
    loop {
        let Some(line) = WAITING.with_borrow(|w| w.front().cloned()) else { return };
        match Message::parse(&line) {
            Ok(None) => {}
            Err(e) => error(&e),
            Ok(Some(msg)) => match Meets::of(&msg.command) {
                Meets::Ping => emit("pong"),
                Meets::Stop => control.stop(),
                Meets::PonderHit => control.ponder_hit(),
                Meets::Unknown => unknown(&msg.command),
                Meets::EndsIt => {
                    control.stop();
                    return;
                }
            },
        }
        log::debug!("< {}", line.trim_end());
        WAITING.with_borrow_mut(VecDeque::pop_front);
    }
}

/// Runs the Hub protocol on the host's lines until `quit`.
pub fn run_hosted() {
    let mut hub = Hub::new(Some(poll));
    loop {
        let line = next_line();
        if line.len() > MAX_LINE {
            error("line too long, ignored");
            continue;
        }
        if !hub.handle_line(&line) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrive(lines: &[&str]) {
        WAITING.with_borrow_mut(|w| w.extend(lines.iter().map(|l| l.to_string())));
    }

    fn waiting() -> Vec<String> {
        WAITING.with_borrow(|w| w.iter().cloned().collect())
    }

    /// A search meets what arrives as the system's protocol loop does:
    /// `ping`, `ponder-hit`, unknown commands and unreadable lines are
    /// answered and the search goes on; `stop` ends it; any other command
    /// ends it and waits, with all after it, for the protocol loop.
    #[test]
    fn a_search_meets_the_lines_that_arrive_as_the_protocol_loop_does() {
        let control = SearchControl::default();
        arrive(&["ping", "", "bogus x=1", "level moves=\"3", "ponder-hit"]);
        poll(&control);
        assert!(control.is_ponder_hit() && !control.is_stopped());
        assert!(waiting().is_empty());
        arrive(&["ping", "pos pos=start", "ping", "stop"]);
        poll(&control);
        assert!(control.is_stopped());
        assert_eq!(waiting(), ["pos pos=start", "ping", "stop"]);
        WAITING.with_borrow_mut(VecDeque::clear);

        let control = SearchControl::default();
        arrive(&["stop", "go think"]);
        poll(&control);
        assert!(control.is_stopped());
        assert_eq!(waiting(), ["go think"]);
        WAITING.with_borrow_mut(VecDeque::clear);
    }
}
