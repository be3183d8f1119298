import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import type { ManualClock } from '../../fakes/clock';
import { HOUR, ManualTimer, RecordingDeliverer } from '../reminders/helpers';
import { TEST_TOKEN, authorized, testConfig } from './app';

/**
 * The companion app with a running scheduler over a vault folder and a database file, as
 * server.ts wires it. `close()` then `openReminderApp` again on the same folders is a restart.
 */
export interface ReminderApp {
  readonly app: FastifyInstance;
  readonly scheduler: ReminderScheduler;
  readonly source: VaultReminderSource;
  readonly deliverer: RecordingDeliverer;
  /** Moves the clock to `iso`, running every scheduler pass due on the way. */
  advanceTo(iso: string): Promise<void>;
  call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function openReminderApp(
  vault: string,
  dataDir: string,
  clock: ManualClock,
): Promise<ReminderApp> {
  const timer = new ManualTimer(clock);
  const db = openDatabase(join(dataDir, 'cairn.db'));
  const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
  await source.load();
  const deliverer = new RecordingDeliverer(clock, ['phone']);
  const scheduler = new ReminderScheduler({
    db,
    clock,
    source,
    deliverer,
    graceMs: 24 * HOUR,
    timer,
  });
  await scheduler.start();
  const app = await buildApp({
    config: testConfig(vault, join(dataDir, 'data')),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    scheduler,
    reminderSource: source,
  });
  return {
    app,
    scheduler,
    source,
    deliverer,
    advanceTo: (iso) => timer.advanceTo(Date.parse(iso), () => scheduler.whenIdle()),
    call: async (method, url, payload, headers = {}) => {
      const response = await app.inject({
        method,
        url,
        headers: { ...authorized, ...headers },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.json() as Record<string, unknown> };
    },
    close: async () => {
      await scheduler.stop();
      await app.close();
    },
  };
}
