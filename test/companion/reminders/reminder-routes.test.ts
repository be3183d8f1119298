import { existsSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import { WriteMemory } from '../../../companion/idempotency/write-memory';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import type { Reminder, ReminderListResponse } from '../../../shared/protocol/reminders';
import { parseFrontMatter } from '../../../shared/markdown';
import { ManualClock } from '../../fakes/clock';
import { HOUR, ManualTimer, RecordingDeliverer } from './helpers';
import { TEST_TOKEN, authorized, copySampleVault, tempDir, testConfig } from '../helpers/app';

interface Harness {
  app: FastifyInstance;
  vault: string;
  clock: ManualClock;
  timer: ManualTimer;
  scheduler: ReminderScheduler;
  source: VaultReminderSource;
  deliverer: RecordingDeliverer;
  close(): Promise<void>;
}

let h: Harness;

async function setup(now = '2026-11-22T10:00:00Z'): Promise<Harness> {
  const dir = tempDir('reminder-routes');
  const vault = copySampleVault(dir.path);
  const clock = ManualClock.at(now);
  const timer = new ManualTimer(clock);
  // In memory: these tests are about the routes, not the file (test/companion/db is).
  const db = openDatabase(':memory:');
  const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
  await source.load();
  const deliverer = new RecordingDeliverer(clock, ['phone']);
  const scheduler = new ReminderScheduler({
    db,
    clock,
    source,
    deliverer,
    graceMs: 24 * HOUR,
    timer,
  });
  await scheduler.start();
  const app = await buildApp({
    config: testConfig(vault, join(dir.path, 'data')),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    scheduler,
    reminderSource: source,
  });
  return {
    app,
    vault,
    clock,
    timer,
    scheduler,
    source,
    deliverer,
    close: async () => {
      await scheduler.stop();
      await app.close();
      dir.remove();
    },
  };
}

beforeEach(async () => {
  h = await setup();
});
afterEach(async () => {
  await h.close();
});

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const response = await h.app.inject({
    method,
    url,
    headers: authorized,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

const read = (path: string) => readFileSync(join(h.vault, path), 'utf8');
const NOTE_ID = '5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13';

function errorOf(body: Record<string, unknown>): { code: string; message: string; field?: string } {
  return body.error as { code: string; message: string; field?: string };
}

describe('GET /api/v1/reminders', () => {
  it('lists the vault reminders by next fire, with status, source and offsets', async () => {
    const { status, body } = await call('GET', '/api/v1/reminders?limit=200');
    expect(status).toBe(200);
    const list = (body as unknown as ReminderListResponse).reminders;
    const ids = list.map((reminder) => reminder.id);
    expect(ids).toEqual(
      expect.arrayContaining(['r-7k2p', 'r-m3n9', 'r-x81c', 'r-q0d4', 'r-b7f2', NOTE_ID]),
    );
    const fires = list.flatMap((r) => (r.next_fire ? [Date.parse(r.next_fire)] : []));
    expect(fires).toEqual([...fires].sort((a, b) => a - b));
    const bank = list.find((r) => r.id === 'r-7k2p')!;
    expect(bank).toMatchObject({
      title: 'Call the bank about the card limit',
      due: '2026-11-23T17:00:00+01:00',
      timezone: 'Europe/Berlin',
      repeat: null,
      path: 'Journal/2026-11-22.md',
      status: 'active',
      source: 'inline',
      line: 5,
      next_fire: '2026-11-23T17:00:00+01:00',
    });
    expect(list.find((r) => r.id === 'r-q0d4')!.due).toBe('2027-01-10T09:00:00-05:00');
    // The checked line is done and fires no more.
    expect(list.find((r) => r.id === 'r-b7f2')).toMatchObject({ status: 'done', next_fire: null });
    const note = list.find((r) => r.id === NOTE_ID)!;
    expect(note).toMatchObject({ source: 'note', repeat: 'FREQ=WEEKLY;BYDAY=MO' });
  });

  it('filters by status and by next fire in [from, to], and pages with a cursor', async () => {
    const active = await call('GET', '/api/v1/reminders?status=active&limit=200');
    const activeList = (active.body as unknown as ReminderListResponse).reminders;
    expect(activeList.every((r) => r.status === 'active')).toBe(true);
    expect(activeList.some((r) => r.id === 'r-b7f2')).toBe(false);

    const day = await call('GET', '/api/v1/reminders?from=2026-11-23&to=2026-11-23');
    const dayIds = (day.body as unknown as ReminderListResponse).reminders.map((r) => r.id);
    expect(dayIds).toContain('r-7k2p');
    expect(dayIds).not.toContain('r-q0d4');

    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const url: string = `/api/v1/reminders?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const { body } = await call('GET', url);
      const response = body as unknown as ReminderListResponse;
      expect(response.reminders.length).toBeLessThanOrEqual(2);
      seen.push(...response.reminders.map((r) => r.id));
      cursor = response.next_cursor;
      if (cursor === null) break;
    }
    const all = await call('GET', '/api/v1/reminders?limit=200');
    expect(seen).toEqual((all.body as unknown as ReminderListResponse).reminders.map((r) => r.id));
  });

  it('refuses bad filters and cursors with 400 naming the field', async () => {
    for (const [query, field] of [
      ['status=sleeping', undefined],
      ['limit=0', undefined],
      ['limit=201', undefined],
      ['from=2026-13-01', undefined],
      ['from=2026-11-24&to=2026-11-23', 'to'],
      ['cursor=bm9wZQ', 'cursor'],
    ] as const) {
      const { status, body } = await call('GET', `/api/v1/reminders?${query}`);
      expect(status, query).toBe(400);
      if (field) expect(errorOf(body).field).toBe(field);
    }
    const first = await call('GET', '/api/v1/reminders?limit=1');
    const cursor = (first.body as unknown as ReminderListResponse).next_cursor!;
    const other = await call('GET', `/api/v1/reminders?limit=1&status=active&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(errorOf(other.body).message).toMatch(/different query/);
  });

  it('needs the token', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/api/v1/reminders' });
    expect(response.statusCode).toBe(401);
  });
});

describe('GET /api/v1/reminders/:id and /occurrences', () => {
  it('answers one reminder, 404 for an unknown id', async () => {
    expect((await call('GET', `/api/v1/reminders/${NOTE_ID}`)).body).toMatchObject({
      id: NOTE_ID,
      title: 'Call the bank',
      path: 'Cairn/Reminders/call-the-bank.md',
    });
    const missing = await call('GET', '/api/v1/reminders/r-none');
    expect(missing.status).toBe(404);
    expect(errorOf(missing.body)).toMatchObject({ code: 'NOT_FOUND' });
    expect(errorOf(missing.body).message).toContain('r-none');
  });

  it('lists occurrences with the zone offset, across a DST change', async () => {
    const { status, body } = await call('GET', `/api/v1/reminders/r-q0d4/occurrences?count=3`);
    expect(status).toBe(200);
    expect(body.occurrences).toEqual(['2027-01-10T09:00:00-05:00']);
    const weekly = await call(
      'GET',
      `/api/v1/reminders/${NOTE_ID}/occurrences?from=2027-03-20T00:00&count=3`,
    );
    expect(weekly.body.occurrences).toEqual([
      '2027-03-22T17:00:00+01:00',
      '2027-03-29T17:00:00+02:00',
      '2027-04-05T17:00:00+02:00',
    ]);
    const defaults = await call('GET', `/api/v1/reminders/${NOTE_ID}/occurrences`);
    expect(defaults.body.occurrences).toHaveLength(10);
    expect((defaults.body.occurrences as string[])[0]).toBe('2026-11-23T17:00:00+01:00');
  });

  it('refuses bad occurrence queries', async () => {
    expect((await call('GET', `/api/v1/reminders/${NOTE_ID}/occurrences?count=1001`)).status).toBe(
      400,
    );
    expect((await call('GET', `/api/v1/reminders/${NOTE_ID}/occurrences?count=0`)).status).toBe(
      400,
    );
    expect(
      (await call('GET', `/api/v1/reminders/${NOTE_ID}/occurrences?from=yesterday`)).status,
    ).toBe(400);
    expect((await call('GET', '/api/v1/reminders/r-none/occurrences')).status).toBe(404);
  });
});

describe('POST /api/v1/reminders', () => {
  it('writes a docs/vault-format.md reminder note with a collision-safe name and schedules it at once', async () => {
    const first = await call('POST', '/api/v1/reminders', {
      title: 'Call the bank',
      due: '2026-11-24T09:00',
    });
    expect(first.status).toBe(201);
    const reminder = first.body as unknown as Reminder;
    expect(reminder).toMatchObject({
      title: 'Call the bank',
      due: '2026-11-24T09:00:00+01:00',
      timezone: 'Europe/Berlin',
      repeat: null,
      status: 'active',
      source: 'note',
      next_fire: '2026-11-24T09:00:00+01:00',
    });
    // The sample vault already has call-the-bank.md: the new one gets a short id suffix.
    expect(reminder.path).toMatch(/^Cairn\/Reminders\/call-the-bank-[0-9a-f]{4}\.md$/);
    const front = parseFrontMatter(read(reminder.path));
    expect(front.ok && front.data).toMatchObject({
      id: reminder.id,
      type: 'reminder',
      title: 'Call the bank',
      due: '2026-11-24T09:00:00+01:00',
      timezone: 'Europe/Berlin',
      status: 'active',
      created: '2026-11-22T11:00:00+01:00',
    });
    expect(h.scheduler.nextFire(reminder.id)).toBe(Date.parse('2026-11-24T08:00:00Z'));
    expect(reminder).toMatchObject({ deduplicated: false });
    expect((await call('GET', `/api/v1/reminders/${reminder.id}`)).body).toEqual({
      ...reminder,
      deduplicated: undefined,
    });

    const series = await call('POST', '/api/v1/reminders', {
      title: 'Standup',
      due: '2026-11-23T09:30:00-05:00',
      timezone: 'America/New_York',
      repeat: 'RRULE:FREQ=WEEKLY;BYDAY=MO,WE',
    });
    expect(series.status).toBe(201);
    expect(series.body).toMatchObject({
      path: 'Cairn/Reminders/standup.md',
      repeat: 'FREQ=WEEKLY;BYDAY=MO,WE',
      timezone: 'America/New_York',
      due: '2026-11-23T09:30:00-05:00',
    });
  });

  it('refuses bad input with the field named, writing nothing', async () => {
    const cases: Array<[unknown, number, string | undefined]> = [
      [{}, 400, undefined],
      [{ title: '   ', due: '2026-11-24T09:00' }, 400, undefined],
      [{ title: 'x', due: 'tomorrow' }, 400, undefined],
      [{ title: 'x', due: '2026-11-24T09:00', colour: 'red' }, 400, undefined],
      [{ title: 'x'.repeat(501), due: '2026-11-24T09:00' }, 400, undefined],
      [{ title: 'x', due: '2026-02-30T09:00' }, 422, 'due'],
      [{ title: 'x', due: '2026-11-24T09:00', timezone: 'Mars/Olympus' }, 400, 'timezone'],
      [{ title: 'x', due: '2026-11-24T09:00', repeat: 'FREQ=SOMETIMES' }, 422, 'repeat'],
      [
        { title: 'x', due: '2026-11-24T09:00', repeat: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' },
        422,
        'repeat',
      ],
      [{ title: 'x', due: '2026-11-24T09:00', repeat: 'FREQ=DAILY;COUNT=100001' }, 422, 'repeat'],
      [{ title: 'x', due: '2026-11-20T09:00' }, 422, 'due'],
    ];
    for (const [payload, status, field] of cases) {
      const response = await call('POST', '/api/v1/reminders', payload);
      expect(response.status, JSON.stringify(payload).slice(0, 80)).toBe(status);
      if (field) expect(errorOf(response.body).field).toBe(field);
    }
    expect(readdirSync(join(h.vault, 'Cairn/Reminders'))).toEqual(['call-the-bank.md']);
  });

  it('keeps a title with control characters and markup on one YAML line', async () => {
    const response = await call('POST', '/api/v1/reminders', {
      title: 'Pay: "rent"\n# not a heading\t[[link]] ---',
      due: '2026-11-24T09:00',
    });
    expect(response.status).toBe(201);
    const reminder = response.body as unknown as Reminder;
    expect(reminder.title).toBe('Pay: "rent" # not a heading [[link]] ---');
    const front = parseFrontMatter(read(reminder.path));
    expect(front.ok && front.data.title).toBe(reminder.title);
  });
});

describe('POST /api/v1/reminders on a full disk', () => {
  it('answers 507 STORAGE_FULL, leaves no note behind, and works again once space returns', async () => {
    const before = readdirSync(join(h.vault, 'Cairn/Reminders')).sort();
    // The database write after the note (as SQLite reports a full disk) fails once.
    vi.spyOn(h.scheduler, 'replan').mockRejectedValueOnce(
      new Database.SqliteError('database or disk is full', 'SQLITE_FULL'),
    );
    const full = await call('POST', '/api/v1/reminders', {
      title: 'Pay rent',
      due: '2026-11-24T09:00',
    });
    expect(full.status).toBe(507);
    expect(errorOf(full.body).code).toBe('STORAGE_FULL');
    expect(errorOf(full.body).message).toMatch(/database.*full/);
    expect(readdirSync(join(h.vault, 'Cairn/Reminders')).sort()).toEqual(before);
    expect(h.source.all().reminders.some((entry) => entry.title === 'Pay rent')).toBe(false);

    const retried = await call('POST', '/api/v1/reminders', {
      title: 'Pay rent',
      due: '2026-11-24T09:00',
    });
    expect(retried.status).toBe(201);
    expect(readdirSync(join(h.vault, 'Cairn/Reminders'))).toHaveLength(before.length + 1);
  });
});

describe('POST /api/v1/reminders when its record cannot be stored', () => {
  const full = () => {
    throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
  };
  const original = WriteMemory.prototype.remember;
  let stored = 0;

  it('a 507 leaves no note, and a retry with the same Idempotency-Key writes one', async () => {
    const before = readdirSync(join(h.vault, 'Cairn/Reminders')).sort();
    const remember = vi.spyOn(WriteMemory.prototype, 'remember');
    // The dedup record is stored, the Idempotency-Key's answer is not.
    remember
      .mockImplementationOnce(function (this: WriteMemory, ...args) {
        stored += 1;
        original.call(this, ...args);
      })
      .mockImplementationOnce(full);
    const keyed = (payload: object) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/reminders',
        headers: { ...authorized, 'idempotency-key': 'rent-1' },
        payload,
      });
    const body = { title: 'Pay rent', due: '2026-11-24T09:00' };
    const failed = await keyed(body);
    expect(failed.statusCode).toBe(507);
    expect(failed.json()).toMatchObject({ error: { code: 'STORAGE_FULL' } });
    expect(stored).toBe(1); // the dedup record was stored; the key's answer was not
    expect(readdirSync(join(h.vault, 'Cairn/Reminders')).sort()).toEqual(before);
    expect(h.source.all().reminders.some((entry) => entry.title === 'Pay rent')).toBe(false);

    remember.mockImplementationOnce(full); // the dedup record this time
    expect((await keyed(body)).statusCode).toBe(507);
    expect(readdirSync(join(h.vault, 'Cairn/Reminders')).sort()).toEqual(before);

    expect((await keyed(body)).statusCode).toBe(201);
    expect((await keyed(body)).statusCode).toBe(201); // replayed
    expect(readdirSync(join(h.vault, 'Cairn/Reminders'))).toHaveLength(before.length + 1);
    remember.mockRestore();
  });
});

describe('PATCH and DELETE /api/v1/reminders/:id', () => {
  it('changes only the given keys of a reminder note, keeping its body', async () => {
    const before = read('Cairn/Reminders/call-the-bank.md');
    const response = await call('PATCH', `/api/v1/reminders/${NOTE_ID}`, {
      title: 'Call the bank (card)',
      due: '2026-11-24T18:00',
      repeat: null,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      title: 'Call the bank (card)',
      repeat: null,
      next_fire: '2026-11-24T18:00:00+01:00',
    });
    const after = read('Cairn/Reminders/call-the-bank.md');
    expect(after).toContain('due: 2026-11-24T18:00:00+01:00');
    expect(after).not.toContain('repeat:');
    expect(after).toContain('created: 2026-11-22T10:31:00+01:00');
    expect(after.split('---\n')[2]).toBe(before.split('---\n')[2]);
  });

  it('refuses a patch that does not validate, and an empty patch', async () => {
    const before = read('Cairn/Reminders/call-the-bank.md');
    expect((await call('PATCH', `/api/v1/reminders/${NOTE_ID}`, {})).status).toBe(400);
    const zone = await call('PATCH', `/api/v1/reminders/${NOTE_ID}`, { timezone: 'Nowhere/Land' });
    expect(zone.status).toBe(400);
    expect(errorOf(zone.body).field).toBe('timezone');
    const never = await call('PATCH', `/api/v1/reminders/${NOTE_ID}`, {
      repeat: 'FREQ=MONTHLY;BYMONTH=4;BYMONTHDAY=31',
    });
    expect(never.status).toBe(422);
    expect(errorOf(never.body).field).toBe('repeat');
    expect(read('Cairn/Reminders/call-the-bank.md')).toBe(before);
    expect((await call('PATCH', '/api/v1/reminders/r-none', { title: 'x' })).status).toBe(404);
  });

  it('rewrites only the @remind token of an inline reminder', async () => {
    const response = await call('PATCH', '/api/v1/reminders/r-7k2p', { due: '2026-11-25 08:15' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'r-7k2p', next_fire: '2026-11-25T08:15:00+01:00' });
    expect(read('Journal/2026-11-22.md')).toContain(
      '- [ ] Call the bank about the card limit @remind(2026-11-25 08:15) ^r-7k2p\n',
    );
    const zoned = await call('PATCH', '/api/v1/reminders/r-q0d4', { timezone: 'Asia/Kolkata' });
    expect(zoned.status).toBe(200);
    expect(read('Travel/Visa rules.md')).toContain(
      '@remind(2027-01-10 19:30 Asia/Kolkata) ^r-q0d4',
    );
    const title = await call('PATCH', '/api/v1/reminders/r-7k2p', { title: 'New' });
    expect(title.status).toBe(422);
    expect(errorOf(title.body).field).toBe('title');
  });

  it('cancels a reminder note (the file stays) and removes an inline token (the words stay)', async () => {
    const note = await call('DELETE', `/api/v1/reminders/${NOTE_ID}`);
    expect(note.status).toBe(200);
    expect(note.body).toMatchObject({ status: 'cancelled', next_fire: null });
    expect(read('Cairn/Reminders/call-the-bank.md')).toContain('status: cancelled');
    expect(h.scheduler.nextFire(NOTE_ID)).toBeUndefined();

    const inline = await call('DELETE', '/api/v1/reminders/r-l1b9');
    expect(inline.status).toBe(200);
    expect(read('Projects/Reading list.md')).toContain(
      '- [ ] Return the library copy of *A Pattern Language* ^r-l1b9\n',
    );
    expect((await call('GET', '/api/v1/reminders/r-l1b9')).status).toBe(404);
  });
});

describe('POST /api/v1/reminders/:id/snooze and /done', () => {
  it('done checks a task line; the line never fires', async () => {
    const response = await call('POST', '/api/v1/reminders/r-7k2p/done', {
      occurrence: '2026-11-23T17:00:00+01:00',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'done', next_fire: null });
    expect(read('Journal/2026-11-22.md')).toContain(
      '- [x] Call the bank about the card limit @remind(2026-11-23 17:00) ^r-7k2p',
    );
    expect(h.scheduler.nextFire('r-7k2p')).toBeUndefined();
    // Again (from a notification without an occurrence): nothing changes, still 200.
    expect((await call('POST', '/api/v1/reminders/r-7k2p/done', { occurrence: '' })).status).toBe(
      200,
    );
  });

  it('done on a recurring reminder acknowledges that occurrence only', async () => {
    const response = await call('POST', `/api/v1/reminders/${NOTE_ID}/done`, {
      occurrence: '2026-11-23T17:00:00+01:00',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'active',
      next_fire: '2026-11-30T17:00:00+01:00',
    });
    expect(read('Cairn/Reminders/call-the-bank.md')).toContain('status: active');
  });

  it('done on a one-off reminder note writes status: done; on a plain line it is acknowledged', async () => {
    const created = (
      await call('POST', '/api/v1/reminders', { title: 'Once', due: '2026-11-22T12:00' })
    ).body as unknown as Reminder;
    await call('POST', `/api/v1/reminders/${created.id}/done`, {});
    expect(read(created.path)).toContain('status: done');
    expect((await call('GET', `/api/v1/reminders/${created.id}`)).body).toMatchObject({
      status: 'done',
      next_fire: null,
    });

    writeFileSync(
      join(h.vault, 'Garden.md'),
      `${read('Garden.md')}Feed the cat @remind(2026-11-22 12:00) ^r-feed\n`,
    );
    await h.scheduler.replan(await h.source.refreshFile('Garden.md'));
    const garden = read('Garden.md');
    expect(h.scheduler.nextFire('r-feed')).toBe(Date.parse('2026-11-22T11:00:00Z'));
    const plain = await call('POST', '/api/v1/reminders/r-feed/done', {});
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ status: 'active', next_fire: null });
    expect(h.scheduler.nextFire('r-feed')).toBeUndefined();
    expect(read('Garden.md')).toBe(garden);
  });

  it('snooze keeps an inline line as written; a one-off note gets snoozed_until', async () => {
    const inline = await call('POST', '/api/v1/reminders/r-7k2p/snooze', { minutes: 15 });
    expect(inline.status).toBe(200);
    // Not rung yet: 17:00 + 15 min, the line untouched (delivery state, docs/reminders.md).
    expect(read('Journal/2026-11-22.md')).toContain('@remind(2026-11-23 17:00) ^r-7k2p');
    expect(inline.body).toMatchObject({ next_fire: '2026-11-23T17:15:00+01:00' });

    const created = (
      await call('POST', '/api/v1/reminders', { title: 'Once', due: '2026-11-22T12:00' })
    ).body as unknown as Reminder;
    const note = await call('POST', `/api/v1/reminders/${created.id}/snooze`, { minutes: 60 * 24 });
    expect(note.status).toBe(200);
    expect(read(created.path)).toContain('snoozed_until: 2026-11-23T12:00:00+01:00');
    expect(note.body).toMatchObject({ snoozed_until: '2026-11-23T12:00:00+01:00' });
  });

  it('snoozing a recurring reminder is delivery state: the file is untouched', async () => {
    h.clock.set('2026-11-23T16:01:00Z');
    const before = read('Cairn/Reminders/call-the-bank.md');
    const response = await call('POST', `/api/v1/reminders/${NOTE_ID}/snooze`, { minutes: 60 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ next_fire: '2026-11-23T18:01:00+01:00' });
    expect(read('Cairn/Reminders/call-the-bank.md')).toBe(before);
  });

  it('writes nothing when the line changed on disk since the scheduler read it', async () => {
    const path = join(h.vault, 'Journal/2026-11-22.md');
    const edited = read('Journal/2026-11-22.md').replace(' @remind(2026-11-23 17:00) ^r-7k2p', '');
    writeFileSync(path, edited);
    const response = await call('POST', '/api/v1/reminders/r-7k2p/done', {});
    expect(response.status).toBe(404);
    expect(errorOf(response.body).message).toMatch(
      /r-7k2p is no longer in Journal\/2026-11-22\.md/,
    );
    expect(read('Journal/2026-11-22.md')).toBe(edited);
    expect(readdirSync(join(h.vault, 'Journal')).filter((name) => name.endsWith('.tmp'))).toEqual(
      [],
    );
  });

  it('refuses bad snooze and done requests', async () => {
    for (const payload of [
      {},
      { minutes: 0 },
      { minutes: 525_601 },
      { minutes: 1.5 },
      { minutes: 'soon' },
    ]) {
      const response = await call('POST', '/api/v1/reminders/r-7k2p/snooze', payload);
      expect(response.status, JSON.stringify(payload)).toBe(400);
    }
    expect((await call('POST', '/api/v1/reminders/r-none/snooze', { minutes: 5 })).status).toBe(
      404,
    );
    expect((await call('POST', '/api/v1/reminders/r-b7f2/snooze', { minutes: 5 })).status).toBe(
      409,
    );
    expect(
      (await call('POST', '/api/v1/reminders/r-7k2p/done', { occurrence: 'soon' })).status,
    ).toBe(400);
    unlinkSync(join(h.vault, 'Journal/2026-11-22.md'));
    const gone = await call('POST', '/api/v1/reminders/r-7k2p/done', {});
    expect(gone.status).toBe(404);
    expect(existsSync(join(h.vault, 'Journal/2026-11-22.md'))).toBe(false);
  });
});
