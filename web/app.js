// Dammer's analysis page: a board, a position to paste or set up, moves by
// clicking, and live analysis from the engine in a Web Worker
// (dammer-engine.js), spoken to in the Hub protocol as any GUI does. The
// rules (legal moves, the position after them, FEN) are Dammer's own: the
// same module, instantiated on this page, answers dammer_position.
'use strict';

const $ = (id) => document.getElementById(id);
const START_HUB = 'W' + 'b'.repeat(20) + 'e'.repeat(10) + 'w'.repeat(20);

const state = {
  variant: 'normal',
  start: START_HUB,     // the position the moves are played from (Hub form)
  moves: [],            // moves played since, Hub notation
  view: null,           // {hub, fen, result, legal: [..]} of the current position
  selected: null,       // square of the piece to move
  setup: false,
  flipped: false,
  analysing: false,
  gos: 0,               // searches started...
  dones: 0,             // ...and answered
  lines: [],            // multi-PV lines of the current search
};

// ---- the rules, from the module itself ----------------------------------

// The module on this page answers dammer_position, reading the request as
// its input line and answering with one output line.
async function loadRules(bytes) {
  let request = null;
  let answer = '';
  let memory = null;
  const { instance } = await WebAssembly.instantiate(bytes, {
    dammer: {
      now_ms: () => performance.now(),
      write: (ptr, len) => { answer = new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len)); },
      take: (ptr, cap) => {
        if (request === null) return -1;
        const b = new TextEncoder().encode(request);
        if (b.length > cap) return b.length;
        new Uint8Array(memory.buffer, ptr, b.length).set(b);
        request = null;
        return b.length;
      },
      pause: () => {},
    },
  });
  memory = instance.exports.memory;
  return (text) => {
    request = text;
    instance.exports.dammer_position();
    return answer;
  };
}
let ask = null;

// `name=value` fields of a line, quotes removed.
function fields(line) {
  const out = {};
  for (const m of line.matchAll(/(\w[\w-]*)=("([^"]*)"|\S+)/g)) out[m[1]] = m[3] !== undefined ? m[3] : m[2];
  return out;
}

function describe(start, moves) {
  let request = `variant=${state.variant} pos=${start}`;
  if (moves.length) request += ` moves="${moves.join(' ')}"`;
  const line = ask(request);
  if (line.startsWith('error')) return { error: fields(line).message || line };
  const f = fields(line);
  return { hub: f.hub, fen: f.fen, result: f.result, legal: f.moves ? f.moves.split(' ') : [] };
}

// ---- the engine -----------------------------------------------------------

const worker = new Worker('dammer-engine.js');
const send = (line) => worker.postMessage(line);
worker.onmessage = (e) => onEngineLine(String(e.data));
worker.onerror = (e) => status('the engine failed: ' + e.message);

function onEngineLine(line) {
  if (line.startsWith('id ')) {
    $('version').textContent = (fields(line).version || '');
  } else if (line === 'ready') {
    window.dammerReadyAt = performance.now();
    if (!state.analysing) status('ready');
  } else if (line.startsWith('done')) {
    state.dones++;
    if (state.dones === state.gos && !state.analysing) status('stopped');
  } else if (line.startsWith('info') && state.dones === state.gos - 1) {
    showInfo(line);
  } else if (line.startsWith('error')) {
    message(fields(line).message || line);
  }
}

function showInfo(line) {
  const f = fields(line);
  const k = parseInt(f.multipv || '1') - 1;
  state.lines[k] = { score: f.score, pv: f.pv || '' };
  if (k === 0) {
    $('depth').textContent = f.depth;
    $('nodes').textContent = Number(f.nodes).toLocaleString('en');
    $('nps').textContent = (Number(f.nodes) / Math.max(Number(f.time), 0.001) / 1e6).toFixed(2) + ' M/s';
    $('time').textContent = Number(f.time).toFixed(1) + ' s';
    if (!window.dammerFirstInfoAt) window.dammerFirstInfoAt = performance.now();
  }
  $('lines').innerHTML = '';
  for (const l of state.lines.slice(0, parseInt($('multipv').value))) {
    if (!l) continue;
    const li = document.createElement('li');
    li.innerHTML = `<span class="score">${scoreText(l.score)}</span> `;
    li.appendChild(document.createTextNode(l.pv));
    $('lines').appendChild(li);
  }
  drawBest();
}

// Scan's scale: 100.00 minus plies is a win, 90.00 minus plies a table win.
function scoreText(s) {
  const v = parseFloat(s);
  const a = Math.abs(v);
  const sign = v > 0 ? '+' : v < 0 ? '-' : '';
  if (a > 90) return `${sign}win ${Math.ceil(Math.round((100 - a) * 100) / 2)}`;
  if (a > 80) return `${sign}win (tables)`;
  return (v > 0 ? '+' : '') + v.toFixed(2);
}

function analyse() {
  if (!state.view || state.view.error) return;
  state.lines = [];
  $('lines').innerHTML = '';
  ['depth', 'nodes', 'nps', 'time'].forEach((id) => { $(id).textContent = '-'; });
  if (state.view.legal.length === 0) {
    status('game over: ' + state.view.result);
    return;
  }
  let pos = `pos pos=${state.start}`;
  if (state.moves.length) pos += ` moves="${state.moves.join(' ')}"`;
  send(`set-param name=multipv value=${$('multipv').value}`);
  send(pos);
  send('level infinite');
  send('go analyze');
  state.gos++;
  status('analysing');
}

function stop() {
  send('stop');
}

// ---- the board ------------------------------------------------------------

function squareAt(row, col) {
  if ((row + col) % 2 === 0) return 0;
  return row * 5 + Math.floor(col / 2) + 1;
}

function buildBoard() {
  const board = $('board');
  board.innerHTML = '';
  for (let r = 0; r < 10; r++) {
    for (let c = 0; c < 10; c++) {
      const [row, col] = state.flipped ? [9 - r, 9 - c] : [r, c];
      const sq = squareAt(row, col);
      const div = document.createElement('div');
      div.className = 'sq' + (sq ? ' dark' : '');
      if (sq) {
        div.dataset.sq = sq;
        div.innerHTML = `<span class="num">${sq}</span>`;
        div.addEventListener('click', () => clickSquare(sq));
      }
      board.appendChild(div);
    }
  }
  draw();
}

function draw() {
  const hub = state.view && !state.view.error ? state.view.hub : state.start;
  for (const div of $('board').querySelectorAll('.sq.dark')) {
    const sq = Number(div.dataset.sq);
    const ch = hub[sq];
    div.querySelector('.piece')?.remove();
    div.classList.remove('from', 'to', 'best');
    if (ch !== 'e') {
      const p = document.createElement('div');
      p.className = 'piece ' + (ch.toLowerCase() === 'w' ? 'w' : 'b') + (ch === 'W' || ch === 'B' ? ' king' : '');
      div.appendChild(p);
    }
  }
  if (state.selected) {
    mark(state.selected, 'from');
    for (const m of movesFrom(state.selected)) mark(ends(m)[1], 'to');
  }
  $('side').value = hub[0];
  $('fen').value = state.view && state.view.fen ? state.view.fen : '';
  $('moves').textContent = state.moves.length ? state.moves.join(' ') : '(none)';
  drawBest();
}

function drawBest() {
  for (const div of $('board').querySelectorAll('.best')) div.classList.remove('best');
  const best = state.lines[0] && state.lines[0].pv.split(' ')[0];
  if (best && !state.selected) ends(best).forEach((sq) => mark(sq, 'best'));
}

const mark = (sq, cls) => $('board').querySelector(`[data-sq="${sq}"]`)?.classList.add(cls);
const ends = (m) => { const p = m.split(/[-x]/).map(Number); return [p[0], p[1]]; };
const movesFrom = (sq) => (state.view && state.view.legal ? state.view.legal.filter((m) => ends(m)[0] === sq) : []);

function clickSquare(sq) {
  message('');
  if (state.setup) {
    const order = 'ewWbB';
    const hub = state.view && !state.view.error ? state.view.hub : state.start;
    const next = order[(order.indexOf(hub[sq]) + 1) % order.length];
    setPosition(hub.slice(0, sq) + next + hub.slice(sq + 1));
    return;
  }
  if (state.selected) {
    const chosen = movesFrom(state.selected).filter((m) => ends(m)[1] === sq);
    if (chosen.length) {
      // Captures that end alike differ in what they take: the first is played.
      play(chosen[0]);
      return;
    }
  }
  state.selected = movesFrom(sq).length ? sq : null;
  draw();
}

function play(move) {
  const view = describe(state.start, [...state.moves, move]);
  if (view.error) { message(view.error); return; }
  state.moves.push(move);
  state.view = view;
  state.selected = null;
  draw();
  if (state.analysing) analyse();
}

function setPosition(text) {
  const view = describe(text, []);
  if (view.error) { message(view.error); return false; }
  state.start = view.hub;
  state.moves = [];
  state.view = view;
  state.selected = null;
  draw();
  if (state.analysing) analyse();
  return true;
}

const status = (t) => { $('status').textContent = t; };
const message = (t) => { $('message').textContent = t; };

// ---- controls -------------------------------------------------------------

function wire() {
  $('start').onclick = () => setPosition(START_HUB);
  $('undo').onclick = () => {
    if (!state.moves.length) return;
    state.moves.pop();
    state.view = describe(state.start, state.moves);
    state.selected = null;
    draw();
    if (state.analysing) analyse();
  };
  $('flip').onclick = () => { state.flipped = !state.flipped; buildBoard(); };
  $('setup').onclick = () => {
    state.setup = !state.setup;
    $('setup').setAttribute('aria-pressed', String(state.setup));
    if (state.setup) { state.selected = null; draw(); }
  };
  $('side').onchange = () => {
    const hub = state.view && !state.view.error ? state.view.hub : state.start;
    setPosition($('side').value + hub.slice(1));
  };
  $('setfen').onclick = () => setPosition($('fen').value.trim());
  $('fen').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('setfen').click(); });
  $('variant').onchange = () => {
    state.variant = $('variant').value;
    send(`set-param name=variant value=${state.variant}`);
    setPosition(START_HUB);
  };
  $('multipv').onchange = () => { if (state.analysing) analyse(); };
  $('go').onclick = () => {
    state.analysing = !state.analysing;
    $('go').textContent = state.analysing ? 'Stop' : 'Analyse';
    $('go').classList.toggle('on', state.analysing);
    if (state.analysing) analyse(); else stop();
  };
}

(async () => {
  window.dammerOpenedAt = performance.now();
  wire();
  send('hub');
  send('init');
  try {
    const r = await fetch(DammerEngine.moduleFile());
    if (!r.ok) throw new Error(r.url + ': ' + r.status);
    ask = await loadRules(await r.arrayBuffer());
  } catch (e) {
    status('cannot load the engine: ' + e);
    return;
  }
  const hash = decodeURIComponent(location.hash.slice(1));
  if (!(hash && setPosition(hash))) setPosition(START_HUB);
  buildBoard();
  // The page starts analysing at once: that is what it is for.
  $('go').click();
})();
