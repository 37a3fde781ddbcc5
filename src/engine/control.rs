//! Requests that reach a running search from outside: stop, and the ponder
//! hit. The search reads them as relaxed atomics every
//! [`crate::engine::search`] check; a caller that must wait for one (an
//! infinite analysis that has reached its deepest iteration) sleeps on a
//! condition variable instead of spinning.
//!
//! Where the host lends the engine its one thread (a browser's worker), the
//! requests cannot come from another thread: the search runs in slices of
//! [`SLICE`], and between two it gives the host a turn
//! ([`crate::base::host::pause`]) and then the front end's [`Poll`], which
//! reads what arrived and may stop the search.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::base::clock::Instant;
use crate::base::host;

/// How long a search runs between two turns of its host: short enough
/// that `stop` is answered well within the 100 ms a client allows, long
/// enough that the turns cost little (each is a trip through the host's
/// event loop).
pub const SLICE: Duration = Duration::from_millis(10);

/// A front end's turn between two slices of a search on its thread: it
/// reads its input and answers or stops the search through the control.
pub type Poll = fn(&SearchControl);

/// Stop and ponder-hit requests of one search. Give every search a fresh
/// one, so that a late request cannot reach the next search.
#[derive(Debug, Default)]
pub struct SearchControl {
    stop: AtomicBool,
    ponder_hit: AtomicBool,
    /// Wakes [`SearchControl::wait`]; never touched by the search itself.
    signal: Condvar,
    lock: Mutex<()>,
    /// The front end's turn, when the search runs on its thread.
    poll: Option<Poll>,
    /// When the slices are counted from (set with `poll`).
    born: Option<Instant>,
    /// When, in ms from `born`, the next slice ends.
    next_turn: AtomicU64,
}

impl SearchControl {
    /// Control of a search that runs on its front end's thread: the search
    /// calls [`SearchControl::checkpoint`] often, and every [`SLICE`] it
    /// gives the host and then `poll` a turn.
    pub fn polled(poll: Poll) -> SearchControl {
        SearchControl { poll: Some(poll), born: Some(Instant::now()), ..SearchControl::default() }
    }

    /// Called by the search often (every thousand nodes or so): when a
    /// slice has passed, the host and the front end have their turn.
    #[inline]
    pub fn checkpoint(&self) {
        let (Some(poll), Some(born)) = (self.poll, self.born) else { return };
        let now = born.elapsed().as_millis() as u64;
        if now < self.next_turn.load(Ordering::Relaxed) {
            return;
        }
        host::pause(false);
        poll(self);
        // The slice is counted from the end of the turn: a slow host does
        // not leave the search a turn after every check.
        let after = born.elapsed().as_millis() as u64;
        self.next_turn.store(after + SLICE.as_millis() as u64, Ordering::Relaxed);
    }

    /// Asks the running search to finish now; it still answers with a move.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.wake();
    }

    /// Tells a pondering search that the expected move was played: its time
    /// limits apply from now on.
    pub fn ponder_hit(&self) {
        self.ponder_hit.store(true, Ordering::SeqCst);
        self.wake();
    }

    /// Whether a stop was requested.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether a ponder hit arrived.
    #[inline]
    pub fn is_ponder_hit(&self) -> bool {
        self.ponder_hit.load(Ordering::Relaxed)
    }

    fn wake(&self) {
        // Taking the lock orders the store before a waiter's check: a waiter
        // either sees the flag or is already asleep and gets the signal.
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.signal.notify_all();
    }

    /// Blocks until a stop arrives, or a ponder hit when `hit_releases`.
    pub(crate) fn wait(&self, hit_releases: bool) {
        let released = || self.is_stopped() || (hit_releases && self.is_ponder_hit());
        if let Some(poll) = self.poll {
            // Nobody else can wake us: the front end's input will.
            while !released() {
                host::pause(true);
                poll(self);
            }
            return;
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while !released() {
            guard = self.signal.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn wait_returns_on_stop_and_on_a_hit_when_asked() {
        let c = Arc::new(SearchControl::default());
        let other = Arc::clone(&c);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            other.ponder_hit();
            std::thread::sleep(Duration::from_millis(20));
            other.stop();
        });
        c.wait(true);
        assert!(c.is_ponder_hit());
        c.wait(false);
        assert!(c.is_stopped());
        t.join().unwrap();
        // Already released: no wait at all.
        c.wait(false);
    }

    static TURNS: AtomicU64 = AtomicU64::new(0);

    /// A front end that stops the search at its third turn.
    fn stop_at_third_turn(control: &SearchControl) {
        if TURNS.fetch_add(1, Ordering::SeqCst) + 1 == 3 {
            control.stop();
        }
    }

    #[test]
    fn a_polled_search_gives_its_front_end_a_turn_a_slice() {
        let c = SearchControl::polled(stop_at_third_turn);
        let start = Instant::now();
        while !c.is_stopped() {
            c.checkpoint();
        }
        assert_eq!(TURNS.load(Ordering::SeqCst), 3);
        // The first turn comes at once, the others a slice apart each.
        assert!(start.elapsed() >= 2 * SLICE, "{:?}", start.elapsed());
        // Waiting for a stop is waiting on the front end's turns (no other
        // thread can wake it); released at once now.
        c.wait(false);
        assert_eq!(TURNS.load(Ordering::SeqCst), 3);
    }

    static WAITED: AtomicU64 = AtomicU64::new(0);

    fn hit_then_stop(control: &SearchControl) {
        match WAITED.fetch_add(1, Ordering::SeqCst) {
            0 => control.ponder_hit(),
            1 => control.stop(),
            _ => {}
        }
    }

    #[test]
    fn a_polled_wait_is_released_by_the_front_ends_turns() {
        let c = SearchControl::polled(hit_then_stop);
        c.wait(true);
        assert!(c.is_ponder_hit() && !c.is_stopped());
        c.wait(false);
        assert!(c.is_stopped());
        assert_eq!(WAITED.load(Ordering::SeqCst), 2);
    }
}
