// The browser build as a Hub engine on stdin and stdout, under node: the
// same worker code (web/engine.js) and module as in a browser, so that the
// protocol tests, `dammer match` and the speed comparison run it like the
// native engine. Usage:
//   node tests/web/hub.js path/to/dammer.wasm [--tables dammer-tables.bin.gz]
// With --tables the engine gets the endgame tables as the worker hands them
// over in a browser.
'use strict';
const fs = require('fs');
const readline = require('readline');
const zlib = require('zlib');
const DammerEngine = require('../../web/engine.js');

const wasm = process.argv[2];
const i = process.argv.indexOf('--tables');
if (!wasm || wasm.startsWith('--') || (i >= 0 && !process.argv[i + 1])) {
  console.error('usage: node tests/web/hub.js path/to/dammer.wasm [--tables dammer-tables.bin.gz]');
  process.exit(2);
}
const engine = DammerEngine(
  fs.readFileSync(wasm),
  (line) => process.stdout.write(line + '\n'),
  (e) => process.exit(e ? 1 : 0),
);
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => engine.send(line));
rl.on('close', () => engine.send('quit'));
if (i >= 0) {
  const file = fs.readFileSync(process.argv[i + 1]);
  engine.tables(file[0] === 0x1f && file[1] === 0x8b ? zlib.gunzipSync(file) : file);
}
