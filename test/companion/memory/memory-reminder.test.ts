import { join } from 'node:path';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import { VaultReminderSource } from '../../../companion/reminders/vault-reminder-source';
import { ManualClock } from '../../fakes/clock';
import { HOUR, ManualTimer, RecordingDeliverer } from '../reminders/helpers';
import { TEST_TOKEN, authorized, copySampleVault, tempDir, testConfig } from '../helpers/app';

let app: FastifyInstance;
let vault: string;
let close: () => Promise<void>;

beforeEach(async () => {
  const dir = tempDir('memory-reminder');
  vault = copySampleVault(dir.path);
  const clock = ManualClock.at('2026-11-22T10:00:00Z');
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
  app = await buildApp({
    config: testConfig(vault, join(dir.path, 'data')),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    scheduler,
    reminderSource: source,
  });
  close = async () => {
    await scheduler.stop();
    await app.close();
    dir.remove();
  };
});
afterEach(() => close());

const post = (url: string, payload: object) =>
  app.inject({ method: 'POST', url, headers: authorized, payload });
const reminderNotes = () =>
  existsSync(join(vault, 'Reminders')) ? readdirSync(join(vault, 'Reminders')).sort() : [];

describe('POST /api/v1/memories/:id/reminder', () => {
  it('makes a reminder note titled with the memory, linking back to its line', async () => {
    const memory = (
      await post('/api/v1/memories', { text: 'Great pizza at Mario’s on Main St' })
    ).json() as { id: string };
    const made = await post(`/api/v1/memories/${memory.id}/reminder`, { due: '2026-11-27T18:00' });
    expect(made.statusCode).toBe(201);
    const body = made.json() as {
      reminder: { id: string; title: string; path: string; due: string };
      memory: { id: string };
    };
    expect(body.memory.id).toBe(memory.id);
    expect(body.reminder).toMatchObject({
      title: 'Great pizza at Mario’s on Main St',
      due: '2026-11-27T18:00:00+01:00',
    });
    const note = readFileSync(join(vault, body.reminder.path), 'utf8');
    expect(note).toContain(`From a memory: [[Cairn/Memory#^${memory.id}]]`);
    expect(note).toMatch(/^---\n[\s\S]*type: reminder[\s\S]*---\n/);
    const listed = (
      await app.inject({
        method: 'GET',
        url: `/api/v1/reminders/${body.reminder.id}`,
        headers: authorized,
      })
    ).json() as { title: string };
    expect(listed.title).toBe('Great pizza at Mario’s on Main St');
  });

  it('takes a title of its own, and the same request again answers the same reminder', async () => {
    const memory = (await post('/api/v1/memories', { text: 'Need to watch Inception' })).json() as {
      id: string;
    };
    const request = { title: 'Movie night', due: '2026-11-28T20:00', timezone: 'Europe/Berlin' };
    const first = await post(`/api/v1/memories/^${memory.id}/reminder`, request);
    expect(first.statusCode).toBe(201);
    const before = reminderNotes();
    const again = await post(`/api/v1/memories/${memory.id}/reminder`, request);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ deduplicated: true });
    expect(reminderNotes()).toEqual(before);
  });

  it('refuses an unknown memory, a past or malformed time, writing no reminder', async () => {
    const before = reminderNotes();
    const unknown = await post('/api/v1/memories/m-zzzz/reminder', { due: '2026-11-27T18:00' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'id' } });
    const memory = (await post('/api/v1/memories', { text: 'Call the bank' })).json() as {
      id: string;
    };
    const past = await post(`/api/v1/memories/${memory.id}/reminder`, { due: '2026-11-01T18:00' });
    expect(past.statusCode).toBe(422);
    expect(past.json()).toMatchObject({ error: { field: 'due' } });
    const malformed = await post(`/api/v1/memories/${memory.id}/reminder`, { due: 'friday' });
    expect(malformed.statusCode).toBe(400);
    expect(reminderNotes()).toEqual(before);
  });
});
