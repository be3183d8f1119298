import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MissedReminder } from '../../../shared/protocol/reminders';
import { TITLE_MAX_CHARS } from '../../../shared/protocol/reminders';
import { ManualClock } from '../../fakes/clock';
import { copySampleVault, tempDir } from '../helpers/app';
import { openReminderApp } from '../helpers/reminder-app';
import type { ReminderApp } from '../helpers/reminder-app';

/* Every reminder that cannot fire is on GET /api/v1/reminders/missed, with a reason code. */

let dir: { path: string; remove: () => void };
let vault: string;
let clock: ManualClock;
let h: ReminderApp;

beforeEach(async () => {
  dir = tempDir('missed-reasons');
  vault = copySampleVault(dir.path);
  // Written before the companion ever ran: the plugin handled it, it is not listed.
  appendFileSync(join(vault, 'Garden.md'), '- [ ] Old chore @remind(2026-11-01 09:00) ^r-old\n');
  clock = ManualClock.at('2026-11-22T10:00:00Z');
  h = await openReminderApp(vault, dir.path, clock);
});
afterEach(async () => {
  await h.close();
  dir.remove();
});

async function addLines(lines: string): Promise<void> {
  appendFileSync(join(vault, 'Garden.md'), lines);
  await h.scheduler.replan(await h.source.refreshFile('Garden.md'));
}

async function missed(): Promise<MissedReminder[]> {
  const response = await h.call('GET', '/api/v1/reminders/missed?limit=200');
  expect(response.status).toBe(200);
  return response.body.missed as MissedReminder[];
}

describe('GET /api/v1/reminders/missed reasons', () => {
  it('lists a one-off already past when first seen as past_due, across a restart', async () => {
    await addLines('- [ ] Post the letter @remind(2026-11-20 09:00) ^r-late\n');
    const entry = (await missed()).find((item) => item.reminder_id === 'r-late');
    expect(entry).toEqual({
      reminder_id: 'r-late',
      title: 'Post the letter',
      path: 'Garden.md',
      line: expect.any(Number),
      occurrence: '2026-11-20T09:00:00+01:00',
      reason: 'past_due',
    });
    expect((await h.call('GET', '/api/v1/reminders/r-late')).body).toMatchObject({
      next_fire: null,
    });
    expect((await missed()).some((item) => item.reminder_id === 'r-old')).toBe(false);

    await h.close();
    clock.advance(60_000);
    h = await openReminderApp(vault, dir.path, clock);
    const after = await missed();
    expect(after.filter((item) => item.reminder_id === 'r-late')).toHaveLength(1);
    expect(after.some((item) => item.reminder_id === 'r-old')).toBe(false);
    // Done takes it off the list.
    await h.call('POST', '/api/v1/reminders/r-late/done', {});
    expect((await missed()).some((item) => item.reminder_id === 'r-late')).toBe(false);
  });

  it('does not list a one-off that syncs in a few minutes late: it fires', async () => {
    await h.advanceTo('2026-11-22T12:00:00Z');
    await addLines('- [ ] Just now @remind(2026-11-22 12:55) ^r-now\n');
    expect((await missed()).some((item) => item.reminder_id === 'r-now')).toBe(false);
    await h.advanceTo('2026-11-22T12:01:00Z');
    expect(h.deliverer.sent.map((entry) => entry.reminderId)).toContain('r-now');
  });

  it('tells natural language, a bad zone and an unreadable date apart', async () => {
    await addLines(
      [
        'Call mum @remind(tomorrow 5pm) ^r-nat',
        'Standup @remind(2026-12-01 09:00 Mars/Olympus) ^r-zone',
        'Pay rent @remind(2026-13-01 09:00) ^r-bad',
        '',
      ].join('\n'),
    );
    const list = await missed();
    const byId = (id: string) => list.find((item) => item.reminder_id === id);
    expect(byId('r-nat')).toMatchObject({
      reason: 'unresolved',
      problem: 'natural_language',
      occurrence: null,
      title: 'Call mum',
    });
    expect(byId('r-zone')).toMatchObject({
      reason: 'unresolved',
      problem: 'bad_zone',
      title: 'Standup',
    });
    expect(byId('r-zone')?.detail).toMatch(/Mars\/Olympus/);
    expect(byId('r-bad')).toMatchObject({ reason: 'unresolved', problem: 'invalid' });
  });

  it('caps titles read from the vault like the API does', async () => {
    const long = 'word '.repeat(200).trim();
    await addLines(`${long} @remind(tomorrow 5pm) ^r-long\n`);
    const entry = (await missed()).find((item) => item.reminder_id === 'r-long');
    expect(entry?.title.length).toBe(TITLE_MAX_CHARS);
    expect(entry?.title.endsWith('…')).toBe(true);
  });
});
