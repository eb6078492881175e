// Open evalens' run page in headless chromium and report what a reader sees (tests/editors/test_run_page.py).
// Usage: node check.js <page.html> <screenshot-dir>
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
  const url = 'file://' + PAGE;
  await page.goto(url);
  const seen = {};
  const visible = async (sel) => page.locator(sel).first().isVisible();
  const text = async (sel) => (await page.locator(sel).first().innerText()).trim();
  await page.screenshot({ path: `${OUT}/run-page.png`, fullPage: false });
  seen.first_unit = await page.locator('section.unit').first().getAttribute('data-verdict');
  seen.fail_badge_visible = await visible('section.unit[data-verdict=FAIL] header .badge.FAIL');
  seen.failed_check_visible = await visible('tr.check-FAIL');
  seen.failed_check_text = await text('tr.check-FAIL');
  // the blocked call of a failed unit is open without a click
  seen.blocked_call_visible = await visible('section.unit[data-verdict=FAIL] .call.blocked');
  seen.blocked_call_text = await text('section.unit[data-verdict=FAIL] .call.blocked');
  // diffs are collapsed until clicked
  const file = page.locator('section.unit[data-verdict=FAIL] details.file').first();
  seen.diff_hidden_before = !(await file.locator('.diff').isVisible());
  await file.locator('summary').click();
  seen.diff_visible_after = await file.locator('.diff .add').first().isVisible();
  seen.diff_added_line = (await file.locator('.diff .add').last().innerText()).trim();
  await page.screenshot({ path: `${OUT}/run-page-diff.png`, fullPage: false });
  // the verdict filter
  await page.locator('.filters button[data-filter=PASS]').click();
  seen.after_pass_filter = await page.locator('section.unit:not(.hidden)').evaluateAll(
    (els) => els.map((e) => e.dataset.verdict));
  await page.locator('.filters button[data-filter=all]').click();
  // an anchor to a turn unfolds it
  await page.goto(url + '#u-writes-greeting-r1-t1');
  await page.waitForTimeout(200);
  seen.anchor_turn_open = await page.locator('#u-writes-greeting-r1-t1').evaluate((d) => d.open);
  seen.anchor_call_visible = await visible('#u-writes-greeting-r1-t1 .call');
  await page.screenshot({ path: `${OUT}/run-page-full.png`, fullPage: true });
  seen.requests = requests;
  seen.errors = errors;
  await browser.close();
  console.log(JSON.stringify(seen));
})().catch((e) => { console.error('FAIL', e); process.exit(1); });
