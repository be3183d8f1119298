/* global document */
// Takes the README's phone-page screenshot from a running companion, as a phone would see it:
//   npm start                      # in one terminal; note the token it prints (or set CAIRN_TOKEN)
//   node scripts/screenshot-phone.mjs http://127.0.0.1:8787 <token> docs/screenshots/phone-page.png
// Uses Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH), never a downloaded browser.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [origin, token, out = 'docs/screenshots/phone-page.png'] = process.argv.slice(2);
if (!origin || !token) {
  console.error('usage: node scripts/screenshot-phone.mjs <companion URL> <token> [out.png]');
  process.exit(2);
}
const profile = mkdtempSync(join(tmpdir(), 'cairn-shot-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  timezoneId: 'Europe/Berlin',
  locale: 'en-GB',
});
try {
  const page = await context.newPage();
  await page.goto(`${origin}/#token=${encodeURIComponent(token)}`);
  await page.waitForSelector('#home:not([hidden])');
  await page.waitForFunction(() => document.querySelectorAll('#missed li').length > 0);
  await page.fill('#query', 'what are the visa rules');
  await page.click('#search-form button[value=ask]');
  await page.waitForSelector('#answer:not([hidden])', { timeout: 15_000 });
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
