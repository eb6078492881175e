// Drives code-server for issue 45's first minute (tests/editors/test_vscode_first_minute.py): a fresh profile with
// no evalens.server.path, a python3 on PATH that refuses pip (PEP 668) and no network. The extension should set up
// its own environment from the wheels in the .vsix, without asking, and the broken case should get its diagnostics.
// Usage: node drive_first_minute.js <baseUrl> <workspaceFolder>
// Env: SHOT_DIR, RESULT_FILE, CHROMIUM, BROKEN (the case file with errors).
const { OUT, result, log, save, step, shot, openFile, launch } = require('./lib');

const [BASE, FOLDER] = process.argv.slice(2);
const BROKEN = process.env.BROKEN || '03-broken.yaml';

/** Every notification and dialog text on screen, polled while the extension sets itself up. */
async function onScreen(page) {
  const texts = await page.locator('.notification-toast, .monaco-dialog-box').allInnerTexts().catch(() => []);
  return texts.map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

(async () => {
  const { browser, page } = await launch();
  const seen = new Set();
  let polling = true;
  const poll = (async () => {
    while (polling) {
      (await onScreen(page)).forEach((t) => seen.add(t));
      await page.waitForTimeout(250);
    }
  })();
  try {
    const opened = Date.now();
    await step('workbench', async () => {
      await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
      await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    });

    await step('diagnostics', async () => {
      await openFile(page, BROKEN);
      const progress = page.locator('.notification-toast', { hasText: 'setting up its Python environment' }).first();
      const shown = await progress.waitFor({ timeout: 30000 }).then(() => true).catch(() => false);
      if (shown) await shot(page, 'first-minute-installing.png', 'vscode-45-first-minute-installing.png');
      await page.waitForSelector('.editor-instance .squiggly-error', { timeout: 90000 });
      result.secondsToDiagnostics = (Date.now() - opened) / 1000;
      await page.keyboard.press('Control+Shift+M');
      const rows = page.locator('.markers-panel .monaco-list-row');
      await rows.filter({ hasText: 'pdf-tool' }).first().waitFor({ timeout: 30000 });
      await page.waitForTimeout(500);
      result.problems = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      result.status = (await page.locator('.statusbar-item', { hasText: 'evalens' }).allInnerTexts()).map((t) => t.trim());
      await shot(page, 'first-minute-diagnostics.png', 'vscode-45-first-minute-diagnostics.png');
    });

    result.ok = true;
    log('ALL OK');
  } catch (e) {
    console.error('FAIL', e.message);
    await page.screenshot({ path: `${OUT}/failure.png` }).catch(() => undefined);
    result.ok = false;
    result.error = e.message;
    process.exitCode = 1;
  } finally {
    polling = false;
    await poll.catch(() => undefined);
    result.onScreen = [...seen];
    save();
    await browser.close();
  }
})();
