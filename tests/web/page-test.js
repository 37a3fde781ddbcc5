// The analysis page in Chromium (node tests/web/browser.js page): it loads
// and analyses at once, takes a pasted position, analyses it to depth 12
// or more with its lines, changes the analysis when a move is clicked, and
// stops; an endgame of four pieces is scored from the endgame tables the
// worker fetched. Prints the time from opening the page to the first
// analysis line.
'use strict';

// A king and a man against two men: a win the tables know at once, which
// a depth-12 search scores as about five men.
const ENDGAME = 'W:WK46,30:B6,7';
const PASTED = 'W:W27,28,32,33,34,35,37,38,39,40,42,43,44,45,47,48,49,50:B1,2,3,4,6,7,8,9,11,12,13,14,16,17,18,19,23,24';

module.exports = async function pageTest(base, page, option, fail) {
  const depth = async () => parseInt(await page.textContent('#depth')) || 0;
  const waitDepth = async (d, what) => {
    await page.waitForFunction((d) => parseInt(document.getElementById('depth').textContent) >= d, d,
      { timeout: 120000 }).catch(() => fail(`${what}: depth ${d} not reached`));
  };
  await page.goto(base + '/');
  await page.waitForFunction(() => window.dammerFirstInfoAt, null, { timeout: 60000 });
  const first = await page.evaluate(() => window.dammerFirstInfoAt);
  console.log(`page: first analysis line ${first.toFixed(0)} ms after the page was opened`);

  await page.fill('#fen', PASTED);
  await page.click('#setfen');
  const fen = await page.inputValue('#fen');
  if (!fen.startsWith('W:')) fail(`the pasted position was not taken: ${fen}`);
  await waitDepth(12, 'the pasted position');
  const lines = await page.$$eval('#lines li', (ls) => ls.map((l) => l.textContent));
  console.log(`page: pasted position, depth ${await depth()}, ${lines.length} lines: ${lines[0]}`);
  if (lines.length !== 3) fail(`3 lines expected, ${lines.length} shown`);

  const shot = option('screenshot', null);
  if (shot) {
    await page.setViewportSize({ width: 1100, height: 720 });
    await page.screenshot({ path: shot });
    console.log(`page: screenshot ${shot}`);
  }
  // Click the best move: the analysis turns to the position after it.
  const best = lines[0].trim().split(/\s+/)[1];
  const [from, to] = best.split(/[-x]/).map(Number);
  await page.click(`[data-sq="${from}"]`);
  await page.click(`[data-sq="${to}"]`);
  const moves = await page.textContent('#moves');
  if (moves.trim() !== best) fail(`clicked ${best}, moves show ${moves}`);
  await page.waitForFunction((best) => {
    const li = document.querySelector('#lines li');
    return li && !li.textContent.includes(' ' + best + ' ') && parseInt(document.getElementById('depth').textContent) >= 8;
  }, best, { timeout: 60000 }).catch(() => fail('the analysis did not turn to the clicked move'));
  const after = await page.$$eval('#lines li', (ls) => ls.map((l) => l.textContent));
  console.log(`page: after ${best}: ${after[0]}`);
  await waitDepth(12, 'after the clicked move');

  await page.fill('#fen', ENDGAME);
  await page.click('#setfen');
  await page.waitForFunction(() => {
    const li = document.querySelector('#lines li');
    return li && li.textContent.includes('win (tables)');
  }, null, { timeout: 20000 }).catch(() => fail(`${ENDGAME}: not scored from the endgame tables`));
  const won = await page.$$eval('#lines li', (ls) => ls.map((l) => l.textContent));
  console.log(`page: ${ENDGAME}: ${won[0]}`);

  await page.click('#go');
  await page.waitForFunction(() => document.getElementById('status').textContent === 'stopped', null,
    { timeout: 2000 }).catch(() => fail('stop was not answered within 2 s'));
  const d = await depth();
  await page.waitForTimeout(500);
  if ((await depth()) !== d) fail('the depth still changes after stop');
  console.log(`page: stopped at depth ${d}`);
};
