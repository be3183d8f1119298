import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../companion/app';
import { sha256 } from '../../companion/auth/token';
import { openDatabase } from '../../companion/db/open';
import { ReminderScheduler } from '../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../companion/reminders/vault-reminder-source';
import { ManualClock } from '../fakes/clock';
import { copySampleVault, tempDir, testConfig, TEST_TOKEN } from '../companion/helpers/app';
import { HOUR, ManualTimer, RecordingDeliverer } from '../companion/reminders/helpers';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildPhonePage } from '../helpers/phone-page';

/*
 * The phone page while the companion is away (issue #26, item 9), in a real headless Chromium
 * at 390×844, light and dark, against the real companion: a reload while it is down shows the
 * lists last loaded under an offline banner (never the sign-in form: the token was not
 * refused), and the page recovers by itself once the companion is back on the same address.
 * CAIRN_SCREENSHOTS=dir keeps the pictures.
 */
const availability = browserAvailability();

describe.skipIf(!availability.available)('the phone page when the companion is away', () => {
  let web: { webRoot: string; remove: () => void };
  let dir: { path: string; remove: () => void };
  let vault: string;
  let browser: LaunchedBrowser;
  let port = 0;
  const keepShots = process.env.CAIRN_SCREENSHOTS;
  const shots = keepShots ?? mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  /** The companion on `port` (0: any), over the same vault and database file each time. */
  async function startCompanion(): Promise<{ close: () => Promise<void> }> {
    const clock = ManualClock.at('2026-11-27T10:00:00Z');
    const db = openDatabase(join(dir.path, 'cairn.db'));
    const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
    await source.load();
    const scheduler = new ReminderScheduler({
      db,
      clock,
      source,
      deliverer: new RecordingDeliverer(clock, ['phone']),
      graceMs: 24 * HOUR,
      timer: new ManualTimer(clock),
    });
    await scheduler.start();
    const app: FastifyInstance = await buildApp({
      config: testConfig(vault, join(dir.path, 'data')),
      db,
      clock,
      tokenSha256: sha256(TEST_TOKEN),
      version: '0.0.0-test',
      scheduler,
      reminderSource: source,
      webRoot: web.webRoot,
    });
    const origin = await app.listen({ host: '127.0.0.1', port });
    port = Number(new URL(origin).port);
    return {
      close: async () => {
        await scheduler.stop();
        await app.close();
      },
    };
  }

  beforeAll(async () => {
    web = await buildPhonePage();
    dir = tempDir('phone-offline');
    vault = copySampleVault(dir.path);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    dir?.remove();
    web?.remove();
    if (!keepShots) rmSync(shots, { recursive: true, force: true });
  });

  it.each(['light', 'dark'] as const)(
    '%s: cached lists under an offline banner, then back by itself',
    async (scheme) => {
      let companion = await startCompanion();
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.emulateMedia({ colorScheme: scheme });
      try {
        await page.goto(`http://127.0.0.1:${port}/#token=${TEST_TOKEN}`);
        await page.waitForSelector('#home:not([hidden]) #upcoming li');
        const live = await page.locator('#upcoming li .title').allTextContents();
        expect(live.length).toBeGreaterThan(0);
        // The service worker keeps the page itself for loads without the companion.
        await page.evaluate(async () => {
          await navigator.serviceWorker.ready;
          for (let i = 0; i < 100 && !(await caches.has('cairn-shell-v1')); i++) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        });
        await page.reload();
        await page.waitForSelector('#upcoming li');

        await companion.close();
        await page.reload();
        await page.waitForSelector('#offline:not([hidden])');
        expect(await page.locator('#sign-in').isHidden()).toBe(true);
        expect(await page.locator('#home').isVisible()).toBe(true);
        await page.waitForSelector('#upcoming li');
        expect(await page.locator('#upcoming li .title').allTextContents()).toEqual(live);
        expect(await page.locator('#offline').textContent()).toMatch(/Offline/);
        expect(await page.locator('#companion').textContent()).toBe('Companion unreachable');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          390,
        );
        await page.screenshot({ path: join(shots, `phone-offline-${scheme}.png`) });

        companion = await startCompanion();
        // No reload: the page finds the companion again within its retry interval.
        await page.waitForSelector('#offline[hidden]', { state: 'attached', timeout: 20_000 });
        expect(await page.locator('#companion').textContent()).not.toMatch(/unreachable/i);
        await page.screenshot({ path: join(shots, `phone-back-${scheme}.png`) });
      } finally {
        await page.close();
        await companion.close();
      }
    },
    90_000,
  );
});
