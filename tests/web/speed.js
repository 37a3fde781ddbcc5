// Nodes a second of the browser build against the native build on the same
// positions, one thread each (node tests/web/browser.js speed): the worker
// in Chromium (with the module it chooses there: relaxed SIMD in Chromium),
// the SIMD128 module under node (tests/web/hub.js; node 20 has no standard
// relaxed SIMD) and target/release/dammer, each one session for all positions after a
// warm-up search (a browser compiles WebAssembly in tiers: analysis runs in
// the optimised code, which a first short search would not show). Each
// position is searched to a fixed depth from an empty table (`new-game`),
// by the three in turn, `--rounds` times; equal node counts show the same
// search. The ratios of nodes a second, per position and their median,
// against the native build as it runs here and with its AVX2 kernel
// (DAMMER_NO_AVX512=1: the kernel of a processor without AVX-512).
'use strict';
const path = require('path');
const { spawn } = require('child_process');

const POSITIONS = [
  ['start', 'Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww', 17],
  ['opening', 'W:W27,28,32,33,34,35,37,38,39,40,42,43,44,45,47,48,49,50:B1,2,3,4,6,7,8,9,11,12,13,14,16,17,18,19,23,24', 17],
  ['middle game', 'W:W25,27,28,30,32,33,34,35,37,38,39,40,42,43,44,45,48:B3,4,6,7,8,9,11,12,13,14,15,16,17,18,19,22,24', 17],
  ['classic', 'B:W23,27,28,29,31,32,33,34,37,38,39,40,41,42,43,46,48:B3,6,7,8,9,11,12,13,14,15,16,17,18,19,20,21,26', 17],
  ['endgame', 'W:W28,31,32,35,38,42,43:B8,9,12,15,18,19,23', 22],
];
const WARM_UP = ['Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww', 15];

const search = (pos, depth) => ['new-game', `pos pos=${pos}`, `level depth=${depth}`, 'go think'];

// The last info line before `done`: [nodes, seconds].
function lastInfo(lines) {
  const info = lines.filter((l) => l.startsWith('info')).pop();
  const m = info && info.match(/nodes=(\d+) time=(\S+)/);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

// A Hub engine process: run(commands) resolves with the lines up to `done`.
function hubProcess(cmd, args, env) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let buffer = '';
  let lines = [];
  let waiting = null;
  child.stdout.on('data', (d) => {
    buffer += d;
    let i;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      lines.push(line);
      if (line.startsWith('done') && waiting) {
        const w = waiting;
        waiting = null;
        w(lines);
        lines = [];
      }
    }
  });
  return {
    run: (commands) => new Promise((resolve) => {
      waiting = resolve;
      child.stdin.write(commands.join('\n') + '\n');
    }),
    close: () => child.stdin.end('quit\n'),
  };
}

module.exports = async function speed(base, page, option, fail, root) {
  const rounds = parseInt(option('rounds', '2'));
  const wasm = path.join(option('dir', path.join(root, 'target/web')), 'dammer.wasm');
  await page.goto(base + '/harness/lidraughts.html');
  // The module the worker chooses here (relaxed SIMD, SIMD128 or neither),
  // run without the endgame tables, as the other two are: with them a
  // search that reaches 4 pieces is another tree.
  await page.addScriptTag({ url: '/dammer-engine.js' });
  const module = await page.evaluate(() => DammerEngine.moduleFile());
  console.log(`Chromium runs ${module}; node runs ${path.basename(wasm)}`);
  const expected = option('module', null);
  if (expected && module !== expected) fail(`Chromium chose ${module}, not ${expected}`);
  await page.evaluate((module) => {
    const script = `self.DAMMER_TABLES = null; self.DAMMER_WASM = '${location.origin}/${module}'; ` +
      `importScripts('${location.origin}/dammer-engine.js');`;
    const w = new Worker(URL.createObjectURL(new Blob([script], { type: 'text/javascript' })));
    window.speedWorker = w;
    w.postMessage('init');
  }, module);
  const chromium = {
    run: (commands) => page.evaluate((commands) => new Promise((resolve) => {
      const lines = [];
      window.speedWorker.onmessage = (e) => {
        lines.push(String(e.data));
        if (String(e.data).startsWith('done')) resolve(lines);
      };
      for (const c of commands) window.speedWorker.postMessage(c);
    }), commands),
    close: () => {},
  };
  // The native build's kernel on this processor, and its AVX2 kernel (what
  // a processor without AVX-512 runs) where that is another.
  const engines = {
    native: hubProcess(path.join(root, 'target/release/dammer'), ['hub']),
    native_avx2: hubProcess(path.join(root, 'target/release/dammer'), ['hub'], { DAMMER_NO_AVX512: '1' }),
    chromium,
    node: hubProcess('node', [path.join(__dirname, 'hub.js'), wasm]),
  };
  for (const e of Object.values(engines)) await e.run(search(...WARM_UP));
  const ratios = { chromium: [], node: [], chromium_avx2: [], node_avx2: [] };
  for (let r = 0; r < rounds; r++) {
    for (const [name, pos, depth] of POSITIONS) {
      const got = {};
      for (const [k, e] of Object.entries(engines)) got[k] = lastInfo(await e.run(search(pos, depth)));
      const nps = ([nodes, s]) => nodes / s;
      const n = got.native;
      if (Object.values(got).some((g) => g[0] !== n[0])) {
        fail(`${name}: nodes differ: ${JSON.stringify(got)}`);
      }
      const a = got.native_avx2;
      const line = [`${name} depth ${depth}: ${n[0]} nodes; native ${(nps(n) / 1e6).toFixed(2)} M/s, ` +
        `native AVX2 kernel ${(nps(a) / 1e6).toFixed(2)} M/s`];
      for (const k of ['chromium', 'node']) {
        ratios[k].push(nps(got[k]) / nps(n));
        ratios[k + '_avx2'].push(nps(got[k]) / nps(a));
        line.push(`${k} ${(nps(got[k]) / 1e6).toFixed(2)} M/s (${(nps(got[k]) / nps(n)).toFixed(2)}, ` +
          `${(nps(got[k]) / nps(a)).toFixed(2)})`);
      }
      console.log(line.join(', '));
    }
  }
  for (const e of Object.values(engines)) e.close();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`speed against native, median of ${ratios.chromium.length} searches: ` +
    `Chromium ${median(ratios.chromium).toFixed(2)}, node ${median(ratios.node).toFixed(2)}; ` +
    `against native's AVX2 kernel: Chromium ${median(ratios.chromium_avx2).toFixed(2)}, ` +
    `node ${median(ratios.node_avx2).toFixed(2)}`);
};
