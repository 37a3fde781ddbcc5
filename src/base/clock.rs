//! The engine's clock. Where there is an operating system it is the
//! standard library's monotonic [`std::time::Instant`]; in a browser
//! (wasm32 without one) the standard clock panics, so the page that hosts
//! the engine supplies the time ([`crate::base::host::now_ms`]).

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use hosted::Instant;

/// Bits that differ from one run to the next (the wall clock and the
/// process), for the choices that must not repeat between runs, as the
/// book's draws.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub fn entropy() -> u64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

/// Bits that differ from one run to the next: the host's clock (a browser
/// has neither a wall clock nor process ids for the standard library).
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub fn entropy() -> u64 {
    (crate::base::host::now_ms() * 1e6) as u64
}

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod hosted {
    use std::time::Duration;

    use crate::base::host::now_ms;

    /// A moment on the host's clock, in milliseconds.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        /// Now.
        pub fn now() -> Instant {
            Instant(now_ms())
        }

        /// The time since this moment (zero if the host's clock went back).
        pub fn elapsed(&self) -> Duration {
            Duration::from_secs_f64((now_ms() - self.0).max(0.0) / 1000.0)
        }
    }
}
