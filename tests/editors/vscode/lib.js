// Helpers shared by the code-server drivers (drive*.js): steps recorded for pytest, what a user does in the
// workbench (quick open, go to line, palette commands, context menus, webview frames) and what the Test Explorer
// shows.
const fs = require('fs');
const path = require('path');

const OUT = process.env.SHOT_DIR || '.';
const RESULT_FILE = process.env.RESULT_FILE || path.join(OUT, 'result.json');
// EVALENS_DOCS_IMG=1: the screenshots the docs show are also written to docs/img/ (never in CI, so it does not
// rewrite the docs); tests/editors/doc_images.py is the same switch for the Neovim text captures.
const DOCS_IMG = process.env.EVALENS_DOCS_IMG ? path.resolve(__dirname, '..', '..', '..', 'docs', 'img') : '';

const result = { steps: [] };
const t0 = Date.now();
const log = (m) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const save = () => fs.writeFileSync(RESULT_FILE, JSON.stringify(result, null, 2));
async function step(name, fn) {
  log(`${name} …`);
  try {
    const value = await fn();
    result.steps.push({ name, ok: true, seconds: (Date.now() - t0) / 1000 });
    save();
    return value;
  } catch (e) {
    result.steps.push({ name, ok: false, error: String(e && e.message ? e.message : e).split('\n')[0] });
    save();
    throw new Error(`step "${name}" failed: ${e && e.message ? e.message : e}`);
  }
}

/** A screenshot to SHOT_DIR/`name`; with EVALENS_DOCS_IMG set, copied to docs/img/`docName` too. */
async function shot(page, name, docName = '', options = {}) {
  const file = path.join(OUT, name);
  await page.screenshot({ path: file, ...options });
  if (DOCS_IMG && docName) {
    fs.copyFileSync(file, path.join(DOCS_IMG, docName));
  }
}

async function openFile(page, name) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 30000 });
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 30000 });
  await page.waitForSelector('.editor-instance .monaco-editor .view-lines', { timeout: 30000 });
}

/** Quick-open a file by a path under the workspace (two files of one name, SKILL.md or prompt.md: the name alone is
 * ambiguous). */
async function openPath(page, relative) {
  const name = relative.split('/').pop();
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(relative);
  // the row of this file (its folder's path is the row's description), not another file of the same name
  const parts = relative.split('/');
  const folder = parts.length > 1 ? parts[parts.length - 2] : name;
  const dir = parts.length > 1 ? parts.slice(0, -1).join('/') : name;
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).filter({ hasText: dir }).first();
  await row.waitFor({ timeout: 30000 });
  await row.click();
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 30000 });
  if (parts.length > 1) {
    // the active tab's name is the old editor's too (prompt.md after prompt.md): wait for this file's folder in
    // the breadcrumbs, an item of exactly that name (`no-greeting` is inside `cli-no-greeting`)
    const exact = new RegExp(`^\\s*${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
    await page.locator('.breadcrumbs-control .monaco-breadcrumb-item', { hasText: exact }).first()
      .waitFor({ timeout: 30000 });
  }
  await page.waitForSelector('.editor-instance .monaco-editor .view-lines', { timeout: 30000 });
}

/** Every code lens line of the active editor, top to bottom. */
async function lensTexts(page) {
  return (await page.locator('.editor-instance .codelens-decoration').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** Wait (60 s unless told) until a code lens line of the active editor holds `text` (a string or a RegExp). */
async function waitForLens(page, text, timeout = 60000) {
  await page.locator('.editor-instance .codelens-decoration', { hasText: text }).first().waitFor({ timeout });
}

async function gotoLine(page, line, column = 1) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10000 });
}

async function dismissWidgets(page) {
  await page.keyboard.press('Escape');
  await page.mouse.move(5, 790);
  await page.locator('.monaco-hover:visible').waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
}

async function scrollEditorToTop(page) {
  await gotoLine(page, 1, 1);
  const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
  const box = await editor.boundingBox();
  if (box) {
    await page.mouse.move(box.x + box.width / 2, box.y + 40);
    await page.mouse.wheel(0, -3000);
    await page.waitForTimeout(300);
    await page.mouse.move(5, 790);
  }
}

/** Choose a context-menu item. Under load a click can land while the menu is still settling and leave it open
 * with the item only highlighted; then Enter activates the highlighted item (only while the menu is open). */
async function chooseMenuItem(page, text) {
  const item = page.locator('.monaco-menu .action-label', { hasText: text }).first();
  await item.click({ timeout: 15000 });
  for (let i = 0; i < 3; i++) {
    await page.waitForTimeout(500);
    if (!(await item.isVisible().catch(() => false))) return;
    await item.hover().catch(() => undefined);
    await page.keyboard.press('Enter');
  }
}

async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 15000 });
  await page.keyboard.press('Enter');
}

/** The frame of an evalens run page (a webview; they nest two iframes) whose <body data-anchor> starts with
 * `anchorPrefix` ('' with `exact`: a page opened at no anchor, e.g. a whole report). No eval: the page's CSP. */
async function runPageFrame(page, anchorPrefix, exact = false, timeout = 30000) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const ok = await frame.evaluate(({ prefix, whole }) => {
        const body = document.body;
        if (!body || !document.querySelector('nav.filters')) return false;
        const anchor = body.dataset.anchor || '';
        return whole ? anchor === prefix : anchor.startsWith(prefix);
      }, { prefix: anchorPrefix, whole: exact }).catch(() => false);
      if (ok) return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error('no evalens run page in a webview');
}

/** Every Test Explorer row as VS Code draws it: `label`, its aria-label ("<name> (<state>)…"; file rows show their
 * path), `text` (label, description, tags), `level`, `icons` (its codicon-testing-* classes), `state`, the live
 * state from the row's state icon: running, passed, failed, error, queued, skipped or unset, and `retired`.
 *
 * Read a test's state from `state`, never from the aria-label's "(<state>)". VS Code draws a row's icon again
 * when its test's state changes, but sets the aria-label only when the row itself is laid out again (read in
 * the code-server build: testingExplorerView's renderElement re-renders the template). A case that started
 * while a failure peek was open kept "Not yet run" in its aria-label for its whole run, its icon spinning. */
async function testRows(page) {
  return page.locator('.test-explorer .monaco-list-row').evaluateAll((rows) => rows.map((r) => {
    const icon = r.querySelector('.computed-state');
    const cls = icon ? icon.className : '';
    const named = /codicon-testing-(error|failed|passed|queued|skipped|unset)-icon/.exec(cls);
    return {
      label: (r.getAttribute('aria-label') || '').trim(),
      text: (r.textContent || '').trim(),
      level: Number(r.getAttribute('aria-level') || 0),
      icons: [...r.querySelectorAll('[class*="codicon-testing-"]')]
        .map((e) => [...e.classList].filter((c) => c.startsWith('codicon-testing-')).join(' ')).join(' '),
      state: /codicon-loading/.test(cls) ? 'running' : named ? named[1] : '',
      retired: /\bretired\b/.test(cls), // a result marked outdated (invalidateTestResults), drawn dimmed
    };
  }));
}

/** The row of the case named `name` (its aria-label starts "<name> ("), or undefined. */
function caseRow(rows, name) {
  return rows.find((r) => r.label.startsWith(`${name} (`));
}

/** The Testing view, every row expanded. */
async function showTesting(page) {
  await runCommand(page, 'View: Show Testing');
  const tree = page.locator('.test-explorer .monaco-list-row');
  await tree.first().waitFor({ timeout: 30000 });
  for (let i = 0; i < 12; i++) {
    const closed = page.locator('.test-explorer .monaco-list-row[aria-expanded="false"]');
    if ((await closed.count()) === 0) break;
    await closed.first().locator('.monaco-tl-twistie').click().catch(() => undefined);
    await page.waitForTimeout(200);
  }
}

async function launch() {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
  page.on('pageerror', (e) => log('pageerror: ' + e.message));
  return { browser, page };
}

/** A driver's whole run: a browser, the steps in `body(page)`, then the outcome in the result file (`ok`, the
 * first failure's message and a failure.png) and the exit code; the browser is closed whatever happened. */
function drive(body) {
  (async () => {
    const { browser, page } = await launch();
    try {
      await body(page);
      result.ok = true;
      save();
      log('ALL OK');
    } catch (e) {
      console.error('FAIL', e.message);
      await page.screenshot({ path: `${OUT}/failure.png` }).catch(() => undefined);
      result.ok = false;
      result.error = e.message;
      save();
      process.exitCode = 1;
    } finally {
      await browser.close();
    }
  })();
}

module.exports = {
  OUT, result, log, save, step, shot, openFile, gotoLine, dismissWidgets, scrollEditorToTop, chooseMenuItem, runCommand,
  runPageFrame, launch, testRows, caseRow, showTesting, openPath, lensTexts,
  waitForLens, drive,
};
