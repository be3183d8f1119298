import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SLEEP_MS } from '../../../companion/reminders/timer';
import { MISSED_PER_REMINDER } from '../../../companion/reminders/scheduler';
import { MAX_DELIVERY_ATTEMPTS } from '../../../companion/reminders/retry-policy';
import type { ReminderDefinition } from '../../../companion/reminders/reminder-definition';
import { Harness, HOUR, MINUTE, once, recurring } from './helpers';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

function setUp(startIso: string, reminders: ReminderDefinition[] = [], graceMs?: number): Harness {
  harness = new Harness(startIso, reminders, graceMs);
  return harness;
}

describe('one-off reminders', () => {
  it('fires once at its due instant to every device, with the push payload', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('call-bank', '2026-11-23T16:00:00Z')]);
    await h.start();
    await h.advanceTo('2026-11-23T15:59:59.999Z');
    expect(h.deliverer.sent).toEqual([]);
    await h.advanceTo('2026-11-23T16:00:00Z');
    expect(h.deliverer.lines()).toEqual([
      'call-bank@2026-11-23T17:00:00+01:00→phone',
      'call-bank@2026-11-23T17:00:00+01:00→tablet',
    ]);
    const first = h.deliverer.sent[0]!;
    expect(first.at).toBe(Date.parse('2026-11-23T16:00:00Z'));
    expect(first.delivery.payload).toEqual({
      title: 'Title call-bank',
      body: '2026-11-23 17:00 · Reminders/call-bank.md',
      reminder_id: 'call-bank',
      occurrence: '2026-11-23T17:00:00+01:00',
      deep_link: 'obsidian://open?vault=V&file=Reminders%2Fcall-bank.md',
      actions: ['done', 'snooze_15m', 'snooze_1h', 'open'],
    });
    expect(first.delivery.urgency).toBe('high');
    expect(first.delivery.ttlSeconds).toBe(86_400);
    // The reminder id; the push carrier hashes it into a Topic header (RFC 8030 §5.4).
    expect(first.delivery.topic).toBe('call-bank');
    await h.advanceTo('2026-11-30T00:00:00Z');
    expect(h.deliverer.sent).toHaveLength(2);
    expect(h.running.schedulerStatus()).toEqual({ reminders: 0, next_fire: null });
    expect(h.running.deliveryCounts().sent).toBe(2);
  });

  it('never fires again after a restart once sent', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r1', '2026-11-23T11:00:00Z')]);
    await h.start();
    await h.advanceTo('2026-11-23T11:00:00Z');
    expect(h.deliverer.sent).toHaveLength(2);
    await h.stop();
    h.jumpTo('2026-11-23T11:30:00Z');
    await h.start();
    await h.advanceTo('2026-11-24T11:00:00Z');
    expect(h.deliverer.sent).toHaveLength(2);
  });

  it('does not fire what was already past when the scheduler first ran on this database', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('old', '2026-11-23T09:59:00Z')]);
    await h.start();
    await h.advanceBy(HOUR);
    expect(h.deliverer.sent).toEqual([]);
  });

  it('shows status: scheduled count and the next fire with its zone offset', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [
      once('a', '2026-11-24T08:00:00Z'),
      once('b', '2026-11-23T20:00:00Z', {}, 'America/New_York'),
      once('done', '2026-11-23T12:00:00Z', { status: 'done' }),
    ]);
    await h.start();
    expect(h.running.schedulerStatus()).toEqual({
      reminders: 2,
      next_fire: '2026-11-23T15:00:00-05:00',
    });
  });
});

describe('recurring reminders across daylight-saving changes', () => {
  it('keeps 09:00 Europe/Berlin across the spring change', async () => {
    const h = setUp('2026-03-27T00:00:00Z', [
      recurring('daily', 'FREQ=DAILY', '2026-03-27T09:00', 'Europe/Berlin'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-03-31T00:00:00Z');
    expect(h.deliverer.sent.map((s) => new Date(s.at).toISOString())).toEqual([
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
    expect(h.deliverer.sent.map((s) => s.occurrence)).toEqual([
      '2026-03-27T09:00:00+01:00',
      '2026-03-28T09:00:00+01:00',
      '2026-03-29T09:00:00+02:00',
      '2026-03-30T09:00:00+02:00',
    ]);
  });

  it('keeps 09:00 Europe/Berlin across the autumn change', async () => {
    const h = setUp('2026-10-24T00:00:00Z', [
      recurring('daily', 'FREQ=DAILY', '2026-10-24T09:00', 'Europe/Berlin'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-10-27T00:00:00Z');
    expect(h.deliverer.sent.map((s) => s.occurrence)).toEqual([
      '2026-10-24T09:00:00+02:00',
      '2026-10-25T09:00:00+01:00',
      '2026-10-26T09:00:00+01:00',
    ]);
  });

  it('fires a 02:30 America/New_York reminder once on the spring-forward day, at 03:30 EDT', async () => {
    const h = setUp('2026-03-07T00:00:00Z', [
      recurring('night', 'FREQ=DAILY', '2026-03-07T02:30', 'America/New_York'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-03-10T00:00:00Z');
    expect(h.deliverer.sent.map((s) => new Date(s.at).toISOString())).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:30:00.000Z', // 02:30 does not exist; 03:30 EDT
      '2026-03-09T06:30:00.000Z',
    ]);
  });

  it('fires a 01:30 America/New_York reminder once on the fall-back day', async () => {
    const h = setUp('2026-10-31T00:00:00Z', [
      recurring('late', 'FREQ=DAILY', '2026-10-31T01:30', 'America/New_York'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-03T00:00:00Z');
    expect(h.deliverer.sent.map((s) => s.occurrence)).toEqual([
      '2026-10-31T01:30:00-04:00',
      '2026-11-01T01:30:00-04:00', // the first 01:30 only, never 01:30 EST as well
      '2026-11-02T01:30:00-05:00',
    ]);
  });

  it('stops when the rule ends (COUNT)', async () => {
    const h = setUp('2026-11-23T00:00:00Z', [
      recurring('thrice', 'FREQ=HOURLY;COUNT=3', '2026-11-23T10:00', 'UTC'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-24T00:00:00Z');
    expect(h.deliverer.sent).toHaveLength(3);
    expect(h.running.nextFire('thrice')).toBeUndefined();
  });
});

describe('done, snooze and checked tasks', () => {
  it('never fires a checked task, a done or a cancelled reminder', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [
      once('checked', '2026-11-23T11:00:00Z', { taskChecked: true }),
      once('done', '2026-11-23T11:00:00Z', { status: 'done' }),
      recurring('cancelled', 'FREQ=HOURLY', '2026-11-23T11:00', 'UTC', { status: 'cancelled' }),
    ]);
    await h.start();
    await h.advanceTo('2026-11-24T10:00:00Z');
    expect(h.deliverer.sent).toEqual([]);
  });

  it('fires a snoozed occurrence again at the snooze end, keyed by that instant', async () => {
    const h = setUp('2026-11-23T07:00:00Z', [
      recurring('standup', 'FREQ=DAILY', '2026-11-23T09:00', 'Europe/Berlin'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-23T08:00:00Z');
    expect(h.deliverer.lines()).toEqual(['standup@2026-11-23T09:00:00+01:00→phone']);
    h.running.snoozeOccurrence(
      'standup',
      Date.parse('2026-11-23T08:00:00Z'),
      Date.parse('2026-11-23T08:15:00Z'),
    );
    expect(h.running.nextFire('standup')).toBe(Date.parse('2026-11-23T08:15:00Z'));
    await h.advanceTo('2026-11-24T08:00:00Z');
    expect(h.deliverer.lines()).toEqual([
      'standup@2026-11-23T09:00:00+01:00→phone',
      'standup@2026-11-23T09:15:00+01:00→phone',
      'standup@2026-11-24T09:00:00+01:00→phone',
    ]);
  });

  it('skips a future occurrence marked done and one snoozed ahead of time fires at its new time', async () => {
    const h = setUp('2026-11-23T00:00:00Z', [
      recurring('pills', 'FREQ=DAILY', '2026-11-23T08:00', 'UTC'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    h.running.completeOccurrence('pills', Date.parse('2026-11-24T08:00:00Z'));
    h.running.snoozeOccurrence(
      'pills',
      Date.parse('2026-11-25T08:00:00Z'),
      Date.parse('2026-11-25T10:00:00Z'),
    );
    await h.advanceTo('2026-11-26T09:00:00Z');
    expect(h.deliverer.sent.map((s) => s.occurrence)).toEqual([
      '2026-11-23T08:00:00+00:00',
      '2026-11-25T10:00:00+00:00',
      '2026-11-26T08:00:00+00:00',
    ]);
  });

  it('keeps occurrence actions across a restart', async () => {
    const h = setUp('2026-11-23T00:00:00Z', [
      recurring('pills', 'FREQ=DAILY', '2026-11-23T08:00', 'UTC'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    h.running.completeOccurrence('pills', Date.parse('2026-11-23T08:00:00Z'));
    await h.stop();
    await h.start();
    expect(h.running.nextFire('pills')).toBe(Date.parse('2026-11-24T08:00:00Z'));
  });

  it('fires at the front-matter snoozed_until instead of the occurrence it swallows', async () => {
    const h = setUp('2026-11-23T00:00:00Z', [
      recurring('water', 'FREQ=DAILY', '2026-11-23T09:00', 'UTC', {
        snoozedUntil: Date.parse('2026-11-23T09:30:00Z'),
      }),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-24T10:00:00Z');
    expect(h.deliverer.sent.map((s) => s.occurrence)).toEqual([
      '2026-11-23T09:30:00+00:00',
      '2026-11-24T09:00:00+00:00',
    ]);
  });

  it('refuses snooze and done calls when not running', async () => {
    const h = setUp('2026-11-23T00:00:00Z');
    const scheduler = await h.start();
    await scheduler.stop();
    expect(() => scheduler.completeOccurrence('x', 0)).toThrow(
      /completeOccurrence\(\) called when stopped/,
    );
    expect(() => scheduler.snoozeOccurrence('x', 0, 1)).toThrow(/called when stopped/);
    await expect(scheduler.replan()).rejects.toThrow(/replan\(\) called when stopped/);
  });
});

describe('edits in the vault (replan)', () => {
  it('moves a reminder whose time was edited, and drops a deleted one', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [
      once('moved', '2026-11-23T12:00:00Z'),
      once('deleted', '2026-11-23T12:00:00Z'),
      once('kept', '2026-11-23T12:00:00Z'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    h.source.put(once('moved', '2026-11-23T14:00:00Z'));
    h.source.remove('deleted');
    await h.running.replan(['moved', 'deleted']);
    await h.advanceTo('2026-11-23T13:00:00Z');
    expect(h.deliverer.lines()).toEqual(['kept@2026-11-23T13:00:00+01:00→phone']);
    await h.advanceTo('2026-11-23T15:00:00Z');
    expect(h.deliverer.lines()).toEqual([
      'kept@2026-11-23T13:00:00+01:00→phone',
      'moved@2026-11-23T15:00:00+01:00→phone',
    ]);
  });

  it('fires at once a reminder edited to a moment just past, and a full replan sees additions', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T18:00:00Z')]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-23T12:00:00Z');
    h.source.put(once('r', '2026-11-23T11:55:00Z'), once('new', '2026-11-23T13:00:00Z'));
    await h.running.replan();
    await h.running.whenIdle();
    expect(h.deliverer.lines()).toEqual(['r@2026-11-23T12:55:00+01:00→phone']);
    await h.advanceTo('2026-11-23T13:00:00Z');
    expect(h.deliverer.lines()).toHaveLength(2);
  });

  it('does not re-fire an occurrence when the reminder disappears and comes back', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-23T11:00:00Z');
    h.source.remove('r');
    await h.running.replan(['r']);
    h.source.put(once('r', '2026-11-23T11:00:00Z'));
    await h.running.replan(['r']);
    await h.advanceTo('2026-11-23T12:00:00Z');
    expect(h.deliverer.sent).toHaveLength(1);
  });

  it('lists a definition it cannot use as unresolved, naming the field, and schedules the rest', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [
      recurring('bad-rule', 'FREQ=FORTNIGHTLY', '2026-11-23T11:00', 'UTC'),
      once('bad-zone', '2026-11-23T11:00:00Z', {}, 'Mars/Olympus'),
      once('ok', '2026-11-23T11:00:00Z'),
    ]);
    h.source.setUnresolved([
      {
        id: 'Inbox.md:3',
        title: 'Call mum',
        path: 'Inbox.md',
        line: 3,
        detail: '"tomorrow 5pm" is natural language; open the note to fix it',
      },
    ]);
    await h.start();
    const { items, total } = await h.running.missed(0, 10);
    expect(total).toBe(3);
    expect(
      items.map((item) => [item.kind, item.path, 'detail' in item ? item.detail : '']),
    ).toEqual([
      ['unresolved', 'Inbox.md', '"tomorrow 5pm" is natural language; open the note to fix it'],
      [
        'unresolved',
        'Reminders/bad-rule.md',
        'repeat: FREQ: "FORTNIGHTLY" is not one of YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY, MINUTELY',
      ],
      ['unresolved', 'Reminders/bad-zone.md', 'timezone: "Mars/Olympus" is not an IANA time zone'],
    ]);
    expect(h.running.schedulerStatus().reminders).toBe(1);
  });
});

describe('catch-up after downtime', () => {
  it('fires on start what was missed within the grace window, once', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T12:00:00Z')]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.stop();
    h.jumpTo('2026-11-23T20:00:00Z');
    await h.start();
    expect(h.deliverer.sent).toHaveLength(1);
    expect(h.deliverer.sent[0]!.at).toBe(Date.parse('2026-11-23T20:00:00Z'));
    expect((await h.running.missed(0, 10)).total).toBe(0);
  });

  it('lists as missed what is older than the grace window, and does not fire it', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T12:00:00Z')], 6 * HOUR);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.stop();
    h.jumpTo('2026-11-23T18:00:00.001Z');
    await h.start();
    expect(h.deliverer.sent).toEqual([]);
    const { items } = await h.running.missed(0, 10);
    expect(items).toEqual([
      {
        kind: 'expired',
        reminderId: 'r',
        occurrence: Date.parse('2026-11-23T12:00:00Z'),
        title: 'Title r',
        path: 'Reminders/r.md',
        zone: 'Europe/Berlin',
        reason: 'expired',
      },
    ]);
    // Done on a missed occurrence clears it from the list.
    h.running.completeOccurrence('r', Date.parse('2026-11-23T12:00:00Z'));
    expect((await h.running.missed(0, 10)).total).toBe(0);
  });

  it("collapses a recurring reminder's missed occurrences into one fire of the latest", async () => {
    const h = setUp(
      '2026-11-23T00:00:00Z',
      [recurring('hourly', 'FREQ=HOURLY', '2026-11-23T01:00', 'UTC')],
      3 * HOUR,
    );
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.stop();
    h.jumpTo('2026-11-23T10:30:00Z');
    await h.start();
    // 01:00 … 10:00 were missed: 08:00-10:00 are younger than 3 h, 10:00 fires for them.
    expect(h.deliverer.sent.map((s) => s.occurrence)).toEqual(['2026-11-23T10:00:00+00:00']);
    const { items } = await h.running.missed(0, 100);
    expect(items.map((item) => (item.kind === 'expired' ? item.occurrence : 0))).toEqual(
      [7, 6, 5, 4, 3, 2, 1].map((hour) => Date.UTC(2026, 10, 23, hour)),
    );
    await h.advanceTo('2026-11-23T11:00:00Z');
    expect(h.deliverer.sent.map((s) => s.occurrence)).toEqual([
      '2026-11-23T10:00:00+00:00',
      '2026-11-23T11:00:00+00:00',
    ]);
  });

  it(`lists at most ${MISSED_PER_REMINDER} missed occurrences of one reminder, newest first`, async () => {
    const h = setUp(
      '2026-11-23T00:00:00Z',
      [recurring('minutely', 'FREQ=MINUTELY', '2026-11-23T00:01', 'UTC')],
      HOUR,
    );
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.stop();
    h.jumpTo('2026-11-24T00:00:30Z');
    await h.start();
    expect(h.deliverer.sent).toHaveLength(1);
    const { items, total } = await h.running.missed(0, 200);
    expect(total).toBe(MISSED_PER_REMINDER);
    expect(items[0]!.kind === 'expired' && items[0]!.occurrence).toBe(
      Date.parse('2026-11-23T23:00:00Z'), // 30 s older than the hour of grace
    );
  });

  it('fires a reminder created while the companion was down (within grace)', async () => {
    const h = setUp('2026-11-23T10:00:00Z');
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.stop();
    h.source.put(once('added', '2026-11-23T14:00:00Z'));
    h.jumpTo('2026-11-23T16:00:00Z');
    await h.start();
    expect(h.deliverer.lines()).toEqual(['added@2026-11-23T15:00:00+01:00→phone']);
  });

  it('fires a reminder that syncs in a few minutes late, but not one long past', async () => {
    const h = setUp('2026-11-23T10:00:00Z');
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-23T12:00:00Z');
    h.source.put(once('late', '2026-11-23T11:55:00Z'), once('stale', '2026-11-23T11:00:00Z'));
    await h.running.replan(['late', 'stale']);
    await h.running.whenIdle();
    expect(h.deliverer.lines()).toEqual(['late@2026-11-23T12:55:00+01:00→phone']);
  });
});

describe('delivery outcomes', () => {
  it('retries after the delay the push service asks for (Retry-After), then records sent', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    h.deliverer.devices = ['phone'];
    h.deliverer.respond = (_delivery, attempt) =>
      attempt < 3
        ? { kind: 'retry', reason: 'push service answered 429', retryAfterMs: 30_000 }
        : { kind: 'sent' };
    await h.start();
    await h.advanceTo('2026-11-23T11:00:00Z');
    expect(h.deliverer.sent).toHaveLength(1);
    expect(h.timer.nextAt).toBe(Date.parse('2026-11-23T11:00:30Z'));
    await h.advanceTo('2026-11-23T11:05:00Z');
    expect(h.deliverer.sent.map((s) => new Date(s.at).toISOString())).toEqual([
      '2026-11-23T11:00:00.000Z',
      '2026-11-23T11:00:30.000Z',
      '2026-11-23T11:01:00.000Z',
    ]);
    expect(h.deliverer.sent.every((s) => s.occurrence === '2026-11-23T12:00:00+01:00')).toBe(true);
    expect(h.running.deliveryCounts()).toMatchObject({ sent: 1, retry: 0, claimed: 0 });
  });

  it('does not retry a gone subscription or a failed delivery, and keeps sending to the others', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    h.deliverer.devices = ['gone', 'broken', 'fine'];
    h.deliverer.respond = (delivery) =>
      delivery.subscriptionId === 'gone'
        ? { kind: 'gone' }
        : delivery.subscriptionId === 'broken'
          ? { kind: 'failed', reason: '413 payload too large' }
          : { kind: 'sent' };
    await h.start();
    await h.advanceTo('2026-11-24T11:00:00Z');
    expect(h.deliverer.sent).toHaveLength(3);
    expect(h.running.deliveryCounts()).toMatchObject({ sent: 1, gone: 1, failed: 1 });
  });

  it(`gives up after ${MAX_DELIVERY_ATTEMPTS} attempts, and treats a throwing deliverer as transient`, async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    h.deliverer.devices = ['phone'];
    h.deliverer.respond = (_delivery, attempt) => {
      if (attempt === 1) throw new Error('socket hang up');
      return { kind: 'retry', reason: 'push service answered 503' };
    };
    await h.start();
    await h.advanceTo('2026-11-23T14:00:00Z');
    expect(h.deliverer.sent).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(h.running.deliveryCounts()).toMatchObject({ failed: 1, retry: 0 });
  });

  it('backs off exponentially with jitter when the push service names no delay', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    h.random = () => 1;
    h.deliverer.devices = ['phone'];
    h.deliverer.respond = (_delivery, attempt) =>
      attempt < 4 ? { kind: 'retry', reason: 'push service answered 500' } : { kind: 'sent' };
    await h.start();
    await h.advanceTo('2026-11-23T12:00:00Z');
    const at = h.deliverer.sent.map((s) => (s.at - Date.parse('2026-11-23T11:00:00Z')) / 1000);
    // 10 s, then 20 s, then 40 s: random() = 1 is the top of each doubling step.
    expect(at).toEqual([0, 10, 30, 70]);
  });

  it('keeps retrying across a restart', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    h.deliverer.devices = ['phone'];
    h.deliverer.respond = (_d, attempt) =>
      attempt === 1
        ? { kind: 'retry', reason: 'push service answered 503', retryAfterMs: 10 * MINUTE }
        : { kind: 'sent' };
    await h.start();
    await h.advanceTo('2026-11-23T11:00:00Z');
    await h.stop();
    h.jumpTo('2026-11-23T11:20:00Z');
    await h.start();
    expect(h.deliverer.sent).toHaveLength(2);
    expect(h.running.deliveryCounts()).toMatchObject({ sent: 1 });
  });

  it('sends to a device only the occurrences fired after it subscribed', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [
      once('a', '2026-11-23T11:00:00Z'),
      once('b', '2026-11-23T12:00:00Z'),
    ]);
    h.deliverer.devices = ['phone'];
    await h.start();
    await h.advanceTo('2026-11-23T11:30:00Z');
    h.deliverer.devices = ['phone', 'laptop'];
    await h.advanceTo('2026-11-23T12:30:00Z');
    expect(h.deliverer.lines()).toEqual([
      'a@2026-11-23T12:00:00+01:00→phone',
      'b@2026-11-23T13:00:00+01:00→phone',
      'b@2026-11-23T13:00:00+01:00→laptop',
    ]);
  });
});

describe('timer', () => {
  it('sleeps until the next due time, waking at most every few minutes, never polling', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-26T10:00:00Z')]);
    await h.start();
    expect(h.timer.armed).toBe(1);
    await h.advanceTo('2026-11-26T10:00:00Z');
    expect(h.deliverer.sent).toHaveLength(2);
    // Three days at one wake-up per MAX_SLEEP_MS, and no zero-delay re-arming.
    expect(h.timer.delays.length).toBeLessThanOrEqual((3 * 24 * HOUR) / MAX_SLEEP_MS + 3);
    expect(h.timer.delays.every((delay) => delay > 0 && delay <= MAX_SLEEP_MS)).toBe(true);
  });

  it('releases its timer on stop', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-26T10:00:00Z')]);
    await h.start();
    await h.stop();
    expect(h.timer.armed).toBe(0);
  });

  it('fires late, once, after the clock jumps past a due time', async () => {
    const h = setUp('2026-11-23T10:00:00Z', [once('r', '2026-11-23T10:05:00Z')]);
    h.deliverer.devices = ['phone'];
    await h.start();
    h.clock.advance(2 * HOUR); // the machine was suspended; the timer fires late
    await h.advanceBy(MAX_SLEEP_MS);
    expect(h.deliverer.sent).toHaveLength(1);
  });
});

describe('10k reminders', () => {
  it('delivers each of 10,000 reminders once, and replans one edit among them', async () => {
    const start = Date.parse('2026-11-23T00:00:00Z');
    const reminders = Array.from({ length: 10_000 }, (_, index) =>
      once(`r${index}`, new Date(start + HOUR + (index % 100) * 30_000).toISOString()),
    );
    const h = setUp('2026-11-23T00:00:00Z', reminders);
    h.deliverer.devices = ['phone'];
    await h.start();
    expect(h.running.schedulerStatus().reminders).toBe(10_000);
    h.source.put(once('r5', '2026-11-23T23:00:00Z'));
    await h.running.replan(['r5']);
    expect(h.running.nextFire('r5')).toBe(Date.parse('2026-11-23T23:00:00Z'));
    await h.advanceTo('2026-11-24T00:00:00Z');
    expect(h.deliverer.sent).toHaveLength(10_000);
    expect(new Set(h.deliverer.sent.map((s) => s.reminderId)).size).toBe(10_000);
    expect(h.deliverer.sent.every((s) => s.at === Date.parse(s.occurrence))).toBe(true);
  });
});
