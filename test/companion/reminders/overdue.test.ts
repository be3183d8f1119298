import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Reminder } from '../../../shared/protocol/reminders';
import { ManualClock } from '../../fakes/clock';
import { copySampleVault, tempDir } from '../helpers/app';
import { openReminderApp } from '../helpers/reminder-app';
import type { ReminderApp } from '../helpers/reminder-app';

/*
 * Overdue reminders (issue #26 item 2): unticked one-offs whose time passed, however long
 * before the companion first ran, are in the API as `overdue_since` (the phone's Overdue card
 * and the plugin's upcoming view read it). The sample vault has three, all past by Friday
 * 27 November 2026, the companion's first start here.
 */

let dir: { path: string; remove: () => void };
let h: ReminderApp;

beforeEach(async () => {
  dir = tempDir('overdue');
  const vault = copySampleVault(dir.path);
  h = await openReminderApp(vault, dir.path, ManualClock.at('2026-11-27T10:00:00Z'));
});
afterEach(async () => {
  await h.close();
  dir.remove();
});

async function overdue(): Promise<Record<string, string>> {
  const list = await h.call('GET', '/api/v1/reminders?status=active&limit=200');
  const reminders = list.body.reminders as Reminder[];
  return Object.fromEntries(
    reminders.flatMap((reminder) =>
      reminder.overdue_since ? [[reminder.title, reminder.overdue_since]] : [],
    ),
  );
}

describe('overdue reminders', () => {
  it('lists the unticked one-offs whose time passed before the first start', async () => {
    expect(await overdue()).toEqual({
      'Call the bank about the card limit': '2026-11-23T17:00:00+01:00',
      'Pick up the parcel (Reminder plugin syntax, read only)': '2026-11-24T12:00:00+01:00',
      'Pay the electricity bill': '2026-11-25T10:00:00+01:00',
    });
    // Not in the missed list: nothing was due to ring them (the first start fires nothing).
    const missed = await h.call('GET', '/api/v1/reminders/missed');
    expect(missed.body.missed).toEqual([]);
  });

  it('a one-off that rang and was not ticked is overdue too; done, snooze or a new time end it', async () => {
    const created = (
      await h.call('POST', '/api/v1/reminders', { title: 'Pay rent', due: '2026-11-27T12:00' })
    ).body as unknown as Reminder;
    expect((await overdue())['Pay rent']).toBeUndefined();
    await h.advanceTo('2026-11-27T11:05:00Z');
    expect((await overdue())['Pay rent']).toBe('2026-11-27T12:00:00+01:00');

    await h.call('POST', `/api/v1/reminders/${created.id}/snooze`, { minutes: 30 });
    expect((await overdue())['Pay rent']).toBeUndefined();
    // Done on a task line ticks it; on a plain line (Reminder plugin syntax) it is acknowledged.
    await h.call('POST', '/api/v1/reminders/r-7k2p/done', {});
    const list = await h.call('GET', '/api/v1/reminders?status=active&limit=200');
    const parcel = (list.body.reminders as Reminder[]).find((r) => r.title.startsWith('Pick up'));
    await h.call('POST', `/api/v1/reminders/${encodeURIComponent(parcel!.id)}/done`, {});
    expect(Object.keys(await overdue())).toEqual(['Pay the electricity bill']);
  });

  it('series and future reminders are never overdue', async () => {
    const list = await h.call('GET', '/api/v1/reminders?limit=200');
    for (const reminder of list.body.reminders as Reminder[]) {
      if (reminder.repeat !== null || reminder.status !== 'active') {
        expect(reminder.overdue_since, reminder.title).toBeNull();
      }
    }
  });
});
