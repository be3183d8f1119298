import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import webPush from 'web-push';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PushPayload } from '../../../shared/protocol/push';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { MetricsRegistry } from '../../../companion/metrics/registry';
import type { ReminderDelivery } from '../../../companion/push/delivery-port';
import type { LookupFunction } from '../../../companion/push/private-address-lookup';
import { PushSubscriptionStore } from '../../../companion/push/subscription-store';
import { pushTopic } from '../../../companion/push/topic';
import type { VapidKeys } from '../../../companion/push/vapid-keys';
import { MAX_PAYLOAD_BYTES, WebPushSender } from '../../../companion/push/web-push-sender';
import type { WebPushSenderOptions } from '../../../companion/push/web-push-sender';
import { ManualClock } from '../../fakes/clock';
import { FakePushService } from '../../fakes/push-service';
import type { BrowserSubscription } from '../../fakes/push-service';

let service: FakePushService;
let keys: VapidKeys;
let db: SqliteDatabase;
let store: PushSubscriptionStore;
let clock: ManualClock;

beforeAll(async () => {
  service = await FakePushService.start();
  const generated = webPush.generateVAPIDKeys();
  keys = { ...generated, subject: 'mailto:test@cairn.example' };
});
afterAll(async () => {
  await service.close();
});
beforeEach(() => {
  db = openDatabase(':memory:');
  clock = ManualClock.at('2026-11-22T10:00:00Z');
  store = new PushSubscriptionStore(db, clock);
});
afterEach(() => {
  db.close();
});

function sender(overrides: Partial<WebPushSenderOptions> = {}): WebPushSender {
  return new WebPushSender({
    store,
    keys,
    clock,
    pushHosts: ['127.0.0.1'],
    agent: service.agent,
    timeoutMs: 2_000,
    ...overrides,
  });
}

function subscribe(browser: BrowserSubscription = service.createSubscription()): {
  id: string;
  browser: BrowserSubscription;
} {
  const { subscription } = store.upsert({
    endpoint: browser.endpoint,
    p256dh: browser.keys.p256dh,
    auth: browser.keys.auth,
    name: 'Test phone',
  });
  return { id: subscription.id, browser };
}

const payload: PushPayload = {
  title: 'Water the plants',
  body: 'Balcony, the tomatoes first — ünïcödé ✓',
  reminder_id: 'r-7f3a',
  occurrence: '2026-11-22T11:00:00+01:00',
  deep_link: 'obsidian://open?vault=Garden&file=Garden.md#^r-7f3a',
  actions: ['done', 'snooze_15m', 'snooze_1h', 'open'],
};

function delivery(id: string, extra: Partial<ReminderDelivery> = {}): ReminderDelivery {
  return {
    subscriptionId: id,
    payload,
    ttlSeconds: 3600,
    topic: payload.reminder_id,
    urgency: 'high',
    attempt: 1,
    ...extra,
  };
}

describe('WebPushSender against a local HTTPS push service', () => {
  it('delivers a payload that decrypts exactly, with TTL, Urgency, Topic and a valid VAPID token', async () => {
    const metrics = new MetricsRegistry();
    const { id, browser } = subscribe();

    const outcome = await sender({ metrics }).deliver(delivery(id));

    expect(outcome).toEqual({ kind: 'sent' });
    const [message, ...others] = service.messagesFor(browser.endpoint);
    expect(others).toHaveLength(0);
    expect(message?.payload).toBe(JSON.stringify(payload));
    expect(JSON.parse(message?.payload ?? '')).toEqual(payload);
    expect(message?.ttl).toBe('3600');
    expect(message?.urgency).toBe('high');
    expect(message?.topic).toBe(pushTopic('r-7f3a'));
    expect(message?.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(message?.contentEncoding).toBe('aes128gcm');
    expect(message?.vapid).toMatchObject({ valid: true, publicKey: keys.publicKey });
    expect(message?.vapid.claims?.sub).toBe('mailto:test@cairn.example');
    expect(store.get(id)?.lastSuccessAt).toBe(clock.now());
    expect(metrics.render()).toContain('cairn_push_deliveries_total{outcome="sent"} 1');
  });

  it('sends the largest payload a push message holds (3993 bytes) and refuses one byte more without sending', async () => {
    const { id, browser } = subscribe();
    const base = JSON.stringify({ ...payload, body: '' }).length;
    const fits = { ...payload, body: 'x'.repeat(MAX_PAYLOAD_BYTES - base) };
    expect(Buffer.byteLength(JSON.stringify(fits))).toBe(MAX_PAYLOAD_BYTES);

    expect(await sender().deliver(delivery(id, { payload: fits }))).toEqual({ kind: 'sent' });
    expect(service.messagesFor(browser.endpoint)[0]?.payload).toBe(JSON.stringify(fits));

    const tooBig = { ...fits, body: `${fits.body}x` };
    const outcome = await sender().deliver(delivery(id, { payload: tooBig }));
    expect(outcome).toEqual({
      kind: 'failed',
      reason: `payload is ${MAX_PAYLOAD_BYTES + 1} bytes; a push message holds at most ${MAX_PAYLOAD_BYTES}`,
    });
    expect(service.messagesFor(browser.endpoint)).toHaveLength(1);
  });

  it.each([404, 410])(
    'deletes the subscription when the push service answers %i',
    async (status) => {
      const metrics = new MetricsRegistry();
      const { id, browser } = subscribe();
      const other = subscribe();
      service.script(browser.endpoint, { status });

      expect(await sender({ metrics }).deliver(delivery(id))).toEqual({ kind: 'gone' });
      expect(store.get(id)).toBeUndefined();
      expect(store.get(other.id)).toBeDefined();
      expect(metrics.render()).toContain('cairn_push_deliveries_total{outcome="gone"} 1');
      // Delivering again to a deleted subscription is "gone" without a request.
      expect(await sender().deliver(delivery(id))).toEqual({ kind: 'gone' });
      expect(service.messagesFor(browser.endpoint)).toHaveLength(1);
    },
  );

  it('honours Retry-After on 429 (seconds and HTTP date), then succeeds on the retry', async () => {
    const { id, browser } = subscribe();
    const inTwoMinutes = new Date(clock.now() + 120_000).toUTCString();
    service.script(
      browser.endpoint,
      { status: 429, retryAfter: '7' },
      { status: 429, retryAfter: inTwoMinutes },
    );
    const push = sender();

    const first = await push.deliver(delivery(id, { attempt: 1 }));
    expect(first).toEqual({
      kind: 'retry',
      retryAfterMs: 7_000,
      reason: 'push service answered 429',
    });
    const second = await push.deliver(delivery(id, { attempt: 2 }));
    expect(second).toMatchObject({ kind: 'retry', retryAfterMs: 120_000 });
    expect(await push.deliver(delivery(id, { attempt: 3 }))).toEqual({ kind: 'sent' });

    const messages = service.messagesFor(browser.endpoint);
    expect(messages.map((message) => message.answered)).toEqual([429, 429, 201]);
    expect(messages.every((message) => message.payload === JSON.stringify(payload))).toBe(true);
    expect(store.get(id)?.lastFailure).toBe('push service answered 429');
  });

  it('reports 5xx as retry without a wish of its own (the scheduler backs off), then sent', async () => {
    const { id, browser } = subscribe();
    service.script(browser.endpoint, { status: 500 }, { status: 503 }, { status: 502 });
    const push = sender();
    const outcomes = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      outcomes.push(await push.deliver(delivery(id, { attempt })));
    }
    expect(outcomes).toEqual([
      { kind: 'retry', reason: 'push service answered 500' },
      { kind: 'retry', reason: 'push service answered 503' },
      { kind: 'retry', reason: 'push service answered 502' },
      { kind: 'sent' },
    ]);
  });

  it.each([
    [400, 'UnauthorizedRegistration'],
    [401, ''],
    [403, '{"reason":"BadJwtToken"}'],
    [413, 'Payload Too Large'],
  ])('answers failed with the reason on %i, keeping the subscription', async (status, body) => {
    const metrics = new MetricsRegistry();
    const { id, browser } = subscribe();
    service.script(browser.endpoint, { status, body });

    const outcome = await sender({ metrics }).deliver(delivery(id));

    const reason = `push service answered ${status}${body ? `: ${body}` : ''}`;
    expect(outcome).toEqual({ kind: 'failed', reason });
    expect(store.get(id)?.lastFailure).toBe(reason);
    expect(store.get(id)?.lastFailureAt).toBe(clock.now());
    expect(metrics.render()).toContain('cairn_push_deliveries_total{outcome="failed"} 1');
  });

  it('quotes a push service explanation short and printable, however long or odd', async () => {
    const { id, browser } = subscribe();
    service.script(browser.endpoint, {
      status: 403,
      body: `bad\r\n\u0000token ${'x'.repeat(100_000)}`,
    });
    const outcome = await sender().deliver(delivery(id));
    expect(outcome.kind).toBe('failed');
    const reason = outcome.kind === 'failed' ? outcome.reason : '';
    expect(reason.startsWith('push service answered 403: bad token xxx')).toBe(true);
    expect(reason.endsWith('…')).toBe(true);
    expect(reason.length).toBeLessThanOrEqual('push service answered 403: '.length + 201);
  });

  it('is refused by the push service when signed with a key the subscription was not made for', async () => {
    const { id, browser } = subscribe();
    const stranger = webPush.generateVAPIDKeys();
    // Public key of one pair, private key of another: the JWT signature cannot verify.
    const forged = { ...keys, privateKey: stranger.privateKey };
    const outcome = await sender({ keys: forged }).deliver(delivery(id));
    expect(outcome).toEqual({
      kind: 'failed',
      reason: 'push service answered 401: JWT signature does not verify with k',
    });
    expect(service.messagesFor(browser.endpoint)[0]?.vapid.valid).toBe(false);
  });

  it('times out a push service that hangs (retry) while deliveries to others go through', async () => {
    const hanging = subscribe();
    const healthy = subscribe();
    service.script(hanging.browser.endpoint, { hang: true });
    const push = sender({ timeoutMs: 250 });

    const finished: string[] = [];
    const slow = push.deliver(delivery(hanging.id)).then((outcome) => {
      finished.push('hanging');
      return outcome;
    });
    const fast = push.deliver(delivery(healthy.id)).then((outcome) => {
      finished.push('healthy');
      return outcome;
    });

    expect(await fast).toEqual({ kind: 'sent' });
    expect(finished).toEqual(['healthy']);
    const outcome = await slow;
    expect(outcome).toMatchObject({ kind: 'retry' });
    expect(outcome.kind === 'retry' && outcome.reason).toMatch(/no answer from the push service/);
    expect(finished).toEqual(['healthy', 'hanging']);
    await waitFor(() => service.openRequests === 0);
  });

  it('gives up on an answer that trickles in for ever (overall deadline, twice the timeout)', async () => {
    const { id, browser } = subscribe();
    service.script(browser.endpoint, { drip: true });
    const outcome = await sender({ timeoutMs: 250 }).deliver(delivery(id));
    expect(outcome).toEqual({
      kind: 'retry',
      reason: 'no answer from the push service (no complete answer within 500 ms)',
    });
    // The request was cancelled, not abandoned: the push service sees the connection close.
    await waitFor(() => service.openRequests === 0);
  });

  it('limits how many sends run at once; the rest wait their turn', async () => {
    const subscriptions = [subscribe(), subscribe(), subscribe()];
    for (const { browser } of subscriptions) service.script(browser.endpoint, { hang: true });
    const push = sender({ timeoutMs: 200, maxConcurrent: 2 });

    const outcomes = await Promise.all(subscriptions.map(({ id }) => push.deliver(delivery(id))));

    expect(outcomes.every((outcome) => outcome.kind === 'retry')).toBe(true);
    const arrivals = subscriptions.map(
      ({ browser }) => service.messagesFor(browser.endpoint)[0]?.at ?? 0,
    );
    // The third request only left once one of the first two had timed out.
    expect(arrivals[2]! - Math.min(arrivals[0]!, arrivals[1]!)).toBeGreaterThanOrEqual(150);
  });

  it('times out a server that accepts the connection but never speaks TLS', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const { id } = subscribe({
        endpoint: `https://127.0.0.1:${port}/push/v2/silent`,
        keys: service.createSubscription().keys,
      });
      const started = Date.now();
      const outcome = await sender({ timeoutMs: 200 }).deliver(delivery(id));
      expect(outcome).toMatchObject({ kind: 'retry' });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('retries when nothing listens at the endpoint (network error)', async () => {
    const closedPort = await unusedPort();
    const { id } = subscribe({
      endpoint: `https://127.0.0.1:${closedPort}/push/v2/nobody`,
      keys: service.createSubscription().keys,
    });
    const outcome = await sender().deliver(delivery(id));
    expect(outcome).toMatchObject({ kind: 'retry' });
    expect(outcome.kind === 'retry' && outcome.reason).toContain('ECONNREFUSED');
  });

  it('without an allowlist, refuses a public-looking name that resolves to a private address', async () => {
    const { port } = new URL(service.origin);
    const { id } = subscribe({
      endpoint: `https://push.rebind.example:${port}/push/v2/whatever`,
      keys: service.createSubscription().keys,
    });
    const before = service.messages.length;
    const toLoopback: LookupFunction = (_hostname, options, callback) => {
      if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(null, '127.0.0.1', 4);
    };
    const outcome = await sender({ pushHosts: [], lookup: toLoopback }).deliver(delivery(id));
    expect(outcome).toEqual({
      kind: 'failed',
      reason:
        'push.rebind.example resolves to a loopback/private address, not a push service (list it in CAIRN_PUSH_HOSTS to allow it)',
    });
    expect(service.messages.length).toBe(before);
  });

  it('does not send to an endpoint whose host is no longer allowed', async () => {
    const { id, browser } = subscribe();
    const outcome = await sender({ pushHosts: ['fcm.googleapis.com'] }).deliver(delivery(id));
    expect(outcome).toMatchObject({ kind: 'failed' });
    expect(outcome.kind === 'failed' && outcome.reason).toContain(
      'not in the allowed push services',
    );
    expect(service.messagesFor(browser.endpoint)).toHaveLength(0);
  });

  it('refuses a malformed payload or TTL before sending', async () => {
    const { id, browser } = subscribe();
    const broken = { ...payload, occurrence: 'tomorrow' } as PushPayload;
    expect(await sender().deliver(delivery(id, { payload: broken }))).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('/occurrence') as unknown as string,
    });
    expect(await sender().deliver(delivery(id, { ttlSeconds: -1 }))).toMatchObject({
      kind: 'failed',
      reason: 'ttlSeconds must be a whole number ≥ 0 (got -1)',
    });
    expect(service.messagesFor(browser.endpoint)).toHaveLength(0);
  });

  it('fails (no retry loop) for a stored row whose keys cannot be encrypted to', async () => {
    const { id, browser } = subscribe();
    db.prepare('UPDATE push_subscriptions SET auth = ? WHERE id = ?').run('AAAA', id);
    expect(await sender().deliver(delivery(id))).toEqual({
      kind: 'failed',
      reason: 'stored keys.auth is not 16 bytes',
    });
    db.prepare('UPDATE push_subscriptions SET p256dh = ? WHERE id = ?').run(
      `B${'A'.repeat(86)}`,
      id,
    );
    expect(await sender().deliver(delivery(id))).toEqual({
      kind: 'failed',
      reason: 'stored keys.p256dh is not a point on the P-256 curve',
    });
    expect(service.messagesFor(browser.endpoint)).toHaveLength(0);
  });

  it('never logs endpoints or keys', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger('trace', stream);
    const subscriptions = [subscribe(), subscribe(), subscribe(), subscribe()];
    const [sent, gone, retried, failed] = subscriptions;
    service.script(gone!.browser.endpoint, { status: 410 });
    service.script(retried!.browser.endpoint, { status: 503 });
    service.script(failed!.browser.endpoint, { status: 403, body: 'nope' });
    const push = sender({ logger });
    for (const { id } of [sent!, gone!, retried!, failed!]) await push.deliver(delivery(id));

    const text = lines.join('');
    expect(text).toContain('push message will be retried');
    expect(text).toContain('push message failed');
    for (const { browser } of subscriptions) {
      expect(text).not.toContain(new URL(browser.endpoint).pathname);
      expect(text).not.toContain(browser.keys.p256dh);
      expect(text).not.toContain(browser.keys.auth);
    }
    expect(text).not.toContain(keys.privateKey);
  });

  it('lists subscriptions oldest first', () => {
    const first = subscribe();
    clock.advance(1_000);
    const second = subscribe();
    expect(sender().subscriptions()).toEqual([{ id: first.id }, { id: second.id }]);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
