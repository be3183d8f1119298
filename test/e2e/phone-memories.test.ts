import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../companion/app';
import { DEFAULT_FOLDERS } from '../../shared/settings/cairn-settings';
import { sha256 } from '../../companion/auth/token';
import { openDatabase } from '../../companion/db/open';
import { ReminderScheduler } from '../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../companion/reminders/vault-reminder-source';
import { ManualClock } from '../fakes/clock';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { repoRoot } from '../helpers/corpora';
import { buildPhonePage } from '../helpers/phone-page';
import { TEST_TOKEN, copySampleVault, tempDir, testConfig } from '../companion/helpers/app';
import { HOUR, ManualTimer, RecordingDeliverer } from '../companion/reminders/helpers';

/*
 * The phone page's Memories view (docs/memory-digest-calendar.md) in headless Chromium against
 * the real app: newest first, category chips with counts, the filter, a saved link's state with
 * Retry (a real page served on 127.0.0.1), and "Remind me" writing a reminder note that links
 * the memory. CAIRN_SCREENSHOTS=docs keeps the pictures in docs/images/memories/.
 */
const availability = browserAvailability();
const PAGE_HTML = readFileSync(join(repoRoot, 'test/fixtures/links/what-is-rustdoc.html'));

describe.skipIf(!availability.available)('the Memories view on the phone page', () => {
  let web: { webRoot: string; remove: () => void };
  let dir: { path: string; remove: () => void };
  let vault: string;
  let app: FastifyInstance;
  let scheduler: ReminderScheduler;
  let pages: Server;
  let origin: string;
  let browser: LaunchedBrowser;
  let page: Page;
  const keepShots = process.env.CAIRN_SCREENSHOTS;
  const shots = keepShots
    ? resolve(repoRoot, keepShots, 'images/memories')
    : mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  beforeAll(async () => {
    pages = createServer((req, res) => {
      if (req.url === '/page') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(PAGE_HTML);
      } else {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>Not found</h1>');
      }
    });
    await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
    const base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;

    web = await buildPhonePage();
    dir = tempDir('phone-memories');
    vault = copySampleVault(dir.path);
    mkdirSync(join(vault, 'Cairn'), { recursive: true });
    writeFileSync(
      join(vault, 'Cairn/Memory.md'),
      [
        '---',
        'type: memory',
        '---',
        '# Memory',
        '',
        '- Great pizza at Mario’s on Main St #memory/food (added 2026-11-20) ^m-pz01',
        '- Need to watch Inception #memory/movies (added 2026-11-21) ^m-mv01',
        `- The rustdoc book ${base}/page #memory/websites (added 2026-11-21) ^m-ln01`,
        `- A gone page ${base}/gone #memory/websites (added 2026-11-21) ^m-ln03`,
        '- Some tool https://example.org/tool #memory/websites (added 2026-11-22) ^m-ln02',
        '- Dune by Frank Herbert #memory/books (added 2026-11-22) ^m-bk01',
        '',
      ].join('\n'),
    );
    const clock = ManualClock.at('2026-11-22T10:00:00Z');
    const db = openDatabase(':memory:');
    const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
    await source.load();
    scheduler = new ReminderScheduler({
      db,
      clock,
      source,
      deliverer: new RecordingDeliverer(clock, ['phone']),
      graceMs: 24 * HOUR,
      timer: new ManualTimer(clock),
    });
    await scheduler.start();
    app = await buildApp({
      config: { ...testConfig(vault, join(dir.path, 'data')), linkHosts: ['127.0.0.1'] },
      db,
      clock,
      tokenSha256: sha256(TEST_TOKEN),
      version: '0.0.0-test',
      scheduler,
      reminderSource: source,
      webRoot: web.webRoot,
    });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${origin}/#token=${TEST_TOKEN}`);
    await page.waitForSelector('#home:not([hidden])');
    mkdirSync(shots, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await scheduler?.stop();
    await app?.close();
    pages?.closeAllConnections();
    await new Promise<void>((done) => (pages ? pages.close(() => done()) : done()));
    web?.remove();
    dir?.remove();
  });

  async function shoot(name: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(shots, `${name}-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  const rows = () => page.locator('#memories li.memory-row');
  const rowOf = (id: string) => page.locator(`#memories li[data-memory="${id}"]`);

  it('lists memories newest first with category chips counted by the companion', async () => {
    await page.click('#tab-memories');
    await page.waitForSelector('#memories li.memory-row');
    expect(await rows().evaluateAll((items) => items.map((item) => item.dataset.memory))).toEqual([
      'm-bk01',
      'm-ln02',
      'm-ln03',
      'm-ln01',
      'm-mv01',
      'm-pz01',
    ]);
    const chips = await page.locator('#memory-categories button').allTextContents();
    expect(chips).toEqual(['All6', 'Websites3', 'Food1', 'Movies1', 'Books1']);
    expect(await page.getAttribute('#memory-categories [data-category=all]', 'aria-pressed')).toBe(
      'true',
    );
    expect(await rowOf('m-pz01').locator('.memory-meta').textContent()).toBe(
      'Food · added 2026-11-20',
    );
  });

  it('shows each saved link’s state: offline-mode links say so, others can be retried', async () => {
    const offline = rowOf('m-ln02').locator('.memory-link');
    expect(await offline.getAttribute('data-status')).toBe('not_fetched');
    expect(await offline.textContent()).toMatch(
      /offline mode: example\.org is not an allowed host/,
    );
    expect(await rowOf('m-ln02').locator('button', { hasText: 'Retry' }).count()).toBe(0);

    await rowOf('m-ln03').locator('button', { hasText: 'Retry' }).click();
    await page.waitForSelector(
      '#memories li[data-memory="m-ln03"] .memory-link[data-status=failed]',
    );
    expect(await rowOf('m-ln03').locator('.memory-link').textContent()).toMatch(
      /Not clipped.*HTTP_STATUS|Not clipped.*404/,
    );
    expect(await page.textContent('#message')).toMatch(/Could not clip the link/);

    const pending = rowOf('m-ln01').locator('.memory-link');
    expect(await pending.textContent()).toMatch(/Not fetched.*not fetched yet/);
    await rowOf('m-ln01').locator('button', { hasText: 'Retry' }).click();
    await page.waitForSelector(
      '#memories li[data-memory="m-ln01"] .memory-link[data-status=clipped]',
    );
    const title = await rowOf('m-ln01').locator('.memory-link-title').textContent();
    expect(title).toMatch(/rustdoc/i);
    expect(readdirSync(join(vault, 'Cairn/Links'))).toHaveLength(1);
    await shoot('phone-memories');
  });

  it('filters by a category chip (?category= on the list)', async () => {
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/memories?')) asked.push(request.url());
    });
    await page.click('#memory-categories [data-category=websites]');
    await page.waitForFunction(
      () => document.querySelectorAll('#memories li.memory-row').length === 3,
    );
    expect(asked.some((url) => url.endsWith('/api/v1/memories?category=websites'))).toBe(true);
    expect(
      await page.getAttribute('#memory-categories [data-category=websites]', 'aria-pressed'),
    ).toBe('true');
    await shoot('phone-memories-websites');
    await page.click('#memory-categories [data-category=food]');
    await page.waitForFunction(
      () => document.querySelectorAll('#memories li.memory-row').length === 1,
    );
  });

  it('"Remind me" on a memory writes a reminder note linking it', async () => {
    const row = rowOf('m-pz01');
    await row.locator('button.memory-remind').click();
    await row.locator('input[type=datetime-local]').fill('2026-11-27T18:00');
    await shoot('phone-memories-remind');
    await row.locator('button[type=submit]').click();
    await page.waitForFunction(() =>
      /Reminder set|Could not/.test(document.querySelector('#message')?.textContent ?? ''),
    );
    expect(await page.textContent('#message')).toMatch(/^Reminder set for .*: Great pizza/);
    const folder = join(vault, DEFAULT_FOLDERS.reminders);
    const notes = existsSync(folder) ? readdirSync(folder) : [];
    const made = notes
      .map((name) => readFileSync(join(folder, name), 'utf8'))
      .find((text) => text.includes('[[Cairn/Memory#^m-pz01]]'));
    expect(made).toBeDefined();
    expect(made).toContain('title: Great pizza at Mario’s on Main St');
    expect(await row.locator('form').count()).toBe(0);
  });

  it('reads well on a desktop-wide window too', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click('#memory-categories [data-category=all]');
    await page.waitForFunction(
      () => document.querySelectorAll('#memories li.memory-row').length === 6,
    );
    await shoot('desktop-memories');
    await page.setViewportSize({ width: 390, height: 844 });
  });
});
