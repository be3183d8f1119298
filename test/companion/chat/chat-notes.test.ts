import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../../shared/protocol/chat';
import { parseFrontMatter } from '../../../shared/markdown';
import { VaultNoteWriter } from '../../../companion/tools/note-writer';
import { companionToolError } from '../../../companion/http/tool-error';
import { VaultWriteError } from '../../../companion/vault/atomic-write';
import { ManualClock } from '../../fakes/clock';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { SAMPLE_VAULT, authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { chatEvents } from './sse-client';

/*
 * Chat's note tools on the companion, writing a temp copy of the sample vault through
 * POST /api/v1/chat, and the writer's undo paths directly.
 */

let index: IndexerFixture;
let test: TestApp;
const vault = () => join(test.dir, 'vault');

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
});
afterAll(async () => {
  await index?.close();
});
beforeEach(async () => {
  test = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});
afterEach(async () => {
  await test.close();
});

async function chat(message: string, conversation?: string): Promise<ChatEvent[]> {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/v1/chat',
    headers: authorized,
    payload: conversation === undefined ? { message } : { message, conversation },
  });
  expect(response.statusCode).toBe(200);
  return chatEvents(response.body);
}

function resultOf(events: ChatEvent[]) {
  const tool = events.find((event) => event.type === 'tool');
  if (tool?.type !== 'tool') throw new Error(`no tool event in ${JSON.stringify(events)}`);
  return tool.result;
}

const read = (path: string) => readFileSync(join(vault(), path), 'utf8');

describe('chat note tools on the companion', () => {
  it('creates a front-mattered note from chat, and dedupes the same title', async () => {
    const first = resultOf(await chat('note: buy milk'));
    if (!first.success) throw new Error(JSON.stringify(first.error));
    const note = (first.data as { note: { id: string; path: string; title: string } }).note;
    expect(note.title).toBe('Buy milk');
    const parsed = parseFrontMatter(read(note.path));
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.data).toMatchObject({ id: note.id, title: 'Buy milk', source: 'chat' });
    expect(parsed.body).toContain('buy milk');

    const again = resultOf(await chat('note: buy milk'));
    expect(again).toMatchObject({ success: true, deduplicated: true });
  });

  it('appends to a note named by its path, keeping what was there', async () => {
    const before = read('Garden.md');
    const result = resultOf(await chat('add to Garden: water the roses'));
    expect(result).toMatchObject({ success: true, data: { path: 'Garden.md' } });
    const after = read('Garden.md');
    expect(after.startsWith(before.trimEnd())).toBe(true);
    expect(after.trimEnd().endsWith('water the roses')).toBe(true);
  });

  it('answers NOT_FOUND naming the note field for a note that is not a path', async () => {
    const events = await chat('add to my shopping list: milk, eggs');
    expect(resultOf(events)).toMatchObject({
      success: false,
      error: { code: 'NOT_FOUND', field: 'note' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'NOT_FOUND' } });
  });

  it('refuses paths leading out of the vault or into hidden folders', async () => {
    for (const message of ['add to ../outside: x', 'add to .obsidian/plugins/cairn/data: x']) {
      const result = resultOf(await chat(message));
      expect(result.success).toBe(false);
    }
    expect(existsSync(join(test.dir, 'outside.md'))).toBe(false);
  });

  it('says reminders need the scheduler when the companion runs none', async () => {
    const events = await chat('remind me tomorrow at 9 to call the plumber');
    const result = resultOf(events);
    expect(result).toMatchObject({ success: false, error: { code: 'UNAVAILABLE' } });
    if (result.success) throw new Error('unexpected success');
    expect(result.error.message).toMatch(/no reminder scheduler/);
  });
});

describe('chats saved in the vault', () => {
  const savedAt = (events: ChatEvent[]): string => {
    const done = events.at(-1);
    if (done?.type !== 'done' || done.conversation === undefined) {
      throw new Error(`no saved conversation in ${JSON.stringify(done)}`);
    }
    return done.conversation;
  };

  it('saves a turn as a chat note in Cairn/Chats and continues it when named', async () => {
    const path = savedAt(await chat('hello'));
    expect(path).toMatch(/^Cairn\/Chats\/2026-11-22 1100 Chat\.md$/);
    expect(read(path)).toMatch(/type: chat/);
    expect(read(path)).toMatch(/## You · 2026-11-22 11:00\nhello/);

    const continued = savedAt(await chat('How much is the visa fee?', path));
    expect(continued).toBe(path);
    const text = read(path);
    expect(text.match(/## You · /g)).toHaveLength(2);
    expect(text).toMatch(/\[\[Travel\/Visa rules\.md#Key points/);
  });

  it('never puts the message into the chat file name or the logs', async () => {
    const lines: string[] = [];
    const logTo = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logged = await buildTestApp({
      logTo,
      deps: { search: { index: () => index.indexer.queries } },
    });
    try {
      const secret = 'my locker code is 90210 remember';
      const response = await logged.app.inject({
        method: 'POST',
        url: '/api/v1/chat',
        headers: authorized,
        payload: { message: secret },
      });
      const path = savedAt(chatEvents(response.body));
      expect(path).toBe('Cairn/Chats/2026-11-22 1100 Chat.md');
      expect(readFileSync(join(logged.dir, 'vault', path), 'utf8')).toContain(`title: ${secret}`);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('')).not.toContain('90210');
      expect(lines.join('')).not.toContain('locker');
    } finally {
      await logged.close();
    }
  });

  it('starts a new chat instead of writing into a note that is not a chat', async () => {
    const before = read('Garden.md');
    const path = savedAt(await chat('hello', 'Garden.md'));
    expect(path).toMatch(/^Cairn\/Chats\//);
    expect(read('Garden.md')).toBe(before);
    for (const bad of ['../outside.md', '.obsidian/chat.md', 'Cairn/Chats/missing.md']) {
      expect(savedAt(await chat('hello', bad))).toMatch(/^Cairn\/Chats\/2026-11-22 1100 Chat/);
    }
    expect(existsSync(join(test.dir, 'outside.md'))).toBe(false);
  });
});

describe('VaultNoteWriter undo', () => {
  const writer = () =>
    new VaultNoteWriter({
      vault: vault(),
      folder: 'Notes',
      zone: () => 'Europe/Berlin',
      clock: ManualClock.at('2026-11-22T10:00:00Z'),
    });

  it('deletes a created note only while it is still the note written', async () => {
    const created = await writer().create({ title: 'Scratch', body: 'temporary' });
    await writer().deleteCreated(created);
    expect(existsSync(join(vault(), created.path))).toBe(false);

    const kept = await writer().create({ title: 'Kept', body: 'mine now' });
    writeFileSync(join(vault(), kept.path), '---\nid: someone-else\n---\nrewritten\n');
    await expect(writer().deleteCreated(kept)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(existsSync(join(vault(), kept.path))).toBe(true);
  });

  it('removes appended text only while it is still at the end', async () => {
    const before = read('Garden.md');
    const appended = await writer().append({ note: 'Garden.md', text: 'water the roses' });
    await writer().removeAppended({ path: appended.path, text: 'water the roses' });
    expect(read('Garden.md').trimEnd()).toBe(before.trimEnd());

    await writer().append({ note: 'Garden', text: 'prune the apple tree' });
    writeFileSync(join(vault(), 'Garden.md'), `${read('Garden.md')}\nmore by hand\n`);
    const undo = writer().removeAppended({ path: 'Garden.md', text: 'prune the apple tree' });
    // The port throws the vault's own error; the tool runner maps it once (companionToolError).
    await expect(undo).rejects.toBeInstanceOf(VaultWriteError);
    await expect(undo).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(companionToolError(await undo.catch((error: unknown) => error))).toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('refuses a title that cannot be front matter, naming the field', async () => {
    await expect(writer().create({ title: 'a\u0000b', body: '' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
