// Dammer in a Web Worker: runs dammer.wasm (the engine, built by
// web/build.sh) and speaks the Hub protocol with the page, one line per
// message each way, as lidraughts' client expects of Scan's worker
// (scan_<variant>.wasm.js, which loads this file).
//
// The engine has this thread only. It asks for a turn of the event loop
// through the import `pause`: the worker unwinds the engine's stack into a
// buffer (binaryen's Asyncify, applied by web/build.sh), lets the event
// loop deliver the page's messages, and rewinds the stack, so that a search
// goes on where it was. A search pauses every 10 ms; an idle engine pauses
// until a line arrives. Lines that arrive before the engine has loaded
// wait and run in order.
//
// The endgame tables (dammer-tables.bin.gz, beside the module) are fetched
// at the same time; the engine starts without them and takes them for the
// first search after they have arrived.
//
// Also usable outside a worker (node, tests): DammerEngine(bytes, onLine)
// returns {send(line)}.

(function (root) {
  'use strict';

  const ASYNCIFY_BYTES = 1 << 20;
  const UNWINDING = 1;

  function DammerEngine(wasmBytes, onLine, onExit) {
    const input = [];
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    let exports = null;
    let buffer = 0;
    let rewinding = false;
    let waitingForInput = false;
    let scheduled = false;
    let running = false;
    let ended = false;
    // The engine has paused once: each run from then on rewinds its stack.
    let resumable = false;

    // A turn of the event loop: in a browser a message to ourselves (a
    // nested setTimeout would cost 4 ms); under node setImmediate, which
    // runs after pending input (node delivers a port's messages in one go,
    // so that one posted from each would shut input out).
    let later;
    if (typeof setImmediate === 'function') {
      later = () => {
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => {
            scheduled = false;
            run();
          });
        }
      };
    } else {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        scheduled = false;
        run();
      };
      later = () => {
        if (!scheduled) {
          scheduled = true;
          channel.port2.postMessage(0);
        }
      };
    }

    const bytes = (ptr, len) => new Uint8Array(exports.memory.buffer, ptr, len);

    const imports = {
      dammer: {
        now_ms: () => performance.now(),
        write: (ptr, len) => onLine(decoder.decode(bytes(ptr, len))),
        take: (ptr, cap) => {
          if (input.length === 0) return -1;
          const line = encoder.encode(input[0]);
          if (line.length > cap) return line.length;
          bytes(ptr, line.length).set(line);
          input.shift();
          return line.length;
        },
        pause: (wait) => {
          // A module built without Asyncify cannot pause: it runs through.
          if (!exports.asyncify_start_unwind) return;
          if (rewinding) {
            // Back where the engine paused: it goes on.
            exports.asyncify_stop_rewind();
            rewinding = false;
            return;
          }
          const header = new Int32Array(exports.memory.buffer, buffer, 2);
          header[0] = buffer + 8;
          header[1] = buffer + ASYNCIFY_BYTES;
          waitingForInput = wait !== 0;
          exports.asyncify_start_unwind(buffer);
        },
      },
    };

    // Runs the engine until it pauses (or ends).
    function run() {
      if (ended || running || exports === null) return;
      running = true;
      if (resumable) {
        rewinding = true;
        exports.asyncify_start_rewind(buffer);
      }
      try {
        exports.dammer_hub();
      } catch (e) {
        ended = true;
        onLine('error message="the engine stopped: ' + String(e).replace(/"/g, "'") + '"');
        if (onExit) onExit(e);
        return;
      } finally {
        running = false;
      }
      if (exports.asyncify_get_state() === UNWINDING) {
        exports.asyncify_stop_unwind();
        resumable = true;
        if (!waitingForInput || input.length > 0) later();
      } else {
        ended = true;
        if (onExit) onExit(null);
      }
    }

    // Endgame tables (a pack) waiting for the module to load.
    let tables = null;
    const deliverTables = () => {
      const ptr = exports.dammer_tables_room(tables.length);
      bytes(ptr, tables.length).set(tables);
      exports.dammer_tables_written();
      tables = null;
    };

    WebAssembly.instantiate(wasmBytes, imports).then((result) => {
      exports = (result.instance || result).exports;
      buffer = exports.dammer_asyncify_buffer(ASYNCIFY_BYTES);
      if (tables !== null) deliverTables();
      run();
    }, (e) => {
      ended = true;
      onLine('error message="cannot load the engine: ' + String(e).replace(/"/g, "'") + '"');
      if (onExit) onExit(e);
    });

    return {
      // Endgame tables (a Uint8Array holding a pack: dammer egdb pack),
      // which the engine takes for its next search. The engine may be
      // paused meanwhile: these exports touch nothing of its stack.
      tables(pack) {
        tables = pack;
        if (exports !== null && !ended) deliverTables();
      },
      // One protocol line (or several, one per line of the text).
      send(text) {
        for (const line of String(text).split(/\r?\n/)) {
          if (line.trim() !== '') input.push(line);
        }
        if (waitingForInput) {
          waitingForInput = false;
          later();
        }
      },
    };
  }

  // The build for this browser: with relaxed SIMD where its dot product
  // gives the standard's sums, else with SIMD128 where it runs, else the one
  // without. The relaxed probe exports d(), one i32x4.relaxed_dot_i8x16_i7x16_add_s
  // of weights -128..127 by inputs 0..127 (lanes 0 and 1 as 1000 x lane 0 +
  // lane 1: -246963): an engine that validates the instruction but computes
  // another thing (node 20 behind --experimental-wasm-relaxed-simd) gets the
  // SIMD128 build. The SIMD128 probe is a function that returns a v128,
  // i8x16.splat and i8x16.popcnt (wasm-feature-detect's).
  const RELAXED_PROBE = new Uint8Array([
    0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 100, 0, 0, 10, 80, 1, 78, 1,
    1, 123, 253, 12, 128, 128, 127, 127, 253, 5, 7, 247, 0, 0, 0, 0, 0, 0, 0, 0, 253, 12, 127, 127, 127, 127,
    100, 1, 50, 2, 0, 0, 0, 0, 0, 0, 0, 0, 253, 12, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 253, 147,
    2, 33, 0, 32, 0, 253, 27, 0, 65, 232, 7, 108, 32, 0, 253, 27, 1, 106, 11,
  ]);
  const SIMD_PROBE = new Uint8Array([
    0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
  ]);
  DammerEngine.relaxedSimd = () => {
    try {
      return new WebAssembly.Instance(new WebAssembly.Module(RELAXED_PROBE)).exports.d() === -246963;
    } catch (e) {
      return false;
    }
  };
  DammerEngine.moduleFile = () => {
    if (DammerEngine.relaxedSimd()) return 'dammer-relaxed.wasm';
    return WebAssembly.validate(SIMD_PROBE) ? 'dammer.wasm' : 'dammer-nosimd.wasm';
  };

  // The bytes of a pack of endgame tables fetched from `url`, unpacked if
  // gzipped (a server may also have unpacked it already); null where
  // there are none.
  DammerEngine.fetchTables = (url) => fetch(url)
    .then((r) => (r.ok ? r.arrayBuffer() : null))
    .then((buffer) => {
      if (buffer === null) return null;
      const head = new Uint8Array(buffer, 0, Math.min(2, buffer.byteLength));
      if (head[0] !== 0x1f || head[1] !== 0x8b) return new Uint8Array(buffer);
      const stream = new Blob([buffer]).stream().pipeThrough(new DecompressionStream('gzip'));
      return new Response(stream).arrayBuffer().then((b) => new Uint8Array(b));
    })
    .catch(() => null);

  root.DammerEngine = DammerEngine;
  if (typeof module !== 'undefined' && module.exports) module.exports = DammerEngine;

  // In a worker: the page's messages in, the engine's lines out.
  if (typeof importScripts === 'function' && typeof postMessage === 'function') {
    const pending = [];
    let engine = null;
    self.onmessage = (e) => {
      if (engine) engine.send(e.data);
      else pending.push(e.data);
    };
    const url = new URL(root.DAMMER_WASM || DammerEngine.moduleFile(), self.location.href);
    // The tables come beside the engine, which starts without them
    // (DAMMER_TABLES: another file, or null for none).
    const name = root.DAMMER_TABLES === undefined ? 'dammer-tables.bin.gz' : root.DAMMER_TABLES;
    const tables = name === null ? Promise.resolve(null) : DammerEngine.fetchTables(new URL(name, url));
    fetch(url)
      .then((r) => {
        if (!r.ok) throw new Error(url + ': ' + r.status + ' ' + r.statusText);
        return r.arrayBuffer();
      })
      .then((bytes) => {
        engine = DammerEngine(bytes, (line) => postMessage(line), () => {});
        for (const line of root.DAMMER_FIRST_LINES || []) engine.send(line);
        for (const text of pending) engine.send(text);
        pending.length = 0;
        tables.then((pack) => { if (pack !== null) engine.tables(pack); });
      })
      .catch((e) => postMessage('error message="cannot load the engine: ' + String(e).replace(/"/g, "'") + '"'));
  }
})(typeof self !== 'undefined' ? self : globalThis);
