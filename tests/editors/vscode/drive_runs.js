// Drives code-server for the run-history side of the extension (tests/editors/test_vscode_runs.py): skill-creator
// labels in the outline and Test Explorer, batches as one Test Results run, Show Run following a running case,
// the expected/actual diff of a failed check, test tags, the Runs view and per-run overrides.
// Usage: node drive_runs.js <baseUrl> <workspaceFolder>; Env: SHOT_DIR, RESULT_FILE, CHROMIUM, LENS_TIMEOUT_MS.
const {
  OUT, result, log, save, step, shot, openFile, gotoLine, dismissWidgets, scrollEditorToTop, runCommand, chooseMenuItem,
  runPageFrame, drive, testRows, caseRow, showTesting,
} = require('./lib');

const fs = require('fs');
const path = require('path');

const [BASE, FOLDER] = process.argv.slice(2);
const LENS_TIMEOUT = Number(process.env.LENS_TIMEOUT_MS || 240000);
const ONLY = (process.env.STEPS || '').split(',').filter(Boolean);
const wanted = (name) => ONLY.length === 0 || ONLY.includes(name);

/** Let the fake model send the followed case's reply (scenarios_runs.json holds it until this file exists). */
function releaseFollowed() {
  fs.mkdirSync(path.join(OUT, 'fakemodel'), { recursive: true });
  fs.writeFileSync(path.join(OUT, 'fakemodel', 'release-followed'), '');
}

drive(async (page) => {
  await step('workbench', async () => {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
  });

  if (wanted('skill-creator-labels')) {
    await step('skill-creator-labels', async () => {
      // #27 defect 3: an eval with a `name` is labelled by it, one without by its prompt (outline, Test Explorer)
      await openFile(page, 'evals.json');
      await gotoLine(page, 6, 7);
      await runCommand(page, 'Explorer: Focus on Outline View');
      const outline = page.locator('.outline-pane .monaco-list-row, .pane-body .outline-tree .monaco-list-row');
      await outline.filter({ hasText: 'first-line' }).first().waitFor({ timeout: 30000 });
      await page.waitForTimeout(2000); // the evalens server's symbols join the JSON ones once it answers
      const collapse = page.locator('.pane-header', { hasText: 'Outline' }).locator('.codicon-collapse-all').first();
      await page.locator('.pane-header', { hasText: 'Outline' }).first().hover().catch(() => undefined);
      await collapse.click({ timeout: 5000 }).catch(() => undefined);
      // under load the JSON provider's symbols may come a moment later: wait until both groups show
      for (let i = 0; i < 40; i++) {
        await page.waitForTimeout(250);
        result.outlineTop = await outline.evaluateAll((rows) => rows.map((r) => (r.getAttribute('aria-label') || r.textContent || '').trim()));
        if (result.outlineTop.some((t) => t.startsWith('JSON Language Features'))) break;
      }
      // two outline providers (evalens's units, VS Code's JSON keys): open evalens's group
      await outline.filter({ hasText: 'evalens' }).first().click().catch(() => undefined);
      await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(500);
      result.outlineRows = (await outline.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      result.breadcrumbs = (await page.locator('.editor-instance .breadcrumbs-control .monaco-breadcrumb-item').allInnerTexts())
        .map((t) => t.replace(/\s+/g, ' ').trim());
      await page.screenshot({ path: `${OUT}/skill-creator-outline.png` });
      await showTesting(page);
      let rows = [];
      for (let i = 0; i < 40; i++) {
        rows = await testRows(page);
        if (rows.some((r) => r.label.startsWith('first-line ('))) break;
        await page.waitForTimeout(250);
      }
      result.skillCreatorRows = rows;
      await page.screenshot({ path: `${OUT}/skill-creator-test-explorer.png` });
    });
  }

  if (wanted('batch-follow')) {
    await step('batch-follow', async () => {
      // #27 defect 9: "Run all evals" is one Test Results run closed by a summary line, and Show Run opened
      // on a running case follows its turns, then shows the finished run
      await runCommand(page, 'View: Close Panel').catch(() => undefined);
      await openFile(page, 'eval-config.json');
      const lens = page.locator('.editor-instance .codelens-decoration', { hasText: 'Run all evals' }).first();
      await lens.waitFor({ timeout: 60000 });
      await lens.locator('a', { hasText: 'Run all evals' }).first().click({ timeout: 15000 });
      // a paid batch lens asks first, as the palette does (issue 45 #10): the units it will run, by name
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 15000 });
      result.runAllQuestion = (await dialog.innerText()).replace(/\s+/g, ' ').trim();
      await shot(page, 'run-all-question.png', 'vscode-45-batch-lens-asks.png');
      await dialog.locator('.monaco-button', { hasText: /^Run \d+ evals?$/ }).first().click();
      try {
        await showTesting(page);
        const tree = page.locator('.test-explorer .monaco-list-row');
        let index = -1;
        // each label and state the followed row showed, with when: if it never shows Running, the failure says
        // what it showed instead
        const seen = [];
        const t0 = Date.now();
        for (let i = 0; i < LENS_TIMEOUT / 500 && index < 0; i++) {
          const rows = await testRows(page);
          const followed = caseRow(rows, 'followed');
          const label = followed ? `${followed.label} [${followed.state}]` : '(no row)';
          if (!seen.length || seen[seen.length - 1].label !== label) seen.push({ at: (Date.now() - t0) / 1000, label });
          index = followed && followed.state === 'running' ? rows.indexOf(followed) : -1;
          if (index < 0) await page.waitForTimeout(500);
        }
        result.followedLabels = seen;
        if (index < 0) {
          await runCommand(page, 'Test Results: Focus on Test Results View').catch(() => undefined);
          await page.waitForTimeout(1000);
          result.batchTextAtFailure = (await page.locator('.xterm-accessibility-tree, .xterm-rows').allInnerTexts().catch(() => [])).join('\n').slice(-4000);
          await page.screenshot({ path: `${OUT}/batch-follow-failure.png` }).catch(() => undefined);
          throw new Error(`the followed case never showed as running; its row showed ${JSON.stringify(seen)}; the batch's output ends: ${JSON.stringify(result.batchTextAtFailure.slice(-1500))}`);
        }
        await tree.nth(index).click({ button: 'right' });
        await chooseMenuItem(page, 'Show Run');
        let live = null;
        for (let i = 0; i < 120 && !live; i++) {
          for (const f of page.frames()) {
            const ok = await f.evaluate(() => document.body && document.body.dataset.anchor === 'live').catch(() => false);
            if (ok) live = f;
          }
          if (!live) await page.waitForTimeout(250);
        }
        if (!live) throw new Error('no live run page');
        result.liveBadge = (await live.locator('h1 .badge').innerText()).trim();
        for (let i = 0; i < 60; i++) {
          result.liveTurns = await live.locator('pre.turn').allInnerTexts().catch(() => result.liveTurns || []);
          if (result.liveTurns.length > 0) break;
          await page.waitForTimeout(250);
        }
        await page.screenshot({ path: `${OUT}/show-run-live.png` });
      } finally {
        releaseFollowed(); // seen live (or failed to): now the run may finish
      }
      const finished = await runPageFrame(page, 'u-followed', false, LENS_TIMEOUT);
      result.followedVerdict = (await finished.locator('section.unit header .badge').first().innerText()).trim();
      await page.screenshot({ path: `${OUT}/show-run-finished.png` });
      // the batch's one Test Results run ends with its summary line
      await page.keyboard.press('Escape');
      let text = '';
      for (let i = 0; i < LENS_TIMEOUT / 500 && !text.includes('■ evalens:'); i++) {
        await runCommand(page, 'Test Results: Focus on Test Results View').catch(() => undefined);
        await page.waitForTimeout(500);
        text = (await page.locator('.xterm-rows').allInnerTexts().catch(() => [])).join('\n');
        if (!text.includes('■ evalens:')) {
          text = (await page.locator('.xterm-accessibility-tree').allInnerTexts().catch(() => [])).join('\n');
        }
      }
      result.batchText = text;
      result.testResultRuns = await page.locator('.test-output-peek-tree .monaco-list-row').allInnerTexts().catch(() => []);
      await page.screenshot({ path: `${OUT}/batch-summary.png` });
    });
  }

  if (wanted('diff-peek')) {
    await step('diff-peek', async () => {
      // issue 45 #2: VS Code draws each failed check inline at its line, in the server's one sentence (it had
      // drawn `✗ != output/report.md` from the diff while the hover and Neovim said the file was not created)
      // the batch's Test Results panel may still be open: it shrinks the editor, and Monaco hides a content widget
      // whose line is outside the editor's view (the widget is there, hidden), so close it and, while the first
      // widget stays hidden, bring the failed checks' lines into view
      await runCommand(page, 'View: Close Panel').catch(() => undefined);
      await openFile(page, '04-diff.yaml');
      const widget = page.locator('.test-error-content-widget');
      const shown = page.locator('.test-error-content-widget:visible');
      for (let i = 0; i < 6; i++) {
        if (await shown.first().waitFor({ timeout: 5000 }).then(() => true, () => false)) break;
        await gotoLine(page, 8 + (i % 3) * 2).catch(() => undefined); // `contains:` … `files-created:`
      }
      await shown.first().waitFor({ timeout: 10000 });
      await page.waitForTimeout(700);
      result.inlineFailures = (await widget.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      await shot(page, 'inline-failures.png', 'vscode-45-inline-failure-sentence.png');
      // a failed `contains` check of the batch: the failure peek shows what it wanted against what the agent said
      // the batch's Test Results run lists each failed check as a message: open the `contains` one
      await runCommand(page, 'Test Results: Focus on Test Results View').catch(() => undefined);
      // the check's sentence is its first message (what VS Code draws inline); its diff is the one after it
      const message = page.locator('.monaco-list-row', { hasText: "contains: output does not contain 'Goodbye' (Expected / Actual)" }).first();
      await message.waitFor({ timeout: 30000 });
      await message.click();
      const diff = page.locator('.monaco-diff-editor:visible').first();
      await diff.waitFor({ state: 'visible', timeout: 15000 });
      await page.waitForTimeout(700);
      result.diffPeek = {
        original: (await diff.locator('.editor.original .view-lines').innerText().catch(() => '')).replace(/\u00a0/g, ' '),
        modified: (await diff.locator('.editor.modified .view-lines').innerText().catch(() => '')).replace(/\u00a0/g, ' '),
      };
      await page.screenshot({ path: `${OUT}/diff-peek.png` });
      await page.keyboard.press('Escape');
    });
  }

  if (wanted('tags-filter')) {
    await step('tags-filter', async () => {
      // test tags: the Test Explorer's filter keeps only the skill-creator evals with @evalens:format:…
      await showTesting(page);
      // the filter box is a small Monaco editor (testing:filter) whose lines cover its placeholder: click them
      const filter = page.locator('.monaco-editor[data-uri="testing:filter"]').first();
      await filter.locator('.view-lines').click({ timeout: 15000 });
      await page.keyboard.type('@evalens:format:skill-creator-evals');
      let rows = [];
      for (let i = 0; i < 40; i++) {
        await page.waitForTimeout(250);
        rows = await testRows(page);
        if (!rows.some((r) => r.text === 'extract-text') && rows.some((r) => r.text.startsWith('first-line'))) break;
      }
      result.taggedRows = rows.map((r) => r.text);
      result.filterText = (await filter.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ').trim();
      await dismissWidgets(page); // the tag suggestions, for the screenshot
      await page.screenshot({ path: `${OUT}/test-tags-filter.png` });
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
    });
  }

  /** Click the "▶ Run eval" lens of 01-extract-text.yaml and wait for a new verdict in its lens. */
  async function runExtractText() {
    await openFile(page, '01-extract-text.yaml');
    await dismissWidgets(page);
    await scrollEditorToTop(page);
    const run = page.locator('.editor-instance .codelens-decoration a', { hasText: 'Run eval' }).first();
    await run.waitFor({ timeout: 60000 });
    await run.click({ timeout: 15000 });
    await page.locator('.statusbar-item', { hasText: /evalens: \d+ running/ }).first().waitFor({ timeout: 30000 }).catch(() => undefined);
    await page.locator('.statusbar-item', { hasText: /evalens: \d+ running/ }).first().waitFor({ state: 'hidden', timeout: LENS_TIMEOUT });
    const verdict = page.locator('.editor-instance .codelens-decoration', { hasText: /PASS|FAIL|ERROR|SKIP/ }).first();
    await verdict.waitFor({ timeout: 30000 });
    return (await verdict.innerText()).trim();
  }

  async function overridesPick() {
    await runCommand(page, 'evalens: Run Overrides');
    const title = page.locator('.quick-input-widget .quick-input-title');
    await title.waitFor({ timeout: 15000 });
    return title;
  }

  if (wanted('overrides')) {
    await step('overrides', async () => {
      // per-run overrides: set the model and the budget in the quick pick, run a case (it carries them), and
      // find them again after a reload (workspaceState)
      for (const [label, value] of [['Model', 'claude-e2e-override'], ['Budget', '5']]) {
        await overridesPick();
        await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().click();
        const input = page.locator('.quick-input-widget input');
        await page.locator('.quick-input-widget .quick-input-title', { hasText: `override: ${label}` }).waitFor({ timeout: 10000 });
        await input.fill(value);
        await page.keyboard.press('Enter');
        await page.locator('.quick-input-widget .quick-input-title', { hasText: 'run overrides (this workspace)' }).waitFor({ timeout: 10000 });
        await page.keyboard.press('Escape');
      }
      result.overridesTitle = (await (await overridesPick()).innerText()).trim();
      await page.screenshot({ path: `${OUT}/run-overrides.png` });
      await page.keyboard.press('Escape');
      result.overrideVerdicts = [await runExtractText()];
      result.overrideVerdicts.push(await runExtractText()); // a second run of the same case, for the Runs view
      await page.reload();
      await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
      await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
      await page.waitForTimeout(2000);
      result.overridesAfterReload = (await (await overridesPick()).innerText()).trim();
      await page.keyboard.press('Escape');
    });
  }

  if (wanted('runs-view')) {
    await step('runs-view', async () => {
      // the Runs view lists every run; the filter keeps by verdict; two runs of one case compare side by side
      await runCommand(page, 'Focus on evalens Runs View');
      const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'evalens Runs' }) });
      const rows = pane.locator('.monaco-list-row');
      await rows.first().waitFor({ timeout: 30000 });
      const texts = async () => (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      result.runsRows = await texts();
      await page.screenshot({ path: `${OUT}/runs-view.png` });
      // filter: FAIL only (the runs passed: nothing is kept), then clear the filter
      await runCommand(page, 'evalens Runs: Filter Runs');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: /^FAIL$/ }).first().click();
      await page.keyboard.press('Enter');
      for (let i = 0; i < 2; i++) {
        await page.waitForTimeout(400);
        await page.keyboard.press('Enter'); // engine: all, since: all
      }
      await page.waitForTimeout(1500);
      result.runsRowsFailOnly = await texts();
      result.runsMessage = (await pane.locator('.message').allInnerTexts().catch(() => [])).join(' ').trim();
      await runCommand(page, 'evalens Runs: Clear Filter');
      for (let i = 0; i < 20 && (await rows.count()) < result.runsRows.length; i++) await page.waitForTimeout(250);
      // select the two runs of extract-text, then Compare Runs
      const extract = rows.filter({ hasText: 'extract-text' });
      await extract.nth(0).click();
      await extract.nth(1).click({ modifiers: ['Control'] });
      await extract.nth(1).click({ button: 'right' });
      await chooseMenuItem(page, 'Compare Runs');
      let frame = null;
      for (let i = 0; i < 120 && !frame; i++) {
        for (const f of page.frames()) {
          if (await f.locator('table.cmp').count().catch(() => 0)) frame = f;
        }
        if (!frame) await page.waitForTimeout(250);
      }
      if (!frame) throw new Error('no evalens compare page in a webview');
      result.runsCompare = {
        title: (await frame.locator('h1').innerText()).trim(),
        headers: (await frame.locator('table.cmp tr').first().locator('th').allInnerTexts()).map((t) => t.trim()),
        meta: (await frame.locator('.meta').innerText()).trim(),
      };
      await page.screenshot({ path: `${OUT}/runs-compare.png` });
    });
  }

  /** The verdict lens of 01-extract-text.yaml once `done(title)` holds (or after `ms`), re-asked by switching
   * editors (a lens request starts the server's stale check; a change in staleness refreshes the lenses). */
  async function extractLensUntil(done, ms) {
    const verdict = page.locator('.editor-instance .codelens-decoration', { hasText: /PASS|FAIL|ERROR|SKIP/ }).first();
    let title = '';
    const focus = async (name) => { // its tab when it has one (quick open of an open file was flaky here)
      const tab = page.locator('.tabs-container .tab', { hasText: name }).first();
      if (await tab.count()) {
        await tab.click();
        await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 15000 });
      } else {
        await openFile(page, name);
      }
    };
    await focus('01-extract-text.yaml');
    await scrollEditorToTop(page);
    await verdict.waitFor({ timeout: 60000 }); // after a reload the server restores the verdicts first
    for (const deadline = Date.now() + ms; Date.now() < deadline;) {
      await focus('02-block-secrets.yaml');
      await focus('01-extract-text.yaml');
      await scrollEditorToTop(page);
      await page.waitForTimeout(2000);
      title = (await verdict.innerText().catch(() => '')).trim();
      if (done(title)) break;
    }
    return title;
  }

  if (wanted('overrides-stale')) {
    await step('overrides-stale', async () => {
      // a run with a model override is current while the override is set (the next run takes it too), and
      // stale once the override is cleared (the next run takes the engine's default model)
      result.overrideLens = await extractLensUntil((t) => t.includes('stale'), 12000);
      await shot(page, 'override-lens.png');
      await overridesPick();
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Model' }).first().click();
      await page.locator('.quick-input-widget .quick-input-title', { hasText: 'override: Model' }).waitFor({ timeout: 10000 });
      await page.locator('.quick-input-widget input').fill('');
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget .quick-input-title', { hasText: 'run overrides (this workspace)' }).waitFor({ timeout: 10000 });
      result.overridesCleared = (await page.locator('.quick-input-widget .quick-input-title').innerText()).trim();
      await page.keyboard.press('Escape');
      result.clearedLens = await extractLensUntil((t) => t.includes('stale'), 30000);
      await shot(page, 'override-cleared-lens.png');
    });
  }
});
