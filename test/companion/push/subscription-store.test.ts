import { createECDH, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { p256dhProblem, unpadBase64url } from '../../../companion/push/key-check';
import { PushSubscriptionStore } from '../../../companion/push/subscription-store';
import { TOPIC_LENGTH, pushTopic } from '../../../companion/push/topic';
import { ManualClock } from '../../fakes/clock';

let db: SqliteDatabase;
let clock: ManualClock;
let store: PushSubscriptionStore;
beforeEach(() => {
  db = openDatabase(':memory:');
  clock = ManualClock.at('2026-11-22T10:00:00Z');
  store = new PushSubscriptionStore(db, clock);
});
afterEach(() => {
  db.close();
});

const keys = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
};

describe('PushSubscriptionStore', () => {
  it('adds, renews by endpoint keeping id and name, records outcomes, deletes', () => {
    const first = keys();
    const added = store.upsert({ endpoint: 'https://push.example.net/a', ...first, name: 'Phone' });
    expect(added.created).toBe(true);
    expect(added.subscription).toMatchObject({
      name: 'Phone',
      createdAt: clock.now(),
      lastSuccessAt: null,
    });

    clock.advance(5_000);
    const second = keys();
    const renewed = store.upsert({ endpoint: 'https://push.example.net/a', ...second });
    expect(renewed).toMatchObject({
      created: false,
      subscription: { id: added.subscription.id, name: 'Phone' },
    });
    expect(renewed.subscription).toMatchObject({
      ...second,
      createdAt: clock.now() - 5_000,
      updatedAt: clock.now(),
    });
    expect(store.count()).toBe(1);
    expect(store.hasEndpoint('https://push.example.net/a')).toBe(true);
    expect(store.hasEndpoint('https://push.example.net/b')).toBe(false);

    store.recordSuccess(added.subscription.id);
    store.recordFailure(added.subscription.id, `push service answered 500: ${'x'.repeat(1000)}`);
    const stored = store.get(added.subscription.id);
    expect(stored?.lastSuccessAt).toBe(clock.now());
    expect(stored?.lastFailure).toHaveLength(300);

    expect(store.delete(added.subscription.id)).toBe(true);
    expect(store.delete(added.subscription.id)).toBe(false);
    expect(store.list()).toEqual([]);
  });

  it('writes successes once per turn in one transaction, visible to reads at once', async () => {
    const a = store.upsert({ endpoint: 'https://push.example.net/a', ...keys() }).subscription;
    const b = store.upsert({ endpoint: 'https://push.example.net/b', ...keys() }).subscription;
    const row = db.prepare('SELECT last_success_at FROM push_subscriptions WHERE id = ?').pluck();
    store.recordSuccess(a.id);
    clock.advance(1_000);
    store.recordSuccess(b.id);
    store.recordSuccess(a.id);
    // Nothing written yet: no write (and no fsync) between a 201 and the scheduler's commit.
    expect(row.get(a.id)).toBeNull();
    expect(store.get(a.id)?.lastSuccessAt).toBe(clock.now());
    expect(store.list().map((entry) => entry.lastSuccessAt)).toEqual([clock.now(), clock.now()]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(row.get(a.id)).toBe(clock.now());
    expect(row.get(b.id)).toBe(clock.now());
    // Written on demand too (before the database closes); a deleted device's is dropped.
    clock.advance(1_000);
    store.recordSuccess(a.id);
    store.recordSuccess(b.id);
    expect(store.delete(b.id)).toBe(true);
    store.writeSuccesses();
    expect(row.get(a.id)).toBe(clock.now());
  });

  it('gives every device its own unguessable id', () => {
    const ids = new Set(
      Array.from(
        { length: 50 },
        (_, index) =>
          store.upsert({ endpoint: `https://push.example.net/${index}`, ...keys() }).subscription
            .id,
      ),
    );
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});

describe('p256dhProblem', () => {
  it('accepts a real key, padded or not', () => {
    const { p256dh } = keys();
    expect(p256dhProblem(p256dh)).toBeNull();
    expect(p256dhProblem(`${p256dh}=`)).toBeNull();
    expect(unpadBase64url(`${p256dh}=`)).toBe(p256dh);
  });

  it('refuses off-curve points, the point at zero, wrong prefixes and lengths', () => {
    const point = Buffer.from(keys().p256dh, 'base64url');
    point[64] = (point[64] ?? 0) ^ 1;
    expect(p256dhProblem(point.toString('base64url'))).toBe('is not a point on the P-256 curve');
    expect(
      p256dhProblem(Buffer.concat([Buffer.from([4]), Buffer.alloc(64)]).toString('base64url')),
    ).toBe('is not a point on the P-256 curve');
    const compressedPrefix = Buffer.from(keys().p256dh, 'base64url');
    compressedPrefix[0] = 2;
    expect(p256dhProblem(compressedPrefix.toString('base64url'))).toMatch(/65-byte uncompressed/);
    expect(p256dhProblem('BAAA')).toMatch(/65-byte uncompressed/);
  });
});

describe('pushTopic', () => {
  it('is 32 base64url characters, stable per key, different across keys, for any input', () => {
    for (const key of ['r-7f3a', '', 'ü'.repeat(10_000), 'a/b+c=d\u0000']) {
      expect(pushTopic(key)).toMatch(new RegExp(`^[A-Za-z0-9_-]{${TOPIC_LENGTH}}$`));
    }
    expect(pushTopic('r-7f3a')).toBe(pushTopic('r-7f3a'));
    expect(pushTopic('r-7f3a')).not.toBe(pushTopic('r-7f3b'));
  });
});
