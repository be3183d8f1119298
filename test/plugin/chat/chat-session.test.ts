import { beforeEach, describe, expect, it } from 'vitest';
import { NO_VISION_MODEL } from '../../../plugin/chat/chat-images';
import {
  ChatSession,
  writeCard,
  type ChatBackend,
  type ImageBackend,
} from '../../../plugin/chat/chat-session';
import { VaultConversations } from '../../../plugin/chat/vault-conversations';
import { VaultNoteWriter } from '../../../plugin/notes/vault-note-writer';
import { VaultReminders } from '../../../plugin/reminders/stores/vault-reminders';
import { ChatEngine, type ChatEngineDeps } from '../../../shared/chat/chat-engine';
import { ExtractiveAnswerer } from '../../../shared/chat/extractive-answerer';
import type { AnswerPhraser, Searcher, SearchHit } from '../../../shared/chat/ports';
import type { ChatEvent } from '../../../shared/protocol/chat';
import { ManualClock } from '../../fakes/clock';
import { countingBytes, MemoryVaultFiles } from './memory-vault-files';

const ZONE = 'Europe/Berlin';
let clock: ManualClock;
let files: MemoryVaultFiles;
let conversations: VaultConversations;

/** Passages of a tiny vault, ranked by how many query words they contain. */
const PASSAGES: SearchHit[] = [
  {
    score: 0.9,
    citation: {
      type: 'note',
      path: 'Travel/Visa rules.md',
      title: 'Visa rules summary',
      heading: 'Key points',
      lines: [12, 18],
      excerpt: 'The visa fee is $50 for standard processing.',
      score: 0.9,
    },
  },
  {
    score: 0.8,
    citation: {
      type: 'pdf',
      path: 'Attachments/visa-form.pdf',
      title: 'Visa form',
      page: 3,
      excerpt: 'Processing the visa takes ten working days.',
      score: 0.8,
    },
  },
];

const searcher: Searcher = {
  search: (request) => {
    const words = request.query.toLowerCase().match(/\w+/g) ?? [];
    return Promise.resolve(
      PASSAGES.filter((hit) =>
        words.some((w) => w.length > 3 && hit.citation.excerpt.toLowerCase().includes(w)),
      ),
    );
  },
};

beforeEach(() => {
  clock = ManualClock.at('2026-11-22T09:30:00Z');
  files = new MemoryVaultFiles();
  conversations = new VaultConversations({
    files,
    folder: () => 'Cairn/Chats',
    zone: () => ZONE,
    randomBytes: countingBytes(),
  });
});

function engine(extra: Partial<ChatEngineDeps> = {}): ChatEngine {
  const reminders = new VaultReminders({
    files,
    clock,
    zone: () => ZONE,
    remindersFolder: () => 'Reminders',
    randomBytes: countingBytes(),
  });
  return new ChatEngine({
    clock,
    zone: () => ZONE,
    notes: new VaultNoteWriter({
      files,
      clock,
      zone: () => ZONE,
      notesFolder: () => 'Notes',
      randomBytes: countingBytes(),
    }),
    reminderReader: reminders,
    reminderWriter: reminders,
    searcher,
    answerer: new ExtractiveAnswerer(searcher),
    conversations,
    ...extra,
  });
}

/** A phraser that yields its pieces only when the test releases them. */
class GatedPhraser implements AnswerPhraser {
  private release: (() => void) | null = null;
  aborted = false;
  constructor(private readonly pieces: string[]) {}

  async *phrase(request: Parameters<AnswerPhraser['phrase']>[0]): AsyncIterable<string> {
    request.signal?.addEventListener('abort', () => (this.aborted = true));
    for (const piece of this.pieces) {
      await new Promise<void>((resolve) => (this.release = resolve));
      if (request.signal?.aborted) throw new Error('aborted');
      yield piece;
    }
  }

  next(): void {
    this.release?.();
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ChatSession over the real engine', () => {
  it('answers a question with its text and both citations, and saves the chat', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('How much is the visa fee and how long is processing?');
    const [user, reply] = session.current.messages;
    expect(user).toMatchObject({
      role: 'user',
      text: 'How much is the visa fee and how long is processing?',
    });
    expect(reply?.role).toBe('assistant');
    expect(reply?.text).toContain('$50');
    expect(reply?.citations.map((c) => c.path)).toEqual([
      'Travel/Visa rules.md',
      'Attachments/visa-form.pdf',
    ]);
    expect(reply?.streaming).toBe(false);
    expect(session.current.busy).toBe(false);
    expect(session.current.conversation).toMatch(/^Cairn\/Chats\/.+\.md$/);
    await tick();
    expect(session.current.conversations).toHaveLength(1);
  });

  it('continues the same conversation file on the next message', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('What is the visa fee?');
    const first = session.current.conversation;
    await session.send('How long does processing take?');
    expect(session.current.conversation).toBe(first);
    expect(session.current.messages).toHaveLength(4);
    expect([...files.files.keys()].filter((p) => p.startsWith('Cairn/Chats/'))).toHaveLength(1);
  });

  it('shows a reminder card and undoes it: the note is gone and the card says so', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('remind me next Monday at 8 to call the bank');
    const reply = session.current.messages[1];
    expect(reply?.card).toMatchObject({
      tool: 'create_reminder',
      label: 'Reminder set',
      title: 'Call the bank',
      undoState: 'available',
    });
    const path = reply?.card?.path ?? '';
    expect(files.files.has(path)).toBe(true);
    await session.undo(reply?.key ?? -1);
    expect(files.files.has(path)).toBe(false);
    expect(session.current.messages[1]?.card?.undoState).toBe('undone');
    // A second undo is a no-op, not an error.
    await session.undo(reply?.key ?? -1);
    expect(session.current.messages[1]?.card?.undoState).toBe('undone');
  });

  it('shows why an undo failed when the note was edited since', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('note: Packing list\n- passport');
    const card = session.current.messages[1]?.card;
    expect(card).toMatchObject({ tool: 'create_note', label: 'Note created' });
    await files.process(card?.path ?? '', (text) => `${text}\n- my own line`);
    await session.undo(session.current.messages[1]?.key ?? -1);
    const after = session.current.messages[1]?.card;
    expect(after?.undoState).toBe('failed');
    expect(after?.undoError).toMatch(/changed|edited|conflict/i);
    expect(files.files.get(card?.path ?? '')).toContain('my own line');
  });

  it('shows a blank message as an error, never an empty bubble', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('   ');
    expect(session.current.messages).toHaveLength(0);
    await session.send('\u0007\u0007');
    const reply = session.current.messages[1];
    expect(reply?.text !== '' || reply?.error !== undefined).toBe(true);
  });

  it('says nothing was found when the vault has no passage, with no citation', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('What is the airspeed of a swallow?');
    const reply = session.current.messages[1];
    expect(reply?.text).not.toBe('');
    expect(reply?.citations).toEqual([]);
  });

  it('streams phrased tokens and Stop keeps the text so far, aborts the model and frees the composer', async () => {
    // Phrased text is released a claim at a time, once checked against its passages
    // (shared/search/claim-check.ts): the first sentence shows when the second begins.
    const phraser = new GatedPhraser(['The fee is $50 [1]. ', 'It is ', 'due now [1].']);
    const session = new ChatSession(engine({ phraser }), conversations);
    const states: string[] = [];
    session.subscribe((state) => states.push(state.messages[1]?.text ?? ''));
    const turn = session.send('What is the visa fee?');
    await tick();
    phraser.next();
    await tick();
    expect(session.current.messages[1]?.text).toBe('');
    phraser.next();
    await tick();
    expect(session.current.messages[1]?.text).toBe('The fee is $50 [1]. ');
    expect(session.current.messages[1]?.streaming).toBe(true);
    expect(session.current.busy).toBe(true);
    session.stop();
    expect(session.current.busy).toBe(false);
    expect(session.current.messages[1]).toMatchObject({ streaming: false, stopped: true });
    expect(phraser.aborted).toBe(true);
    phraser.next();
    await turn;
    expect(session.current.messages[1]?.text).toBe('The fee is $50 [1]. ');
    expect(states).toContain('The fee is $50 [1]. ');
  });

  it('falls back to the rules and says so when the model router fails', async () => {
    const session = new ChatSession(
      engine({ router: { route: () => Promise.reject(new Error('malformed tool call')) } }),
      conversations,
    );
    await session.send('What is the visa fee?');
    const reply = session.current.messages[1];
    expect(reply?.text).toContain('malformed tool call');
    expect(reply?.text).toContain('$50');
  });

  it('New chat empties the pane and the next message starts a new file', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('What is the visa fee?');
    const first = session.current.conversation;
    session.newChat();
    expect(session.current.messages).toEqual([]);
    expect(session.current.conversation).toBeUndefined();
    clock.advance(60_000);
    await session.send('How long does processing take?');
    expect(session.current.conversation).not.toBe(first);
  });

  it('reopens a saved chat with its messages, links as chips and write cards with their undo', async () => {
    const writer = new ChatSession(engine(), conversations);
    await writer.send('What is the visa fee?');
    await writer.send('remind me next Monday at 8 to call the bank');
    const path = writer.current.conversation ?? '';

    const reader = new ChatSession(engine(), conversations);
    await reader.refreshConversations();
    expect(reader.current.conversations.map((c) => c.path)).toEqual([path]);
    await reader.open(path);
    const messages = reader.current.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[1]?.citations[0]).toMatchObject({
      path: 'Travel/Visa rules.md',
      heading: 'Key points',
    });
    expect(messages[3]?.card).toMatchObject({ tool: 'create_reminder', undoState: 'available' });
    expect(messages[3]?.card?.undo).toMatchObject({ kind: 'delete_reminder' });
    expect(messages[3]?.card?.undoBlocked).toBeUndefined();
    await reader.send('How long does processing take?');
    expect(reader.current.conversation).toBe(path);
  });

  it('undoes a write from a reopened chat (a fresh engine: no memory of the write)', async () => {
    const writer = new ChatSession(engine(), conversations);
    await writer.send('note: Packing list\n- passport');
    const notePath = writer.current.messages[1]?.card?.path ?? '';
    await writer.send('remind me next Monday at 8 to call the bank');
    await writer.send('snooze the bank reminder for an hour');
    const reminderPath = writer.current.messages[3]?.card?.path ?? '';
    const path = writer.current.conversation ?? '';
    expect(files.files.get(path)).toMatch(/<!-- cairn-undo: \{"action":\{"kind":"delete_note"/);

    const reader = new ChatSession(engine(), conversations);
    await reader.open(path);
    const [, note, , , , snooze] = reader.current.messages;
    expect(snooze?.card?.undo).toMatchObject({ kind: 'restore_reminder' });
    await reader.undo(snooze?.key ?? -1);
    expect(reader.current.messages[5]?.card?.undoState).toBe('undone');
    expect(files.files.get(reminderPath)).not.toContain('snoozed_until');
    await reader.undo(note?.key ?? -1);
    expect(reader.current.messages[1]?.card?.undoState).toBe('undone');
    expect(files.files.has(notePath)).toBe(false);
  });

  it('disables Undo on a reopened card whose file changed or is gone, with the reason', async () => {
    const writer = new ChatSession(engine(), conversations);
    await writer.send('note: Packing list\n- passport');
    const notePath = writer.current.messages[1]?.card?.path ?? '';
    await writer.send('remind me next Monday at 8 to call the bank');
    const reminderPath = writer.current.messages[3]?.card?.path ?? '';
    const path = writer.current.conversation ?? '';
    await files.process(notePath, (text) => `${text}- my own line\n`);
    await files.trash(reminderPath);

    const reader = new ChatSession(engine(), conversations);
    await reader.open(path);
    const [, note, , reminder] = reader.current.messages;
    expect(note?.card?.undoBlocked).toBe(`${notePath} changed since Cairn wrote it`);
    expect(reminder?.card?.undoBlocked).toBe(`${reminderPath} no longer exists`);
    await reader.undo(note?.key ?? -1);
    expect(files.files.get(notePath)).toContain('my own line');
    expect(reader.current.messages[1]?.card?.undoState).toBe('available');
  });

  it('checks the file again when Undo is pressed, not only when the chat was reopened', async () => {
    const writer = new ChatSession(engine(), conversations);
    await writer.send('note: Packing list\n- passport');
    const notePath = writer.current.messages[1]?.card?.path ?? '';
    const path = writer.current.conversation ?? '';
    const reader = new ChatSession(engine(), conversations);
    await reader.open(path);
    expect(reader.current.messages[1]?.card?.undoBlocked).toBeUndefined();
    await files.process(notePath, (text) => text.replace('passport', 'passport and visa'));
    await reader.undo(reader.current.messages[1]?.key ?? -1);
    expect(reader.current.messages[1]?.card?.undoBlocked).toBe(
      `${notePath} changed since Cairn wrote it`,
    );
    expect(files.files.has(notePath)).toBe(true);
  });

  it('names the file and line when a saved chat does not read, and a missing one', async () => {
    await files.create('Cairn/Chats/broken.md', '---\ntype: chat\nid: [\n---\n');
    const session = new ChatSession(engine(), conversations);
    await session.open('Cairn/Chats/broken.md');
    expect(session.current.notice).toMatch(/^Cairn\/Chats\/broken\.md.*not a readable chat/);
    await session.open('Cairn/Chats/gone.md');
    expect(session.current.notice).toBe('Cairn/Chats/gone.md no longer exists.');
    await session.refreshConversations();
    expect(session.current.conversationProblems.map((p) => p.path)).toEqual([
      'Cairn/Chats/broken.md',
    ]);
  });

  it('keeps composer history without repeats, bounded', async () => {
    const session = new ChatSession(engine(), conversations);
    await session.send('hello');
    await session.send('hello');
    await session.send('What is the visa fee?');
    expect(session.history).toEqual(['hello', 'What is the visa fee?']);
  });
});

describe('ChatSession with a backend that breaks', () => {
  it('shows a connection lost mid-answer as an error and keeps the text so far', async () => {
    const backend: ChatBackend = {
      async *send(): AsyncIterable<ChatEvent> {
        yield { type: 'token', text: 'The fee is' };
        throw new Error('companion closed the connection');
      },
      undo: () => Promise.reject(new Error('unreachable')),
    };
    const session = new ChatSession(backend);
    await session.send('What is the visa fee?');
    const reply = session.current.messages[1];
    expect(reply?.text).toBe('The fee is');
    expect(reply?.error).toEqual({
      code: 'UNAVAILABLE',
      message: 'the answer broke off: companion closed the connection',
    });
    expect(session.current.busy).toBe(false);
  });

  it('says so when a turn ends with nothing at all', async () => {
    const backend: ChatBackend = {
      async *send(): AsyncIterable<ChatEvent> {
        yield { type: 'done' };
      },
      undo: () => Promise.reject(new Error('unreachable')),
    };
    const session = new ChatSession(backend);
    await session.send('hi');
    expect(session.current.messages[1]?.text).toBe('_(No answer came back.)_');
  });

  it('shows a rejected undo as failed with the reason', async () => {
    const backend: ChatBackend = {
      async *send(): AsyncIterable<ChatEvent> {
        yield {
          type: 'tool',
          name: 'create_note',
          args: {},
          result: {
            success: true,
            data: {
              note: { id: 'n1', path: 'Notes/a.md', title: 'A' },
              undo: { kind: 'delete_note', id: 'n1', path: 'Notes/a.md' },
            },
          },
        };
        yield { type: 'done' };
      },
      undo: () => Promise.reject(new Error('vault is read-only')),
    };
    const session = new ChatSession(backend);
    await session.send('note: A');
    await session.undo(session.current.messages[1]?.key ?? -1);
    expect(session.current.messages[1]?.card).toMatchObject({
      undoState: 'failed',
      undoError: 'vault is read-only',
    });
  });

  it('writeCard ignores reads, failures and results without a path', () => {
    expect(
      writeCard('search', { success: true, data: { query: 'x', results: [] } }),
    ).toBeUndefined();
    expect(
      writeCard('create_note', { success: false, error: { code: 'CONFLICT', message: 'x' } }),
    ).toBeUndefined();
    expect(writeCard('create_note', { success: true, data: null })).toBeUndefined();
    expect(
      writeCard('append_to_note', {
        success: true,
        deduplicated: true,
        data: { path: 'N.md', title: 'N' },
      }),
    ).toMatchObject({ label: 'Appended to note', deduplicated: true, path: 'N.md' });
  });
});

describe('ChatSession with images', () => {
  const photo = { name: 'pasted-1.png', blob: new Blob(['png'], { type: 'image/png' }) };

  /** An image backend that answers every message with one token and records what it got. */
  function images(refusal?: string): ImageBackend & { got: Array<[string, number]> } {
    const got: Array<[string, number]> = [];
    return {
      got,
      refusal: () => refusal,
      async *send(message, sent) {
        got.push([message, sent.length]);
        yield { type: 'token', text: 'A receipt for $50.' };
        yield { type: 'done' };
      },
    };
  }

  it('sends a message with images to the image backend, not the engine; the message keeps them', async () => {
    const backend = images();
    const session = new ChatSession(engine(), conversations, undefined, backend);
    await session.send('  What is this?  ', [photo]);
    expect(backend.got).toEqual([['What is this?', 1]]);
    const [user, reply] = session.current.messages;
    expect(user).toMatchObject({ role: 'user', text: 'What is this?', images: [photo] });
    expect(reply?.text).toBe('A receipt for $50.');
    // Images alone are a message too; history keeps only text.
    await session.send('', [photo]);
    expect(backend.got[1]).toEqual(['', 1]);
    expect(session.history).toEqual(['What is this?']);
  });

  it('does not send images while refused (or without an image backend) and says what to set', async () => {
    const refusing = images('Offline mode only contacts this device…');
    const session = new ChatSession(engine(), conversations, undefined, refusing);
    await session.send('What is this?', [photo]);
    expect(refusing.got).toEqual([]);
    expect(session.current.messages).toEqual([]);
    expect(session.current.notice).toBe('Offline mode only contacts this device…');

    const without = new ChatSession(engine(), conversations);
    expect(without.imageRefusal()).toBe(NO_VISION_MODEL);
    await without.send('What is this?', [photo]);
    expect(without.current.messages).toEqual([]);
    expect(without.current.notice).toBe(
      'Images need a vision model: set Ollama vision model in Cairn settings.',
    );
  });
});
