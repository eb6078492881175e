// Drives code-server for issue 42's Restricted Mode (tests/editors/test_vscode_restricted_mode.py): the workspace
// opens untrusted (the trust prompt is off, so VS Code starts it in Restricted Mode). The extension should still
// check the eval files, lock every run lens, and start no agent; clicking a locked lens opens the trust editor.
// Usage: node drive_restricted.js <baseUrl> <workspaceFolder>
// Env: SHOT_DIR, RESULT_FILE, CHROMIUM, BROKEN (a case file with errors), GOOD (a valid case file).
const { result, step, shot, openFile, lensTexts, waitForLens, drive } = require('./lib');

const [BASE, FOLDER] = process.argv.slice(2);
const BROKEN = process.env.BROKEN || '03-broken.yaml';
const GOOD = process.env.GOOD || '01-extract-text.yaml';

drive(async (page) => {
  await step('workbench', async () => {
    await page.goto(`${BASE}/?folder=${encodeURIComponent(FOLDER)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    const restricted = page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first();
    result.restrictedIndicator = await restricted.waitFor({ timeout: 30000 }).then(() => true).catch(() => false);
  });

  await step('diagnostics', async () => {
    await openFile(page, BROKEN);
    await page.waitForSelector('.editor-instance .squiggly-error', { timeout: 90000 });
  });

  await step('locked-lens', async () => {
    await openFile(page, GOOD);
    await waitForLens(page, 'Restricted Mode', 90000);
    await page.waitForTimeout(500);
    result.lenses = await lensTexts(page);
    await shot(page, 'restricted-lens.png', 'vscode-42-restricted-mode-lens.png');
  });

  await step('lens-opens-trust', async () => {
    const lens = page.locator('.editor-instance .codelens-decoration a', { hasText: 'Restricted Mode' }).first();
    await lens.click();
    await page.locator('.tab', { hasText: 'Workspace Trust' }).first().waitFor({ timeout: 30000 });
    result.trustEditor = true;
  });
});
