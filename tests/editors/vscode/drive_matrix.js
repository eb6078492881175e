// Drives code-server for the matrix of a scripted two-engine, three-arm run (tests/editors/test_vscode_matrix.py):
// the case's hover with its row (one column per cell), the Test Explorer's cell items under the case, and the run
// page's matrix table from Show Run. Usage: node drive_matrix.js <baseUrl> <workspaceFolder>;
// Env: SHOT_DIR, RESULT_FILE, CHROMIUM, EVALENS_DOCS_IMG (copy the screenshots to docs/img/).
const { OUT, result, log, save, step, shot, openFile, gotoLine, dismissWidgets, chooseMenuItem, runCommand, runPageFrame, launch } = require('./lib');

const fs = require('fs');
const path = require('path');

const [BASE, FOLDER] = process.argv.slice(2);
const CASE = 'tables';

(async () => {
  const { browser, page } = await launch();
  try {
    await step('workbench', async () => {
      await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
      await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
      await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
    });

    await step('matrix-hover', async () => {
      await openFile(page, '20-tables.yaml');
      await gotoLine(page, 1, 3); // "name: tables"
      let text = '';
      for (let i = 0; i < 10 && !text.includes('Matrix'); i++) {
        await gotoLine(page, 1, 3);
        await runCommand(page, 'Show or Focus Hover');
        const hover = page.locator('.monaco-hover:visible').first();
        if (await hover.waitFor({ state: 'visible', timeout: 10000 }).then(() => true, () => false)) {
          await page.waitForTimeout(500);
          text = (await hover.innerText()).trim();
        }
        if (!text.includes('Matrix')) {
          await dismissWidgets(page);
          await page.waitForTimeout(1000); // the server may still be reading the reports
        }
      }
      result.hover = text;
      result.hoverCells = await page.locator('.monaco-hover:visible table td').allInnerTexts().catch(() => []);
      result.hoverHeads = await page.locator('.monaco-hover:visible table th').allInnerTexts().catch(() => []);
      // the matrix row is under the last run's details: scroll the hover to its end for the picture
      const box = await page.locator('.monaco-hover:visible').first().boundingBox().catch(() => null);
      if (box) {
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.wheel(0, 3000);
        await page.waitForTimeout(400);
      }
      await shot(page, 'matrix-hover.png', 'vscode-matrix-hover.png');
      await dismissWidgets(page);
    });

    await step('matrix-test-explorer', async () => {
      await runCommand(page, 'View: Show Testing');
      const tree = page.locator('.test-explorer .monaco-list-row');
      await tree.first().waitFor({ timeout: 30000 });
      const rowsInfo = () => tree.evaluateAll((rows) => rows.map((r) => ({
        text: (r.textContent || '').trim(),
        label: (r.getAttribute('aria-label') || '').trim(),
        level: Number(r.getAttribute('aria-level') || 0),
      })));
      // expand the package, the case file and the case (select a row, then ArrowRight) until the cell rows show
      for (let i = 0; i < 40; i++) {
        result.testExplorerRows = await rowsInfo();
        if (result.testExplorerRows.some((r) => r.text.includes('codex · gpt-fake'))) break;
        const closed = result.testExplorerRows.findIndex((r) => /^(pdf-tools|evals\/cases\/20-tables\.yaml|tables)$/.test(r.text));
        const rows = page.locator('.test-explorer .monaco-list-row[aria-expanded="false"]');
        const labels = await rows.evaluateAll((els) => els.map((r) => (r.textContent || '').trim()));
        const index = labels.findIndex((t) => /^(pdf-tools|evals\/cases\/20-tables\.yaml|tables)/.test(t));
        if (closed >= 0 && index >= 0) {
          await rows.nth(index).click().catch(() => undefined);
          await page.keyboard.press('ArrowRight');
        }
        await page.waitForTimeout(500);
      }
      result.testExplorerRows = await rowsInfo();
      await shot(page, 'matrix-test-explorer.png', 'vscode-matrix-test-explorer.png');
    });

    await step('matrix-show-run', async () => {
      // "Show Run" on the case: its newest report is a cell report, whose page has the whole matrix
      const tree = page.locator('.test-explorer .monaco-list-row');
      const rows = await tree.evaluateAll((els) => els.map((r) => (r.getAttribute('aria-label') || '').trim()));
      const index = rows.findIndex((l) => l.startsWith(`${CASE} (`) || l === CASE || l.startsWith(`${CASE} `));
      if (index < 0) throw new Error(`no Test Explorer row for ${CASE}: ${JSON.stringify(rows)}`);
      await tree.nth(index).click({ button: 'right' });
      await chooseMenuItem(page, 'Show Run');
      await page.locator('.tab', { hasText: `evalens: ${CASE}` }).first().waitFor({ timeout: 30000 });
      const frame = await runPageFrame(page, `u-${CASE}`);
      const table = frame.locator('section.matrix table.matrix-table');
      await table.waitFor({ state: 'visible', timeout: 15000 });
      result.pageMatrix = await table.locator('tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent || '').replace(/\s+/g, ' ').trim())));
      await frame.locator('section.matrix').scrollIntoViewIfNeeded();
      await page.waitForTimeout(500);
      await shot(page, 'matrix-show-run.png', 'vscode-matrix-show-run.png');
      // the HTML page's matrix section alone (the page `evalens show --html` writes too)
      const section = path.join(OUT, 'matrix-page.png');
      await frame.locator('section.matrix').screenshot({ path: section });
      if (process.env.EVALENS_DOCS_IMG) {
        fs.copyFileSync(section, path.resolve(__dirname, '..', '..', '..', 'docs', 'img', 'run-page-matrix.png'));
      }
    });

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
