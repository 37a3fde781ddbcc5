//! Ctrl-C for long jobs (matches, self-play): the first SIGINT only sets a
//! flag, so that the job can stop cleanly and report what it has.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_signal: i32) {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Routes Ctrl-C (SIGINT) to [`requested`].
#[cfg(unix)]
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

/// Without Unix signals Ctrl-C ends the process as usual.
#[cfg(not(unix))]
pub fn catch() {}

/// Whether Ctrl-C was pressed since [`catch`].
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
