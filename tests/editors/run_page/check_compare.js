// Open evalens' compare page in headless chromium and report what a reader sees (tests/editors/test_run_page.py).
// Usage: node check_compare.js <page.html> <screenshot-dir>
const { chromium } = require('playwright-core');
const [PAGE, OUT] = process.argv.slice(2);

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const requests = [];
  const errors = [];
  page.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('file://' + PAGE);
  const seen = {};
  const row = (label) => page.locator('table.cmp tr', { has: page.locator(`th:text-is("${label}")`) }).first();
  const cells = async (label) => (await row(label).locator('td').allInnerTexts()).map((t) => t.trim());
  seen.title = (await page.locator('h1').innerText()).trim();
  seen.headers = (await page.locator('table.cmp tr').first().locator('th').allInnerTexts()).map((t) => t.trim());
  seen.verdicts = await cells('verdict');
  seen.verdict_changed = (await row('verdict').getAttribute('class')) === 'changed';
  seen.verdict_colours = await row('verdict').locator('td').evaluateAll(
    (tds) => tds.map((td) => getComputedStyle(td).color));
  seen.check = await cells('check agent-blocked false');
  seen.cost = await cells('cost');
  seen.diff_visible = await page.locator('#output-diff').isVisible();
  seen.diff_removed = (await page.locator('#output-diff .del').allInnerTexts()).map((t) => t.trim());
  seen.diff_added = (await page.locator('#output-diff .add').allInnerTexts()).map((t) => t.trim());
  await page.screenshot({ path: `${OUT}/compare-page.png`, fullPage: true });
  seen.requests = requests;
  seen.errors = errors;
  await browser.close();
  console.log(JSON.stringify(seen));
})().catch((e) => { console.error('FAIL', e); process.exit(1); });
