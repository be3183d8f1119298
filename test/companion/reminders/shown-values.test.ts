import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../fakes/clock';
import { copySampleVault, tempDir } from '../helpers/app';
import { openReminderApp } from '../helpers/reminder-app';
import type { ReminderApp } from '../helpers/reminder-app';

/*
 * Values the API answers are values a user can be shown (issue #26 item 6): an inline series
 * has no invented `due`, its rule comes in words; a zone that does not exist is a 400 naming
 * `timezone`, whatever else the request says.
 */

let dir: { path: string; remove: () => void };
let h: ReminderApp;

beforeEach(async () => {
  dir = tempDir('shown-values');
  const vault = copySampleVault(dir.path);
  h = await openReminderApp(vault, dir.path, ManualClock.at('2026-11-22T10:00:00Z'));
});
afterEach(async () => {
  await h.close();
  dir.remove();
});

describe('an inline series', () => {
  it('has no due, its rule in words and its next ring', async () => {
    // Garden.md: `Water the plants @remind(every monday 09:00) ^r-x81c`.
    const response = await h.call('GET', '/api/v1/reminders/r-x81c');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      due: null,
      repeat_text: 'every Monday at 09:00',
      next_fire: '2026-11-23T09:00:00+01:00',
    });
    expect(JSON.stringify(response.body)).not.toContain('2000-');
  });

  it('lists without a due from 2000 either', async () => {
    const list = await h.call('GET', '/api/v1/reminders?limit=200');
    const reminders = list.body.reminders as Array<Record<string, unknown>>;
    expect(reminders.length).toBeGreaterThan(3);
    expect(JSON.stringify(reminders)).not.toContain('2000-01');
    for (const reminder of reminders) {
      if (reminder.repeat !== null) expect(reminder.repeat_text).toMatch(/^every /);
      else expect(reminder.repeat_text).toBeNull();
    }
  });

  it('a reminder note series keeps its first date and gets words too', async () => {
    const response = await h.call('GET', '/api/v1/reminders/5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13');
    expect(response.body).toMatchObject({
      due: '2026-11-23T17:00:00+01:00',
      repeat_text: 'every Monday at 17:00',
    });
  });
});

describe('a zone that does not exist', () => {
  it.each(['Mars/Olympus', 'Europe/Atlantis', 'Etc/Nowhere'])(
    'POST with %s is a 400 naming timezone, nothing written',
    async (zone) => {
      const response = await h.call('POST', '/api/v1/reminders', {
        title: 'Water the tree',
        due: '2026-12-24T09:00',
        timezone: zone,
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { code: 'VALIDATION_ERROR', field: 'timezone' },
      });
      expect(JSON.stringify(response.body)).not.toContain('NaN');
      const list = await h.call('GET', '/api/v1/reminders?limit=200');
      expect(JSON.stringify(list.body)).not.toContain('Water the tree');
    },
  );

  it('POST with a repeat and a bad zone names timezone', async () => {
    const response = await h.call('POST', '/api/v1/reminders', {
      title: 'Weekly',
      due: '2026-12-01T10:00',
      repeat: 'FREQ=WEEKLY;BYDAY=TU',
      timezone: 'Mars/Olympus',
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { field: 'timezone' } });
  });

  it('PATCH of a note and of an inline line is a 400 naming timezone', async () => {
    for (const id of ['5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13', 'r-x81c', 'r-7k2p']) {
      const response = await h.call('PATCH', `/api/v1/reminders/${id}`, {
        timezone: 'Mars/Olympus',
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { code: 'VALIDATION_ERROR', field: 'timezone' },
      });
    }
  });

  it('a lower-case real zone is read, spelled right', async () => {
    const response = await h.call('POST', '/api/v1/reminders', {
      title: 'Call Lisbon',
      due: '2026-12-24T09:00',
      timezone: 'europe/lisbon',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ timezone: 'Europe/Lisbon' });
  });
});
