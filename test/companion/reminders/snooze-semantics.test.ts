import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Reminder } from '../../../shared/protocol/reminders';
import { ManualClock } from '../../fakes/clock';
import { copySampleVault, tempDir } from '../helpers/app';
import { openReminderApp } from '../helpers/reminder-app';
import type { ReminderApp } from '../helpers/reminder-app';

/*
 * The snooze and edit semantics of docs/reminders.md, on the sample vault, with the real
 * scheduler, database and vault writes. The clock starts on Sunday 2026-11-22 11:00 in Berlin.
 */

const NOTE_ID = '5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13'; // weekly on Monday 17:00, Berlin
let dir: { path: string; remove: () => void };
let vault: string;
let clock: ManualClock;
let h: ReminderApp;

beforeEach(async () => {
  dir = tempDir('snooze-semantics');
  vault = copySampleVault(dir.path);
  clock = ManualClock.at('2026-11-22T10:00:00Z');
  h = await openReminderApp(vault, dir.path, clock);
});
afterEach(async () => {
  await h.close();
  dir.remove();
});

const read = (path: string) => readFileSync(join(vault, path), 'utf8');
const rings = (id: string) =>
  h.deliverer.sent.filter((entry) => entry.reminderId === id).map((entry) => entry.occurrence);

describe('snooze before the reminder has rung', () => {
  it('postpones an inline one-off from its own time, leaving the line as written', async () => {
    const before = read('Travel/Visa rules.md');
    const response = await h.call('POST', '/api/v1/reminders/r-q0d4/snooze', { minutes: 60 });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      due: '2027-01-10T09:00:00-05:00',
      snoozed_until: '2027-01-10T10:00:00-05:00',
      next_fire: '2027-01-10T10:00:00-05:00',
    });
    expect(read('Travel/Visa rules.md')).toBe(before);
  });

  it('moves the same ring when snoozed twice, and it rings once', async () => {
    const journal = read('Journal/2026-11-22.md');
    await h.call('POST', '/api/v1/reminders/r-7k2p/snooze', { minutes: 15 });
    const again = await h.call('POST', '/api/v1/reminders/r-7k2p/snooze', { minutes: 60 });
    expect(again.body).toMatchObject({ next_fire: '2026-11-23T18:15:00+01:00' });
    await h.advanceTo('2026-11-23T20:00:00Z');
    expect(rings('r-7k2p')).toEqual(['2026-11-23T18:15:00+01:00']);
    // Rung: nothing is pending any more.
    expect((await h.call('GET', '/api/v1/reminders/r-7k2p')).body).toMatchObject({
      snoozed_until: null,
    });
    expect(read('Journal/2026-11-22.md')).toBe(journal);
  });

  it('writes snoozed_until after the due of a one-off note, never before it', async () => {
    const created = (
      await h.call('POST', '/api/v1/reminders', {
        title: 'Call the bank by Friday',
        due: '2026-11-27T09:00',
      })
    ).body as unknown as Reminder;
    const snoozed = await h.call('POST', `/api/v1/reminders/${created.id}/snooze`, {
      minutes: 60,
    });
    expect(snoozed.body).toMatchObject({
      due: '2026-11-27T09:00:00+01:00',
      snoozed_until: '2026-11-27T10:00:00+01:00',
      next_fire: '2026-11-27T10:00:00+01:00',
    });
    expect(read(created.path)).toContain('due: 2026-11-27T09:00:00+01:00');
    expect(read(created.path)).toContain('snoozed_until: 2026-11-27T10:00:00+01:00');
  });

  it('shifts one occurrence of a series and leaves its rule and file alone', async () => {
    const before = read('Cairn/Reminders/call-the-bank.md');
    const response = await h.call('POST', `/api/v1/reminders/${NOTE_ID}/snooze`, { minutes: 60 });
    expect(response.body).toMatchObject({
      repeat: 'FREQ=WEEKLY;BYDAY=MO',
      next_fire: '2026-11-23T18:00:00+01:00',
    });
    expect(read('Cairn/Reminders/call-the-bank.md')).toBe(before);
    await h.advanceTo('2026-12-01T00:00:00Z');
    // The snoozed one rings once at its new time, the next week's on time, and nothing else.
    expect(rings(NOTE_ID)).toEqual(['2026-11-23T18:00:00+01:00', '2026-11-30T17:00:00+01:00']);
  });
});

describe('snooze after the reminder has rung', () => {
  it('starts from now for an inline one-off that rang', async () => {
    await h.advanceTo('2026-11-23T16:05:00Z');
    expect(rings('r-7k2p')).toEqual(['2026-11-23T17:00:00+01:00']);
    const response = await h.call('POST', '/api/v1/reminders/r-7k2p/snooze', { minutes: 15 });
    expect(response.body).toMatchObject({ next_fire: '2026-11-23T17:20:00+01:00' });
    await h.advanceTo('2026-11-24T00:00:00Z');
    expect(rings('r-7k2p')).toEqual(['2026-11-23T17:00:00+01:00', '2026-11-23T17:20:00+01:00']);
  });

  it('starts from now for the occurrence of a series that rang', async () => {
    await h.advanceTo('2026-11-23T16:10:00Z');
    const response = await h.call('POST', `/api/v1/reminders/${NOTE_ID}/snooze`, { minutes: 30 });
    expect(response.body).toMatchObject({ next_fire: '2026-11-23T17:40:00+01:00' });
  });

  it('never adds a ring: a snooze reaching the next occurrence gives way to it', async () => {
    const garden = read('Garden.md');
    await h.advanceTo('2026-11-23T08:30:00Z');
    expect(rings('r-x81c')).toEqual(['2026-11-23T09:00:00+01:00']);
    const response = await h.call('POST', '/api/v1/reminders/r-x81c/snooze', {
      minutes: 8 * 24 * 60,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ next_fire: '2026-11-30T09:00:00+01:00' });
    await h.advanceTo('2026-12-02T00:00:00Z');
    expect(rings('r-x81c')).toEqual(['2026-11-23T09:00:00+01:00', '2026-11-30T09:00:00+01:00']);
    expect(read('Garden.md')).toBe(garden);
  });

  it('uses the occurrence the phone names', async () => {
    await h.advanceTo('2026-11-23T16:05:00Z');
    const response = await h.call('POST', `/api/v1/reminders/${NOTE_ID}/snooze`, {
      minutes: 15,
      occurrence: '2026-11-30T17:00:00+01:00',
    });
    // Not rung yet: postponed from its own time, a week ahead, not from now.
    expect(response.body).toMatchObject({ next_fire: '2026-11-30T17:15:00+01:00' });
    const list = await h.call('GET', `/api/v1/reminders/${NOTE_ID}/occurrences?count=2`);
    expect(list.body).toEqual({
      occurrences: ['2026-11-30T17:00:00+01:00', '2026-12-07T17:00:00+01:00'],
    });
    await h.advanceTo('2026-12-01T00:00:00Z');
    expect(rings(NOTE_ID)).toEqual(['2026-11-23T17:00:00+01:00', '2026-11-30T17:15:00+01:00']);
  });
});

describe('PATCH changes only the fields it names', () => {
  it('refuses a due on an inline series instead of making it a one-off; nothing written', async () => {
    const garden = read('Garden.md');
    const response = await h.call('PATCH', '/api/v1/reminders/r-x81c', {
      due: '2026-12-07T10:00',
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: { code: 'UNPROCESSABLE', field: 'due' } });
    expect(read('Garden.md')).toBe(garden);
  });

  it('keeps the rule of a reminder note when only due changes', async () => {
    const response = await h.call('PATCH', `/api/v1/reminders/${NOTE_ID}`, {
      due: '2026-12-07T10:00',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      repeat: 'FREQ=WEEKLY;BYDAY=MO',
      due: '2026-12-07T10:00:00+01:00',
    });
    expect(read('Cairn/Reminders/call-the-bank.md')).toContain('repeat: FREQ=WEEKLY;BYDAY=MO');
  });

  it("changes an inline series' zone and keeps the words of its rule", async () => {
    const response = await h.call('PATCH', '/api/v1/reminders/r-x81c', {
      timezone: 'America/New_York',
    });
    expect(response.status).toBe(200);
    expect(read('Garden.md')).toContain(
      'Water the plants @remind(every monday 09:00 America/New_York) ^r-x81c',
    );
    expect(response.body).toMatchObject({
      timezone: 'America/New_York',
      repeat: expect.any(String),
    });
  });

  it('turns a series into a one-off only with repeat: null', async () => {
    const response = await h.call('PATCH', '/api/v1/reminders/r-x81c', {
      repeat: null,
      due: '2026-12-07T10:00',
    });
    expect(response.status).toBe(200);
    expect(read('Garden.md')).toContain('Water the plants @remind(2026-12-07 10:00) ^r-x81c');
  });

  it('refuses a due on a reminder whose zone cannot be resolved, naming timezone', async () => {
    const path = join(vault, 'Garden.md');
    writeFileSync(
      path,
      `${read('Garden.md')}Repot the fern @remind(2026-12-01 09:00 Mars/Olympus) ^r-mars\n`,
    );
    await h.scheduler.replan(await h.source.refreshFile('Garden.md'));
    const before = read('Garden.md');
    const response = await h.call('PATCH', '/api/v1/reminders/r-mars', { due: '2026-12-02T09:00' });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: {
        code: 'UNPROCESSABLE',
        field: 'timezone',
        message: expect.stringMatching(/Mars\/Olympus/),
      },
    });
    expect(read('Garden.md')).toBe(before);
  });

  it('names unknown fields and a reminder that does not exist', async () => {
    const unknown = await h.call('PATCH', `/api/v1/reminders/${NOTE_ID}`, { snoozed: 'x' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('snoozed');
    const missing = await h.call('PATCH', '/api/v1/reminders/r-nope', { due: '2026-12-07T10:00' });
    expect(missing.status).toBe(404);
  });
});
