import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailability, launchChromium } from '../helpers/browser';
import type { LaunchedBrowser } from '../helpers/browser';
import { buildPhonePage } from '../helpers/phone-page';
import { buildTestApp, TEST_TOKEN } from '../companion/helpers/app';
import type { TestApp } from '../companion/helpers/app';

// The built service worker in headless Chromium: a push delivered twice for one occurrence
// (at-least-once delivery after a crash) shows one notification, and none once the first was
// dismissed; another occurrence its own.
const availability = browserAvailability();

function isShownEntry(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { shown?: unknown }).shown === true
  );
}

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

  /** A page with the service worker running, and a way to push to it as the push service would. */
  async function pushablePage() {
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
    const deliver = (reminderId: string, occurrence: string) =>
      cdp.send('ServiceWorker.deliverPushMessage', {
        origin,
        registrationId: id,
        data: JSON.stringify({
          title: 'Water the plants',
          body: 'Garden.md',
          reminder_id: reminderId,
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
    /** A push reaching a worker still starting can be dropped: delivers until one shows. */
    const deliverUntilShown = async (reminderId: string, occurrence: string) => {
      for (let attempt = 0; attempt < 6 && (await tags()).length === 0; attempt++) {
        await deliver(reminderId, occurrence);
        await waitFor(1);
      }
    };
    /** Closes every notification shown, as a person swiping them away (or tapping Done). */
    const dismissAll = () =>
      page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        for (const shown of await registration.getNotifications()) shown.close();
      });
    /** The worker's record of `tag`, as IndexedDB holds it. */
    const entry = (tag: string) =>
      page.evaluate(
        (key) =>
          new Promise<unknown>((resolve, reject) => {
            const request = indexedDB.open('cairn-notifications');
            request.onerror = () => reject(request.error);
            request.onsuccess = () => {
              const read = request.result.transaction('shown').objectStore('shown').get(key);
              read.onsuccess = () => {
                resolve(read.result);
                request.result.close();
              };
            };
          }),
        tag,
      );
    return { page, deliver, deliverUntilShown, tags, waitFor, dismissAll, entry };
  }

  it('replaces a repeated delivery of one occurrence instead of adding one', async () => {
    const { page, deliver: push, deliverUntilShown, tags, waitFor } = await pushablePage();
    const deliver = (occurrence: string) => push('r-x81c', occurrence);

    await deliverUntilShown('r-x81c', '2026-11-23T09:00:00+01:00');
    // The same occurrence again, once as written and once in UTC: still one notification.
    await deliver('2026-11-23T09:00:00+01:00');
    await deliver('2026-11-23T08:00:00Z');
    // The next week's occurrence is a notification of its own. Delivered until it shows (a
    // push reaching a worker that is restarting can be dropped, as in deliverUntilShown): its
    // repeats must not add a third.
    let shown = await tags();
    for (let attempt = 0; attempt < 6 && shown.length < 2; attempt++) {
      await deliver('2026-11-30T09:00:00+01:00');
      shown = await waitFor(2);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await tags()).toEqual(shown);
    expect(shown).toEqual([
      `reminder:r-x81c@${Date.parse('2026-11-23T08:00:00Z')}`,
      `reminder:r-x81c@${Date.parse('2026-11-30T08:00:00Z')}`,
    ]);
    await page.close();
  });
  it('does not show an occurrence again once the first was dismissed', async () => {
    const { page, deliver, deliverUntilShown, tags, dismissAll, entry } = await pushablePage();
    await dismissAll();
    await deliverUntilShown('r-k2m9', '2026-11-24T07:30:00Z');
    const first = `reminder:r-k2m9@${Date.parse('2026-11-24T07:30:00Z')}`;
    expect(await tags()).toEqual([first]);
    // The worker records it shown just after it reached the screen; a person takes longer
    // than that to swipe it away, so the test waits for the record as the person would.
    const deadline = Date.now() + 10_000;
    while (!isShownEntry(await entry(first)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await entry(first)).toEqual({ at: expect.any(Number), shown: true });
    // The person swipes it away; the companion, unsure after a kill, sends it again.
    await dismissAll();
    expect(await tags()).toEqual([]);
    await deliver('r-k2m9', '2026-11-24T07:30:00Z');
    await deliver('r-k2m9', '2026-11-24T08:30:00+01:00');
    // A new occurrence after the repeats still shows.
    await deliver('r-k2m9', '2026-11-25T07:30:00Z');
    // A repeat is shown silently and closed at once, so it can be on screen for a moment:
    // wait for the new occurrence, then check that what is shown stays.
    const next = `reminder:r-k2m9@${Date.parse('2026-11-25T07:30:00Z')}`;
    const until = Date.now() + 10_000;
    let shown = await tags();
    while (!(shown.length === 1 && shown[0] === next) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      shown = await tags();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await tags()).toEqual(shown);
    expect(shown).toEqual([`reminder:r-k2m9@${Date.parse('2026-11-25T07:30:00Z')}`]);
    // The record of what was shown is this origin's IndexedDB, where the worker left it.
    const remembered = await page.evaluate(
      () =>
        new Promise<string[]>((resolve, reject) => {
          const request = indexedDB.open('cairn-notifications');
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            const keys = request.result.transaction('shown').objectStore('shown').getAllKeys();
            keys.onsuccess = () => {
              resolve((keys.result as string[]).filter((key) => key.includes('r-k2m9')).sort());
              request.result.close();
            };
          };
        }),
    );
    expect(remembered).toEqual([
      `reminder:r-k2m9@${Date.parse('2026-11-24T07:30:00Z')}`,
      `reminder:r-k2m9@${Date.parse('2026-11-25T07:30:00Z')}`,
    ]);
    await page.close();
  });

  it('shows an occurrence at once when its pushes arrive together, and keeps it on screen', async () => {
    const { page, deliver, deliverUntilShown, tags, waitFor, dismissAll, entry } =
      await pushablePage();
    await dismissAll();
    // Warm the worker with another occurrence, so the burst below reaches a running worker.
    await deliverUntilShown('r-w4rm', '2026-11-20T07:00:00Z');
    await dismissAll();
    // Resends that reach the phone while the first is still being shown: the ones that find
    // it claimed but not on screen yet must not take it for dismissed and close it.
    await Promise.all(Array.from({ length: 5 }, () => deliver('r-b8st', '2026-11-26T18:00:00Z')));
    const tag = `reminder:r-b8st@${Date.parse('2026-11-26T18:00:00Z')}`;
    expect(await waitFor(1)).toEqual([tag]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await tags()).toEqual([tag]);
    expect(await entry(tag)).toEqual({ at: expect.any(Number), shown: true });
    await page.close();
  });

  it('shows an occurrence again whose first push was stopped before it reached the screen', async () => {
    const { page, deliverUntilShown, tags, dismissAll } = await pushablePage();
    await dismissAll();
    const tag = `reminder:r-st0p@${Date.parse('2026-11-27T06:00:00Z')}`;
    // What a worker stopped between claiming the occurrence and showing it leaves behind.
    await page.evaluate(
      (key) =>
        new Promise<void>((resolve, reject) => {
          const request = indexedDB.open('cairn-notifications', 1);
          request.onupgradeneeded = () => request.result.createObjectStore('shown');
          request.onerror = () => reject(request.error);
          request.onsuccess = () => {
            const transaction = request.result.transaction('shown', 'readwrite');
            transaction.objectStore('shown').put({ at: Date.now(), shown: false }, key);
            transaction.oncomplete = () => {
              request.result.close();
              resolve();
            };
          };
        }),
      tag,
    );
    await deliverUntilShown('r-st0p', '2026-11-27T06:00:00Z');
    expect(await tags()).toEqual([tag]);
    await page.close();
  });
});
