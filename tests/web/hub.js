// The browser build as a Hub engine on stdin and stdout, under node: the
// same worker code (web/engine.js) and module as in a browser, so that the
// protocol tests, `dammer match` and the speed comparison run it like the
// native engine. Usage: node tests/web/hub.js path/to/dammer.wasm
'use strict';
const fs = require('fs');
const readline = require('readline');
const DammerEngine = require('../../web/engine.js');

const wasm = process.argv[2];
if (!wasm) {
  console.error('usage: node tests/web/hub.js path/to/dammer.wasm');
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
