import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { DigestService } from '../../../companion/digest/digest-service';
import { DigestStore } from '../../../companion/digest/digest-store';
import type {
  DeliveryOutcome,
  ReminderDelivery,
  ReminderDeliverer,
} from '../../../companion/push/delivery-port';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import { TaskFeature } from '../../../companion/tasks';
import { DEFAULT_DIGEST_SCHEDULE, parseDigestSchedule } from '../../../shared/digest';
import type { DigestSchedule } from '../../../shared/digest';
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

const DIGEST_TASK = 'Cairn/Tasks/Weekly digest.md';

/** The weekly digest as the companion runs it: the built-in task on the task scheduler. */
async function digestTask(
  timer: ManualTimer,
  /** null: digests off (`--digest off`). */
  schedule: DigestSchedule | null = DEFAULT_DIGEST_SCHEDULE,
): Promise<TaskFeature> {
  const feature = new TaskFeature({
    vault: index.vault,
    db: index.db,
    clock: index.clock,
    defaultZone: BERLIN,
    graceMs: 24 * 3_600_000,
    digest: service(),
    timer,
    ...(schedule === null ? {} : { builtinDigest: schedule }),
  });
  await feature.start();
  return feature;
}

const vaultFile = (path: string) => join(index.vault, path);
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

describe('the weekly digest task', () => {
  it('is created on the first start, and that start writes nothing from before it', async () => {
    const digests = await digestTask(new ManualTimer(index.clock));
    expect(existsSync(digestFile('2026-W48'))).toBe(false);
    const text = readFileSync(vaultFile(DIGEST_TASK), 'utf8');
    expect(text).toMatch(
      /^---\nid: [^\n]+\ntype: task\nschedule: 0 8 \* \* MON\ntimezone: Europe\/Berlin\nenabled: true\naction: digest\nperiod: week\ndeliver:/,
    );
    expect(text).toContain('builtin: digest');
    const [task] = digests.service.list().tasks;
    expect(task).toMatchObject({
      name: 'Weekly digest',
      builtin: 'digest',
      enabled: true,
      next_run: '2026-12-07T08:00:00+01:00',
      last_run: null,
    });
    expect(new DigestStore(index.db).get('2026-W48')).toBeUndefined();
    await digests.stop();
  });

  it('writes a digest that came due while down on start, once, and not again after a restart', async () => {
    // Running on Sunday: W47 is before the first start. Down over Monday 08:00; back at 08:30.
    index.clock.set('2026-11-29T12:00:00Z');
    const timer = new ManualTimer(index.clock);
    const before = await digestTask(timer);
    await before.stop();
    index.clock.set('2026-11-30T07:30:00Z');
    const first = await digestTask(timer);
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
    const runs = readFileSync(vaultFile('Cairn/Tasks/Weekly digest (runs).md'), 'utf8');
    expect(runs).toContain('## 2026-11-30 08:00 (Europe/Berlin)');
    expect(runs).toContain('Your digest of 2026-W48 is ready: [[Cairn/Digests/2026-W48|');
    expect(first.service.list().tasks[0]!.last_run).toMatchObject({
      slot: '2026-11-30T08:00:00+01:00',
      status: 'succeeded',
    });
    await first.stop();

    // The user deletes it; a restart does not bring it back, nor announce it again.
    rmSync(digestFile('2026-W48'));
    const second = await digestTask(timer);
    expect(existsSync(digestFile('2026-W48'))).toBe(false);
    expect(push.sent).toHaveLength(1);
    await second.stop();
  });

  it('sleeps until the next slot and writes that week then, in steps of at most 10 minutes', async () => {
    const timer = new ManualTimer(index.clock);
    const digests = await digestTask(timer);
    expect(timer.armed).toBe(1);
    expect(Math.max(...timer.delays)).toBeLessThanOrEqual(10 * 60_000);
    const idle = () => digests.scheduler.whenIdle();
    await timer.advanceTo(Date.parse('2026-12-07T06:59:00Z'), idle);
    expect(existsSync(digestFile('2026-W49'))).toBe(false);
    await timer.advanceTo(Date.parse('2026-12-07T07:10:00Z'), idle);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(digestFile('2026-W49'))).toBe(true);
    expect(Math.max(...timer.delays)).toBeLessThanOrEqual(10 * 60_000);
    await digests.stop();
    expect(timer.armed).toBe(0);
  });

  it('a digest file already there (the plugin wrote it) is kept as it is and recorded', async () => {
    index.clock.set('2026-11-29T12:00:00Z');
    const timer = new ManualTimer(index.clock);
    await (await digestTask(timer)).stop();
    mkdirSync(join(index.vault, 'Cairn/Digests'), { recursive: true });
    writeFileSync(digestFile('2026-W48'), 'my own words\n');
    index.clock.set('2026-11-30T07:30:00Z');
    const digests = await digestTask(timer);
    expect(readFileSync(digestFile('2026-W48'), 'utf8')).toBe('my own words\n');
    expect(new DigestStore(index.db).get('2026-W48')).toMatchObject({
      path: 'Cairn/Digests/2026-W48.md',
    });
    await digests.stop();
  });

  it('"off" and other slots parse; a Sunday 20:00 digest covers the week ending', async () => {
    expect(parseDigestSchedule('off')).toBeNull();
    index.clock.set('2026-11-29T18:30:00Z');
    const timer = new ManualTimer(index.clock);
    const digests = await digestTask(timer, parseDigestSchedule('sun 20:00')!);
    expect(readFileSync(vaultFile(DIGEST_TASK), 'utf8')).toContain('schedule: 0 20 * * SUN');
    await timer.advanceTo(Date.parse('2026-11-29T19:30:00Z'), () => digests.scheduler.whenIdle());
    expect(existsSync(digestFile('2026-W48'))).toBe(true);
    await digests.stop();
  });

  it('is not created with digests off', async () => {
    const digests = await digestTask(new ManualTimer(index.clock), null);
    expect(existsSync(vaultFile(DIGEST_TASK))).toBe(false);
    expect(digests.service.list().tasks).toEqual([]);
    await digests.stop();
  });

  it('stays off with enabled: false, is never brought back once deleted, and runs where it was moved', async () => {
    index.clock.set('2026-11-29T12:00:00Z');
    const timer = new ManualTimer(index.clock);
    await (await digestTask(timer)).stop();
    const original = readFileSync(vaultFile(DIGEST_TASK), 'utf8');

    // Turned off in the note: the Monday slot passes with nothing written.
    writeFileSync(vaultFile(DIGEST_TASK), original.replace('enabled: true', 'enabled: false'));
    let digests = await digestTask(timer);
    expect(digests.service.list().tasks[0]).toMatchObject({ enabled: false, next_run: null });
    await timer.advanceTo(Date.parse('2026-11-30T07:30:00Z'), () => digests.scheduler.whenIdle());
    expect(existsSync(digestFile('2026-W48'))).toBe(false);
    // The user's edit is kept over restarts (never overwritten by the seed).
    await digests.stop();
    digests = await digestTask(timer);
    expect(readFileSync(vaultFile(DIGEST_TASK), 'utf8')).toContain('enabled: false');
    await digests.stop();

    // Moved (and on again): it runs from its new place.
    rmSync(vaultFile(DIGEST_TASK));
    mkdirSync(vaultFile('Routines'), { recursive: true });
    writeFileSync(vaultFile('Routines/My week.md'), original);
    digests = await digestTask(timer);
    expect(existsSync(vaultFile(DIGEST_TASK))).toBe(false);
    expect(digests.service.list().tasks[0]).toMatchObject({
      path: 'Routines/My week.md',
      next_run: '2026-12-07T08:00:00+01:00',
    });
    await timer.advanceTo(Date.parse('2026-12-07T07:10:00Z'), () => digests.scheduler.whenIdle());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(digestFile('2026-W49'))).toBe(true);
    await digests.stop();

    // Deleted: no digest task after a restart, and none the week after.
    rmSync(vaultFile('Routines/My week.md'));
    digests = await digestTask(timer);
    expect(existsSync(vaultFile(DIGEST_TASK))).toBe(false);
    expect(digests.service.list().tasks).toEqual([]);
    await timer.advanceTo(Date.parse('2026-12-14T07:10:00Z'), () => digests.scheduler.whenIdle());
    expect(existsSync(digestFile('2026-W50'))).toBe(false);
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

  it('a full database disk answers 507 with no digest file; the retry writes it once', async () => {
    vi.spyOn(DigestStore.prototype, 'rewrite').mockImplementationOnce(() => {
      throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    });
    const full = await post({});
    expect(full.statusCode).toBe(507);
    expect(full.json()).toMatchObject({ error: { code: 'STORAGE_FULL' } });
    expect(existsSync(digestFile('2026-W48'))).toBe(false);
    const retried = await post({});
    expect(retried.statusCode).toBe(201);
    expect(readdirSync(join(index.vault, 'Cairn/Digests'))).toEqual(['2026-W48.md']);
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
