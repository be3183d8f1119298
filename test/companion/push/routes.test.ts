import { createECDH } from 'node:crypto';
import { join } from 'node:path';
import webPush from 'web-push';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import type { CompanionConfig } from '../../../companion/config';
import { inTransaction, openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { MetricsRegistry } from '../../../companion/metrics/registry';
import { createPushService } from '../../../companion/push/push-service';
import type { PushService } from '../../../companion/push/push-service';
import { MAX_SUBSCRIPTIONS } from '../../../companion/push/push-routes';
import { ManualClock } from '../../fakes/clock';
import { FakePushService } from '../../fakes/push-service';
import type { BrowserSubscription } from '../../fakes/push-service';
import { TEST_TOKEN, authorized, buildTestApp, tempDir, testConfig } from '../helpers/app';

let service: FakePushService;
beforeAll(async () => {
  service = await FakePushService.start();
});
afterAll(async () => {
  await service.close();
});

const keys = { ...webPush.generateVAPIDKeys(), subject: 'mailto:test@cairn.example' };

interface PushApp {
  readonly app: Awaited<ReturnType<typeof buildApp>>;
  readonly push: PushService;
  readonly db: SqliteDatabase;
  readonly metrics: MetricsRegistry;
  readonly clock: ManualClock;
  close(): Promise<void>;
}

/*
 * One app serves the tests that use the default configuration (building one costs ~0.3 s on a
 * busy machine); each starts from an empty subscriptions table and the same clock reading.
 * Tests that need another configuration build and close their own.
 */
const START = '2026-11-22T10:00:00Z';
let shared: PushApp;
let t: PushApp;
beforeAll(async () => {
  shared = await buildPushApp();
});
afterAll(async () => {
  await shared.close();
});
beforeEach(() => {
  shared.push.store.list().forEach(({ id }) => shared.push.store.delete(id));
  shared.clock.set(START);
  t = shared;
});
afterEach(async () => {
  if (t !== shared) await t.close();
});

async function buildPushApp(config: Partial<CompanionConfig> = {}): Promise<PushApp> {
  const dir = tempDir('push');
  // The push routes never read the vault; an empty folder stands in for it.
  const vault = dir.path;
  const clock = ManualClock.at(START);
  const db = openDatabase(join(dir.path, 'cairn.db'));
  const metrics = new MetricsRegistry();
  const fullConfig = {
    ...testConfig(vault, join(dir.path, 'data')),
    pushHosts: ['127.0.0.1'],
    ...config,
  };
  const push = createPushService({
    db,
    clock,
    keys,
    pushHosts: fullConfig.pushHosts,
    metrics,
    agent: service.agent,
    timeoutMs: 2_000,
  });
  const app = await buildApp({
    config: fullConfig,
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    metrics,
    push,
  });
  return {
    app,
    push,
    db,
    metrics,
    clock,
    close: async () => {
      await app.close();
      dir.remove();
    },
  };
}

async function subscribe(
  browser: BrowserSubscription = service.createSubscription(),
  extra: Record<string, unknown> = {},
) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/push/subscriptions',
    headers: authorized,
    payload: { ...browser, expirationTime: null, ...extra },
  });
}

describe('push routes', () => {
  it('GET /api/v1/push/key answers the VAPID public key, and needs the token', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/push/key',
      headers: authorized,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ public_key: keys.publicKey });
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/push/key' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('adds a device (201), lists it by host only, and re-subscribing the same endpoint updates it (200)', async () => {
    const browser = service.createSubscription();
    const created = await subscribe(browser, { name: '  Pixel 8 ' });
    expect(created.statusCode).toBe(201);
    const device = created.json<{ id: string }>();
    expect(device).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) as unknown as string,
      name: 'Pixel 8',
      host: new URL(browser.endpoint).host,
      created: '2026-11-22T10:00:00.000Z',
      last_success: null,
      last_failure: null,
    });
    expect(created.body).not.toContain(new URL(browser.endpoint).pathname);

    // The browser re-subscribed with new keys (same endpoint): same device, new keys, name kept.
    const fresh = createECDH('prime256v1');
    fresh.generateKeys();
    t.clock.advance(60_000);
    const renewed = await subscribe({
      endpoint: browser.endpoint,
      keys: { p256dh: fresh.getPublicKey().toString('base64url'), auth: browser.keys.auth },
    });
    expect(renewed.statusCode).toBe(200);
    expect(renewed.json()).toMatchObject({ id: device.id, name: 'Pixel 8' });
    expect(t.push.store.get(device.id)?.p256dh).toBe(fresh.getPublicKey().toString('base64url'));

    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/push/subscriptions',
      headers: authorized,
    });
    expect(list.json()).toMatchObject({ subscriptions: [{ id: device.id }], next_cursor: null });
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/v1/status',
      headers: authorized,
    });
    expect(status.json()).toMatchObject({ push: { subscriptions: 1 } });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorized });
    expect(metrics.body).toContain('cairn_push_subscriptions 1');
  });

  it('accepts padded base64url keys and stores them unpadded', async () => {
    const browser = service.createSubscription();
    const response = await subscribe({
      endpoint: browser.endpoint,
      keys: { p256dh: `${browser.keys.p256dh}=`, auth: `${browser.keys.auth}==` },
    });
    expect(response.statusCode).toBe(201);
    const stored = t.push.store.get(response.json<{ id: string }>().id);
    expect(stored?.p256dh).toBe(browser.keys.p256dh);
    expect(stored?.auth).toBe(browser.keys.auth);
  });

  it.each([
    ['a non-https endpoint', { endpoint: 'http://127.0.0.1/push/x' }, 400, 'endpoint'],
    ['an empty endpoint', { endpoint: '' }, 400, 'endpoint'],
    ['an endpoint with spaces', { endpoint: 'https://127.0.0.1/a b' }, 400, 'endpoint'],
    ['a huge endpoint', { endpoint: `https://127.0.0.1/${'a'.repeat(3000)}` }, 400, 'endpoint'],
    [
      'a short p256dh',
      { keys: { p256dh: 'BAAA', auth: 'AAAAAAAAAAAAAAAAAAAAAA' } },
      400,
      'keys.p256dh',
    ],
    ['a missing auth', { keys: { p256dh: `B${'A'.repeat(86)}` } }, 400, 'keys.auth'],
    [
      'a 17-byte auth',
      { keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(23) } },
      400,
      'keys.auth',
    ],
    ['an unknown field', { endpoints: 'x' }, 400, 'endpoints'],
    ['an empty name', { name: '' }, 400, 'name'],
    ['a name with control characters', { name: 'Pixel\u0000 8' }, 400, 'name'],
    ['a name of spaces', { name: '   ' }, 400, 'name'],
    ['a 101-character name', { name: 'x'.repeat(101) }, 400, 'name'],
  ])('refuses %s with a 4xx naming the field', async (_label, change, status, field) => {
    const browser = service.createSubscription();
    const response = await subscribe(browser, change);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ error: { field } });
    expect(t.push.store.count()).toBe(0);
  });

  it('refuses a body over the 1 MiB limit with 413', async () => {
    const browser = service.createSubscription();
    const response = await subscribe(browser, { name: 'x'.repeat(1024 * 1024 + 1) });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('refuses an endpoint with control characters with 422 endpoint', async () => {
    const browser = service.createSubscription();
    const response = await subscribe({ ...browser, endpoint: `${browser.endpoint}\u0000` });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      error: { message: 'endpoint must not contain control characters', field: 'endpoint' },
    });
  });

  it('refuses a p256dh that is not a point on the P-256 curve with 422 keys.p256dh', async () => {
    const browser = service.createSubscription();
    const point = Buffer.from(browser.keys.p256dh, 'base64url');
    point[64] = (point[64] ?? 0) ^ 1;
    const response = await subscribe({
      endpoint: browser.endpoint,
      keys: { p256dh: point.toString('base64url'), auth: browser.keys.auth },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      error: {
        code: 'UNPROCESSABLE',
        message: 'keys.p256dh is not a point on the P-256 curve',
        field: 'keys.p256dh',
      },
    });
  });

  it('refuses an endpoint whose host is not in CAIRN_PUSH_HOSTS with 422 endpoint', async () => {
    t = await buildPushApp({ pushHosts: ['fcm.googleapis.com', '*.notify.windows.com'] });
    const response = await subscribe();
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      error: { code: 'UNPROCESSABLE', field: 'endpoint' },
    });
    expect(response.json<{ error: { message: string } }>().error.message).toContain(
      'host 127.0.0.1 is not in the allowed push services',
    );
  });

  it('without an allowlist, refuses loopback and LAN endpoints but accepts a public push service', async () => {
    t = await buildPushApp({ pushHosts: [] });
    const keysOnly = service.createSubscription().keys;
    for (const endpoint of [
      'https://127.0.0.1/push/x',
      'https://localhost/push/x',
      'https://192.168.1.1/push/x',
      'https://[::1]/push/x',
      'https://nas.local/push/x',
      'https://router/push/x',
    ]) {
      const response = await subscribe({ endpoint, keys: keysOnly });
      expect(response.statusCode, endpoint).toBe(422);
      expect(response.json(), endpoint).toMatchObject({ error: { field: 'endpoint' } });
    }
    const fcm = await subscribe({
      endpoint: 'https://fcm.googleapis.com/fcm/send/abc:def',
      keys: keysOnly,
    });
    expect(fcm.statusCode).toBe(201);
  });

  it(`refuses a new device past ${MAX_SUBSCRIPTIONS} with 409, but still renews a known one`, async () => {
    const browsers = Array.from({ length: MAX_SUBSCRIPTIONS }, () => service.createSubscription());
    // One transaction: a hundred separate fsyncs would dominate this file's run time.
    inTransaction(t.db, () => {
      for (const browser of browsers) {
        t.push.store.upsert({
          endpoint: browser.endpoint,
          p256dh: browser.keys.p256dh,
          auth: browser.keys.auth,
        });
      }
    });
    const extra = await subscribe();
    expect(extra.statusCode).toBe(409);
    expect(extra.json()).toMatchObject({ error: { code: 'CONFLICT' } });
    expect((await subscribe(browsers[0])).statusCode).toBe(200);
  });

  it('pages the device list with limit and cursor', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      t.clock.advance(1_000);
      ids.push((await subscribe()).json<{ id: string }>().id);
    }
    const page = async (query: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/push/subscriptions${query}`,
          headers: authorized,
        })
      ).json<{
        subscriptions: { id: string }[];
        next_cursor: string | null;
      }>();
    const first = await page('?limit=2');
    expect(first.subscriptions.map(({ id }) => id)).toEqual(ids.slice(0, 2));
    const second = await page(`?limit=2&cursor=${first.next_cursor}`);
    expect(second.subscriptions.map(({ id }) => id)).toEqual(ids.slice(2, 4));
    const last = await page(`?limit=2&cursor=${second.next_cursor}`);
    expect(last).toEqual({
      subscriptions: [expect.objectContaining({ id: ids[4] })],
      next_cursor: null,
    });

    const badCursor = await t.app.inject({
      method: 'GET',
      url: '/api/v1/push/subscriptions?cursor=nope',
      headers: authorized,
    });
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json()).toMatchObject({ error: { field: 'cursor' } });
    const badLimit = await t.app.inject({
      method: 'GET',
      url: '/api/v1/push/subscriptions?limit=0',
      headers: authorized,
    });
    expect(badLimit.json()).toMatchObject({ error: { field: 'limit' } });
  });

  it('DELETE removes a device (204) and answers 404 for an unknown one', async () => {
    const { id } = (await subscribe()).json<{ id: string }>();
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/push/subscriptions/${id}`,
      headers: authorized,
    });
    expect(removed.statusCode).toBe(204);
    expect(t.push.store.count()).toBe(0);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/push/subscriptions/${id}`,
      headers: authorized,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'id' } });
    const malformed = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/push/subscriptions/not%20an%20id',
      headers: authorized,
    });
    expect(malformed.statusCode).toBe(400);
  });

  it('POST /api/v1/push/test sends to every device and counts; a gone device is removed', async () => {
    const phone = service.createSubscription();
    const tablet = service.createSubscription();
    const old = service.createSubscription();
    for (const browser of [phone, tablet, old]) {
      t.clock.advance(1_000);
      await subscribe(browser);
    }
    const now = new Date(t.clock.now()).toISOString();
    service.script(tablet.endpoint, { status: 500 });
    service.script(old.endpoint, { status: 410 });

    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/push/test',
      headers: authorized,
    });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ sent: 1, failed: 2 });
    const received = JSON.parse(
      service.messagesFor(phone.endpoint)[0]?.payload ?? 'null',
    ) as unknown;
    expect(received).toMatchObject({
      title: 'Cairn test notification',
      occurrence: now,
      actions: ['open'],
    });
    expect(service.messagesFor(phone.endpoint)[0]?.ttl).toBe('60');
    expect(t.push.store.count()).toBe(2);
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/push/subscriptions',
      headers: authorized,
    });
    const devices = list.json<{
      subscriptions: Array<{ host: string; last_success: string | null; last_failure: unknown }>;
    }>();
    expect(
      devices.subscriptions.map((device) => [device.last_success, device.last_failure]),
    ).toEqual([
      [now, null],
      [null, { at: now, reason: 'push service answered 500' }],
    ]);
    expect(t.metrics.render()).toContain('cairn_push_deliveries_total{outcome="sent"} 1');
  });

  it('POST /api/v1/push/test can target one device, and 404s an unknown one', async () => {
    const phone = service.createSubscription();
    const tablet = service.createSubscription();
    const { id } = (await subscribe(phone)).json<{ id: string }>();
    await subscribe(tablet);

    const one = await t.app.inject({
      method: 'POST',
      url: '/api/v1/push/test',
      headers: authorized,
      payload: { subscription_id: id },
    });
    expect(one.json()).toEqual({ sent: 1, failed: 0 });
    expect(service.messagesFor(tablet.endpoint)).toHaveLength(0);

    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/push/test',
      headers: authorized,
      payload: { subscription_id: 'nope' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { field: 'subscription_id' } });
  });

  it('POST /api/v1/push/test is rate limited (10 a minute) with 429 and Retry-After', async () => {
    t = await buildPushApp();
    const statuses: number[] = [];
    let last;
    for (let index = 0; index < 11; index += 1) {
      last = await t.app.inject({ method: 'POST', url: '/api/v1/push/test', headers: authorized });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
    expect(last?.headers['retry-after']).toBeDefined();
    expect(last?.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('POST /api/v1/push/test with no devices answers zeros', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/push/test',
      headers: authorized,
      payload: {},
    });
    expect(response.json()).toEqual({ sent: 0, failed: 0 });
  });

  it('is absent without a push service', async () => {
    const plain = await buildTestApp();
    t = { ...t, close: () => plain.close() } as PushApp;
    const response = await plain.app.inject({
      method: 'GET',
      url: '/api/v1/push/key',
      headers: authorized,
    });
    expect(response.statusCode).toBe(404);
  });
});
