import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatWriteMemory } from '../../../companion/idempotency/chat-write-memory';
import { WriteMemory } from '../../../companion/idempotency/write-memory';
import { openDatabase } from '../../../companion/db/open';
import { RecentWrites } from '../../../shared/chat/recent-writes';
import { clickOutcome } from '../../../companion/web/notification-actions';
import { ManualClock } from '../../fakes/clock';
import { copySampleVault, tempDir } from '../helpers/app';
import { openReminderApp } from '../helpers/reminder-app';
import type { ReminderApp } from '../helpers/reminder-app';

/*
 * Dedup and Idempotency-Key replays through the real app, database file and vault. A "restart"
 * closes the app (and its database) and builds a new one on the same folders.
 */

let dir: { path: string; remove: () => void };
let vault: string;
let clock: ManualClock;
let h: ReminderApp;

beforeEach(async () => {
  dir = tempDir('write-memory');
  vault = copySampleVault(dir.path);
  clock = ManualClock.at('2026-11-22T10:00:00Z');
  h = await openReminderApp(vault, dir.path, clock);
});
afterEach(async () => {
  await h.close();
  dir.remove();
});

async function restart(): Promise<void> {
  await h.close();
  h = await openReminderApp(vault, dir.path, clock);
}

const reminderFiles = () => readdirSync(join(vault, 'Cairn/Reminders')).sort();
const noteFiles = () => readdirSync(join(vault, 'Cairn/Notes')).sort();
const KEY = { 'idempotency-key': 'a1b2c3d4-retry' };

describe('identical creates within five minutes', () => {
  it('return the first reminder, deduplicated, across a restart; a different due is new', async () => {
    const before = reminderFiles();
    const body = { title: 'Dedup test', due: '2026-11-24T09:00' };
    const first = await h.call('POST', '/api/v1/reminders', body);
    expect(first.status).toBe(201);
    expect(first.body.deduplicated).toBe(false);
    await restart();
    clock.advance(4 * 60_000);
    const again = await h.call('POST', '/api/v1/reminders', { ...body, title: ' dedup  TEST ' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, deduplicated: true });
    expect(reminderFiles()).toHaveLength(before.length + 1);

    const other = await h.call('POST', '/api/v1/reminders', { ...body, due: '2026-11-24T10:00' });
    expect(other.status).toBe(201);
    expect(reminderFiles()).toHaveLength(before.length + 2);
    clock.advance(60_000 + 1);
    const late = await h.call('POST', '/api/v1/reminders', body);
    expect(late.status).toBe(201);
    expect(late.body.id).not.toBe(first.body.id);
  });

  it('write the reminder again when the first one was cancelled meanwhile', async () => {
    const body = { title: 'Water the fern', due: '2026-11-24T09:00' };
    const first = await h.call('POST', '/api/v1/reminders', body);
    await h.call('DELETE', `/api/v1/reminders/${String(first.body.id)}`);
    const again = await h.call('POST', '/api/v1/reminders', body);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });

  it('never swallow a note whose body differs, and survive a restart', async () => {
    const first = await h.call('POST', '/api/v1/notes', { title: 'Dedup test', body: 'one' });
    expect(first.status).toBe(201);
    await restart();
    const same = await h.call('POST', '/api/v1/notes', { title: 'Dedup test', body: 'one' });
    expect(same).toMatchObject({
      status: 200,
      body: { path: first.body.path, deduplicated: true },
    });
    const different = await h.call('POST', '/api/v1/notes', { title: 'Dedup test', body: 'two' });
    expect(different.status).toBe(201);
    expect(readFileSync(join(vault, String(different.body.path)), 'utf8')).toContain('two');
    expect(noteFiles()).toHaveLength(2);
  });

  it('let two identical requests sent together write one file', async () => {
    const body = { title: 'Double tap', due: '2026-11-24T09:00' };
    const before = reminderFiles().length;
    const [a, b] = await Promise.all([
      h.call('POST', '/api/v1/reminders', body),
      h.call('POST', '/api/v1/reminders', body),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.id).toBe(b.body.id);
    expect(reminderFiles()).toHaveLength(before + 1);
  });
});

describe('Idempotency-Key', () => {
  it('replays the stored answer for the same key and body, across a restart', async () => {
    const body = { title: 'Keyed', due: '2026-11-24T09:00' };
    const first = await h.call('POST', '/api/v1/reminders', body, KEY);
    expect(first.status).toBe(201);
    await restart();
    clock.advance(23 * 3_600_000);
    const replay = await h.app.inject({
      method: 'POST',
      url: '/api/v1/reminders',
      headers: { authorization: 'Bearer test-token-0123456789abcdefghijklmnopqrstuvw', ...KEY },
      payload: body,
    });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.body);
  });

  it('refuses the same key with a different body (422 naming the header), writing nothing', async () => {
    await h.call('POST', '/api/v1/notes', { title: 'Keyed note', body: 'a' }, KEY);
    const reused = await h.call('POST', '/api/v1/notes', { title: 'Keyed note', body: 'b' }, KEY);
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({
      error: { code: 'UNPROCESSABLE', field: 'Idempotency-Key' },
    });
    expect(noteFiles()).toHaveLength(1);
    // The same key on another route is another request too.
    const elsewhere = await h.call('POST', '/api/v1/reminders/r-7k2p/snooze', { minutes: 5 }, KEY);
    expect(elsewhere.status).toBe(422);
  });

  it('applies a retried snooze once; after 24 h the key is forgotten', async () => {
    const snooze = () => h.call('POST', '/api/v1/reminders/r-7k2p/snooze', { minutes: 15 }, KEY);
    const first = await snooze();
    expect(first.body).toMatchObject({ next_fire: '2026-11-23T17:15:00+01:00' });
    const retried = await snooze();
    expect(retried.body).toMatchObject({ next_fire: '2026-11-23T17:15:00+01:00' });
    expect(h.scheduler.nextFire('r-7k2p')).toBe(Date.parse('2026-11-23T16:15:00Z'));
    clock.advance(24 * 3_600_000 + 1);
    expect((await snooze()).body).toMatchObject({ next_fire: '2026-11-23T17:30:00+01:00' });
  });

  it('does not keep failures: a retry after a 404 runs again', async () => {
    const missing = await h.call('POST', '/api/v1/reminders/r-nope/done', {}, KEY);
    expect(missing.status).toBe(404);
    const bad = await h.call(
      'POST',
      '/api/v1/reminders/r-7k2p/done',
      {},
      {
        'idempotency-key': 'has space',
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { field: 'Idempotency-Key' } });
  });
});

describe('Idempotency-Key on an upload', () => {
  const upload = (boundary: string, name: string, content: string, key: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: {
        authorization: 'Bearer test-token-0123456789abcdefghijklmnopqrstuvw',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'idempotency-key': key,
      },
      payload: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
          `Content-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`,
      ),
    });

  it('replays a retried upload (new multipart boundary, same file) and refuses other content', async () => {
    const first = await upload('b-one', 'list.txt', 'milk, eggs', 'upload-1');
    expect(first.statusCode).toBe(201);
    const retry = await upload('b-two', 'list.txt', 'milk, eggs', 'upload-1');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    const changed = await upload('b-three', 'list.txt', 'bread', 'upload-1');
    expect(changed.statusCode).toBe(422);
    expect(changed.json()).toMatchObject({ error: { field: 'Idempotency-Key' } });
    const folder = join(vault, 'Cairn/Attachments');
    expect(readdirSync(folder).filter((name) => name.startsWith('list'))).toEqual(['list.txt']);
  });
});

describe('the phone notification actions', () => {
  it('apply a double-tapped snooze once, from the occurrence that rang', async () => {
    await h.advanceTo('2026-11-23T16:05:00Z');
    const sent = h.deliverer.sent.find((entry) => entry.reminderId === 'r-7k2p');
    expect(sent).toBeDefined();
    const push = sent!.delivery.payload;
    const outcome = clickOutcome('snooze_15m', { ...push, actions: [...push.actions] });
    if (outcome.kind !== 'request') throw new Error('snooze is a request');
    const tap = () =>
      h.call('POST', outcome.path, outcome.body, { 'idempotency-key': outcome.idempotencyKey });
    const [first, second] = [await tap(), await tap()];
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(first.body).toMatchObject({ next_fire: '2026-11-23T17:20:00+01:00' });
    expect(h.scheduler.nextFire('r-7k2p')).toBe(Date.parse('2026-11-23T16:20:00Z'));
  });
});

describe("chat's RecentWrites in the write memory", () => {
  it('finds a write made before a restart, and forgets it on undo', () => {
    const file = join(dir.path, 'chat.db');
    const db1 = openDatabase(file);
    const first = new RecentWrites<{ id: string }>(
      clock,
      'chat-reminder',
      chatWriteMemory(new WriteMemory(db1, clock)),
    );
    const key = RecentWrites.reminderKey('Call the plumber', 1_000);
    first.remember(key, { id: 'r1' });
    db1.close();

    const db2 = openDatabase(file);
    const memory = new WriteMemory(db2, clock);
    const second = new RecentWrites<{ id: string }>(
      clock,
      'chat-reminder',
      chatWriteMemory(memory),
    );
    const notes = new RecentWrites<{ path: string }>(clock, 'chat-note', chatWriteMemory(memory));
    expect(second.find(RecentWrites.reminderKey('  call the PLUMBER', 1_000))).toEqual({
      id: 'r1',
    });
    expect(second.find(RecentWrites.reminderKey('Call the plumber', 2_000))).toBeUndefined();
    expect(notes.find(key)).toBeUndefined();
    notes.forget(() => true);
    expect(second.find(key)).toEqual({ id: 'r1' });
    second.forget((value) => value.id === 'r1');
    expect(second.find(key)).toBeUndefined();
    clock.advance(5 * 60_000);
    second.remember(key, { id: 'r2' });
    clock.advance(5 * 60_000);
    expect(second.find(key)).toBeUndefined();
    db2.close();
  });
});
