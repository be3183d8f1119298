import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildPhonePage } from '../helpers/phone-page';
import { buildTestApp, TEST_TOKEN } from '../companion/helpers/app';
import type { TestApp } from '../companion/helpers/app';

// The built service worker in headless Chromium: a push delivered twice for one occurrence
// (at-least-once delivery after a crash) shows one notification; another occurrence its own.
const availability = browserAvailability();

describe.skipIf(!availability.available)('phone notifications in Chromium', () => {
  let web: { webRoot: string; remove: () => void };
  let testApp: TestApp;
  let origin: string;
  let browser: LaunchedBrowser;

  beforeAll(async () => {
    web = await buildPhonePage();
    testApp = await buildTestApp({ deps: { webRoot: web.webRoot } });
    origin = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    await browser.context.grantPermissions(['notifications'], { origin });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await testApp?.close();
    web?.remove();
  });

  it('replaces a repeated delivery of one occurrence instead of adding one', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${origin}/#token=${TEST_TOKEN}`);
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
    const id = await registrationId;
    const deliver = (occurrence: string) =>
      cdp.send('ServiceWorker.deliverPushMessage', {
        origin,
        registrationId: id,
        data: JSON.stringify({
          title: 'Water the plants',
          body: 'Garden.md',
          reminder_id: 'r-x81c',
          occurrence,
          deep_link: 'obsidian://open?vault=Sample&file=Garden.md',
          actions: ['done', 'snooze_15m', 'snooze_1h', 'open'],
        }),
      });
    const tags = () =>
      page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        return (await registration.getNotifications()).map((shown) => shown.tag).sort();
      });
    const waitFor = async (count: number) => {
      const deadline = Date.now() + 10_000;
      let found = await tags();
      while (found.length < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found = await tags();
      }
      return found;
    };

    // A push reaching a worker still starting can be dropped: deliver until the first shows.
    for (let attempt = 0; attempt < 6 && (await tags()).length === 0; attempt++) {
      await deliver('2026-11-23T09:00:00+01:00');
      await waitFor(1);
    }
    // The same occurrence again, once as written and once in UTC: still one notification.
    await deliver('2026-11-23T09:00:00+01:00');
    await deliver('2026-11-23T08:00:00Z');
    // The next week's occurrence is a notification of its own.
    await deliver('2026-11-30T09:00:00+01:00');
    const shown = await waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await tags()).toEqual(shown);
    expect(shown).toEqual([
      `reminder:r-x81c@${Date.parse('2026-11-23T08:00:00Z')}`,
      `reminder:r-x81c@${Date.parse('2026-11-30T08:00:00Z')}`,
    ]);
    await page.close();
  });
});
