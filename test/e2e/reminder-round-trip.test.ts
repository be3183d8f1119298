import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../companion/logging';
import { startServer } from '../../companion/server';
import type { RunningServer } from '../../companion/server';
import type { Reminder } from '../../shared/protocol/reminders';
import { ManualClock } from '../fakes/clock';
import { FakePushService } from '../fakes/push-service';
import { TEST_TOKEN, tempDir, testConfig } from '../companion/helpers/app';

/*
 * The "done when", with real parts: a vault line as the plugin writes it after
 * normalisation, the companion started in-process (real SQLite, indexer, scheduler, Web Push
 * sender, HTTP), a local HTTPS push service that checks VAPID and decrypts the message as a
 * browser would, a subscription registered through the API, the phone's "Done" through the API,
 * and the Markdown file checked afterwards. Only the clock is manual, so the test does not wait
 * for a real minute boundary (reminders have minute resolution).
 */

const NOTE = 'Inbox.md';
const LINE = '- [ ] Call the bank @remind(2026-11-22 11:01) ^r-test';
const OCCURRENCE = '2026-11-22T11:01:00+01:00';
const headers = { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' };

let dir: { path: string; remove: () => void };
let service: FakePushService;
let server: RunningServer | null = null;

beforeEach(async () => {
  dir = tempDir('round-trip');
  service = await FakePushService.start();
});
afterEach(async () => {
  await server?.stop();
  server = null;
  await service.close();
  dir.remove();
});

describe('reminder round trip: desktop line → phone push → Done → checked box', () => {
  it('fires once to the subscribed phone, and Done checks the box so it never fires again', async () => {
    const vault = join(dir.path, 'vault');
    mkdirSync(vault);
    writeFileSync(join(vault, NOTE), `# Inbox\n\n${LINE}\nsomething else\n`);
    // 10:00:30 UTC = 11:00:30 in Berlin, 30 s before the reminder.
    const clock = ManualClock.at('2026-11-22T10:00:30Z');
    const config = {
      ...testConfig(vault, join(dir.path, 'data')),
      port: 0,
      pushHosts: ['127.0.0.1'],
    };
    server = await startServer(config, {
      logger: createLogger('silent'),
      clock,
      envToken: TEST_TOKEN,
      pushAgent: service.agent,
    });
    const running = server;
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${running.url}/api/v1${path}`, { ...init, headers });

    // The phone subscribes through the API, as the phone page does.
    const browser = service.createSubscription();
    const added = await api('/push/subscriptions', {
      method: 'POST',
      body: JSON.stringify({ ...browser, name: 'Phone' }),
    });
    expect(added.status).toBe(201);

    const before = (await (await api('/reminders/r-test')).json()) as Reminder;
    expect(before).toMatchObject({
      title: 'Call the bank',
      status: 'active',
      next_fire: OCCURRENCE,
    });
    expect(service.messages).toHaveLength(0);

    // The minute comes: the scheduler's pass (woken by a re-plan) finds it due.
    clock.set('2026-11-22T10:01:02Z');
    await running.scheduler.replan();
    await expect.poll(() => service.messages.length, { timeout: 5_000 }).toBe(1);
    const [message] = service.messages;
    expect(message!.vapid.valid).toBe(true);
    expect(message!.urgency).toBe('high');
    expect(message!.topic).toBeTruthy();
    expect(message!.payload).not.toBeNull();
    const payload = JSON.parse(message!.payload!) as Record<string, unknown>;
    expect(payload).toMatchObject({
      title: 'Call the bank',
      reminder_id: 'r-test',
      occurrence: OCCURRENCE,
    });
    expect(String(payload.deep_link)).toContain(encodeURIComponent('#^r-test'));
    expect(JSON.stringify(payload.actions)).toMatch(/done.*snooze_15m.*snooze_1h.*open/);

    // The phone's "Done" posts the occurrence it was shown.
    const done = await api('/reminders/r-test/done', {
      method: 'POST',
      body: JSON.stringify({ occurrence: payload.occurrence }),
    });
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ status: 'done', next_fire: null });
    expect(readFileSync(join(vault, NOTE), 'utf8')).toBe(
      `# Inbox\n\n- [x] Call the bank @remind(2026-11-22 11:01) ^r-test\nsomething else\n`,
    );

    // It never fires again: not on a re-plan, not after the indexer saw the write, not later.
    await running.indexer.whenIdle();
    clock.set('2026-11-23T10:00:00Z');
    await running.scheduler.replan();
    await running.scheduler.whenIdle();
    expect(running.scheduler.nextFire('r-test')).toBeUndefined();
    expect(service.messages).toHaveLength(1);
    const after = (await (await api('/reminders/r-test')).json()) as Reminder;
    expect(after).toMatchObject({ status: 'done', next_fire: null });
  });
});
