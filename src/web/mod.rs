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
//!
//! The worker hands the engine the endgame tables it fetched through
//! [`dammer_tables_room`] and [`dammer_tables_written`].
//!
//! The analysis page (`web/app.js`) also asks the rules of Dammer itself,
//! through [`dammer_position`] on an instance of its own, rather than
//! keeping a second copy of them in JavaScript.

use crate::base::host::write_line;
use crate::hub::{game_of, quote, Message};
use crate::rules::game::DrawRules;
use crate::rules::variant::Variant;

/// Runs the Hub protocol on the host's lines until `quit`.
#[no_mangle]
pub extern "C" fn dammer_hub() {
    std::panic::set_hook(Box::new(|info| {
        // The one line a client can show; the worker then reports the trap.
        let msg = format!("internal error: {info}");
        write_line(&format!("error message={}", quote(&msg)));
    }));
    crate::hub::run_hosted();
}

/// Memory of `size` bytes for the worker's Asyncify data (the suspended
/// stack), kept for the life of the module; its address.
#[no_mangle]
pub extern "C" fn dammer_asyncify_buffer(size: usize) -> *mut u8 {
    Box::leak(vec![0u8; size].into_boxed_slice()).as_mut_ptr()
}

thread_local! {
    /// The endgame tables the worker is writing (see [`dammer_tables_room`]).
    static ROOM: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Memory for `len` bytes of endgame tables (a pack, `dammer egdb pack`),
/// which the worker fetches beside the module: its address. The worker
/// writes the pack there, then calls [`dammer_tables_written`]; the engine
/// takes the tables at its next search. The worker may call both while the
/// engine is paused.
#[no_mangle]
pub extern "C" fn dammer_tables_room(len: usize) -> *mut u8 {
    ROOM.with_borrow_mut(|room| {
        *room = vec![0; len];
        room.as_mut_ptr()
    })
}

/// The pack in [`dammer_tables_room`]'s memory is complete.
#[no_mangle]
pub extern "C" fn dammer_tables_written() {
    crate::base::host::deliver_tables(ROOM.take());
}

/// The position that the host's next input line describes, in the words of
/// a Hub `pos` line with the variant: `variant=<v> pos=<FEN or Hub position>
/// moves="..." wolf="..."`. Answers with one output line: `position
/// hub=<side and 50 squares> fen=<FEN> result=<PDN result or *>
/// moves="<every legal move, Hub notation>"`, or `error message=...`.
#[no_mangle]
pub extern "C" fn dammer_position() {
    let request = crate::base::host::take_line().unwrap_or_default();
    match position(&request) {
        Ok(line) => write_line(&line),
        Err(e) => write_line(&format!("error message={}", quote(&e))),
    }
}

fn position(text: &str) -> Result<String, String> {
    let msg = Message::parse(&format!("pos {text}"))?.ok_or("an empty request")?;
    let variant = Variant::from_name(msg.get("variant").unwrap_or("normal")).map_err(|e| e.to_string())?;
    let game = game_of(&msg, variant, DrawRules::Fmjd)?;
    let legal: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
    let pos = game.position();
    Ok(format!(
        "position hub={} fen={} result={} moves={}",
        pos.to_hub(),
        quote(&pos.to_fen()),
        game.result().pdn(),
        quote(&legal.join(" "))
    ))
}
