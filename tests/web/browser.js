// Dammer's browser build in headless Chromium.
//
//   node tests/web/browser.js lidraughts [--stops N] [--depth D]
//       lidraughts' client (harness/lidraughts.html) on the four worker
//       scripts: every `info` line read by the site's expression, `stop`
//       answered within 100 ms at depth D (16) or more, N stops in all.
//   node tests/web/browser.js page [--screenshot FILE]
//       the analysis page: load, paste a position, analysis to depth 12 or
//       more, a clicked move changes the analysis, stop.
//   node tests/web/browser.js speed [--rounds N] [--module FILE]
//       nodes a second of the build in Chromium against the native build
//       (target/release/dammer) on the same positions, one thread, and the
//       same nodes; --module: the module Chromium must choose.
//
// The build is served from target/web (web/build.sh; --dir to change) by a
// static server of this script. Chromium: $CHROMIUM, else /usr/bin/chromium.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { spawn } = require('child_process');
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
const mode = args[0];
const option = (name, fallback) => {
  const i = args.indexOf('--' + name);
  return i >= 0 ? args[i + 1] : fallback;
};
const root = path.resolve(__dirname, '../..');
const dir = path.resolve(option('dir', path.join(root, 'target/web')));

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css',
  '.png': 'image/png', '.svg': 'image/svg+xml' };

// The build at /, this folder's harness pages at /harness/.
function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    let file = url.pathname.startsWith('/harness/')
      ? path.join(__dirname, url.pathname)
      : path.join(dir, url.pathname === '/' ? 'index.html' : url.pathname);
    if (!file.startsWith(dir) && !file.startsWith(path.join(__dirname, 'harness'))) file = '';
    fs.readFile(file, (err, data) => {
      if (err) {
        res.writeHead(404);
        res.end('not found');
        return;
      }
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function browser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
}

function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exitCode = 1;
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

async function lidraughts(base, page) {
  const stops = parseInt(option('stops', '52'));
  const depth = parseInt(option('depth', '16'));
  const variants = ['normal', 'frisian', 'losing', 'bt'];
  await page.goto(base + '/harness/lidraughts.html');
  const reports = await page.evaluate((o) => window.runLidraughts(o), {
    variants, searches: Math.ceil(stops / variants.length), stopDepth: depth, basePath: '/', seed: 7,
  });
  const all = [];
  for (const r of reports) {
    const ms = r.stops.map((s) => s.ms);
    all.push(...ms);
    console.log(`${r.variant}: engine "${r.name}", ${r.lines} lines, ${r.infos} info lines, ` +
      `${r.badLines.length} unread by the expression; ${r.stops.length} stops at depth ` +
      `${Math.min(...r.stops.map((s) => s.depth))}-${Math.max(...r.stops.map((s) => s.depth))}: ` +
      `median ${percentile(ms, 0.5).toFixed(1)} ms, slowest ${Math.max(...ms).toFixed(1)} ms; ` +
      `level depth=12 in ${r.fixedDepth.ms.toFixed(0)} ms`);
    if (!r.name || !r.name.startsWith('Dammer')) fail(`${r.variant}: no id line read`);
    if (r.badLines.length) fail(`${r.variant}: lines the site cannot read: ${r.badLines.slice(0, 3).join(' | ')}`);
    if (r.errors.length) fail(`${r.variant}: ${r.errors.join(' | ')}`);
    if (r.infos === 0) fail(`${r.variant}: no info line`);
    if (r.stops.some((s) => s.depth < depth)) fail(`${r.variant}: a stop before depth ${depth}`);
  }
  const slowest = Math.max(...all);
  console.log(`lidraughts: ${reports.length}/4 variants, ${all.length} stops at depth ${depth}+, ` +
    `slowest ${slowest.toFixed(1)} ms, median ${percentile(all, 0.5).toFixed(1)} ms`);
  if (all.length < stops) fail(`${all.length} stops, ${stops} asked for`);
  if (slowest > 100) fail(`a stop took ${slowest.toFixed(1)} ms (100 at most)`);
}

(async () => {
  if (!['lidraughts', 'page', 'speed'].includes(mode)) {
    console.error('usage: node tests/web/browser.js lidraughts|page|speed [options]');
    process.exit(2);
  }
  if (!fs.existsSync(path.join(dir, 'dammer.wasm'))) {
    console.error(`no build in ${dir}: run web/build.sh first`);
    process.exit(2);
  }
  const server = await serve();
  const base = 'http://127.0.0.1:' + server.address().port;
  const b = await browser();
  try {
    const page = await b.newPage();
    page.on('console', (m) => { if (m.type() === 'error') console.error('page: ' + m.text()); });
    page.on('pageerror', (e) => fail('page error: ' + e.message));
    page.setDefaultTimeout(600000);
    if (mode === 'lidraughts') await lidraughts(base, page);
    else if (mode === 'page') await require('./page-test.js')(base, page, option, fail);
    else await require('./speed.js')(base, page, option, fail, root);
  } catch (e) {
    fail(e.stack || String(e));
  } finally {
    await b.close();
    server.close();
  }
})();
