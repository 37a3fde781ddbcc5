//! The browser front end: what a page's Web Worker calls in the WebAssembly
//! build (`wasm32-unknown-unknown`, built by `web/build.sh`). The engine
//! speaks the Hub protocol there as everywhere: its lines come and go
//! through the worker's imports ([`crate::base::host`]), so that lidraughts'
//! client and Dammer's own page drive it with the same commands as a GUI
//! drives the native engine.
//!
//! The worker script (`web/engine.js`) calls [`dammer_hub`] once; the call
//! runs the protocol until `quit`. Whenever the engine waits for input or a
//! search gives the host its turn, the worker unwinds the stack into the
//! buffer of [`dammer_asyncify_buffer`] and rewinds it afterwards
//! (binaryen's Asyncify), so that the worker's event loop runs in between.

/// Runs the Hub protocol on the host's lines until `quit`.
#[no_mangle]
pub extern "C" fn dammer_hub() {
    std::panic::set_hook(Box::new(|info| {
        // The one line a client can show; the worker then reports the trap.
        let msg = format!("internal error: {info}");
        crate::base::host::write_line(&format!("error message={}", crate::hub::quote(&msg)));
    }));
    crate::hub::run_hosted();
}

/// Memory of `size` bytes for the worker's Asyncify data (the suspended
/// stack), kept for the life of the module; its address.
#[no_mangle]
pub extern "C" fn dammer_asyncify_buffer(size: usize) -> *mut u8 {
    Box::leak(vec![0u8; size].into_boxed_slice()).as_mut_ptr()
}
