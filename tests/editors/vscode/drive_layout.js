// Drives code-server for issue 45's layout and restore defects (tests/editors/test_vscode_layout.py):
// - lens-beside: a case the fake agent fails (a long FAIL reason) is run, Show Run opens its page beside it, and
//   in the case's half of the window every lens of the line is on screen and "Show run" takes a click (it was cut
//   off at the line's end);
// - reload: with the run page open, the window is reloaded; the page comes back, drawn again from the run log;
// - cli-run: `evalens run` in a terminal ends a case ERROR: its lens and its Test Explorer row say so; stale: the
//   case edited, the row says it is stale and is drawn outdated; after the reload the row still shows the ERROR, marked stale;
// - no-ignore: the quick fix menu on an enforced rule's problem (path-escape, plugin-eval-template) offers no
//   "Ignore" action, while a tunable rule's problem on the same file does.
// Usage: node drive_layout.js <baseUrl> <workspaceFolder>; Env: SHOT_DIR, RESULT_FILE, CHROMIUM, CASE_FILE,
// CASE_NAME, ESCAPE_FILE, GRADER_FILE, LENS_TIMEOUT_MS.
const {
  OUT, result, step, shot, openFile, openPath, gotoLine, dismissWidgets, scrollEditorToTop, runCommand, drive, showTesting,
  testRows, caseRow,
} = require('./lib');

const fs = require('fs');
const path = require('path');

const [BASE, FOLDER] = process.argv.slice(2);
const CASE_FILE = process.env.CASE_FILE;
const CASE_NAME = process.env.CASE_NAME;
const LENS_TIMEOUT = Number(process.env.LENS_TIMEOUT_MS || 240000);
const ONLY = (process.env.STEPS || '').split(',').filter(Boolean);
const wanted = (name) => ONLY.length === 0 || ONLY.includes(name);

/** The lens line of the active editor group's first code lens row. */
const activeLens = (page, text) =>
  page.locator('.editor-group-container.active .editor-instance .codelens-decoration', { hasText: text }).first();

/** Each lens of the active editor's first lens line: its title, whether its box is inside the line's visible box
 * and inside the editor, and whether the point at its centre hits it (what a click there reaches). */
async function lensGeometry(page) {
  return activeLens(page, '▶ Run eval').evaluate((line) => {
    const editor = line.closest('.monaco-editor').getBoundingClientRect();
    const box = line.getBoundingClientRect();
    return {
      lineWidth: line.scrollWidth,
      shownWidth: Math.round(Math.min(box.right, editor.right) - box.left),
      lenses: [...line.querySelectorAll('a')].map((a) => {
        const r = a.getBoundingClientRect();
        const cx = r.left + Math.min(r.width / 2, 8);
        const cy = r.top + r.height / 2;
        const hit = document.elementFromPoint(cx, cy);
        return {
          title: a.textContent.trim(),
          left: Math.round(r.left),
          right: Math.round(r.right),
          visible: r.left >= box.left && cx <= Math.min(box.right, editor.right) - 1,
          hit: !!hit && (hit === a || a.contains(hit)),
        };
      }),
    };
  });
}

/** The run page frames open in the workbench: each one's text (its first 3000 characters). */
async function runPages(page) {
  const out = [];
  for (const frame of page.frames()) {
    const text = await frame.evaluate(() => (document.querySelector('nav.filters') && document.body
      ? document.body.innerText.replace(/\s+/g, ' ').trim().slice(0, 3000) : null)).catch(() => null);
    if (text) out.push({ frame, text });
  }
  return out;
}

async function waitRunPage(page, timeout = 60000) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const found = (await runPages(page)).find((p) => p.text.includes(CASE_NAME));
    if (found) return found;
    await page.waitForTimeout(300);
  }
  return null;
}

/** The quick fix menu's titles at the problem of the active editor whose marker reads `code` (F8, Go to Next
 * Problem, puts the cursor on it, as a user gets there), and the marker's text; the menu is closed again. */
async function quickFixes(page, code) {
  await gotoLine(page, 1, 1);
  let marker = '';
  for (let i = 0; i < 8 && !marker.includes(code); i++) {
    await page.keyboard.press('F8');
    const widget = page.locator('.marker-widget').first();
    await widget.waitFor({ timeout: 10000 }).catch(() => undefined);
    await page.waitForTimeout(300);
    marker = (await widget.innerText({ timeout: 2000 }).catch(() => '')).replace(/\s+/g, ' ').trim();
  }
  if (!marker.includes(code)) throw new Error(`no ${code} problem to go to: ${marker}`);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  await page.keyboard.press('Control+.');
  const rows = page.locator('.action-widget .monaco-list-row');
  // no action at all: VS Code shows "No code actions available" instead of the menu
  const shown = await rows.first().waitFor({ timeout: 15000 }).then(() => true, () => false);
  if (!shown) return { marker, titles: [] };
  await page.waitForTimeout(800); // every provider has answered
  const titles = (await rows.evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim())));
  return { marker, titles };
}

const CLI_NAME = process.env.CLI_NAME;

/** The Test Explorer row of case `name` once `ok(row)` holds (or the last one seen after `timeout`): its state,
 * aria-label, description text and whether VS Code draws its result as outdated (`retired`, dimmed). */
async function waitRow(page, name, ok, timeout) {
  const deadline = Date.now() + timeout;
  let row = null;
  while (Date.now() < deadline) {
    // a row with a description is labelled by it ("stale: … (Errored)…"); its text starts with the case's name
    const rows = await testRows(page);
    row = caseRow(rows, name) || rows.find((r) => r.text.startsWith(name)) || null;
    if (row && ok(row)) return row;
    await page.waitForTimeout(500);
  }
  return row || { label: '', text: '', state: 'missing', retired: false };
}

drive(async (page) => {
  await step('workbench', async () => {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
  });

  if (wanted('lens-beside')) await step('lens-beside', async () => {
    await openFile(page, CASE_FILE);
    await scrollEditorToTop(page);
    await activeLens(page, '▶ Run eval').waitFor({ timeout: 60000 });
    await activeLens(page, '▶ Run eval').locator('a', { hasText: '▶ Run eval' }).first().click({ timeout: 15000 });
    await activeLens(page, '✗ FAIL').waitFor({ timeout: LENS_TIMEOUT });
    await dismissWidgets(page);
    await activeLens(page, 'Show run').locator('a', { hasText: 'Show run' }).first().click({ timeout: 15000 });
    const opened = await waitRunPage(page);
    if (!opened) throw new Error('Show run opened no run page');
    result.pageBefore = opened.text;
    // the case's editor is the active group again (Show run keeps the focus there): its half of the window
    await page.locator('.tab', { hasText: CASE_FILE }).first().click();
    await dismissWidgets(page);
    await page.waitForTimeout(800);
    result.besideGeometry = await lensGeometry(page);
    result.lensLine = (await activeLens(page, '▶ Run eval').innerText()).replace(/\s+/g, ' ').trim();
    await shot(page, 'lens-beside-show-run.png', 'vscode-45-lens-beside-show-run.png');
    // a real click at the lens's left edge, where a user aims: the page is drawn again (a marker set in the old
    // document is gone)
    await opened.frame.evaluate(() => { document.body.dataset.probe = 'old'; });
    const show = result.besideGeometry.lenses.find((l) => l.title === 'Show run');
    if (!show) throw new Error(`no Show run lens: ${JSON.stringify(result.besideGeometry)}`);
    const box = await activeLens(page, 'Show run').locator('a', { hasText: 'Show run' }).first().boundingBox();
    await page.mouse.click(box.x + 4, box.y + box.height / 2);
    result.showRunClickRedrew = false;
    for (let i = 0; i < 80 && !result.showRunClickRedrew; i++) {
      await page.waitForTimeout(250);
      const again = (await runPages(page)).find((p) => p.text.includes(CASE_NAME));
      result.showRunClickRedrew = !!again && (await again.frame.evaluate(() => document.body.dataset.probe !== 'old').catch(() => false));
    }
  });

  if (wanted('cli-run')) await step('cli-run', async () => {
    // #8: a run started from a terminal (`evalens run`) ends ERROR; the lens shows it, and so does the Test
    // Explorer's row (it stayed "Not yet run")
    await runCommand(page, 'Terminal: Create New Terminal');
    const term = page.locator('.terminal-wrapper.active .xterm').first();
    await term.waitFor({ timeout: 30000 });
    await page.waitForTimeout(2000); // the shell's prompt
    await term.click();
    const reports = path.join(FOLDER, 'evals', 'reports');
    const count = () => fs.readdirSync(reports).filter((f) => f.endsWith('.json')).length;
    const before = count();
    await page.keyboard.type(`'${process.env.PY}' -m evalens run evals/cases/${process.env.CLI_FILE}; echo CLI-EXIT=$?`);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${OUT}/cli-typed.png` });
    // the CLI is done when its report is written (the terminal is drawn on a canvas: its text is not read)
    for (let i = 0; i < LENS_TIMEOUT / 500 && count() === before; i++) await page.waitForTimeout(500);
    if (count() === before) {
      await page.screenshot({ path: `${OUT}/cli-no-report.png` });
      throw new Error('`evalens run` in the terminal wrote no report');
    }
    await page.waitForTimeout(1000);
    result.cliReports = count() - before;
    await runCommand(page, 'View: Close Panel').catch(() => undefined);
    await openFile(page, process.env.CLI_FILE);
    await scrollEditorToTop(page);
    await activeLens(page, '⚠ ERROR').waitFor({ timeout: 60000 });
    result.cliLens = (await activeLens(page, '⚠ ERROR').innerText()).replace(/\s+/g, ' ').trim();
    await showTesting(page);
    result.cliRow = await waitRow(page, CLI_NAME, (r) => r.state === 'error', 60000);
    await shot(page, 'test-explorer-cli-error.png', 'vscode-45-test-explorer-cli-error.png');
  });

  if (wanted('stale')) await step('stale', async () => {
    // #8: the case edited and saved: its result is stale (the lens's "· stale"), and the Test Explorer marks it
    await openFile(page, process.env.CLI_FILE);
    await gotoLine(page, Number(process.env.CLI_PROMPT_LINE), Number(process.env.CLI_PROMPT_COL));
    await page.keyboard.type(' now'); // inside the quotes
    await page.keyboard.press('Control+S');
    await activeLens(page, '· stale').waitFor({ timeout: 60000 });
    result.staleLens = (await activeLens(page, '⚠ ERROR').innerText()).replace(/\s+/g, ' ').trim();
    await showTesting(page);
    // the case's own text changed: marked, and drawn outdated (dimmed)
    const staleAndDimmed = (r) => r.text.includes('stale: ') && r.retired;
    result.staleRow = await waitRow(page, CLI_NAME, staleAndDimmed, 30000);
    result.staleNeededRefresh = !staleAndDimmed(result.staleRow);
    if (result.staleNeededRefresh) {
      await runCommand(page, 'Test: Refresh Tests');
      result.staleRow = await waitRow(page, CLI_NAME, staleAndDimmed, 30000);
    }
    await shot(page, 'test-explorer-stale.png', 'vscode-45-test-explorer-stale.png');
  });

  if (wanted('reload')) await step('reload', async () => {
    // the run page is open beside the case: after a reload it is there again, drawn from the run log
    if (!(await waitRunPage(page, 5000))) throw new Error('no run page open before the reload');
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForTimeout(3000);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
    const restored = await waitRunPage(page, 90000);
    result.restoredTabs = (await page.locator('.tabs-container .tab').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    result.pageAfterReload = restored ? restored.text : null;
    await shot(page, 'run-page-after-reload.png', 'vscode-45-run-page-after-reload.png');
    // the Test Explorer's results survive it too: the CLI's ERROR, still marked stale and dimmed
    await showTesting(page);
    result.rowAfterReload = await waitRow(page, CLI_NAME, (r) => r.state === 'error' && r.text.includes('stale: ') && r.retired, 60000);
  });

  if (wanted('no-ignore')) await step('no-ignore', async () => {
    await runCommand(page, 'View: Close All Editors').catch(() => undefined);
    await openFile(page, process.env.ESCAPE_FILE);
    await page.locator('.editor-instance .squiggly-error').first().waitFor({ timeout: 60000 });
    result.escapeFixes = await quickFixes(page, 'path-escape');
    await shot(page, 'no-ignore-path-escape.png', 'vscode-45-no-ignore-path-escape.png');
    await page.keyboard.press('Escape');
    result.unknownKeyFixes = await quickFixes(page, 'unknown-key');
    await page.keyboard.press('Escape');
    await openPath(page, process.env.GRADER_FILE);
    await page.locator('.editor-instance .squiggly-error').first().waitFor({ timeout: 60000 });
    result.templateFixes = await quickFixes(page, 'plugin-eval-template');
    await page.keyboard.press('Escape');
    await scrollEditorToTop(page);
  });
});
