import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryOutcome, ReminderDelivery } from '../../../companion/push/delivery-port';
import { DEFAULT_MAX_CONCURRENT_SENDS } from '../../../companion/push/web-push-sender';
import { openDatabase } from '../../../companion/db/open';
import { ReminderScheduler, SEND_WINDOW } from '../../../companion/reminders/scheduler';
import { Harness, HOUR, once } from './helpers';

// The duplicate a SIGKILL can cause (docs/delivery.md): a message the push service accepted
// whose `sent` mark was not committed. Here the push service is taken to accept a message the
// moment it is handed over (the worst case), and what survives a kill is what another
// connection sees committed. No timing: the deliverer answers at once, the clock is manual.

const DUE = '2026-11-23T11:00:00Z';
const REMINDERS = Array.from({ length: 100 }, (_, i) =>
  once(`r${String(i).padStart(3, '0')}`, DUE),
);

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.dispose();
});

function harness(): Harness {
  const made = new Harness('2026-11-23T10:59:00Z', REMINDERS);
  harnesses.push(made);
  return made;
}

function deliveryId(delivery: ReminderDelivery): string {
  return `${delivery.payload.reminder_id}|${delivery.payload.occurrence}|${delivery.subscriptionId}`;
}

/** Rows marked sent, as a process started after a kill right now would find them. */
function committedSent(file: string): Set<string> {
  const reader = new Database(file, { readonly: true });
  try {
    const rows = reader
      .prepare(`SELECT reminder_id, occurrence, device_id FROM deliveries WHERE state = 'sent'`)
      .all() as { reminder_id: string; occurrence: number; device_id: string }[];
    return new Set(rows.map((row) => `${row.reminder_id}|${row.occurrence}|${row.device_id}`));
  } finally {
    reader.close();
  }
}

describe('deliveries in doubt after a kill', () => {
  it('never has more than SEND_WINDOW accepted messages without a committed mark', async () => {
    const h = harness();
    let accepted = 0;
    let mostInDoubt = 0;
    h.deliverer.respond = (): DeliveryOutcome => {
      accepted += 1;
      mostInDoubt = Math.max(mostInDoubt, accepted - committedSent(h.file).size);
      return { kind: 'sent' };
    };
    await h.start();
    await h.advanceTo(DUE);
    expect(h.deliverer.sent).toHaveLength(200);
    expect(h.running.deliveryCounts().sent).toBe(200);
    expect(mostInDoubt).toBeGreaterThan(1);
    expect(mostInDoubt).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENT_SENDS);
    // No more in flight than the Web Push sender has connections: the rest would only queue
    // for a socket with their answers waiting for a commit.
    expect(SEND_WINDOW).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENT_SENDS);
  });

  it.each([1, 37, 120, 199])(
    'a kill at hand-over %i of a burst: nothing lost, at most SEND_WINDOW sent twice',
    async (killAt) => {
      const first = harness();
      const afterKill = harness();
      const handedOver: string[] = [];
      first.deliverer.respond = (delivery): DeliveryOutcome => {
        handedOver.push(deliveryId(delivery));
        if (handedOver.length === killAt) {
          // The state a SIGKILL right now leaves on disk: committed transactions only.
          const reader = new Database(first.file, { readonly: true });
          reader.exec(`VACUUM INTO '${afterKill.file.replaceAll("'", "''")}'`);
          reader.close();
        }
        return { kind: 'sent' };
      };
      await first.start();
      await first.advanceTo(DUE);
      // Before the kill the push service had these (the one at the kill included).
      const beforeKill = new Set(handedOver.slice(0, killAt));
      expect(beforeKill.size).toBe(killAt);

      afterKill.jumpTo(DUE);
      await afterKill.start();
      const again = afterKill.deliverer.sent.map((sent) => deliveryId(sent.delivery));
      const twice = again.filter((id) => beforeKill.has(id));
      const everything = new Set([...beforeKill, ...again]);
      expect(everything.size).toBe(200);
      expect(new Set(again).size).toBe(again.length);
      expect(twice.length).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENT_SENDS);
      expect(afterKill.running.deliveryCounts()).toMatchObject({ sent: 200, claimed: 0 });
    },
  );

  it('begin() plans without sending; catchUp() sends while the API already answers', async () => {
    const h = harness();
    await h.start();
    await h.stop();
    // Down over the 11:00 burst: the next start catches up on it.
    h.jumpTo('2026-11-23T11:05:00Z');
    const answers: Array<(outcome: DeliveryOutcome) => void> = [];
    h.deliverer.deliver = () =>
      new Promise((resolve) => {
        answers.push(resolve);
      });
    h.db = openDatabase(h.file);
    const scheduler = new ReminderScheduler({
      db: h.db,
      clock: h.clock,
      timer: h.timer,
      source: h.source,
      deliverer: h.deliverer,
      graceMs: h.graceMs,
    });
    h.scheduler = scheduler;
    await scheduler.begin();
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await turn();
    // Planned, nothing sent yet: the server listens here.
    expect(answers).toHaveLength(0);
    expect(scheduler.deliveryCounts()).toMatchObject({ sent: 0, claimed: 0 });
    let caughtUpDone = false;
    void scheduler.catchUp().then(() => (caughtUpDone = true));
    await turn();
    // One window of the burst is out, unanswered; the scheduler already answers calls.
    expect(answers).toHaveLength(SEND_WINDOW);
    expect(caughtUpDone).toBe(false);
    expect(scheduler.nextFire('r000')).toBeUndefined();
    expect(scheduler.snoozeOccurrence('r099', Date.parse(DUE), Date.parse(DUE) + HOUR)).toEqual({
      kind: 'snoozed',
      occurrence: Date.parse(DUE),
      until: Date.parse(DUE) + HOUR,
    });
    for (let turns = 0; !caughtUpDone && turns < 1000; turns++) {
      for (const answer of answers.splice(0)) answer({ kind: 'sent' });
      await turn();
    }
    expect(caughtUpDone).toBe(true);
    expect(scheduler.deliveryCounts()).toMatchObject({ sent: 200, claimed: 0 });
  });
});
