//! Requests that reach a running search from other threads: stop, and the
//! ponder hit. The search reads them as relaxed atomics every
//! [`crate::engine::search`] check; a caller that must wait for one (an
//! infinite analysis that has reached its deepest iteration) sleeps on a
//! condition variable instead of spinning.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

/// Stop and ponder-hit requests of one search. Give every search a fresh
/// one, so that a late request cannot reach the next search.
#[derive(Debug, Default)]
pub struct SearchControl {
    stop: AtomicBool,
    ponder_hit: AtomicBool,
    /// Wakes [`SearchControl::wait`]; never touched by the search itself.
    signal: Condvar,
    lock: Mutex<()>,
}

impl SearchControl {
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
}
