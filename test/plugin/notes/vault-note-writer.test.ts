import { beforeEach, describe, expect, it } from 'vitest';
import { VaultConversations } from '../../../plugin/chat/vault-conversations';
import { VaultNoteWriter } from '../../../plugin/notes/vault-note-writer';
import { ChatEngine } from '../../../shared/chat/chat-engine';
import { ChatPortError } from '../../../shared/chat/ports';
import type { ChatEvent } from '../../../shared/protocol/chat';
import { ManualClock } from '../../fakes/clock';
import { FakeVault, reminderWriterOf } from '../../shared/chat/fake-chat-ports';
import { countingBytes, MemoryVaultFiles } from '../chat/memory-vault-files';

const ZONE = 'Europe/Berlin';
let clock: ManualClock;
let files: MemoryVaultFiles;
let writer: VaultNoteWriter;

beforeEach(() => {
  clock = ManualClock.at('2026-11-22T09:30:00Z');
  files = new MemoryVaultFiles();
  writer = new VaultNoteWriter({
    files,
    clock,
    zone: () => ZONE,
    notesFolder: () => 'Notes',
    randomBytes: countingBytes(),
  });
});

describe('VaultNoteWriter.create', () => {
  it('writes the docs/vault-format.md note layout under a slug, with a short-id suffix on collision', async () => {
    const created = await writer.create({
      title: 'Visa rules summary',
      body: '- valid 90 days',
      tags: ['visa', 'travel'],
    });
    expect(created).toEqual({
      id: '00010203-0405-4607-8809-0a0b0c0d0e0f',
      path: 'Notes/visa-rules-summary.md',
      title: 'Visa rules summary',
    });
    expect(files.files.get(created.path)).toBe(
      [
        '---',
        'id: 00010203-0405-4607-8809-0a0b0c0d0e0f',
        'title: Visa rules summary',
        'tags: [visa, travel]',
        'created: 2026-11-22T10:30:00+01:00',
        'updated: 2026-11-22T10:30:00+01:00',
        'source: chat',
        '---',
        '- valid 90 days',
        '',
      ].join('\n'),
    );
    const second = await writer.create({ title: 'Visa Rules Summary', body: '', folder: 'Travel' });
    expect(second.path).toBe('Travel/visa-rules-summary.md');
    const third = await writer.create({ title: 'visa rules summary', body: '' });
    expect(third.path).toMatch(/^Notes\/visa-rules-summary-[0-9a-f]{4}\.md$/);
  });

  it('turns a value that cannot go into front matter into a VALIDATION_ERROR naming it', async () => {
    await expect(writer.create({ title: 'ok', body: '', tags: ['123'] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'tags',
    });
    await expect(writer.create({ title: 'two\nlines', body: '' })).rejects.toBeInstanceOf(
      ChatPortError,
    );
    expect(files.files.size).toBe(0);
  });
});

describe('VaultNoteWriter.append', () => {
  beforeEach(() => {
    files.files.set('Lists/Shopping list.md', '# Shopping list\n\n- bread\n');
    files.files.set(
      'Projects/Cairn.md',
      '---\nid: p1\ntitle: Cairn project\n---\n## Ideas\n- chat\n\n## Log\nstarted\n',
    );
  });

  it('appends to the note found by file name, title or id, leaving the rest as it was', async () => {
    expect(await writer.append({ note: 'shopping list', text: '- milk\n- eggs' })).toEqual({
      path: 'Lists/Shopping list.md',
      title: 'Shopping list',
    });
    expect(files.files.get('Lists/Shopping list.md')).toBe(
      '# Shopping list\n\n- bread\n- milk\n- eggs\n',
    );
    await writer.append({ note: 'p1', text: 'went well' });
    expect(files.files.get('Projects/Cairn.md')).toMatch(/## Log\nstarted\n\nwent well\n$/);
  });

  it('appends at the end of a section when a heading is named', async () => {
    await writer.append({ note: 'Cairn project', text: '- undo', heading: 'ideas' });
    expect(files.files.get('Projects/Cairn.md')).toBe(
      '---\nid: p1\ntitle: Cairn project\n---\n## Ideas\n- chat\n- undo\n\n## Log\nstarted\n',
    );
    await expect(
      writer.append({ note: 'Cairn project', text: 'x', heading: 'Nope' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', field: 'heading' });
  });

  it('says NOT_FOUND or CONFLICT (listing paths) instead of guessing', async () => {
    await expect(writer.append({ note: 'packing list', text: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'no note is called "packing list"',
    });
    files.files.set('Old/Shopping list.md', 'old\n');
    await expect(writer.append({ note: 'Shopping list', text: 'x' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('Lists/Shopping list.md, Old/Shopping list.md'),
    });
  });
});

describe('VaultNoteWriter undo', () => {
  it('trashes a created note only while it is as written', async () => {
    const created = await writer.create({ title: 'Temp', body: 'x' });
    await writer.deleteCreated(created);
    expect(files.trashed).toEqual(['Notes/temp.md']);

    const kept = await writer.create({ title: 'Kept', body: 'x' });
    await files.process(kept.path, (text) => `${text}my own words\n`);
    await expect(writer.deleteCreated(kept)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(files.files.has(kept.path)).toBe(true);
    await expect(writer.deleteCreated({ id: 'x', path: 'Notes/none.md' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('removes appended text exactly, or refuses when it is no longer at the end', async () => {
    files.files.set('List.md', 'a\r\n\r\nb\r\n');
    await writer.append({ note: 'List', text: 'c' });
    expect(files.files.get('List.md')).toBe('a\r\n\r\nb\r\n\r\nc\r\n');
    await writer.removeAppended({ path: 'List.md', text: 'c' });
    expect(files.files.get('List.md')).toBe('a\r\n\r\nb\r\n');

    await writer.append({ note: 'List', text: 'd' });
    await files.process('List.md', (text) => `${text}e\r\n`);
    await expect(writer.removeAppended({ path: 'List.md', text: 'd' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(files.files.get('List.md')).toBe('a\r\n\r\nb\r\n\r\nd\r\ne\r\n');
  });
});

describe('chat engine over the vault writers', () => {
  it('a chat note and its conversation file land in the vault; undo trashes the note', async () => {
    const reminders = new FakeVault(clock);
    const conversations = new VaultConversations({
      files,
      folder: () => 'Cairn/Chats',
      zone: () => ZONE,
      randomBytes: countingBytes(),
    });
    const engine = new ChatEngine({
      clock,
      zone: () => ZONE,
      notes: writer,
      reminderReader: reminders,
      reminderWriter: reminderWriterOf(reminders),
      searcher: reminders,
      answerer: reminders,
      conversations,
    });
    const events: ChatEvent[] = [];
    for await (const event of engine.send('note: the spare key is under the pot'))
      events.push(event);
    const done = events.at(-1);
    expect(done).toEqual({
      type: 'done',
      conversation: 'Cairn/Chats/2026-11-22 1030 Chat.md',
    });
    expect(files.files.get('Notes/the-spare-key-is-under-the-pot.md')).toContain(
      'title: The spare key is under the pot',
    );

    clock.advance(60_000);
    const second: ChatEvent[] = [];
    const path = done?.type === 'done' ? done.conversation : undefined;
    for await (const event of engine.send('thanks', { conversation: path })) second.push(event);
    expect(second.at(-1)).toEqual({ type: 'done', conversation: path });
    const listing = await conversations.list();
    expect(listing.conversations).toEqual([
      expect.objectContaining({ path, messages: 4, title: 'note: the spare key is under the pot' }),
    ]);
    const reopened = await conversations.open(path!);
    expect(reopened).toMatchObject({
      ok: true,
      conversation: {
        messages: [
          { role: 'user' },
          {
            role: 'assistant',
            tool: 'create_note',
            wrote: 'Notes/the-spare-key-is-under-the-pot.md',
          },
          { role: 'user', text: 'thanks' },
          { role: 'assistant', text: "You're welcome." },
        ],
      },
    });

    const tool = events.find((event) => event.type === 'tool');
    const undo =
      tool?.type === 'tool' ? (tool.result as { data: { undo: never } }).data.undo : undefined;
    expect(await engine.undo(undo!)).toMatchObject({ success: true });
    expect(files.trashed).toEqual(['Notes/the-spare-key-is-under-the-pot.md']);
  });

  it('starts a new chat file rather than overwrite a file that is no longer a chat', async () => {
    const conversations = new VaultConversations({
      files,
      folder: () => 'Cairn/Chats/',
      zone: () => ZONE,
      randomBytes: countingBytes(),
    });
    files.files.set('Cairn/Chats/mine.md', 'my own note now\n');
    const turn = { at: clock.now(), user: 'hi', assistant: 'Hello!', citations: [] };
    const path = await conversations.record('Cairn/Chats/mine.md', turn);
    expect(path).toBe('Cairn/Chats/2026-11-22 1030 Chat.md');
    expect(files.files.get('Cairn/Chats/mine.md')).toBe('my own note now\n');
    expect(await conversations.record(undefined, turn)).toMatch(
      /^Cairn\/Chats\/2026-11-22 1030 Chat [0-9a-f]{4}\.md$/,
    );
    expect((await conversations.list()).problems).toEqual([
      expect.objectContaining({ path: 'Cairn/Chats/mine.md', line: 1 }),
    ]);
  });
});
