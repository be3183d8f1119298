import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../companion/logging';
import { startServer } from '../../../companion/server';
import type { RunningServer } from '../../../companion/server';
import type { MissedResponse } from '../../../shared/protocol/reminders';
import type { StatusResponse } from '../../../shared/protocol/status';
import { ManualClock } from '../../fakes/clock';
import { copySampleVault, tempDir, testConfig } from '../helpers/app';

let dir: { path: string; remove: () => void };
let server: RunningServer | null = null;
beforeEach(() => {
  dir = tempDir('scheduler-server');
});
afterEach(async () => {
  await server?.stop();
  server = null;
  dir.remove();
});

describe('the companion runs the scheduler over its vault', () => {
  it('schedules the sample vault, lists an unresolved token, and follows an edit', async () => {
    const vault = copySampleVault(dir.path);
    appendFileSync(
      join(vault, 'Garden.md'),
      '\n- [ ] Buy compost @remind(next saturday morning)\n',
    );
    const config = { ...testConfig(vault, join(dir.path, 'data')), port: 0 };
    const clock = ManualClock.at('2026-11-22T10:00:00Z');
    server = await startServer(config, { logger: createLogger('silent'), clock });
    const headers = { authorization: `Bearer ${server.token.createdToken}` };

    const status = (await (
      await fetch(`${server.url}/api/v1/status`, { headers })
    ).json()) as StatusResponse;
    // The sample vault's active reminders (the checked "Book flights" never fires).
    expect(status.scheduler.reminders).toBeGreaterThanOrEqual(6);
    expect(status.scheduler.next_fire).toMatch(/^2026-11-2\dT/);

    const missed = (await (
      await fetch(`${server.url}/api/v1/reminders/missed`, { headers })
    ).json()) as MissedResponse;
    expect(missed.missed).toContainEqual(
      expect.objectContaining({ path: 'Garden.md', reason: 'unresolved', occurrence: null }),
    );

    appendFileSync(
      join(vault, 'Garden.md'),
      '- [ ] Prune the roses @remind(2026-11-22 12:00) ^r-prun\n',
    );
    await server.indexer.whenIdle();
    await expect
      .poll(() => server!.scheduler.nextFire('r-prun'), { timeout: 10_000 })
      .toBe(Date.parse('2026-11-22T11:00:00Z'));
  });
});
