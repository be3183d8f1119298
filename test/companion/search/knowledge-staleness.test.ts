import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { TokenStore } from '../../../companion/auth/token-store';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import { OFTEN_CITED } from '../../../companion/search/index-queries';
import type { KnowledgeHealth } from '../../../shared/protocol/knowledge-health';
import { ManualClock } from '../../fakes/clock';
import { repoRoot } from '../../helpers/corpora';
import { TEST_TOKEN, copySampleVault, tempDir, testConfig } from '../helpers/app';
import { HOUR, ManualTimer, RecordingDeliverer } from '../reminders/helpers';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/*
 * The knowledge health report's staleness beyond "not updated in a year": notes the answers
 * served keep citing though they are old (counted per answer, migration 016), and reminders
 * whose time passed undone. Over the team-notes fixture vault (meeting notes 2024-2026) and the
 * sample vault's reminders, with the clock at 2026-11-24 (the Journal's 2026-11-23 17:00 call
 * to the bank is then overdue).
 */

let index: IndexerFixture;
let app: Awaited<ReturnType<typeof buildApp>>;
let scheduler: ReminderScheduler;
let dir: ReturnType<typeof tempDir>;
const auth = { authorization: `Bearer ${TEST_TOKEN}` };

beforeAll(async () => {
  index = await startIndexer({ source: join(repoRoot, 'test/fixtures/vaults/team-notes') });
  await index.indexer.whenIdle();
  dir = tempDir('staleness');
  const vault = copySampleVault(dir.path);
  const clock = ManualClock.at('2026-11-24T10:00:00Z');
  const db = openDatabase(':memory:');
  const source = new VaultReminderSource({ vault, defaultZone: 'Europe/Berlin' });
  await source.load();
  scheduler = new ReminderScheduler({
    db,
    clock,
    source,
    deliverer: new RecordingDeliverer(clock, ['phone']),
    graceMs: 24 * HOUR,
    timer: new ManualTimer(clock),
  });
  await scheduler.start();
  new TokenStore(db);
  app = await buildApp({
    config: testConfig(vault, join(dir.path, 'data')),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    scheduler,
    reminderSource: source,
    search: { index: () => index.indexer.queries },
  });
});

afterAll(async () => {
  await scheduler?.stop();
  await app?.close();
  await index?.close();
  dir?.remove();
});

async function report(): Promise<KnowledgeHealth> {
  const response = await app.inject({ url: '/api/v1/health/knowledge', headers: auth });
  expect(response.statusCode).toBe(200);
  return response.json<KnowledgeHealth>();
}

describe('knowledge health staleness', () => {
  it('lists old notes once answers have cited them often, most cited first', async () => {
    expect((await report()).staleness.often_cited).toEqual([]);
    const ask = async (question: string) => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/answer',
        headers: auth,
        payload: { question },
      });
      expect(response.statusCode).toBe(200);
      return (response.json() as { citations: Array<{ path: string }> }).citations.map(
        (c) => c.path,
      );
    };
    const cited = new Map<string, number>();
    for (let i = 0; i < OFTEN_CITED; i++) {
      for (const path of new Set(
        await ask('What did the Torstraße landlord want to extend the lease?'),
      )) {
        cited.set(path, (cited.get(path) ?? 0) + 1);
      }
    }
    const health = await report();
    const old = new Set(health.staleness.not_updated_in_a_year.map((item) => item.path));
    const expected = [...cited]
      .filter(([path, count]) => count >= OFTEN_CITED && old.has(path))
      .map(([path]) => path);
    expect(expected.length).toBeGreaterThan(0);
    expect(health.staleness.often_cited?.map((item) => item.path).sort()).toEqual(expected.sort());
    expect(health.staleness.often_cited?.[0]?.reason).toMatch(
      /^cited in \d+ answers, last updated \d{4}-\d{2}-\d{2}$/,
    );
    // A recent note cited as often is not stale.
    const recent = [...cited].filter(([path]) => !old.has(path)).map(([path]) => path);
    for (const path of recent) {
      expect(health.staleness.often_cited?.some((item) => item.path === path)).toBe(false);
    }
  });

  it('lists reminders whose time passed undone, under their note', async () => {
    const health = await report();
    expect(health.staleness.overdue_reminders).toEqual([
      {
        path: 'Journal/2026-11-22.md',
        title: 'Call the bank about the card limit',
        reason: 'due 2026-11-23T17:00:00+01:00, not done',
      },
    ]);
  });
});
