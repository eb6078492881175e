// Drives code-server (real VS Code 1.100) with the evalens extension through Debian's chromium.
// Usage: node drive.js <baseUrl> <workspaceFolder>
// Env: SHOT_DIR (screenshots), RESULT_FILE (JSON facts for pytest), RUN_LENS=1 (click "Run eval" and wait
// for the verdict, then run FAIL_CASE_NAME from the Test Explorer), LENS_TIMEOUT_MS (default 240000).
// Each step waits for what a user would see, records it in the result file, and fails with a clear message.
const fs = require('fs');
const path = require('path');

const [BASE, FOLDER] = process.argv.slice(2);
const RUN_LENS = process.env.RUN_LENS === '1';
const LENS_TIMEOUT = Number(process.env.LENS_TIMEOUT_MS || 240000);
const BROKEN = process.env.BROKEN_FILE || '03-broken.yaml';
const GOOD = process.env.GOOD_FILE || '01-extract-text.yaml';
const CASE = process.env.CASE_NAME || 'extract-text';
const FAIL_CASE = process.env.FAIL_CASE_NAME || '';
const FAIL_FILE = process.env.FAIL_FILE || '02-block-secrets.yaml';
const NEW_CASE_FILE = process.env.NEW_CASE_FILE || '04-pdf-tools-new-case.yaml';

const {
  OUT, result, log, save, step, shot, openFile, gotoLine, dismissWidgets, scrollEditorToTop, chooseMenuItem, runCommand,
  runPageFrame, drive, testRows, caseRow, showTesting,
} = require('./lib');

drive(async (page) => {
  await step('workbench', async () => {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.locator('.statusbar-item', { hasText: 'evalens' }).first().waitFor({ timeout: 90000 });
  });

  await step('diagnostics', async () => {
    await openFile(page, BROKEN);
    await page.waitForSelector('.editor-instance .squiggly-error', { timeout: 60000 });
    await page.keyboard.press('Control+Shift+M');
    const rows = page.locator('.markers-panel .monaco-list-row');
    await rows.filter({ hasText: 'pdf-tool' }).first().waitFor({ timeout: 30000 });
    await page.waitForTimeout(300);
    result.problems = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    result.squiggles = await page.locator('.editor-instance .squiggly-error').count();
    result.status = (await page.locator('.statusbar-item', { hasText: 'evalens' }).first().innerText()).trim();
    await page.screenshot({ path: `${OUT}/diagnostics.png` });
  });

  await step('invalid-lens', async () => {
    // the broken case: its lens says how many problems stop it, and clicking it goes to the first one
    const invalid = page.locator('.editor-instance .codelens-decoration', { hasText: 'fix to run' }).first();
    try {
      await invalid.waitFor({ timeout: 30000 });
    } catch (e) {
      // seen once under heavy load: no lens at all on the first file opened until an edit re-requests them
      result.invalidLensNeededEdit = await page.locator('.editor-instance .codelens-decoration').allInnerTexts();
      await gotoLine(page, 13, 1);
      await page.keyboard.type(' ');
      await page.keyboard.press('Control+Z');
      await invalid.waitFor({ timeout: 30000 });
    }
    result.invalidLens = (await invalid.innerText()).trim();
    result.invalidLensHasRun = await page.locator('.editor-instance .codelens-decoration', { hasText: 'Run eval' }).count();
    await page.screenshot({ path: `${OUT}/invalid-lens.png` });
    await gotoLine(page, 12, 1);
    await invalid.locator('a', { hasText: 'fix to run' }).first().click({ timeout: 15000 });
    const cursor = page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first();
    for (let i = 0; i < 40; i++) {
      result.invalidLensCursor = (await cursor.innerText()).trim();
      if (!result.invalidLensCursor.startsWith('Ln 12,')) break;
      await page.waitForTimeout(250);
    }
    await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  });

  await step('invalid-lens-after-fix', async () => {
    // #27 defect 4: the quick fix "Create empty `report.pdf`" makes the file outside the buffer; the lens's
    // count follows at once (it kept the old count until the next keystroke)
    const before = Number((result.invalidLens.match(/✗ (\d+)/) || [])[1]);
    await gotoLine(page, 7, 10); // "    - fixtures/report.pdf"
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Create empty `report.pdf`' }).first();
    await fix.waitFor({ timeout: 30000 });
    // a click can land on the context view's pointer block: move the focus to the fix with the keyboard
    const focused = () => page.locator('.action-widget .monaco-list-row.focused').first().getAttribute('aria-label').catch(() => '');
    for (const key of [...Array(6).fill('ArrowDown'), ...Array(12).fill('ArrowUp')]) {
      if ((await focused() || '').includes('Create empty `report.pdf`')) break;
      await page.keyboard.press(key);
      await page.waitForTimeout(100);
    }
    await page.keyboard.press('Enter');
    const lens = page.locator('.editor-instance .codelens-decoration', { hasText: 'fix to run' }).first();
    for (let i = 0; i < 80; i++) {
      result.invalidLensAfterFix = (await lens.innerText().catch(() => '')).trim();
      const now = Number((result.invalidLensAfterFix.match(/✗ (\d+)/) || [])[1]);
      if (now && now < before) break;
      await page.waitForTimeout(250);
    }
    result.reportPdfCreated = fs.existsSync(path.join(FOLDER, 'evals', 'fixtures', 'report.pdf'));
    await page.locator('.tabs-container .tab', { hasText: BROKEN }).first().click().catch(() => undefined);
    await scrollEditorToTop(page);
    await shot(page, 'invalid-lens-after-fix.png', 'vscode-fix-4-problems-lens-after-quick-fix.png');
  });

  await step('hover', async () => {
    await openFile(page, GOOD);
    await page.keyboard.press('Control+Shift+M'); // close the panel again: more room for the editor
    await gotoLine(page, 3, 2); // "target: skill:pdf-tools"
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover:visible .hover-contents, .monaco-hover:visible .rendered-markdown').first();
    await hover.waitFor({ state: 'visible', timeout: 30000 });
    await page.waitForTimeout(500);
    result.hover = (await page.locator('.monaco-hover:visible').first().innerText()).trim();
    await page.screenshot({ path: `${OUT}/hover.png` });
    await dismissWidgets(page);
  });

  await step('completion', async () => {
    // Under load a Ctrl+Space can reach the workbench before the editor has its focus back from the hover and
    // the quick input (landing CI once saw no suggest widget for 30 s): each try puts the cursor there again and
    // records what the widget said, so a server that answered nothing still fails here with its message.
    const rows = page.locator('.suggest-widget.visible .monaco-list-row');
    result.completionTries = [];
    for (let attempt = 1; ; attempt++) {
      await gotoLine(page, Number(process.env.COMPLETION_LINE || 11), Number(process.env.COMPLETION_COLUMN || 3));
      await page.keyboard.press('Control+Space');
      try {
        await rows.first().waitFor({ timeout: 10000 });
        break;
      } catch (e) {
        const said = await page.locator('.suggest-widget').first().innerText({ timeout: 1000 }).catch(() => '');
        result.completionTries.push(said.trim() || '(no suggest widget)');
        await page.screenshot({ path: `${OUT}/completion-try-${attempt}.png` });
        if (attempt === 3) throw e;
        await page.keyboard.press('Escape');
        await page.locator('.editor-instance .monaco-editor .view-lines').first().click().catch(() => undefined);
      }
    }
    await page.waitForTimeout(300);
    result.completions = (await rows.allInnerTexts()).map((t) => t.split('\n')[0].trim());
    await page.screenshot({ path: `${OUT}/completion.png` });
    await page.keyboard.press('Escape');
  });

  const lens = page.locator('.editor-instance .codelens-decoration', { hasText: 'Run eval' }).first();
  await step('lens', async () => {
    await gotoLine(page, 1, 1);
    await lens.waitFor({ timeout: 60000 });
    result.lensBefore = (await lens.innerText()).trim();
  });

  if (RUN_LENS) {
    await step('dry-run-command', async () => {
      // palette command → case at the cursor → Test Explorer run with dryRun → the server's plan message
      await gotoLine(page, 12, 1);
      await runCommand(page, 'evalens: Dry Run Eval at Cursor');
      const toast = page.locator('.notification-toast', { hasText: `Dry run of ${CASE}` }).first();
      await toast.waitFor({ timeout: 60000 });
      result.dryRunToast = (await toast.innerText()).trim();
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
    });

    await step('lens-run', async () => {
      await dismissWidgets(page);
      await scrollEditorToTop(page);
      await lens.locator('a', { hasText: 'Run eval' }).first().click({ timeout: 15000 });
      // while the agent works, the status bar counts the running evals (evalens/runState)
      const running = page.locator('.statusbar-item', { hasText: /evalens: \d+ running/ }).first();
      await running.waitFor({ timeout: 15000 });
      result.statusWhileRunning = (await running.innerText()).trim();
      const verdict = page.locator('.editor-instance .codelens-decoration', { hasText: /PASS|FAIL|ERROR|SKIP/ }).first();
      await verdict.waitFor({ timeout: LENS_TIMEOUT });
      await page.waitForTimeout(500);
      result.lensAfter = (await verdict.innerText()).trim();
      await dismissWidgets(page);
      await page.screenshot({ path: `${OUT}/lens-verdict.png` });
      const box = await page.locator('.editor-instance .monaco-editor').first().boundingBox();
      if (box) {
        await page.screenshot({
          path: `${OUT}/lens-verdict-editor.png`,
          clip: { x: box.x, y: box.y, width: Math.min(box.width, 900), height: Math.min(box.height, 330) },
        });
      }
    });

    await step('pass-no-problem', async () => {
      // a PASS is not a problem: no squiggle on `name`, no Problems entry for the passing case's file
      await page.waitForTimeout(1500);
      result.passSquiggles = await page.locator('.editor-instance .squiggly-info, .editor-instance .squiggly-warning, .editor-instance .squiggly-error').count();
      await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
      await page.locator('.markers-panel').first().waitFor({ timeout: 15000 });
      await page.waitForTimeout(500);
      result.passProblems = (await page.locator('.markers-panel .monaco-list-row').allInnerTexts())
        .map((t) => t.replace(/\s+/g, ' ').trim());
      await page.screenshot({ path: `${OUT}/pass-no-problem.png` });
      await runCommand(page, 'View: Close Panel').catch(() => undefined);
    });

    await step('test-explorer', async () => {
      await showTesting(page); // package and file rows expanded, so the case rows show
      const tree = page.locator('.test-explorer .monaco-list-row');
      let index = -1;
      for (let i = 0; i < 60 && index < 0; i++) {
        result.testExplorerRows = await testRows(page);
        const row = caseRow(result.testExplorerRows, CASE);
        index = row && /^(passed|failed|error|skipped)$/.test(row.state) ? result.testExplorerRows.indexOf(row) : -1;
        if (index < 0) await page.waitForTimeout(500);
      }
      if (index < 0) throw new Error(`no finished case row ${CASE}: ${JSON.stringify(result.testExplorerRows)}`);
      await tree.nth(index).click();
      await page.waitForTimeout(500);
      result.testExplorerRows = await testRows(page);
      await page.screenshot({ path: `${OUT}/test-explorer.png` });
    });

    if (FAIL_CASE) {
      await step('test-explorer-run', async () => {
        // run a case that fails from the Test Explorer's inline Run action; the failure peek shows why
        const tree = page.locator('.test-explorer .monaco-list-row');
        const rows = await tree.evaluateAll((els) => els.map((r) => (r.getAttribute('aria-label') || '').trim()));
        const index = rows.findIndex((l) => l.startsWith(`${FAIL_CASE} (`));
        if (index < 0) throw new Error(`no Test Explorer row for ${FAIL_CASE}: ${JSON.stringify(rows)}`);
        const row = tree.nth(index);
        await row.hover();
        await row.locator('.action-label.codicon-testing-run-icon').first().click();
        let finished;
        for (let i = 0; i < LENS_TIMEOUT / 500; i++) {
          finished = caseRow(await testRows(page), FAIL_CASE);
          if (finished && /^(failed|error|passed|skipped)$/.test(finished.state)) break;
          await page.waitForTimeout(500);
        }
        result.failRow = finished || null;
        const peek = page.locator('.peekview-widget').first();
        await peek.waitFor({ state: 'visible', timeout: 30000 });
        await page.waitForTimeout(700);
        result.failurePeek = (await peek.innerText()).trim();
        await page.screenshot({ path: `${OUT}/test-explorer-failure.png` });
      });

      await step('test-results-turns', async () => {
        // the agent's turns streamed into the Test Results terminal while the case ran
        await runCommand(page, 'Test Results: Focus on Test Results View').catch(() => undefined);
        let text = '';
        for (let i = 0; i < 40 && !text.includes("the agent's turns"); i++) {
          text = (await page.locator('.xterm-rows').allInnerTexts().catch(() => [])).join('\n');
          if (!text.includes("the agent's turns")) {
            text = (await page.locator('.xterm-accessibility-tree').allInnerTexts().catch(() => [])).join('\n');
          }
          if (!text.includes("the agent's turns")) await page.waitForTimeout(250);
        }
        result.testResultsText = text;
        await page.screenshot({ path: `${OUT}/test-results-turns.png` });
      });

      await step('show-run', async () => {
        // "Show Run" from the failed row's context menu: the run page in a webview beside, at the failed check
        const tree = page.locator('.test-explorer .monaco-list-row');
        const rows = await tree.evaluateAll((els) => els.map((r) => (r.getAttribute('aria-label') || '').trim()));
        const row = tree.nth(rows.findIndex((l) => l.startsWith(`${FAIL_CASE} (`)));
        await row.click({ button: 'right' });
        await chooseMenuItem(page, 'Show Run');
        await page.locator('.tab', { hasText: `evalens: ${FAIL_CASE}` }).first().waitFor({ timeout: 30000 });
        const frame = await runPageFrame(page, `u-${FAIL_CASE}-`);
        const failed = frame.locator('tr.check-FAIL').first();
        await failed.waitFor({ state: 'visible', timeout: 15000 });
        result.showRun = {
          verdict: (await frame.locator('section.unit header .badge').first().innerText()).trim(),
          failedCheck: (await failed.innerText()).trim(),
          anchor: await frame.locator('body').getAttribute('data-anchor'),
          calls: await frame.locator('.call').count(),
          usage: (await frame.locator('section.unit header .meta').first().innerText()).trim(),
        };
        await shot(page, 'show-run.png', 'vscode-fix-11-check-as-written.png');
      });

      await step('compare-runs', async () => {
        // "Compare with Previous Run" from the same context menu: the comparison page in its own webview
        await page.keyboard.press('Escape');
        const tree = page.locator('.test-explorer .monaco-list-row');
        const rows = await tree.evaluateAll((els) => els.map((r) => (r.getAttribute('aria-label') || '').trim()));
        const row = tree.nth(rows.findIndex((l) => l.startsWith(`${FAIL_CASE} (`)));
        await row.click({ button: 'right' });
        await chooseMenuItem(page, 'Compare with Previous Run');
        await page.locator('.tab', { hasText: `evalens: compare ${FAIL_CASE}` }).first().waitFor({ timeout: 30000 });
        let frame = null;
        for (let i = 0; i < 120 && !frame; i++) {
          for (const f of page.frames()) {
            if (await f.locator('table.cmp').count().catch(() => 0)) frame = f;
          }
          if (!frame) await page.waitForTimeout(250);
        }
        if (!frame) throw new Error('no evalens compare page in a webview');
        const verdictRow = frame.locator('table.cmp tr', { has: frame.locator('th:text-is("verdict")') }).first();
        result.compare = {
          title: (await frame.locator('h1').innerText()).trim(),
          headers: (await frame.locator('table.cmp tr').first().locator('th').allInnerTexts()).map((t) => t.trim()),
          verdicts: (await verdictRow.locator('td').allInnerTexts()).map((t) => t.trim()),
          note: (await frame.locator('.reason').allInnerTexts()).join(' '),
        };
        await page.screenshot({ path: `${OUT}/compare-runs.png` });
      });

      await step('dry-run-keeps-result', async () => {
        // a dry run of the failed case leaves its Test Explorer result alone
        await page.keyboard.press('Escape');
        await openFile(page, FAIL_FILE);
        await gotoLine(page, 1, 1);
        await runCommand(page, 'evalens: Dry Run Eval at Cursor');
        const toast = page.locator('.notification-toast', { hasText: `Dry run of ${FAIL_CASE}` }).first();
        await toast.waitFor({ timeout: 60000 });
        await page.waitForTimeout(1500);
        result.failRowAfterDryRun = caseRow(await testRows(page), FAIL_CASE) || null;
        await page.screenshot({ path: `${OUT}/dry-run-keeps-result.png` });
        await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
      });

      await step('fail-no-problem', async () => {
        // #27 defect 5: a FAIL shows in the lens and the Test Explorer, not as errors in Problems
        await scrollEditorToTop(page);
        const failLens = page.locator('.editor-instance .codelens-decoration', { hasText: /✗ FAIL/ }).first();
        await failLens.waitFor({ timeout: 30000 });
        result.failLens = (await failLens.innerText()).trim();
        await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
        await page.locator('.markers-panel').first().waitFor({ timeout: 15000 });
        await page.waitForTimeout(1000);
        result.failProblems = (await page.locator('.markers-panel .monaco-list-row').allInnerTexts())
          .map((t) => t.replace(/\s+/g, ' ').trim());
        await shot(page, 'fail-no-problem.png', 'vscode-fix-5-fail-not-in-problems.png');
        await runCommand(page, 'View: Close Panel').catch(() => undefined);
      });

      await step('run-failed-profile', async () => {
        // the "Run failed" profile from the palette: the server picks the failed case, and only it runs again
        const reports = path.join(FOLDER, 'evals', 'reports');
        const before = new Set(fs.readdirSync(reports).filter((f) => f.endsWith('.json')));
        await runCommand(page, 'evalens: Run Failed Evals in Workspace');
        // it spends money: a modal says what will run and asks once (issue 27 #8)
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ timeout: 15000 });
        result.runFailedQuestion = (await dialog.innerText()).replace(/\s+/g, ' ').trim();
        await shot(page, 'run-failed-question.png', 'vscode-fix-8-asks-before-spending.png');
        await dialog.locator('.monaco-button', { hasText: /^Run \d+ evals?$/ }).first().click();
        let fresh = [];
        for (let i = 0; i < LENS_TIMEOUT / 500 && fresh.length === 0; i++) {
          await page.waitForTimeout(500);
          fresh = fs.readdirSync(reports).filter((f) => f.endsWith('.json') && !before.has(f));
        }
        if (fresh.length === 0) throw new Error('Run failed wrote no report');
        let rows = [];
        for (let i = 0; i < 60; i++) {
          rows = await testRows(page);
          if ((caseRow(rows, FAIL_CASE) || {}).state === 'failed') break;
          await page.waitForTimeout(500);
        }
        await page.waitForTimeout(1500); // a second report would be there by now
        fresh = fs.readdirSync(reports).filter((f) => f.endsWith('.json') && !before.has(f));
        result.runFailedReports = fresh.map((f) => JSON.parse(fs.readFileSync(path.join(reports, f), 'utf8')).cases.map((c) => c.name));
        result.failRowAfterRunFailed = caseRow(rows, FAIL_CASE) || null;
        result.passRowAfterRunFailed = caseRow(rows, CASE) || null;
        await page.screenshot({ path: `${OUT}/run-failed-profile.png` });
      });
    }
  }
  if (RUN_LENS) {
    await step('test-explorer-sync', async () => {
      // rename the broken case in the editor (unsaved): the Test Explorer follows the edit
      await page.keyboard.press('Escape'); // close the failure peek
      await page.locator('.tabs-container .tab', { hasText: BROKEN }).first().click();
      await page.locator('.tab.active', { hasText: BROKEN }).waitFor({ timeout: 15000 });
      await gotoLine(page, 2, 7);
      await page.keyboard.press('Shift+End');
      await page.keyboard.type('renamed-case');
      const tree = page.locator('.test-explorer .monaco-list-row');
      let labels = [];
      for (let i = 0; i < 40; i++) {
        labels = await tree.evaluateAll((els) => els.map((r) => (r.getAttribute('aria-label') || '').trim()));
        if (labels.some((l) => l.startsWith('renamed-case ('))) break;
        await page.waitForTimeout(250);
      }
      result.rowsAfterEdit = labels;
      await page.screenshot({ path: `${OUT}/test-explorer-sync.png` });
    });
  }
  if (RUN_LENS) {
    await step('open-last-report', async () => {
      await runCommand(page, 'evalens: Open Last Report');
      const tab = page.locator('.tab', { hasText: /\d{4}-\d\d-\d\dT[\d-]+Z\.json/ }).first();
      await tab.waitFor({ timeout: 30000 });
      result.reportTab = (await tab.innerText()).trim();
      // rendered, not raw JSON: the run page of the whole report
      const frame = await runPageFrame(page, '', true);
      result.reportUnits = await frame.locator('section.unit').evaluateAll(
        (els) => els.map((e) => `${e.dataset.verdict} ${e.id}`));
    });
  }
  await step('new-case', async () => {
    // "＋ New eval case" on the skill's SKILL.md: a new case file opens with the cursor on its prompt
    await runCommand(page, 'View: Close Panel').catch(() => undefined);
    await openFile(page, 'SKILL.md');
    await scrollEditorToTop(page);
    const lens = page.locator('.editor-instance .codelens-decoration', { hasText: 'New eval case' }).first();
    await lens.waitFor({ timeout: 60000 });
    result.newCaseLens = (await lens.innerText()).trim();
    await lens.locator('a', { hasText: 'New eval case' }).first().click({ timeout: 15000 });
    const tab = page.locator('.tab.active', { hasText: NEW_CASE_FILE }).first();
    await tab.waitFor({ timeout: 30000 });
    const cursor = page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first();
    for (let i = 0; i < 40; i++) {
      result.newCaseCursor = (await cursor.innerText()).trim();
      if (result.newCaseCursor.startsWith('Ln 4,')) break;
      await page.waitForTimeout(250);
    }
    result.newCaseTab = (await tab.innerText()).trim();
    result.newCaseText = (await page.locator('.editor-instance .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    await page.keyboard.type('Extract the text of fixtures/sample.txt');
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${OUT}/new-case.png` });
  });

  await step('extension-page', async () => {
    // the extension's Details page: its icon and name, as a user finds it in the Extensions view
    await runCommand(page, 'View: Close Panel').catch(() => undefined);
    await runCommand(page, 'Extensions: Show Enabled Extensions');
    const entry = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'evalens' }).first();
    await entry.waitFor({ timeout: 30000 });
    await entry.click();
    const header = page.locator('.extension-editor .header').first();
    await header.waitFor({ timeout: 30000 });
    const icon = page.locator('.extension-editor .header img.icon').first();
    await icon.waitFor({ timeout: 15000 });
    for (let i = 0; i < 20; i++) {
      result.extensionIcon = await icon.evaluate((img) => ({ src: img.src, width: img.naturalWidth, complete: img.complete }));
      if (result.extensionIcon.width > 0) break;
      await page.waitForTimeout(250);
    }
    result.extensionHeader = (await header.innerText()).replace(/\s+/g, ' ').trim();
    await page.waitForTimeout(1000);
    await page.screenshot({ path: `${OUT}/extension-page.png` });
  });
});
