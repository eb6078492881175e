// Drives code-server for `claude plugin eval` cases (tests/editors/test_vscode_plugin_eval.py, issue 38): the
// "▶ Run" lens of each case's prompt.md (CASES: the plugin's cases, comma-separated, under PLUGIN/evals/) is
// clicked and its verdict lens waited for; the Test Explorer's row of each case is read; then the window is
// reloaded (a new extension host and server) and each case's verdict lens read again, restored from the report.
// The cases of SHOWN are never run here: their verdict lens (from the CLI's own results) is read at the start
// and after the reload. Usage: node drive_plugin_eval.js <baseUrl> <workspaceFolder>; Env: SHOT_DIR,
// RESULT_FILE, CHROMIUM, PLUGIN, CASES, SHOWN, LENS_TIMEOUT_MS (default 300000).
const {
  OUT, result, step, dismissWidgets, scrollEditorToTop, runCommand, testRows, caseRow, showTesting, openPath, lensTexts,
  waitForLens, drive,
} = require('./lib');

const [BASE, FOLDER] = process.argv.slice(2);
const PLUGIN = process.env.PLUGIN;
const CASES = (process.env.CASES || '').split(',').filter(Boolean);
const SHOWN = (process.env.SHOWN || '').split(',').filter(Boolean); // cases only read, never run here
const LENS_TIMEOUT = Number(process.env.LENS_TIMEOUT_MS || 300000);
const VERDICT = /[✓✗⚠≈○] (PASS|FAIL|ERROR|FLAKY|SKIP)/;

async function workbench(page) {
  await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
  await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
}

/** Open the case's prompt.md at its top, where its lenses are. */
async function openCase(page, name) {
  await openPath(page, `${PLUGIN}/evals/${name}/prompt.md`);
  await scrollEditorToTop(page);
  await dismissWidgets(page);
}

drive(async (page) => {
  result.lenses = {};
  result.restored = {};
  result.shown = {};
  await step('workbench', async () => {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
    await workbench(page);
  });

  await step('cli-results', async () => {
    for (const name of SHOWN) {
      await openCase(page, name);
      await waitForLens(page, VERDICT, 60000);
      await page.waitForTimeout(500);
      result.shown[name] = await lensTexts(page);
    }
    await page.screenshot({ path: `${OUT}/cli-results.png` });
  });

  for (const name of CASES) {
    await step(`run-${name}`, async () => {
      await openCase(page, name);
      await waitForLens(page, '▶ Run');
      result.lenses[name] = { before: await lensTexts(page) };
      // the lens line holds "▶ Run | Dry run | Run 5×": click the run lens itself
      const run = page.locator('.editor-instance .codelens-decoration a', { hasText: /^▶ Run$/ }).first();
      await run.click({ timeout: 15000 });
      await waitForLens(page, VERDICT, LENS_TIMEOUT);
      await page.waitForTimeout(500);
      result.lenses[name].after = await lensTexts(page);
      await page.screenshot({ path: `${OUT}/lens-${name}.png` });
    });
  }

  await step('test-explorer', async () => {
    await showTesting(page);
    for (let i = 0; i < 60; i++) {
      result.testExplorerRows = await testRows(page);
      const done = CASES.every((name) => {
        const row = caseRow(result.testExplorerRows, name);
        return row && /^(passed|failed|error|skipped)$/.test(row.state);
      });
      if (done) break;
      await page.waitForTimeout(500);
    }
    await page.screenshot({ path: `${OUT}/test-explorer.png` });
  });

  await step('reload', async () => {
    // a new extension host and a new server: the verdicts come back from the plugin's report
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForTimeout(2000);
    await workbench(page);
    for (const name of [...CASES, ...SHOWN]) {
      await openCase(page, name);
      await waitForLens(page, VERDICT, 60000);
      await page.waitForTimeout(500);
      result.restored[name] = await lensTexts(page);
    }
    await page.screenshot({ path: `${OUT}/reloaded.png` });
  });
});
