import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { ReadOnlyReminderPlan } from '../../../companion/reminders';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import type { Reminder } from '../../../shared/protocol/reminders';
import { ManualClock } from '../../fakes/clock';
import { HOUR, ManualTimer, RecordingDeliverer } from './helpers';
import { TEST_TOKEN, authorized, copySampleVault, tempDir, testConfig } from '../helpers/app';

/*
 * The command line's reminder plan when no companion runs (companion/reminders/read-only-plan.ts):
 * the same answers as the scheduler that ran last, reminders written through the same route, and
 * not one row of delivery state written.
 */

const NOTE_ID = '5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13';
const DELIVERY_TABLES = [
  'reminder_plan',
  'deliveries',
  'occurrence_actions',
  'missed_occurrences',
  'scheduler_meta',
];

function deliveryState(db: SqliteDatabase): string {
  return JSON.stringify(
    DELIVERY_TABLES.map((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all()),
  );
}

describe('ReadOnlyReminderPlan', () => {
  it('answers as the last scheduler left things, writes reminders, touches no delivery state', async () => {
    const dir = tempDir('read-only-plan');
    const vault = copySampleVault(dir.path);
    const clock = ManualClock.at('2026-11-22T10:00:00Z');
    const config = testConfig(vault, join(dir.path, 'data'));

    // A companion ran: it marked this week's bank call done, then stopped.
    const db = openDatabase(join(dir.path, 'cairn.db'));
    const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
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
    scheduler.completeOccurrence(NOTE_ID, Date.parse('2026-11-23T16:00:00Z'));
    const ranStatus = scheduler.schedulerStatus();
    const ranBank = scheduler.nextFire(NOTE_ID);
    await scheduler.stop();

    // The command line, later the same hour: its own source, the read-only plan, the app.
    clock.advance(HOUR / 2);
    const cliSource = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
    await cliSource.load();
    const before = deliveryState(db);
    const app = await buildApp({
      config,
      db,
      clock,
      tokenSha256: sha256(TEST_TOKEN),
      version: '0.0.0-test',
      reminderSource: cliSource,
      reminderPlan: new ReadOnlyReminderPlan(db, cliSource, clock),
    });
    try {
      const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
        const response = await app.inject({
          method,
          url,
          headers: authorized,
          ...(payload ? { payload } : {}),
        });
        return { status: response.statusCode, body: response.json() as Record<string, unknown> };
      };

      const bank = (await call('GET', `/api/v1/reminders/${NOTE_ID}`)).body as unknown as Reminder;
      // The done occurrence (23 Nov) is skipped, as the scheduler had it.
      expect(bank.next_fire).toBe('2026-11-30T17:00:00+01:00');
      expect(Date.parse(bank.next_fire!)).toBe(ranBank);
      expect((await call('GET', '/api/v1/status')).body.scheduler).toEqual(ranStatus);

      const created = await call('POST', '/api/v1/reminders', {
        title: 'Renew the permit',
        due: '2026-11-24T08:00',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        title: 'Renew the permit',
        next_fire: '2026-11-24T08:00:00+01:00',
      });
      expect(existsSync(join(vault, created.body.path as string))).toBe(true);
      const listed = (await call('GET', '/api/v1/reminders?limit=200')).body
        .reminders as Reminder[];
      expect(listed.map((reminder) => reminder.title)).toContain('Renew the permit');

      // Delivery state is the companion's: refused with a code, not written.
      const snooze = await call('POST', `/api/v1/reminders/${NOTE_ID}/snooze`, { minutes: 10 });
      expect(snooze.status).toBe(503);
      expect(snooze.body).toMatchObject({ error: { code: 'UNAVAILABLE' } });
      expect(deliveryState(db)).toBe(before);
    } finally {
      await app.close();
      dir.remove();
    }
  });
});
