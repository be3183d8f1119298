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

  it('listens while the reminders due at start are still being sent', async () => {
    const cfg = config();
    mkdirSync(join(cfg.vault, 'Cairn/Reminders'), { recursive: true });
    const startClock = ManualClock.at('2026-11-22T10:00:00Z');
    const service = await FakePushService.start();
    try {
      const options = { logger, clock: startClock, envToken: TEST_TOKEN, pushAgent: service.agent };
      server = await startServer(cfg, options);
      const browser = service.createSubscription();
      const added = await fetch(`${server.url}/api/v1/push/subscriptions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(browser),
      });
      expect(added.status).toBe(201);
      await server.stop();
      server = null;
      // Due while the companion was down; the push service takes the message and never answers.
      writeFileSync(
        join(cfg.vault, 'Cairn/Reminders/call-bank.md'),
        '---\nid: call-bank\ntype: reminder\ntitle: Call the bank\ndue: 2026-11-22T10:02:00Z\n' +
          'timezone: UTC\nstatus: active\ncreated: 2026-11-22T09:00:00Z\n---\n',
      );
      service.script(browser.endpoint, { hang: true });
      startClock.advance(10 * 60_000);

      server = await startServer(cfg, options);
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
      await expect.poll(() => service.messages.length, { timeout: 10_000 }).toBe(1);
      // Started, answering, and the catch-up's message is still unanswered at the push service.
      expect(service.openRequests).toBe(1);
      expect(server.scheduler.deliveryCounts()).toMatchObject({ claimed: 1, sent: 0 });
      const status = await fetch(`${server.url}/api/v1/status`, { headers });
      expect(status.status).toBe(200);
    } finally {
      // Ends the hanging request, so the scheduler's stop does not wait for the send's timeout.
      await service.close();
    }
  });
});
