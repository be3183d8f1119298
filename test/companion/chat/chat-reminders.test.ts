import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import type { ChatEvent } from '../../../shared/protocol/chat';
import type { Reminder } from '../../../shared/protocol/reminders';
import { parseFrontMatter } from '../../../shared/markdown';
import { ManualClock } from '../../fakes/clock';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { HOUR, ManualTimer, RecordingDeliverer } from '../reminders/helpers';
import {
  SAMPLE_VAULT,
  TEST_TOKEN,
  authorized,
  copySampleVault,
  tempDir,
  testConfig,
} from '../helpers/app';
import { chatEvents } from './sse-client';

/*
 * Chat's reminder tools on the companion: the real ReminderService, scheduler and vault source
 * over a temp copy of the sample vault (the same wiring as the reminder routes' tests), reached
 * through POST /api/v1/chat.
 */

let index: IndexerFixture;
let app: FastifyInstance;
let vault: string;
let scheduler: ReminderScheduler;
let cleanup: () => void;

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
});
afterAll(async () => {
  await index?.close();
});

beforeEach(async () => {
  const dir = tempDir('chat-reminders');
  vault = copySampleVault(dir.path);
  const clock = ManualClock.at('2026-11-22T10:00:00Z');
  // In memory: these tests are about the routes, not the file (test/companion/db is).
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
  cleanup = dir.remove;
});
afterEach(async () => {
  await scheduler.stop();
  await app.close();
  cleanup();
});

async function chat(message: string): Promise<ChatEvent[]> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/chat',
    headers: authorized,
    payload: { message },
  });
  expect(response.statusCode).toBe(200);
  return chatEvents(response.body);
}

function toolOf(events: ChatEvent[]): Extract<ChatEvent, { type: 'tool' }> {
  const tool = events.find((event) => event.type === 'tool');
  if (tool?.type !== 'tool') throw new Error(`no tool event in ${JSON.stringify(events)}`);
  return tool;
}

function reminderOf(events: ChatEvent[]): Reminder {
  const { result } = toolOf(events);
  if (!result.success) throw new Error(`tool failed: ${JSON.stringify(result.error)}`);
  return (result.data as { reminder: Reminder }).reminder;
}

function frontMatter(path: string): Record<string, unknown> {
  const parsed = parseFrontMatter(readFileSync(join(vault, path), 'utf8'));
  if (!parsed.ok) throw new Error(`${path}: ${parsed.error.message}`);
  return parsed.data;
}

describe('chat reminder tools on the companion', () => {
  it('creates a reminder note in the vault and schedules it', async () => {
    const events = await chat('remind me tomorrow at 9 to call the plumber');
    expect(toolOf(events).name).toBe('create_reminder');
    const reminder = reminderOf(events);
    expect(reminder).toMatchObject({
      title: 'Call the plumber',
      due: '2026-11-23T09:00:00+01:00',
      timezone: 'Europe/Berlin',
      status: 'active',
    });
    expect(frontMatter(reminder.path)).toMatchObject({
      type: 'reminder',
      title: 'Call the plumber',
    });
    const fetched = await app.inject({
      url: `/api/v1/reminders/${reminder.id}`,
      headers: authorized,
    });
    expect(fetched.json()).toMatchObject({ next_fire: '2026-11-23T09:00:00+01:00' });
    expect(events.at(-1)?.type).toBe('done');
  });

  it('lists what is due this week from the scheduler', async () => {
    await chat('remind me tomorrow at 9 to call the plumber');
    const events = await chat("what's due this week?");
    const tool = toolOf(events);
    expect(tool).toMatchObject({ name: 'list_reminders', result: { success: true } });
    const listed = (tool.result as { data: { reminders: Reminder[] } }).data.reminders;
    expect(listed.map((reminder) => reminder.title)).toContain('Call the plumber');
    expect(events.at(-1)?.type).toBe('done');
  });

  it('snoozes and completes a reminder named by its title, writing the Markdown', async () => {
    const created = reminderOf(await chat('remind me tomorrow at 9 to call the plumber'));
    const snoozed = reminderOf(await chat('snooze the plumber reminder for an hour'));
    expect(snoozed.id).toBe(created.id);
    // Due tomorrow at 9 and not rung yet: an hour later than its own time, never today.
    expect(frontMatter(created.path).snoozed_until).toBe('2026-11-23T10:00:00+01:00');

    const done = reminderOf(await chat('mark call the plumber as done'));
    expect(done).toMatchObject({ id: created.id, status: 'done' });
    expect(frontMatter(created.path).status).toBe('done');
  });

  it('done after a snooze ends that occurrence of a series (it does not ring anyway)', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/reminders',
      headers: authorized,
      payload: { title: 'Weekly', due: '2026-12-01T10:00', repeat: 'FREQ=WEEKLY;BYDAY=TU' },
    });
    const { id } = created.json<Reminder>();
    const snoozed = reminderOf(await chat('snooze weekly by 1 hour'));
    expect(snoozed).toMatchObject({ id, next_fire: '2026-12-01T11:00:00+01:00' });
    const done = reminderOf(await chat('mark weekly as done'));
    expect(done).toMatchObject({ id, next_fire: '2026-12-08T10:00:00+01:00' });
  });

  it('answers NOT_FOUND for a reminder that does not exist, in the tool result and an error event', async () => {
    const events = await chat('mark water the cactus on mars as done');
    expect(toolOf(events).result).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'NOT_FOUND' } });
  });

  it('writes notes too when reminders are wired', async () => {
    const events = await chat('note: buy milk');
    expect(toolOf(events)).toMatchObject({ name: 'create_note', result: { success: true } });
  });
});
