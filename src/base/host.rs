//! What the program asks of the world around it: the time, where its
//! protocol lines go and come from, and a moment to let the world run.
//!
//! Where there is an operating system, that is the standard library (and
//! nothing to give back: every thread runs by itself). In a browser
//! (wasm32 without an operating system) a Web Worker hosts the engine on
//! its one thread, and supplies each of them through an import of the
//! module `dammer` (web/engine.js):
//! - `now_ms() -> f64`: its monotonic clock (`performance.now()`);
//! - `write(ptr, len)`: one output line, UTF-8, without its end;
//! - `take(ptr, cap) -> i32`: the next input line, copied to `ptr` when it
//!   fits in `cap` bytes; its length, or -1 when none is waiting;
//! - `pause(wait)`: the worker's event loop runs (its messages arrive)
//!   before the call returns; with `wait` not 0, it returns once an input
//!   line is waiting. The call suspends the engine's stack and resumes it
//!   (binaryen's Asyncify instruments the module for that), so that a
//!   search goes on where it was.
//!
//! The host may also deliver endgame tables it fetched ([`deliver_tables`]).

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod imports {
    #[link(wasm_import_module = "dammer")]
    extern "C" {
        pub fn now_ms() -> f64;
        pub fn write(ptr: *const u8, len: usize);
        pub fn take(ptr: *mut u8, cap: usize) -> i32;
        pub fn pause(wait: i32);
    }
}

/// Whether the engine runs in a host that it must give the thread back to
/// (a browser's worker) rather than on threads of its own.
pub const HOSTED: bool = cfg!(all(target_arch = "wasm32", target_os = "unknown"));

/// Milliseconds on the host's monotonic clock.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub fn now_ms() -> f64 {
    // SAFETY: an import without arguments that returns a number; the host's
    // function touches no memory of ours.
    unsafe { imports::now_ms() }
}

/// Writes one output line (the line end is the host's) and flushes it.
pub fn write_line(line: &str) {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    // SAFETY: the host reads `line.len()` bytes at its address, which are
    // ours and valid for the call.
    unsafe {
        imports::write(line.as_ptr(), line.len())
    };
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        // A client that went away closes stdout; there is nobody left to tell.
        let _ = out.write_all(line.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
}

/// The next input line the host holds, without waiting; `None` when there
/// is none (always, where input is read from a stream of the system's).
pub fn take_line() -> Option<String> {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    {
        let mut buf = vec![0u8; 256];
        loop {
            // SAFETY: the host writes at most `buf.len()` bytes at its address.
            let n = unsafe { imports::take(buf.as_mut_ptr(), buf.len()) };
            let n = usize::try_from(n).ok()?;
            if n <= buf.len() {
                buf.truncate(n);
                return Some(String::from_utf8_lossy(&buf).into_owned());
            }
            // Too long for the buffer: the line stays waiting for a larger one.
            buf.resize(n, 0);
        }
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    None
}

/// Gives the host's event loop a turn (a browser's worker receives its
/// messages then); with `until_input`, until an input line is waiting.
/// Where the engine has threads of its own, there is nothing to give back.
#[inline]
pub fn pause(until_input: bool) {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    // SAFETY: an import that takes a number; the host resumes the engine's
    // stack as it was (Asyncify), touching no memory of ours but the
    // instrumentation's own buffer.
    unsafe {
        imports::pause(i32::from(until_input))
    };
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let _ = until_input;
}

thread_local! {
    /// Endgame tables the host delivered that the front end has not taken.
    static TABLES: std::cell::RefCell<Option<Vec<u8>>> = const { std::cell::RefCell::new(None) };
}

/// Hands the front end endgame tables that the host fetched (a pack of
/// table files, `engine::egdb::Pack`): a browser downloads them beside the
/// engine, and the engine takes them for its next search.
pub fn deliver_tables(pack: Vec<u8>) {
    TABLES.with_borrow_mut(|t| *t = Some(pack));
}

/// The tables the host delivered since the last call, if any (never, where
/// tables are read from the system's files).
pub fn take_tables() -> Option<Vec<u8>> {
    TABLES.with_borrow_mut(Option::take)
}
