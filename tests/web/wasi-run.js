// Runs a wasm32-wasip1 program under node's WASI: the runner of
// `cargo test --target wasm32-wasip1` (the network's SIMD128 kernel
// against the scalar one, `.ci/run`). Usage: node wasi-run.js prog.wasm [args...]
'use strict';
const fs = require('fs');
const { WASI } = require('node:wasi');

const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: process.env, returnOnExit: true });
const wasm = new WebAssembly.Module(fs.readFileSync(file));
const instance = new WebAssembly.Instance(wasm, wasi.getImportObject());
process.exitCode = wasi.start(instance);
