import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Reminder } from '../../../shared/protocol/reminders';
import { ManualClock } from '../../fakes/clock';
import { copySampleVault, tempDir } from '../helpers/app';
import { openReminderApp } from '../helpers/reminder-app';
import type { ReminderApp } from '../helpers/reminder-app';

/*
 * Done ends the current occurrence, snoozed or not (docs/reminders.md), from every entry point
 * that reaches the companion: the API as the phone page and the plugin call it (no occurrence),
 * the notification's Done button (the occurrence it rang for, a snooze's end); chat's is in
 * test/companion/chat/chat-reminders.test.ts.
 * Issue #26 item 1: done after snooze on a series kept the snoozed ring.
 */

let dir: { path: string; remove: () => void };
let clock: ManualClock;
let h: ReminderApp;

beforeEach(async () => {
  dir = tempDir('done-ends-snooze');
  const vault = copySampleVault(dir.path);
  clock = ManualClock.at('2026-11-27T10:00:00Z');
  h = await openReminderApp(vault, dir.path, clock);
});
afterEach(async () => {
  await h.close();
  dir.remove();
});

const rings = (id: string) =>
  h.deliverer.sent.filter((entry) => entry.reminderId === id).map((entry) => entry.occurrence);

async function weekly(): Promise<Reminder> {
  const created = await h.call('POST', '/api/v1/reminders', {
    title: 'Weekly',
    due: '2026-12-01T10:00',
    repeat: 'FREQ=WEEKLY;BYDAY=TU',
  });
  expect(created.status).toBe(201);
  return created.body as unknown as Reminder;
}

describe('done after snooze on a series', () => {
  it('API without an occurrence (phone page, plugin): the next occurrence is next week', async () => {
    const { id } = await weekly();
    const snoozed = await h.call('POST', `/api/v1/reminders/${id}/snooze`, { minutes: 60 });
    expect(snoozed.body).toMatchObject({ next_fire: '2026-12-01T11:00:00+01:00' });
    const done = await h.call('POST', `/api/v1/reminders/${id}/done`, {});
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      next_fire: '2026-12-08T10:00:00+01:00',
      snoozed_until: null,
    });
    await h.advanceTo('2026-12-09T00:00:00Z');
    expect(rings(id)).toEqual(['2026-12-08T10:00:00+01:00']);
  });

  it('without a snooze, as before: the next occurrence is next week', async () => {
    const { id } = await weekly();
    const done = await h.call('POST', `/api/v1/reminders/${id}/done`, {});
    expect(done.body).toMatchObject({ next_fire: '2026-12-08T10:00:00+01:00' });
  });

  it("the notification's Done names the snooze's ring: that ends the occurrence", async () => {
    const { id } = await weekly();
    await h.call('POST', `/api/v1/reminders/${id}/snooze`, { minutes: 60 });
    // The snoozed ring arrives; the push names the snooze's end as its occurrence.
    await h.advanceTo('2026-12-01T10:01:00Z');
    expect(rings(id)).toEqual(['2026-12-01T11:00:00+01:00']);
    // Snoozed again from the notification, then Done from the next notification.
    await h.call('POST', `/api/v1/reminders/${id}/snooze`, {
      minutes: 15,
      occurrence: '2026-12-01T11:00:00+01:00',
    });
    await h.advanceTo('2026-12-01T10:16:00Z');
    expect(rings(id)).toEqual(['2026-12-01T11:00:00+01:00', '2026-12-01T11:16:00+01:00']);
    const done = await h.call('POST', `/api/v1/reminders/${id}/done`, {
      occurrence: '2026-12-01T11:16:00+01:00',
    });
    expect(done.body).toMatchObject({ next_fire: '2026-12-08T10:00:00+01:00' });
  });

  it('done on a snooze that has not rung yet, named by its end, cancels it', async () => {
    const { id } = await weekly();
    await h.call('POST', `/api/v1/reminders/${id}/snooze`, { minutes: 60 });
    const done = await h.call('POST', `/api/v1/reminders/${id}/done`, {
      occurrence: '2026-12-01T11:00:00+01:00',
    });
    expect(done.body).toMatchObject({ next_fire: '2026-12-08T10:00:00+01:00' });
    await h.advanceTo('2026-12-02T00:00:00Z');
    expect(rings(id)).toEqual([]);
  });

  it('an inline one-off snoozed then done does not ring', async () => {
    // r-q0d4 is a plain task line in the sample vault, due 2027-01-10 09:00 New York.
    await h.call('POST', '/api/v1/reminders/r-q0d4/snooze', { minutes: 60 });
    const done = await h.call('POST', '/api/v1/reminders/r-q0d4/done', {});
    expect(done.body).toMatchObject({ status: 'done', next_fire: null });
  });
});
