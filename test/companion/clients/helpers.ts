import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../companion/app';
import type { AppDeps } from '../../../companion/app';
import { TokenStore } from '../../../companion/auth/token-store';
import type { Scope } from '../../../companion/auth/scopes';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import { ManualClock } from '../../fakes/clock';
import { TEST_TOKEN, copySampleVault, tempDir, testConfig } from '../helpers/app';
import type { IndexerFixture } from '../search/helpers';
import { HOUR, ManualTimer, RecordingDeliverer } from '../reminders/helpers';

/**
 * The whole companion app for client tests (MCP, OpenAI route): real reminder service and
 * scheduler over a temp copy of the sample vault, the search index of `index`, listening on
 * 127.0.0.1:0 so the official SDK clients connect over real HTTP.
 */
export interface ClientTestApp {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly vault: string;
  readonly db: SqliteDatabase;
  readonly clock: ManualClock;
  /** Creates a named token in the app's database, as `cairn-companion token create` does. */
  token(name: string, scopes: Scope[]): string;
  close(): Promise<void>;
}

export async function startClientTestApp(
  index: IndexerFixture,
  deps: Partial<AppDeps> = {},
): Promise<ClientTestApp> {
  const dir = tempDir('clients');
  const vault = copySampleVault(dir.path);
  const clock = ManualClock.at('2026-11-22T10:00:00Z');
  // In memory: these tests are about the routes, not the file (test/companion/db is).
  const db = openDatabase(':memory:');
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
  const app = await buildApp({
    config: testConfig(vault, join(dir.path, 'data')),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    scheduler,
    reminderSource: source,
    search: { index: () => index.indexer.queries },
    ...deps,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const tokens = new TokenStore(db);
  return {
    app,
    url,
    vault,
    db,
    clock,
    token: (name, scopes) => tokens.create(name, scopes, clock.now()).token,
    close: async () => {
      await scheduler.stop();
      await app.close();
      dir.remove();
    },
  };
}
