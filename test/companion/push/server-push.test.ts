import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../companion/logging';
import { VAPID_KEYS_FILE } from '../../../companion/push/vapid-keys';
import { startServer } from '../../../companion/server';
import type { RunningServer } from '../../../companion/server';
import { ManualClock } from '../../fakes/clock';
import { FakePushService } from '../../fakes/push-service';
import { TEST_TOKEN, tempDir, testConfig } from '../helpers/app';

let dir: { path: string; remove: () => void };
let server: RunningServer | null = null;
beforeEach(() => {
  dir = tempDir('server-push');
});
afterEach(async () => {
  await server?.stop();
  server = null;
  dir.remove();
});

const clock = ManualClock.at('2026-11-22T10:00:00Z');
const logger = createLogger('silent');
const headers = { authorization: `Bearer ${TEST_TOKEN}` };

function config() {
  // The push routes never read the vault; an empty folder stands in for it (no indexing work).
  const vault = join(dir.path, 'vault');
  return { ...testConfig(vault, join(dir.path, 'data')), port: 0, pushHosts: ['127.0.0.1'] };
}

async function publicKey(running: RunningServer): Promise<string> {
  const response = await fetch(`${running.url}/api/v1/push/key`, { headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { public_key: string }).public_key;
}

describe('startServer and push', () => {
  it('creates the VAPID keys on first start (0600 file) and serves the same key after a restart', async () => {
    const cfg = config();
    mkdirSync(cfg.vault);
    server = await startServer(cfg, { logger, clock, envToken: TEST_TOKEN });
    const first = await publicKey(server);
    expect(first).toMatch(/^B[A-Za-z0-9_-]{86}$/);
    expect(statSync(join(cfg.dataDir, VAPID_KEYS_FILE)).mode & 0o777).toBe(0o600);
    // The subscription survives too, in the database.
    const service = await FakePushService.start();
    try {
      const browser = service.createSubscription();
      const added = await fetch(`${server.url}/api/v1/push/subscriptions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(browser),
      });
      expect(added.status).toBe(201);
    } finally {
      await service.close();
    }
    await server.stop();

    server = await startServer(cfg, { logger, clock, envToken: TEST_TOKEN });
    expect(await publicKey(server)).toBe(first);
    expect(server.push.sender.subscriptions()).toHaveLength(1);
    const status = await fetch(`${server.url}/api/v1/status`, { headers });
    expect(await status.json()).toMatchObject({ push: { subscriptions: 1 } });
  });

  it('refuses to start with a damaged key file, naming it, before opening the database', async () => {
    const cfg = config();
    mkdirSync(cfg.vault);
    mkdirSync(cfg.dataDir, { recursive: true });
    const file = join(cfg.dataDir, VAPID_KEYS_FILE);
    writeFileSync(file, '{"public_key": "x"}', { mode: 0o600 });
    await expect(startServer(cfg, { logger, clock, envToken: TEST_TOKEN })).rejects.toThrow(file);
    expect(() => statSync(join(cfg.dataDir, 'cairn.db'))).toThrow();
  });

  it('refuses a push subject Apple would reject', async () => {
    const cfg = config();
    mkdirSync(cfg.vault);
    await expect(
      startServer(cfg, { logger, clock, envToken: TEST_TOKEN, pushSubject: 'mailto:me@localhost' }),
    ).rejects.toThrow(/push subject "mailto:me@localhost": .*not a public name/);
  });
});
