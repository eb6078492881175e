// Drives code-server for defects 6, 7, 11 and 1 of issue 27 (tests/editors/test_vscode_defects.py): Cancel says so
// (and the Runs view lists the cancelled run as cancelled), a renamed case keeps its run state, the wording of a
// FLAKY case, of Run 5×'s progress, of the hover's report link and the README's images, and the extension wakes
// only for eval files.
// Usage: node drive_defects.js <baseUrl> <workspaceFolder>
// Env: SHOT_DIR, RESULT_FILE, CHROMIUM, LENS_TIMEOUT_MS, SLOW_FILE / SLOW_CASE (a case whose agent sleeps until
// cancelled), CONFIG_ONLY / TASK_ONLY (folders without evalens's Python: one with only config.yaml, one with a
// task.md), NEW_NAME (what extract-text is renamed to), FLAKY_FILE / FLAKY_CASE (a case the fake model fails on odd
// runs and passes on even ones), STEPS (comma-separated: only these steps, for a quicker look at one).
const fs = require('fs');
const path = require('path');
const {
  OUT, result, log, save, step, shot, openFile, gotoLine, dismissWidgets, scrollEditorToTop, runCommand, chooseMenuItem,
  runPageFrame, drive, testRows, caseRow, showTesting,
} = require('./lib');

const [BASE, FOLDER] = process.argv.slice(2);
const LENS_TIMEOUT = Number(process.env.LENS_TIMEOUT_MS || 240000);
const SLOW_FILE = process.env.SLOW_FILE || '05-slow.yaml';
const SLOW_CASE = process.env.SLOW_CASE || 'slow-case';
const NEW_NAME = process.env.NEW_NAME || 'text-extraction';
const FLAKY_FILE = process.env.FLAKY_FILE || '06-wobbly.yaml';
const FLAKY_CASE = process.env.FLAKY_CASE || 'wobbly';
const FAKE_LOG = path.join(OUT, 'fakemodel', 'requests.jsonl');
const ONLY = (process.env.STEPS || '').split(',').filter(Boolean);
const wanted = (name) => ONLY.length === 0 || ONLY.includes(name);

async function testResultsText(page, until) {
  await runCommand(page, 'Test Results: Focus on Test Results View').catch(() => undefined);
  let text = '';
  for (let i = 0; i < 60; i++) {
    text = (await page.locator('.xterm-rows').allInnerTexts().catch(() => [])).join('\n');
    if (!until(text)) {
      text = (await page.locator('.xterm-accessibility-tree').allInnerTexts().catch(() => [])).join('\n');
    }
    if (until(text)) break;
    await page.waitForTimeout(250);
  }
  return text;
}

/** Every line the Test Results terminal holds, scrolled through from the bottom up (it draws only what shows). */
async function terminalLines(page) {
  const rows = page.locator('.xterm-rows').first();
  const box = await page.locator('.xterm').first().boundingBox();
  const seen = new Set();
  if (!box) return [];
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  let last = '';
  for (let i = 0; i < 80; i++) {
    const now = await rows.innerText().catch(() => '');
    now.split('\n').forEach((l) => seen.add(l));
    if (now === last && i > 0) break; // the top
    last = now;
    await page.mouse.wheel(0, -200);
    await page.waitForTimeout(120);
  }
  await page.mouse.move(5, 790);
  return [...seen];
}

const lensRow = (page, text) => page.locator('.editor-instance .codelens-decoration', { hasText: text }).first();
const notifications = async (page) => (await page.locator('.notification-toast, .notifications-center .notification-list-item')
  .allInnerTexts().catch(() => [])).map((t) => t.replace(/\s+/g, ' ').trim());
const evalensStatus = async (page) => (await page.locator('.statusbar-item').allInnerTexts().catch(() => []))
  .map((t) => t.trim()).filter((t) => /evalens/i.test(t));

drive(async (page) => {
  await step('workbench', async () => {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
  });

  if (wanted('cancel')) await step('cancel', async () => {
    // #27 defect 6: the ■ Cancel lens on a running case: the editor says it was cancelled
    await openFile(page, SLOW_FILE);
    await scrollEditorToTop(page);
    const run = lensRow(page, 'Run eval');
    await run.waitFor({ timeout: 60000 });
    await run.locator('a', { hasText: 'Run eval' }).first().click({ timeout: 15000 });
    const cancel = lensRow(page, '■ Cancel');
    await cancel.waitFor({ timeout: 30000 });
    // cancel once the agent really talks to the model (it then sleeps in its shell until cancelled)
    for (let i = 0; i < 240; i++) {
      if (fs.existsSync(FAKE_LOG) && fs.readFileSync(FAKE_LOG, 'utf8').includes('"scenario": "slow"')) break;
      await page.waitForTimeout(250);
    }
    await cancel.locator('a', { hasText: '■ Cancel' }).first().click({ timeout: 15000 });
    // what the lens says once the run has stopped
    const lenses = [];
    for (let i = 0; i < 240; i++) {
      const now = (await page.locator('.editor-instance .codelens-decoration').first().innerText().catch(() => '')).trim();
      if (now && lenses[lenses.length - 1] !== now) lenses.push(now);
      if (/Run eval/.test(now) && !/■ Cancel/.test(now) && i > 4) break;
      await page.waitForTimeout(250);
    }
    result.cancelLenses = lenses;
    result.cancelLens = lenses[lenses.length - 1] || '';
    result.cancelNotifications = await notifications(page);
    await shot(page, 'cancel-lens.png');
    result.cancelResults = await testResultsText(page, (t) => t.includes(`${SLOW_CASE}: cancelled`));
    await showTesting(page);
    await page.waitForTimeout(1000);
    result.cancelRows = await testRows(page);
    await shot(page, 'cancel.png', 'vscode-fix-6-cancel-says-so.png');
    await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  });

  if (wanted('runs-cancelled')) await step('runs-cancelled', async () => {
    // the cancelled run in the Runs view: listed as cancelled, as Test Results says, never as an ERROR
    await runCommand(page, 'View: Close Panel').catch(() => undefined);
    await runCommand(page, 'Focus on evalens Runs View');
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'evalens Runs' }) });
    const rows = pane.locator('.monaco-list-row');
    await rows.first().waitFor({ timeout: 30000 });
    for (let i = 0; i < 40; i++) {
      result.runsRows = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      if (result.runsRows.some((t) => t.includes(SLOW_CASE))) break;
      await runCommand(page, 'evalens Runs: Refresh').catch(() => undefined);
      await page.waitForTimeout(500);
    }
    result.runsIcons = await rows.evaluateAll((els) => els.map((r) => [...r.querySelectorAll('.codicon')]
      .map((e) => [...e.classList].filter((c) => c.startsWith('codicon-') && c !== 'codicon').join(' ')).join(' ')));
    await shot(page, 'runs-cancelled.png', 'vscode-fix-6-runs-view-cancelled.png');
    await runCommand(page, 'View: Show Explorer').catch(() => undefined);
  });

  if (wanted('rename')) await step('rename', async () => {
    // #27 defect 7: run extract-text, rename it and save; the lens, Test Explorer and Show Run keep its run
    await runCommand(page, 'View: Close Panel').catch(() => undefined);
    await openFile(page, '01-extract-text.yaml');
    await scrollEditorToTop(page);
    const run = lensRow(page, 'Run eval');
    await run.waitFor({ timeout: 60000 });
    await run.locator('a', { hasText: 'Run eval' }).first().click({ timeout: 15000 });
    const verdict = lensRow(page, /PASS|FAIL|ERROR|SKIP/);
    await verdict.waitFor({ timeout: LENS_TIMEOUT });
    result.lensBeforeRename = (await verdict.innerText()).trim();
    await gotoLine(page, 1, 7);
    await page.keyboard.press('Shift+End');
    await page.keyboard.type(NEW_NAME);
    await page.keyboard.press('Control+S');
    await page.waitForTimeout(1500);
    await scrollEditorToTop(page);
    for (let i = 0; i < 60; i++) {
      result.lensAfterRename = (await page.locator('.editor-instance .codelens-decoration').first().innerText().catch(() => '')).trim();
      if (/PASS|FAIL/.test(result.lensAfterRename)) break;
      await page.waitForTimeout(250);
    }
    await showTesting(page);
    let rows = [];
    for (let i = 0; i < 60; i++) {
      rows = await testRows(page);
      const row = caseRow(rows, NEW_NAME);
      if (row && /^(passed|failed)$/.test(row.state)) break;
      await page.waitForTimeout(500);
    }
    result.renameRows = rows;
    await shot(page, 'rename-explorer.png');
    // Show Run from the renamed row's context menu
    const tree = page.locator('.test-explorer .monaco-list-row');
    const index = rows.indexOf(caseRow(rows, NEW_NAME));
    if (index < 0) throw new Error(`no Test Explorer row for ${NEW_NAME}: ${JSON.stringify(rows)}`);
    await tree.nth(index).click({ button: 'right' });
    await chooseMenuItem(page, 'Show Run');
    await page.waitForTimeout(3000);
    result.renameNotifications = await notifications(page);
    const tab = page.locator('.tab', { hasText: `evalens: ${NEW_NAME}` }).first();
    result.showRunTab = await tab.waitFor({ timeout: 30000 }).then(() => true).catch(() => false);
    if (result.showRunTab) {
      const frame = await runPageFrame(page, 'u-');
      result.showRunVerdict = (await frame.locator('section.unit header .badge').first().innerText()).trim();
    }
    await shot(page, 'rename.png', 'vscode-fix-7-rename-keeps-run.png');
    await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  });

  if (wanted('flaky-run-5')) await step('flaky-run-5', async () => {
    // #27 defect 11: Run 5× says "run k/5" while it runs; the FLAKY case's lens, failure message and Test Results
    // line say FLAKY once, never "flaky: flaky" nor FAIL
    await runCommand(page, 'View: Close Panel').catch(() => undefined);
    await openFile(page, FLAKY_FILE);
    await scrollEditorToTop(page);
    const repeat = lensRow(page, 'Run 5×');
    await repeat.waitFor({ timeout: 60000 });
    await repeat.locator('a', { hasText: 'Run 5×' }).first().click({ timeout: 15000 });
    const lenses = [];
    let progressShot = false;
    const deadline = Date.now() + Math.max(LENS_TIMEOUT, 400000);
    while (Date.now() < deadline) {
      const now = (await page.locator('.editor-instance .codelens-decoration').first().innerText().catch(() => '')).trim();
      if (now && lenses[lenses.length - 1] !== now) lenses.push(now);
      if (!progressShot && /run [2-5]\/5/.test(now)) {
        progressShot = true;
        await shot(page, 'run-k-of-5.png', 'vscode-fix-11-run-k-of-5.png');
      }
      if (/PASS|FAIL|FLAKY|ERROR|SKIP/.test(now) && !/■ Cancel/.test(now)) break;
      // the failure peek opens at the failed check when the run ends, and scrolls the lens out of sight
      if (await page.locator('.peekview-widget').first().isVisible().catch(() => false)) break;
      await page.waitForTimeout(200);
    }
    const peek = page.locator('.peekview-widget').first();
    result.flakyPeekShown = await peek.waitFor({ state: 'visible', timeout: 30000 }).then(() => true).catch(() => false);
    await page.waitForTimeout(700);
    result.flakyPeek = result.flakyPeekShown ? (await peek.innerText()).trim() : '';
    await shot(page, 'flaky-peek.png');
    await page.keyboard.press('Escape');
    await scrollEditorToTop(page);
    for (let i = 0; i < 60; i++) {
      const now = (await page.locator('.editor-instance .codelens-decoration').first().innerText().catch(() => '')).trim();
      if (now && lenses[lenses.length - 1] !== now) lenses.push(now);
      if (/PASS|FAIL|FLAKY|ERROR|SKIP/.test(now) && !/■ Cancel/.test(now)) break;
      await page.waitForTimeout(250);
    }
    result.flakyLenses = lenses;
    result.flakyLens = lenses[lenses.length - 1] || '';
    // Test Results: the terminal's lines for the case, and the tree of its messages (the Test Explorer's words)
    result.flakyResults = await testResultsText(page, (t) => t.includes(`FLAKY ${FLAKY_CASE}`));
    result.flakyResultRows = (await page.locator('.test-output-peek-tree .monaco-list-row').allInnerTexts().catch(() => []))
      .map((t) => t.replace(/\s+/g, ' ').trim());
    await showTesting(page);
    await page.waitForTimeout(500);
    result.flakyRows = await testRows(page);
    await openFile(page, FLAKY_FILE);
    await scrollEditorToTop(page);
    await dismissWidgets(page);
    await shot(page, 'flaky-test-results.png', 'vscode-fix-11-flaky-wording.png');
    result.flakyTerminal = await terminalLines(page);
    result.flakyTurnHeads = result.flakyTerminal.filter((l) => l.includes("the agent's turns"));
    await runCommand(page, 'View: Close Panel').catch(() => undefined);
  });

  if (wanted('report-link')) await step('report-link', async () => {
    // #27 defect 11: the hover's report path is a link; a click opens the report
    await runCommand(page, 'View: Show Explorer').catch(() => undefined);
    await openFile(page, FLAKY_FILE);
    await dismissWidgets(page);
    await gotoLine(page, 1, 8); // the case's name
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover:visible').first();
    await hover.waitFor({ state: 'visible', timeout: 30000 });
    const link = hover.locator('a', { hasText: /reports\/.*\.json/ }).first();
    await link.waitFor({ timeout: 15000 });
    result.reportLink = await link.evaluate((a) => ({
      text: (a.textContent || '').trim(), href: a.getAttribute('href') || '', dataHref: a.getAttribute('data-href') || '',
    }));
    result.hoverText = (await hover.innerText()).trim();
    await link.scrollIntoViewIfNeeded().catch(() => undefined);
    await link.hover().catch(() => undefined);
    await shot(page, 'report-link.png', 'vscode-fix-11-report-link.png');
    await link.click({ timeout: 15000 });
    const name = path.basename(result.reportLink.text);
    result.reportTab = await page.locator('.tab.active', { hasText: name }).first().waitFor({ timeout: 30000 })
      .then(() => name).catch(() => '');
    await dismissWidgets(page);
  });

  if (wanted('readme-images')) await step('readme-images', async () => {
    // #27 defect 11: the extension page's README shows its images from the installed .vsix (no network here)
    await runCommand(page, 'Extensions: Show Enabled Extensions');
    const entry = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'evalens' }).first();
    await entry.waitFor({ timeout: 30000 });
    await entry.click();
    await page.locator('.extension-editor .header').first().waitFor({ timeout: 30000 });
    let images = [];
    for (let i = 0; i < 80; i++) {
      images = [];
      for (const frame of page.frames()) {
        const found = await frame.evaluate(() => [...document.images]
          .filter((img) => !/icon\.png/.test(img.getAttribute('src') || ''))
          .map((img) => ({ src: img.getAttribute('src') || '', alt: img.alt, width: img.naturalWidth, complete: img.complete })))
          .catch(() => []);
        images.push(...found.filter((f) => /vscode-[a-z-]+\.png/.test(f.src)));
      }
      if (images.length >= 2 && images.every((img) => img.complete)) break;
      await page.waitForTimeout(250);
    }
    result.readmeImages = images;
    for (const frame of page.frames()) { // show the first image's place in the picture
      await frame.evaluate(() => {
        const img = [...document.images].find((i) => /vscode-[a-z-]+\.png/.test(i.getAttribute('src') || ''));
        if (img) img.scrollIntoView({ block: 'center' });
      }).catch(() => undefined);
    }
    await page.waitForTimeout(500);
    await shot(page, 'readme-images.png', 'vscode-fix-11-readme-images.png');
    await page.keyboard.press('Control+W').catch(() => undefined);
  });

  if (wanted('activation-config-yaml')) await step('activation-config-yaml', async () => {
    // #27 defect 1: a folder with only config.yaml does not wake the extension: no install offer, no status
    await page.goto(`${BASE}/?folder=${encodeURIComponent(process.env.CONFIG_ONLY)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await openFile(page, 'config.yaml');
    await page.waitForTimeout(15000); // the task.md folder below shows its offer well within this
    result.configOnlyNotifications = await notifications(page);
    result.configOnlyStatus = await evalensStatus(page);
    await shot(page, 'activation-config-yaml.png', 'vscode-fix-1-config-yaml-stays-quiet.png');
  });

  if (wanted('activation-task-md')) await step('activation-task-md', async () => {
    // ... and a task.md does, and the evalens check runs in the workspace folder: the install offer, once
    await page.goto(`${BASE}/?folder=${encodeURIComponent(process.env.TASK_ONLY)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    // the offer is a modal (#45: its buttons are never cut and it waits for the user)
    const offer = page.locator('.monaco-dialog-box', { hasText: 'Use the bundled evalens' }).first();
    await offer.waitFor({ timeout: 60000 });
    await page.waitForTimeout(5000); // a crash loop would add its own toasts by now
    result.taskOnlyDialog = (await offer.innerText()).replace(/\s+/g, ' ').trim();
    result.taskOnlyNotifications = await notifications(page);
    result.taskOnlyStatus = await evalensStatus(page);
    await shot(page, 'activation-task-md.png', 'vscode-fix-1-task-md-offers-install.png');
    await page.keyboard.press('Escape');
  });

  if (wanted('activation-other-kinds')) await step('activation-other-kinds', async () => {
    // ... and so do a trigger set and a JSON file under evals/ (each folder alone, each without evalens)
    result.otherKinds = {};
    for (const folder of JSON.parse(process.env.WAKE_FOLDERS || '[]')) {
      await page.goto(`${BASE}/?folder=${encodeURIComponent(folder)}`);
      await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
      const offer = page.locator('.monaco-dialog-box', { hasText: 'Use the bundled evalens' }).first();
      result.otherKinds[path.basename(folder)] = await offer.waitFor({ timeout: 60000 }).then(() => true).catch(() => false);
      await page.keyboard.press('Escape');
    }
  });
});
