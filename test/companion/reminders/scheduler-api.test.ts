import { afterEach, describe, expect, it } from 'vitest';
import type { ReminderDefinition } from '../../../companion/reminders/reminder-definition';
import { Harness, once, recurring } from './helpers';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

async function started(startIso: string, reminders: ReminderDefinition[]): Promise<Harness> {
  harness = new Harness(startIso, reminders);
  await harness.start();
  return harness;
}

describe('occurrences (for GET /api/v1/reminders/:id/occurrences)', () => {
  it('lists a weekly rule across the New York spring change with each instant’s offset', async () => {
    const h = await started('2026-03-01T00:00:00Z', [
      recurring('weekly', 'FREQ=WEEKLY;BYDAY=MO', '2026-03-02T09:00', 'America/New_York'),
    ]);
    expect(h.running.occurrences('weekly', Date.parse('2026-03-02T00:00:00Z'), 3)).toEqual([
      '2026-03-02T09:00:00-05:00',
      '2026-03-09T09:00:00-04:00',
      '2026-03-16T09:00:00-04:00',
    ]);
    // `from` is inclusive.
    expect(h.running.occurrences('weekly', Date.parse('2026-03-09T13:00:00Z'), 1)).toEqual([
      '2026-03-09T09:00:00-04:00',
    ]);
  });

  it('lists a one-off until it is past, and nothing for an unknown id', async () => {
    const h = await started('2026-11-23T00:00:00Z', [once('r', '2026-11-23T16:00:00Z')]);
    expect(h.running.occurrences('r', Date.parse('2026-11-23T00:00:00Z'), 10)).toEqual([
      '2026-11-23T17:00:00+01:00',
    ]);
    expect(h.running.occurrences('r', Date.parse('2026-11-23T16:00:01Z'), 10)).toEqual([]);
    expect(h.running.occurrences('nope', 0, 10)).toBeUndefined();
    expect(h.running.zoneOf('r')).toBe('Europe/Berlin');
    expect(h.running.nextFire('nope')).toBeUndefined();
  });
});

describe('bad definitions from a source', () => {
  it('schedules none of them, lists each with the field at fault, and keeps the good ones', async () => {
    const base = once('good', '2026-11-23T12:00:00Z');
    const bad: Array<[ReminderDefinition, RegExp]> = [
      [{ ...base, id: '' }, /^id: empty/],
      [{ ...base, id: 'x'.repeat(2001) }, /^id: 2001 characters/],
      [{ ...base, id: 'no-path', path: '' }, /^path: empty/],
      [{ ...base, id: 'bad-line', line: 0 }, /^line: 0/],
      [{ ...base, id: 'nan', schedule: { kind: 'once', at: Number.NaN, zone: 'UTC' } }, /^due:/],
      [
        { ...base, id: 'far', schedule: { kind: 'once', at: Date.UTC(12_000, 0, 1), zone: 'UTC' } },
        /^due:/,
      ],
      [{ ...base, id: 'zone', schedule: { kind: 'once', at: 0, zone: '' } }, /^timezone:/],
      [{ ...base, id: 'status', status: 'paused' as 'active' }, /^status: "paused"/],
      [{ ...base, id: 'snooze', snoozedUntil: Number.POSITIVE_INFINITY }, /^snoozed_until:/],
      [
        recurring('bad-start', 'FREQ=DAILY', '2026-02-30T09:00', 'UTC'),
        /^due: .*2026-02 has no day 30/,
      ],
      [
        recurring('tzid', 'FREQ=DAILY;TZID=UTC', '2026-11-23T09:00', 'UTC'),
        /^repeat: DTSTART and TZID/,
      ],
      [
        recurring('control', 'FREQ=DAILY\nBYHOUR=9', '2026-11-23T09:00', 'UTC'),
        /^repeat: .*single line/,
      ],
    ];
    const h = await started('2026-11-23T10:00:00Z', [
      base,
      ...bad.map(([definition]) => definition),
    ]);
    const { items } = await h.running.missed(0, 100);
    expect(items).toHaveLength(bad.length);
    for (const [definition, problem] of bad) {
      const listed = items.find((item) => item.kind === 'unresolved' && item.id === definition.id);
      expect(listed, definition.id.slice(0, 20)).toBeDefined();
      expect(listed!.kind === 'unresolved' && listed!.detail).toMatch(problem);
    }
    expect(h.running.schedulerStatus().reminders).toBe(1);
    await h.advanceTo('2026-11-23T12:00:00Z');
    expect(h.deliverer.sent.map((s) => s.reminderId)).toEqual(['good', 'good']);
  });

  it('cuts a huge title in the push message and names an empty one', async () => {
    const h = await started('2026-11-23T10:00:00Z', [
      once('long', '2026-11-23T11:00:00Z', { title: 'ü'.repeat(5000) }),
      once('blank', '2026-11-23T11:00:00Z', { title: '   ' }),
    ]);
    await h.advanceTo('2026-11-23T11:00:00Z');
    const titles = new Map(h.deliverer.sent.map((s) => [s.reminderId, s.delivery.payload.title]));
    expect(titles.get('long')).toHaveLength(200);
    expect(titles.get('long')!.endsWith('…')).toBe(true);
    expect(titles.get('blank')).toBe('Reminder');
    // The whole payload stays far below Web Push's 3993 bytes of plaintext.
    for (const sent of h.deliverer.sent) {
      expect(Buffer.byteLength(JSON.stringify(sent.delivery.payload))).toBeLessThan(3000);
    }
  });

  it('fixes a definition when the source fixes it', async () => {
    const h = await started('2026-11-23T10:00:00Z', [
      recurring('r', 'FREQ=FORTNIGHTLY', '2026-11-23T11:00', 'UTC'),
    ]);
    expect((await h.running.missed(0, 10)).total).toBe(1);
    h.source.put(recurring('r', 'FREQ=WEEKLY', '2026-11-23T11:00', 'UTC'));
    await h.running.replan(['r']);
    expect((await h.running.missed(0, 10)).total).toBe(0);
    expect(h.running.nextFire('r')).toBe(Date.parse('2026-11-23T11:00:00Z'));
  });
});

describe('history', () => {
  it('drops delivery rows, past actions and missed entries after 30 days, and still never re-fires', async () => {
    const h = await started('2026-11-23T10:00:00Z', [
      once('fired', '2026-11-23T11:00:00Z'),
      once('missed', '2026-11-23T12:00:00Z'),
      recurring('daily', 'FREQ=DAILY', '2026-11-24T08:00', 'UTC'),
    ]);
    await h.advanceTo('2026-11-23T11:00:00Z');
    h.running.completeOccurrence('daily', Date.parse('2026-11-24T08:00:00Z'));
    h.running.completeOccurrence('daily', Date.parse('2027-06-01T08:00:00Z'));
    await h.stop();
    h.jumpTo('2026-11-25T12:00:00Z');
    await h.start();
    expect((await h.running.missed(0, 10)).total).toBe(1);
    expect(h.running.deliveryCounts().sent).toBe(2 + 2); // `fired`, and `daily` 2026-11-25 on start
    await h.stop();

    h.jumpTo('2027-01-10T00:00:00Z');
    h.source.remove('daily');
    await h.start();
    expect(h.running.deliveryCounts().sent).toBe(0);
    expect((await h.running.missed(0, 10)).total).toBe(0);
    const actions = h.db!.prepare('SELECT occurrence FROM occurrence_actions').pluck().all();
    expect(actions).toEqual([Date.parse('2027-06-01T08:00:00Z')]); // a future "done" is kept
    await h.advanceBy(86_400_000);
    expect(h.deliverer.sent.filter((s) => s.reminderId === 'fired')).toHaveLength(2);
  });
});

describe('a failing pass', () => {
  it('is retried after a growing pause instead of spinning, then fires what was due', async () => {
    const h = await started('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    let failures = 3;
    const subscriptions = h.deliverer.subscriptions.bind(h.deliverer);
    h.deliverer.subscriptions = () => {
      if (failures-- > 0) throw new Error('database is locked');
      return subscriptions();
    };
    await h.advanceTo('2026-11-23T11:00:00Z');
    expect(h.deliverer.sent).toEqual([]);
    expect(h.timer.nextAt).toBe(Date.parse('2026-11-23T11:00:01Z'));
    await h.advanceTo('2026-11-23T11:00:10Z');
    // Retried after 1 s, 2 s, 4 s: the fourth pass succeeds at 11:00:07.
    expect(h.deliverer.sent.map((s) => new Date(s.at).toISOString())).toEqual([
      '2026-11-23T11:00:07.000Z',
      '2026-11-23T11:00:07.000Z',
    ]);
  });
});

describe('database failures and concurrent edits', () => {
  it('keeps the plan when the claim cannot be written, and fires once it can', async () => {
    const h = await started('2026-11-23T10:00:00Z', [once('r', '2026-11-23T11:00:00Z')]);
    // A real SQLite failure at the claim, not a mock: a trigger that aborts every insert.
    h.db!.exec(
      `CREATE TEMP TRIGGER full_disk BEFORE INSERT ON deliveries BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
    );
    await h.advanceTo('2026-11-23T11:00:00Z');
    expect(h.deliverer.sent).toEqual([]);
    expect(h.running.nextFire('r')).toBe(Date.parse('2026-11-23T11:00:00Z'));
    const highWater = h.db!.prepare(`SELECT high_water FROM reminder_plan WHERE reminder_id = 'r'`);
    expect(highWater.pluck().get()).toBeLessThan(Date.parse('2026-11-23T11:00:00Z'));
    h.db!.exec('DROP TRIGGER full_disk');
    await h.advanceTo('2026-11-23T11:00:05Z');
    expect(h.deliverer.lines()).toEqual([
      'r@2026-11-23T12:00:00+01:00→phone',
      'r@2026-11-23T12:00:00+01:00→tablet',
    ]);
    expect(highWater.pluck().get()).toBe(Date.parse('2026-11-23T11:00:00Z'));
  });

  it('finishes a delivery in flight when its reminder is deleted meanwhile', async () => {
    const h = await started('2026-11-23T10:00:00Z', [
      once('r', '2026-11-23T11:00:00Z'),
      once('later', '2026-11-23T12:00:00Z'),
    ]);
    h.deliverer.devices = ['phone'];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const deliver = h.deliverer.deliver.bind(h.deliverer);
    h.deliverer.deliver = async (delivery) => {
      await gate;
      return deliver(delivery);
    };
    const advancing = h.advanceTo('2026-11-23T11:00:00Z');
    await new Promise((resolve) => setTimeout(resolve, 20));
    h.source.remove('r', 'later');
    await h.running.replan(['r', 'later']);
    release();
    await advancing;
    await h.advanceTo('2026-11-23T13:00:00Z');
    expect(h.deliverer.lines()).toEqual(['r@2026-11-23T12:00:00+01:00→phone']);
    expect(h.running.deliveryCounts()).toMatchObject({ sent: 1, claimed: 0 });
    expect(h.running.schedulerStatus()).toEqual({ reminders: 0, next_fire: null });
  });
});
