import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ICAL from 'ical.js';
import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { loadOrCreateFeedSecret } from '../../../companion/calendar/feed-secret';
import { openDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import type { CalendarWeek } from '../../../shared/protocol/calendar';
import { ManualClock } from '../../fakes/clock';
import { HOUR, ManualTimer, RecordingDeliverer } from '../reminders/helpers';
import { TEST_TOKEN, authorized, copySampleVault, tempDir, testConfig } from '../helpers/app';

/*
 * docs/memory-digest-calendar.md calendar routes over a copy of the sample vault (reminder notes, inline reminders,
 * a Full Calendar note, and one with `startTime: 25:00`), a real scheduler and SQLite.
 */

let app: FastifyInstance;
let dataDir: string;
let logs: string[];
let close: () => Promise<void>;

beforeEach(async () => {
  const dir = tempDir('calendar-routes');
  const vault = copySampleVault(dir.path);
  mkdirSync(join(vault, 'Calendar'), { recursive: true });
  writeFileSync(
    join(vault, 'Calendar/Dentist.md'),
    '---\ntitle: Dentist\ndate: 2026-11-24\nstartTime: "14:00"\nendTime: "15:00"\n---\nBring the card.\n',
  );
  writeFileSync(
    join(vault, 'Calendar/Broken.md'),
    '---\ntitle: Broken\ndate: 2026-11-25\nstartTime: "25:00"\n---\n',
  );
  dataDir = join(dir.path, 'data');
  mkdirSync(dataDir, { recursive: true });
  logs = [];
  const logger = createLogger(
    'trace',
    new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );
  const clock = ManualClock.at('2026-11-25T10:00:00Z');
  // In memory: these tests are about the routes, not the file (test/companion/db is).
  const db = openDatabase(':memory:');
  const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin', logger });
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
  app = await buildApp({
    config: testConfig(vault, dataDir),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    logger,
    scheduler,
    reminderSource: source,
  });
  close = async () => {
    await scheduler.stop();
    await app.close();
    dir.remove();
  };
});
afterEach(() => close());

describe('GET /api/v1/calendar/week', () => {
  it('answers the contract for the current week by default', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/calendar/week',
      headers: authorized,
    });
    expect(response.statusCode).toBe(200);
    const week = response.json() as CalendarWeek;
    expect(week).toMatchObject({
      week: '2026-W48',
      start: '2026-11-23',
      end: '2026-11-29',
      timezone: 'Europe/Berlin',
    });
    const monday = week.days[0]!.items;
    expect(monday.map((item) => [item.kind, item.id, item.start])).toEqual(
      expect.arrayContaining([
        ['reminder', 'r-x81c', '2026-11-23T09:00:00+01:00'],
        ['reminder', 'r-m3n9', '2026-11-23T09:30:00+01:00'],
        ['reminder', 'r-7k2p', '2026-11-23T17:00:00+01:00'],
      ]),
    );
    const inline = monday.find((item) => item.id === 'r-7k2p')!;
    expect(inline).toMatchObject({
      path: 'Journal/2026-11-22.md',
      line: 5,
      recurring: false,
      all_day: false,
    });
    expect(week.days[1]!.items).toContainEqual({
      kind: 'event',
      id: 'Calendar/Dentist.md',
      title: 'Dentist',
      start: '2026-11-24T14:00:00+01:00',
      end: '2026-11-24T15:00:00+01:00',
      all_day: false,
      path: 'Calendar/Dentist.md',
      line: null,
      status: null,
      recurring: false,
    });
    // The broken note is left out, and the log names its file and field.
    expect(JSON.stringify(week)).not.toContain('Broken');
    expect(logs.join('')).toContain(
      'Calendar/Broken.md: front matter \\"startTime\\": \\"25:00\\" is not a time HH:mm',
    );
  });

  it('takes ?week= and refuses a bad week with the field', async () => {
    const other = await app.inject({
      method: 'GET',
      url: '/api/v1/calendar/week?week=2026-W49',
      headers: authorized,
    });
    expect((other.json() as CalendarWeek).start).toBe('2026-11-30');
    const bad = await app.inject({
      method: 'GET',
      url: '/api/v1/calendar/week?week=2026-W60',
      headers: authorized,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'week' } });
    const unauthorized = await app.inject({ method: 'GET', url: '/api/v1/calendar/week' });
    expect(unauthorized.statusCode).toBe(401);
  });
});

describe('GET /api/v1/calendar/<secret>.ics', () => {
  it('serves a feed a real parser reads, without the token; a rotated secret is 404', async () => {
    const secret = loadOrCreateFeedSecret(dataDir);
    const response = await app.inject({ method: 'GET', url: `/api/v1/calendar/${secret}.ics` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const calendar = new ICAL.Component(ICAL.parse(response.body));
    const uids = calendar
      .getAllSubcomponents('vevent')
      .map((event) => event.getFirstPropertyValue('uid'));
    expect(uids).toEqual(
      expect.arrayContaining(['r-7k2p', 'r-x81c', 'r-q0d4', 'Calendar/Dentist.md']),
    );
    const bank = calendar
      .getAllSubcomponents('vevent')
      .find((event) => event.getFirstPropertyValue('uid') === 'r-7k2p')!;
    expect(bank.getFirstPropertyValue('url')).toBe(
      'obsidian://open?vault=vault&file=Journal%2F2026-11-22.md%23%5Er-7k2p',
    );
    expect(logs.join('')).not.toContain(secret);

    const rotated = loadOrCreateFeedSecret(dataDir, { rotate: true });
    expect(rotated).not.toBe(secret);
    const old = await app.inject({ method: 'GET', url: `/api/v1/calendar/${secret}.ics` });
    expect(old.statusCode).toBe(404);
    expect(
      (await app.inject({ method: 'GET', url: `/api/v1/calendar/${rotated}.ics` })).statusCode,
    ).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/v1/calendar/nope.ics' })).statusCode).toBe(
      404,
    );
  });
});
