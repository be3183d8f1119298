import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../fakes/clock';
import { authorized, copySampleVault, tempDir } from '../helpers/app';
import { openReminderApp } from '../helpers/reminder-app';
import type { ReminderApp } from '../helpers/reminder-app';

/*
 * Schema failures say what was expected in words: the schema's description for a pattern
 * (never the regular expression), the allowed values for a union of literals.
 */

const dir = tempDir('errors');
let app: ReminderApp;
beforeAll(async () => {
  const vault = copySampleVault(dir.path);
  app = await openReminderApp(vault, dir.path, ManualClock.at('2026-11-22T10:00:00Z'));
});
afterAll(async () => {
  await app?.close();
  dir.remove();
});

async function send(method: 'PATCH' | 'POST', url: string, payload: unknown) {
  const response = await app.app.inject({
    method,
    url,
    headers: authorized,
    payload: payload as object,
  });
  return {
    status: response.statusCode,
    error: response.json<{ error: Record<string, string> }>().error,
  };
}

describe('validation errors', () => {
  it.each([
    [{ status: 'finished' }, 'status', 'body.status must be one of "active", "done", "cancelled"'],
    [
      { due: 'tomorrow' },
      'due',
      'body.due must be an ISO 8601 date-time, local (2026-11-23T17:00) or with offset',
    ],
    [
      { timezone: 'not a zone' },
      'timezone',
      'body.timezone must be an IANA time zone name such as Europe/Berlin',
    ],
    [{ repeat: 'weekly' }, 'repeat', 'body.repeat must be an RRULE such as FREQ=WEEKLY;BYDAY=MO'],
    [{ title: '   ' }, 'title', 'body.title must be non-blank text without NUL characters'],
  ])('PATCH %j names %s and what it must be', async (payload, field, message) => {
    const { status, error } = await send('PATCH', '/api/v1/reminders/r-7k2p', payload);
    expect(status).toBe(400);
    expect(error).toEqual({ code: 'VALIDATION_ERROR', message, field });
    expect(error.message).not.toMatch(/pattern|\\d|constant/);
  });

  it.each([
    ['POST', '/api/v1/reminders', { title: 'Pay\u0000rent', due: '2030-01-01T09:00' }, 'title'],
    ['PATCH', '/api/v1/reminders/r-7k2p', { title: 'Pay rent\u0000' }, 'title'],
    ['POST', '/api/v1/memories', { text: 'My bike\u0000 is blue' }, 'text'],
    ['POST', '/api/v1/notes', { title: 'A\u0000b', body: 'x' }, 'title'],
  ] as const)('%s %s refuses a NUL in %j', async (method, url, payload, field) => {
    const { status, error } = await send(method, url, payload);
    expect(status).toBe(400);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', field });
    expect(error.message).toMatch(/without NUL characters/);
  });

  it('says which instant a snooze occurrence must be', async () => {
    const { status, error } = await send('POST', '/api/v1/reminders/r-7k2p/snooze', {
      minutes: 15,
      occurrence: 'garbage',
    });
    expect(status).toBe(400);
    expect(error.field).toBe('occurrence');
    expect(error.message).toBe(
      'body.occurrence must be an ISO 8601 date-time with offset, e.g. 2026-11-23T17:00:00+01:00',
    );
  });
});
