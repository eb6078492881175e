// Drives code-server for the matrix of a scripted two-engine, three-arm run (tests/editors/test_vscode_matrix.py):
// the case's hover with its row (one line per engine · model · arm cell, then each engine's uplift per arm), the
// Test Explorer's cell items under the case (each with its state's icon), the run page's matrix table from Show
// Run, and running one cell item (its engine, model and arm). Usage: node drive_matrix.js <baseUrl> <workspaceFolder>;
// Env: SHOT_DIR, RESULT_FILE, CHROMIUM, EVALENS_DOCS_IMG (copy the screenshots to docs/img/).
const { OUT, result, log, save, step, shot, openFile, gotoLine, dismissWidgets, chooseMenuItem, runCommand, runPageFrame, drive } = require('./lib');

const fs = require('fs');
const path = require('path');

const [BASE, FOLDER] = process.argv.slice(2);
const CASE = 'tables';
const RUN_CELL = /claude-code · .* · no skill/; // the cell item run from the Test Explorer (the fake serves claude)

/** Drags the sash whose middle is nearest (x, y) by (dx, dy): widens the side bar, or resizes a hover. */
async function dragSash(page, selector, pick, dx, dy) {
  const sashes = page.locator(selector);
  const boxes = [];
  for (let i = 0; i < (await sashes.count()); i++) {
    const box = await sashes.nth(i).boundingBox().catch(() => null);
    if (box && box.width > 0 && box.height > 0) boxes.push(box);
  }
  const box = pick(boxes);
  if (!box) return false;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 5 });
  await page.mouse.move(x + dx, y + dy, { steps: 5 });
  await page.mouse.up();
  await page.waitForTimeout(400);
  return true;
}

/** The JSON reports in the workspace's reports folder that are not cell reports of the matrix run. */
function plainReports() {
  const dir = path.join(FOLDER, 'evals', 'reports');
  return fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !/-cell-\d+\.json$/.test(n)).map((n) => path.join(dir, n));
}

drive(async (page) => {
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
      // the codicon the label starts with (a cell item's state), as VS Code drew it
      icons: [...r.querySelectorAll('.label .codicon, .test-label .codicon, .monaco-icon-label .codicon, [class*="codicon-"]')]
        .flatMap((e) => [...e.classList].filter((c) => c.startsWith('codicon-') && c !== 'codicon-modifier-spin')),
    })));
    // expand the package, the case file and the case (select a row, then ArrowRight) until the cell rows show
    for (let i = 0; i < 40; i++) {
      result.testExplorerRows = await rowsInfo();
      if (result.testExplorerRows.some((r) => r.text.includes('codex · gpt-fake'))) break;
      const closed = result.testExplorerRows.findIndex((r) => /^(pdf-tools|evals\/cases\/20-tables\.yaml|tables)/.test(r.text)); // a row with a restored result also shows its duration
      const rows = page.locator('.test-explorer .monaco-list-row[aria-expanded="false"]');
      const labels = await rows.evaluateAll((els) => els.map((r) => (r.textContent || '').trim()));
      const index = labels.findIndex((t) => /^(pdf-tools|evals\/cases\/20-tables\.yaml|tables)/.test(t));
      if (closed >= 0 && index >= 0) {
        await rows.nth(index).click().catch(() => undefined);
        await page.keyboard.press('ArrowRight');
      }
      await page.waitForTimeout(500);
    }
    // a side bar wide enough to read each cell's label and its k/N, interval and cost
    const side = await page.locator('.part.sidebar').first().boundingBox().catch(() => null);
    if (side) {
      const edge = side.x + side.width;
      await dragSash(page, '.monaco-sash.vertical', (b) => b.filter((q) => Math.abs(q.x + q.width / 2 - edge) < 8)[0], 1000 - edge, 0);
    }
    result.sidebarWidth = (await page.locator('.part.sidebar').first().boundingBox().catch(() => null))?.width;
    await page.waitForTimeout(500);
    result.testExplorerRows = await rowsInfo();
    await shot(page, 'matrix-test-explorer.png', 'vscode-matrix-test-explorer.png');
  });

  await step('matrix-show-run', async () => {
    // "Show Run" on the case: its newest report is a cell report, whose page has the whole matrix
    const tree = page.locator('.test-explorer .monaco-list-row');
    // by the row's text, which starts with the case's name (VS Code's aria-label is the description when there is
    // one, e.g. a restored result's `stale: …`)
    const rows = await tree.evaluateAll((els) => els.map((r) => (r.textContent || '').trim()));
    const index = rows.findIndex((l) => l.startsWith(CASE) && !l.startsWith(`${CASE}.`));
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

  await step('matrix-run-cell', async () => {
    // run one cell item: the case runs on that cell's engine and model, as its arm (a new plain report)
    await dismissWidgets(page);
    await runCommand(page, 'View: Show Testing');
    const before = new Set(plainReports());
    const tree = page.locator('.test-explorer .monaco-list-row');
    const texts = await tree.evaluateAll((els) => els.map((r) => (r.textContent || '').trim()));
    const index = texts.findIndex((t) => RUN_CELL.test(t));
    if (index < 0) throw new Error(`no cell item matching ${RUN_CELL}: ${JSON.stringify(texts)}`);
    result.ranCell = texts[index];
    await tree.nth(index).click({ button: 'right' });
    await chooseMenuItem(page, 'Run Test');
    let report = '';
    for (let i = 0; i < 240 && !report; i++) {
      await page.waitForTimeout(500);
      report = plainReports().find((p) => !before.has(p)) || '';
    }
    if (!report) throw new Error('the cell item\'s run wrote no report in 120 s');
    await page.waitForTimeout(1500); // the report is written atomically; the Test Explorer catches up
    result.cellRunReport = report;
    await shot(page, 'matrix-run-cell.png');
  });
});
