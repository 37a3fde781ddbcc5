//! Ctrl-C for long jobs (matches, self-play): the first SIGINT only sets a
//! flag, so that the job can stop cleanly and report what it has.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

#[cfg(any(unix, windows))]
extern "C" fn on_interrupt(_signal: i32) {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Routes Ctrl-C (SIGINT) to [`requested`]. On Windows the C runtime's
/// `signal` turns the console's Ctrl-C into SIGINT (its handler runs on a
/// thread of its own, which only stores the flag).
#[cfg(any(unix, windows))]
pub fn catch() {
    extern "C" {
        fn signal(signum: i32, handler: extern "C" fn(i32)) -> usize;
    }
    const SIGINT: i32 = 2;
    // SAFETY: `signal` is the C library's, called with a valid signal number
    // and a handler that only stores to an atomic (async-signal-safe).
    unsafe {
        signal(SIGINT, on_interrupt);
    }
}

/// Elsewhere Ctrl-C ends the process as usual.
#[cfg(not(any(unix, windows)))]
pub fn catch() {}

/// Whether Ctrl-C was pressed since [`catch`].
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
