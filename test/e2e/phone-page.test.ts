import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildPhonePage } from '../helpers/phone-page';
import { buildTestApp, TEST_TOKEN } from '../companion/helpers/app';
import { isoWeekOfDate, mondayOfIsoWeek } from '../../shared/calendar/iso-week';
import { todayIn } from '../../companion/web/today';
import type { TestApp } from '../companion/helpers/app';

// The phone page in a real (headless) Chromium against the real companion app on loopback,
// which browsers treat as a secure context, so the service worker registers as over HTTPS.
const availability = browserAvailability();

describe.skipIf(!availability.available)('the phone page in Chromium', () => {
  let web: { webRoot: string; remove: () => void };
  let testApp: TestApp;
  let origin: string;
  let browser: LaunchedBrowser;
  const weeksAsked: string[] = [];
  // CAIRN_SCREENSHOTS=docs/screenshots keeps the pictures (the README's come from here).
  const keepShots = process.env.CAIRN_SCREENSHOTS;
  const shots = keepShots ?? mkdtempSync(join(tmpdir(), 'cairn-shots-'));

  beforeAll(async () => {
    web = await buildPhonePage();
    testApp = await buildTestApp({ deps: { webRoot: web.webRoot } });
    origin = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    await browser.context.grantPermissions(['notifications'], { origin });
  }, 120_000);

  /**
   * The week as `GET /api/v1/calendar/week` answers it (issue #15's contract). The browser test
   * serves it from the page's side (`page.route`), so the view is checked against the agreed
   * shape whether or not this companion build has the route.
   */
  function weekAnswer(week: string) {
    const monday = Date.parse(`${mondayOfIsoWeek(week)}T00:00:00Z`);
    const days = Array.from({ length: 7 }, (_, index) =>
      new Date(monday + index * 86_400_000).toISOString().slice(0, 10),
    );
    return {
      week,
      start: days[0],
      end: days[6],
      timezone: 'Europe/Berlin',
      days: days.map((date, index) => ({
        date,
        items:
          index === 2
            ? [
                {
                  kind: 'reminder',
                  id: 'r-7k2p',
                  title: 'Call the bank',
                  start: `${date}T17:00:00+01:00`,
                  end: null,
                  all_day: false,
                  path: 'Cairn/Reminders/call-the-bank.md',
                  line: null,
                  status: 'active',
                  recurring: true,
                },
                {
                  kind: 'event',
                  id: 'ev-1',
                  title: 'Dentist',
                  start: `${date}T09:00:00+01:00`,
                  end: `${date}T10:00:00+01:00`,
                  all_day: false,
                  path: 'Calendar/Dentist.md',
                  line: null,
                  status: null,
                  recurring: false,
                },
              ]
            : [],
      })),
    };
  }

  afterAll(async () => {
    await browser?.close();
    await testApp?.close();
    web?.remove();
    if (!keepShots) rmSync(shots, { recursive: true, force: true });
  });

  /** Asks again until `read` finds something; the service worker shows notifications async. */
  async function poll<T>(read: () => Promise<T[]>, timeoutMs = 10_000): Promise<T[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await read();
      if (found.length > 0 || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function openPage(hash: string): Promise<Page> {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${origin}/${hash}`);
    return page;
  }

  it('signs in from a pairing link, forgets the link, registers its service worker', async () => {
    const page = await openPage(`#token=${TEST_TOKEN}`);
    await page.waitForSelector('#home:not([hidden])');
    // The token leaves the address bar at once.
    expect(new URL(page.url()).hash).toBe('');
    // The companion here runs no embedder, and the status line says so (index.semantic).
    expect(await page.textContent('#companion')).toMatch(/^0 notes · Keyword search only: /);

    const scriptUrl = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return registration.active?.scriptURL;
    });
    expect(scriptUrl).toBe(`${origin}/sw.js`);

    // Signed in for good: a reload without the link goes straight home.
    await page.reload();
    await page.waitForSelector('#home:not([hidden])');
    await page.close();
  });

  it('shows the reminder lists and the notification state', async () => {
    const page = await openPage('');
    await page.waitForSelector('#home:not([hidden])');
    await page.waitForFunction(() => document.querySelector('#missed li') !== null);
    const upcoming = await page.locator('#upcoming li').allTextContents();
    const missed = await page.locator('#missed li').allTextContents();
    expect(upcoming.length).toBe(1);
    expect(missed.length).toBe(1);
    for (const text of [...upcoming, ...missed]) expect(text).not.toMatch(/undefined|null/);
    expect(await page.textContent('#notification-state')).toMatch(
      /receive reminders|cannot receive push/,
    );

    mkdirSync(shots, { recursive: true });
    const file = join(shots, 'phone-home.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(390);
    // A blank or unstyled page compresses to almost nothing; the styled page does not.
    expect(png.length).toBeGreaterThan(15_000);
    await page.close();
  });

  it('shows a pushed reminder as a notification with Done and Snooze buttons', async () => {
    const page = await openPage('');
    await page.waitForSelector('#home:not([hidden])');
    const cdp = await browser.context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) => {
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const ours = registrations.find(
          (registration: { scopeURL: string; isDeleted: boolean }) =>
            registration.scopeURL === `${origin}/` && !registration.isDeleted,
        );
        if (ours) resolve(ours.registrationId);
      });
    });
    await cdp.send('ServiceWorker.enable');
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    const push = {
      origin,
      registrationId: await registrationId,
      data: JSON.stringify({
        title: 'Call the bank',
        body: 'Cairn/Reminders/call-the-bank.md',
        reminder_id: 'r-7k2p',
        occurrence: '2026-11-23T17:00:00+01:00',
        deep_link: 'obsidian://open?vault=Sample&file=Cairn%2FReminders%2Fcall-the-bank.md',
        actions: ['done', 'snooze_15m', 'snooze_1h', 'open'],
      }),
    };
    // A push that reaches a worker still starting up can be dropped; a real push service
    // redelivers, so the test does too (the tag makes a repeat replace, not add).
    const readShown = () =>
      page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        return (await registration.getNotifications()).map((notification) => ({
          title: notification.title,
          body: notification.body,
          tag: notification.tag,
          actions: (notification as Notification & { actions?: { action: string }[] }).actions?.map(
            (action) => action.action,
          ),
        }));
      });
    let shown: Awaited<ReturnType<typeof readShown>> = [];
    for (let attempt = 0; attempt < 6 && shown.length === 0; attempt++) {
      await cdp.send('ServiceWorker.deliverPushMessage', push);
      shown = await poll(readShown, 5_000);
    }
    expect(shown).toEqual([
      {
        title: 'Call the bank',
        body: 'Cairn/Reminders/call-the-bank.md',
        // One notification per occurrence (docs/reminders.md).
        tag: `reminder:r-7k2p@${Date.parse('2026-11-23T16:00:00Z')}`,
        actions: expect.arrayContaining(['done', 'snooze_15m']),
      },
    ]);
    await page.close();
  });

  it('shows the week: seven days, today marked, previous and next weeks', async () => {
    const page = await openPage('');
    await page.setViewportSize({ width: 360, height: 780 });
    await page.route('**/api/v1/calendar/week?*', async (route) => {
      const week = new URL(route.request().url()).searchParams.get('week') ?? '';
      weeksAsked.push(week);
      await route.fulfill({ json: weekAnswer(week) });
    });
    await page.waitForSelector('#home:not([hidden])');
    await page.click('#tab-week');
    await page.waitForSelector('#week-days > li.day');
    const thisWeek = isoWeekOfDate(todayIn(Date.now()));
    expect(weeksAsked.at(-1)).toBe(thisWeek);
    expect(await page.locator('#week-days > li.day').count()).toBe(7);
    const today = page.locator('#week-days > li.day.today');
    expect(await today.count()).toBe(1);
    expect(await today.getAttribute('data-date')).toBe(todayIn(Date.now()));
    expect(await today.getAttribute('aria-current')).toBe('date');
    const items = page.locator('#week-days > li.day').nth(2).locator('.week-item');
    // Sorted by time (the route need not sort): the 09:00 event before the 17:00 reminder.
    expect(await items.locator('.title').allTextContents()).toEqual(['Dentist', 'Call the bank']);
    expect(await items.nth(1).locator('.meta').textContent()).toBe('Reminder · repeats');
    expect(await items.nth(1).locator('a.title').getAttribute('href')).toBe(
      'obsidian://open?vault=vault&file=Cairn%2FReminders%2Fcall-the-bank.md',
    );
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, 'phone-week.png') });

    await page.click('#week-next');
    await expect.poll(() => weeksAsked.at(-1)).not.toBe(thisWeek);
    await expect.poll(() => page.locator('#week-days > li.day.today').count()).toBe(0);
    await page.click('#week-previous');
    await page.click('#week-previous');
    await expect.poll(() => weeksAsked.length).toBeGreaterThanOrEqual(4);
    await page.click('#week-today');
    await expect.poll(() => weeksAsked.at(-1)).toBe(thisWeek);
    await expect.poll(() => page.locator('#week-days > li.day.today').count()).toBe(1);
    await page.close();
  });

  it('opens from the offline shell when the companion cannot be reached', async () => {
    const page = await openPage('');
    await page.waitForSelector('#home:not([hidden])');
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      // The shell is cached at install; wait until it is there.
      for (let i = 0; i < 100 && !(await caches.has('cairn-shell-v1')); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    // Controlled by the worker from this load on.
    await page.reload();
    await page.waitForSelector('#home:not([hidden])');
    await browser.context.setOffline(true);
    try {
      await page.reload();
      // The token was not refused: no sign-in form, the offline banner (phone-offline.test.ts).
      await page.waitForSelector('#offline:not([hidden])');
      expect(await page.locator('#sign-in').isHidden()).toBe(true);
      const font = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
      expect(font.startsWith('system-ui')).toBe(true);
    } finally {
      await browser.context.setOffline(false);
    }
    await page.close();
  });

  it('refuses a wrong token with a clear message and offers the sign-in form', async () => {
    const other = await launchChromium();
    try {
      const page = await other.context.newPage();
      await page.goto(`${origin}/#token=not-the-token`);
      await page.waitForSelector('#sign-in:not([hidden])');
      await page.waitForSelector('#message:not([hidden])');
      expect(await page.textContent('#message')).toBe(
        'The companion did not accept that token. Check it and try again.',
      );
      await page.fill('#token', TEST_TOKEN);
      await page.click('#sign-in-form button[type=submit]');
      await page.waitForSelector('#home:not([hidden])');
    } finally {
      await other.close();
    }
  });
});
