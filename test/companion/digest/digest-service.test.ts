import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { DigestScheduler } from '../../../companion/digest/digest-scheduler';
import { DigestService } from '../../../companion/digest/digest-service';
import { DigestStore } from '../../../companion/digest/digest-store';
import type {
  DeliveryOutcome,
  ReminderDelivery,
  ReminderDeliverer,
} from '../../../companion/push/delivery-port';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import { DEFAULT_DIGEST_SCHEDULE, parseDigestSchedule } from '../../../shared/digest';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { SAMPLE_VAULT, TEST_TOKEN, authorized, testConfig } from '../helpers/app';
import { ManualTimer } from '../reminders/helpers';

/*
 * The weekly digest on the companion: the real index (SQLite) and vault reminder source over a
 * copy of the sample vault, a manual clock and timer. The push side is the ReminderDeliverer port,
 * recorded (the real sender is tested against a local push service in test/companion/push).
 */

class RecordingPush implements ReminderDeliverer {
  readonly sent: ReminderDelivery[] = [];
  subscriptions() {
    return [{ id: 'phone' }];
  }
  async deliver(delivery: ReminderDelivery): Promise<DeliveryOutcome> {
    this.sent.push(delivery);
    return { kind: 'sent' };
  }
}

let index: IndexerFixture;
let source: VaultReminderSource;
let push: RecordingPush;
const BERLIN = 'Europe/Berlin';

function service(store = new DigestStore(index.db)): DigestService {
  return new DigestService({
    vault: index.vault,
    folder: 'Cairn/Digests',
    zone: BERLIN,
    clock: index.clock,
    store,
    announcer: push,
    sources: {
      notesSince: (since) => index.indexer.store.notesTouchedSince(since),
      reminders: () => source.all().reminders,
      missed: async () => [],
    },
  });
}

function scheduler(timer: ManualTimer, schedule = DEFAULT_DIGEST_SCHEDULE): DigestScheduler {
  return new DigestScheduler({
    service: service(),
    schedule,
    zone: BERLIN,
    clock: index.clock,
    timer,
  });
}

const digestFile = (week: string) => join(index.vault, `Cairn/Digests/${week}.md`);

beforeEach(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
  source = new VaultReminderSource({ vault: index.vault, defaultZone: BERLIN });
  await source.load();
  push = new RecordingPush();
  // Monday 30 November 2026, 08:30 in Berlin: the W48 digest (due 08:00) is due.
  index.clock.set('2026-11-30T07:30:00Z');
});
afterEach(async () => {
  await index.close();
});

describe('DigestScheduler', () => {
  it('the first start writes nothing from before it', async () => {
    const digests = scheduler(new ManualTimer(index.clock));
    await digests.start();
    expect(existsSync(digestFile('2026-W48'))).toBe(false);
    expect(new DigestStore(index.db).get('2026-W48')).toMatchObject({ status: 'baseline' });
    await digests.stop();
  });

  it('writes a digest that came due while down on start, once, and not again after a restart', async () => {
    // Running on Sunday: W47 is the baseline. Down over Monday 08:00; back at 08:30.
    index.clock.set('2026-11-29T12:00:00Z');
    const timer = new ManualTimer(index.clock);
    const before = scheduler(timer);
    await before.start();
    await before.stop();
    index.clock.set('2026-11-30T07:30:00Z');
    const first = scheduler(timer);
    await first.start();
    const text = readFileSync(digestFile('2026-W48'), 'utf8');
    expect(text).toMatch(/^---\ntype: digest\nweek: 2026-W48\n/);
    expect(text).toContain('## Due next week (2026-W49)');
    expect(text).toContain('[[Garden#^r-x81c|Water the plants]]');
    expect(push.sent.map((d) => [d.payload.reminder_id, d.topic])).toEqual([
      ['digest-2026-W48', 'digest-2026-W48'],
    ]);
    expect(push.sent[0]!.payload.deep_link).toBe(
      'obsidian://open?vault=vault&file=Cairn%2FDigests%2F2026-W48.md',
    );
    await first.stop();

    // The user deletes it; a restart does not bring it back, nor announce it again.
    rmSync(digestFile('2026-W48'));
    const second = scheduler(timer);
    await second.start();
    expect(existsSync(digestFile('2026-W48'))).toBe(false);
    expect(push.sent).toHaveLength(1);
    await second.stop();
  });

  it('sleeps until the next slot and writes that week then, in steps of at most 10 minutes', async () => {
    new DigestStore(index.db).recordBaseline('2026-W47', 'Cairn/Digests/2026-W47.md', 0);
    const timer = new ManualTimer(index.clock);
    const digests = scheduler(timer);
    await digests.start();
    expect(timer.armed).toBe(1);
    expect(Math.max(...timer.delays)).toBeLessThanOrEqual(10 * 60_000);
    await timer.advanceTo(Date.parse('2026-12-07T06:59:00Z'), () => Promise.resolve());
    expect(existsSync(digestFile('2026-W49'))).toBe(false);
    await timer.advanceTo(Date.parse('2026-12-07T07:10:00Z'), () => Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(digestFile('2026-W49'))).toBe(true);
    await digests.stop();
    expect(timer.armed).toBe(0);
  });

  it('a digest file already there (the plugin wrote it) is kept as it is and recorded', async () => {
    mkdirSync(join(index.vault, 'Cairn/Digests'), { recursive: true });
    writeFileSync(digestFile('2026-W48'), 'my own words\n');
    new DigestStore(index.db).recordBaseline('2026-W47', 'Cairn/Digests/2026-W47.md', 0);
    const digests = scheduler(new ManualTimer(index.clock));
    await digests.start();
    expect(readFileSync(digestFile('2026-W48'), 'utf8')).toBe('my own words\n');
    expect(new DigestStore(index.db).get('2026-W48')).toMatchObject({
      path: 'Cairn/Digests/2026-W48.md',
    });
    await digests.stop();
  });

  it('"off" and other slots parse; a Sunday 20:00 digest covers the week ending', async () => {
    index.clock.set('2026-11-29T19:30:00Z');
    new DigestStore(index.db).recordBaseline('2026-W47', 'Cairn/Digests/2026-W47.md', 0);
    const digests = scheduler(new ManualTimer(index.clock), parseDigestSchedule('sun 20:00')!);
    await digests.start();
    expect(existsSync(digestFile('2026-W48'))).toBe(true);
    await digests.stop();
  });
});

describe('POST /api/v1/digests', () => {
  let app: FastifyInstance;
  beforeEach(async () => {
    app = await buildApp({
      config: testConfig(index.vault, join(index.dir, 'data')),
      db: index.db,
      clock: index.clock,
      tokenSha256: sha256(TEST_TOKEN),
      version: '0.0.0-test',
      digest: service(),
    });
    // The fixture closes the database itself.
    app.addHook('onClose', () => undefined);
  });

  const post = (payload: unknown) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/digests',
      headers: authorized,
      payload: payload as object,
    });

  it('writes the previous week by default, or the week asked; never overwrites', async () => {
    const written = await post({});
    expect(written.statusCode).toBe(201);
    expect(written.json()).toEqual({ path: 'Cairn/Digests/2026-W48.md', week: '2026-W48' });
    const again = await post({ week: '2026-W48' });
    expect(again.statusCode).toBe(200);
    const other = await post({ week: '2026-W40' });
    expect(other.json()).toEqual({ path: 'Cairn/Digests/2026-W40.md', week: '2026-W40' });
    const bad = await post({ week: '2026-W99' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'week' } });
  });

  it('takes a POST without a body as the default week; a bad body still names its field', async () => {
    const bare = await app.inject({ method: 'POST', url: '/api/v1/digests', headers: authorized });
    expect(bare.statusCode).toBe(201);
    expect(bare.json()).toEqual({ path: 'Cairn/Digests/2026-W48.md', week: '2026-W48' });
    const unknown = await post({ weak: '2026-W40' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'weak' } });
  });

  it('a digest folder that is a file gets a clear 409 naming it; nothing is touched', async () => {
    mkdirSync(join(index.vault, 'Cairn'), { recursive: true });
    writeFileSync(join(index.vault, 'Cairn/Digests'), 'a file, not a folder\n');
    const response = await post({});
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({
      error: {
        code: 'CONFLICT',
        field: 'folder',
        message: expect.stringContaining('Cairn/Digests is a file'),
      },
    });
    expect(readFileSync(join(index.vault, 'Cairn/Digests'), 'utf8')).toBe('a file, not a folder\n');
  });
});
