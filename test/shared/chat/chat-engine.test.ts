import { beforeEach, describe, expect, it } from 'vitest';
import {
  ChatEngine,
  type AnswerData,
  type ChatEngineDeps,
  type ChatTurn,
  type UndoAction,
} from '../../../shared/chat/chat-engine';
import { routeMessage } from '../../../shared/chat/intent-router';
import {
  ChatPortError,
  type AnswerPhraser,
  type MemoryStore,
  type MessageRouter,
} from '../../../shared/chat/ports';
import type { MemoryItem } from '../../../shared/protocol/memories';
import { ChatEvent } from '../../../shared/protocol/chat';
import { checkSchema } from '../../../shared/protocol/validate';
import { ManualClock } from '../../fakes/clock';
import { FakeVault, reminderWriterOf } from './fake-chat-ports';

const ZONE = 'Europe/Berlin';
let clock: ManualClock;
let vault: FakeVault;

beforeEach(() => {
  clock = ManualClock.at('2026-11-22T09:30:00Z'); // Sunday 10:30 in Berlin
  vault = new FakeVault(clock);
});

function engine(extra: Partial<ChatEngineDeps> = {}): ChatEngine {
  return new ChatEngine({
    clock,
    zone: () => ZONE,
    notes: vault,
    reminderReader: vault,
    reminderWriter: reminderWriterOf(vault),
    searcher: vault,
    answerer: vault,
    ...extra,
  });
}

async function collect(stream: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of stream) events.push(event);
  assertProtocol(events);
  return events;
}

/** Every event matches the schema, and the order is token* tool? citations? (done|error). */
function assertProtocol(events: ChatEvent[]): void {
  for (const event of events)
    expect(checkSchema(ChatEvent, event).ok, JSON.stringify(event)).toBe(true);
  const order = events.map((event) => ORDER_LETTER[event.type]).join('');
  expect(order).toMatch(/^t*a?T?c?[de]$/);
}

const ORDER_LETTER = {
  token: 't',
  ask: 'a',
  tool: 'T',
  citations: 'c',
  done: 'd',
  error: 'e',
} as const;

function text(events: ChatEvent[]): string {
  return events.map((event) => (event.type === 'token' ? event.text : '')).join('');
}

function toolEvent(events: ChatEvent[]) {
  const event = events.find((e) => e.type === 'tool');
  if (event?.type !== 'tool') throw new Error(`no tool event in ${JSON.stringify(events)}`);
  return event;
}

function undoOf(events: ChatEvent[]): UndoAction {
  const result = toolEvent(events).result as { success: true; data: { undo: UndoAction } };
  return result.data.undo;
}

describe('ChatEngine: reminders', () => {
  it('reads a day-first date and says a rule in words (issue #26)', async () => {
    const dated = await collect(engine().send('remind me on 24.12. at 9 to water the tree'));
    expect(text(dated)).toBe('Reminder set: "Water the tree", Thu 24 Dec 2026, 09:00.');
    const weekly = await collect(engine().send('remind me every monday at 8 to stretch'));
    expect(text(weekly)).toBe(
      'Reminder set: "Stretch", every Monday at 08:00 (next: Mon 23 Nov 2026, 08:00).',
    );
    expect(text(weekly)).not.toMatch(/FREQ|BYDAY|BYHOUR/);
  });

  it('asks about an impossible date without repeating it, and writes nothing', async () => {
    const events = await collect(engine().send('remind me on 2026-02-30 at 9 to pay rent'));
    expect(text(events)).toBe(
      'That date does not exist: February 2026 has 28 days. On which day should I remind you to pay rent?',
    );
    expect(text(events)).not.toContain('30');
    expect(vault.writes).toBe(0);
  });

  it('a time that has passed today is the next such time, not the evening', async () => {
    const events = await collect(engine().send('remind me at 9 to call the bank'));
    expect(text(events)).toBe('Reminder set: "Call the bank", Mon 23 Nov 2026, 09:00.');
  });

  it('creates a reminder from a sentence and says when, in the user zone', async () => {
    const events = await collect(engine().send('remind me next Monday at 8 to call the bank'));
    expect(events.map((e) => e.type)).toEqual(['token', 'tool', 'done']);
    expect(text(events)).toBe('Reminder set: "Call the bank", Mon 23 Nov 2026, 08:00.');
    const tool = toolEvent(events);
    expect(tool).toMatchObject({
      name: 'create_reminder',
      args: { title: 'Call the bank', due: '2026-11-23T08:00', timezone: ZONE },
      result: {
        success: true,
        data: {
          reminder: { title: 'Call the bank', due: '2026-11-23T08:00:00+01:00', status: 'active' },
          undo: { kind: 'delete_reminder' },
        },
      },
    });
    expect(vault.reminders.size).toBe(1);
  });

  it('deduplicates the same reminder within 5 minutes, then writes again after', async () => {
    const chat = engine();
    await collect(chat.send('remind me next Monday at 8 to call the bank'));
    clock.advance(4 * 60_000);
    const again = await collect(chat.send('Remind me next monday at 8 to Call the Bank'));
    expect(toolEvent(again).result).toMatchObject({ success: true, deduplicated: true });
    expect(text(again)).toMatch(/a moment ago; here it is again/);
    expect(vault.writes).toBe(1);

    // A different due time is a different reminder.
    await collect(chat.send('remind me next Monday at 9 to call the bank'));
    expect(vault.writes).toBe(2);

    clock.advance(61_000); // 5:01 after the first
    const later = await collect(chat.send('remind me next Monday at 8 to call the bank'));
    expect(toolEvent(later).result).not.toHaveProperty('deduplicated');
    expect(vault.writes).toBe(3);
  });

  it('undo deletes the created reminder, and asking again then writes again', async () => {
    const chat = engine();
    const events = await collect(chat.send('remind me tomorrow 5pm dentist'));
    const undo = undoOf(events);
    expect(undo).toMatchObject({ kind: 'delete_reminder' });
    expect(await chat.undo(undo)).toMatchObject({
      success: true,
      data: { undone: 'delete_reminder' },
    });
    expect(vault.reminders.size).toBe(0);
    const again = await collect(chat.send('remind me tomorrow 5pm dentist'));
    expect(toolEvent(again).result).not.toHaveProperty('deduplicated');
    expect(vault.reminders.size).toBe(1);
  });

  it('snoozes a reminder named in words, and undo restores it', async () => {
    const bank = vault.addReminder('Call the bank', '2026-11-22T11:00');
    vault.addReminder('Water the plants', '2026-11-23T09:00');
    const chat = engine();
    const events = await collect(chat.send('snooze the bank reminder for an hour'));
    expect(toolEvent(events).result).toMatchObject({
      success: true,
      data: { reminder: { id: bank.id, snoozed_until: '2026-11-22T11:30:00+01:00' } },
    });
    expect(text(events)).toBe('Snoozed "Call the bank" until Sun 22 Nov 2026, 11:30.');
    await chat.undo(undoOf(events));
    expect(vault.reminders.get(bank.id)).toEqual(bank);
  });

  it('completes a reminder by its exact title or by its id', async () => {
    const bank = vault.addReminder('Call the bank', '2026-11-22T11:00');
    const events = await collect(engine().send('mark call the bank as done'));
    expect(text(events)).toBe('Marked "Call the bank" as done.');
    expect(vault.reminders.get(bank.id)?.status).toBe('done');
    const other = vault.addReminder('Pay rent', '2026-12-01T09:00');
    expect(await engine().execute('complete_reminder', { id: other.id })).toMatchObject({
      success: true,
      data: { reminder: { id: other.id, status: 'done' } },
    });
  });

  it('says which reminders a vague name matches (CONFLICT) or that none does (NOT_FOUND)', async () => {
    vault.addReminder('Call the bank', '2026-11-22T11:00');
    vault.addReminder('Bank transfer for rent', '2026-11-24T09:00');
    const ambiguous = await collect(engine().send('snooze the bank reminder'));
    expect(ambiguous.map((e) => e.type)).toEqual(['tool', 'error']);
    expect(ambiguous.at(-1)).toMatchObject({
      type: 'error',
      error: {
        code: 'CONFLICT',
        field: 'id',
        message:
          '"bank" matches 2 reminders: "Call the bank", "Bank transfer for rent"; name the one you mean',
      },
    });
    const none = await collect(engine().send('mark the dentist reminder as done'));
    expect(none.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'NOT_FOUND', message: 'no active reminder matches "dentist"' },
    });
  });

  it('lists reminders of a range with their times', async () => {
    vault.addReminder('Call the bank', '2026-11-23T08:00');
    vault.addReminder('Pay rent', '2026-12-01T09:00');
    const events = await collect(engine().send("what's due this week?"));
    expect(text(events)).toBe(
      '1 reminder from 2026-11-22 to 2026-11-29:\n- Call the bank: Mon 23 Nov 2026, 08:00',
    );
    const none = await collect(engine().send('what do I have due today?'));
    expect(text(none)).toBe('No reminders on 2026-11-22.');
  });

  it('refuses what an LLM may propose but the rules never would: past due, bad zone, bad rule', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ title: 'x', due: '2026-11-22T08:00' }, 'due', /is in the past/],
      [{ title: 'x', due: '2026-02-30T08:00' }, 'due', /has no day 30/],
      [{ title: 'x', due: '2026-11-23T08:00:30' }, 'due', /seconds must be 00/],
      [{ title: 'x', due: '2026-11-23T08:00', timezone: 'Mars/Base' }, 'timezone', /not an IANA/],
      [{ title: 'x', due: '2026-11-23T08:00', repeat: 'FREQ=WEEKLY;BYDAY=XX' }, 'repeat', /BYDAY/],
    ];
    for (const [args, field, message] of cases) {
      const result = await engine().execute('create_reminder', args);
      expect(result, JSON.stringify(args)).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', field },
      });
      if (!result.success) expect(result.error.message).toMatch(message);
    }
    expect(vault.writes).toBe(0);
    // With an offset, the instant is taken as written.
    expect(
      await engine().execute('create_reminder', { title: 'x', due: '2026-11-23T08:00:00+0100' }),
    ).toMatchObject({ success: true });
  });
});

describe('ChatEngine: notes', () => {
  it('creates a note, deduplicates the same note for 5 minutes, undo deletes it', async () => {
    const chat = engine();
    const events = await collect(chat.send('note: the spare key is under the pot #home'));
    expect(toolEvent(events)).toMatchObject({
      name: 'create_note',
      args: { title: 'The spare key is under the pot', tags: ['home'] },
      result: {
        success: true,
        data: { note: { path: 'Notes/the-spare-key-is-under-the-pot.md' } },
      },
    });
    const again = await collect(chat.send('note: the spare key is under the pot #home'));
    expect(toolEvent(again).result).toMatchObject({ deduplicated: true });
    expect(vault.notes.size).toBe(1);
    // Same title, different tags: not the same note, so it is written (nothing swallowed).
    const other = await collect(chat.send('note: the spare key is under the pot'));
    expect(toolEvent(other).result).not.toHaveProperty('deduplicated');
    expect(vault.notes.size).toBe(2);
    await chat.undo(undoOf(other));

    expect(await chat.undo(undoOf(events))).toMatchObject({ success: true });
    expect(vault.notes.size).toBe(0);
    // Undoing twice reports the file is gone instead of pretending.
    expect(await chat.undo(undoOf(events))).toMatchObject({
      success: false,
      error: { code: 'NOT_FOUND' },
    });
  });

  it('appends list items to a note found by title, and undo removes exactly them', async () => {
    const list = vault.addNote('Shopping list', '- bread\n');
    const chat = engine();
    const events = await collect(chat.send('add milk, eggs to my shopping list'));
    expect(text(events)).toBe('Added to "Shopping list".');
    expect(list.body).toBe('- bread\n- milk\n- eggs\n');
    await chat.undo(undoOf(events));
    expect(list.body).toBe('- bread\n');
  });

  it('reports a missing target note as NOT_FOUND naming the note', async () => {
    const events = await collect(engine().send('add to my packing list: passport'));
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'NOT_FOUND', message: 'no note named "packing list"', field: 'note' },
    });
  });
});

describe('ChatEngine: search and answers', () => {
  beforeEach(() => {
    vault.addNote('Visa rules', 'The visa fee is $50 for standard processing.\nValid 90 days.');
    vault.addNote('Taxes 2025', 'Tax return due on 31 July.');
  });

  it('search answers with results as text and citations', async () => {
    const events = await collect(engine().send('search for visa'));
    expect(events.map((e) => e.type)).toEqual(['token', 'tool', 'citations', 'done']);
    expect(text(events)).toBe('1 result for "visa":\n1. Visa rules (Notes/visa-rules.md)');
    expect(events[2]).toMatchObject({ citations: [{ path: 'Notes/visa-rules.md' }] });
  });

  it('answers extractively with citations when no LLM is configured', async () => {
    const events = await collect(engine().send('what is the visa fee?'));
    expect(text(events)).toBe('> The visa fee is $50 for standard processing. [1]');
    expect(events.find((e) => e.type === 'citations')).toMatchObject({
      citations: [{ title: 'Visa rules' }],
    });
  });

  it('says it found nothing rather than answering without a citation', async () => {
    const events = await collect(engine().send('who is my dentist?'));
    expect(text(events)).toMatch(/found nothing in the vault/);
    expect(events.some((e) => e.type === 'citations')).toBe(false);
  });

  it('streams an LLM phrasing, dropping markers that cite no passage', async () => {
    const phraser: AnswerPhraser = {
      async *phrase({ passages }) {
        expect(passages).toHaveLength(1);
        yield* ['The fee ', 'is $50 [', '1]', ' (not [', '7]). See [link].'];
      },
    };
    const events = await collect(engine({ phraser }).send('what is the visa fee?'));
    // "See [link]." is a sentence of its own that passage 1 does not back: marked, not dropped.
    expect(text(events)).toMatch(
      /^The fee is \$50 \[1\] \(not \)\. See \[link\]\. ⚠ _\(unsupported: cites no passage, and none supports it .*\)_$/,
    );
    expect(events.filter((e) => e.type === 'token').length).toBeGreaterThan(1);
  });

  it('cites the passage that supports a phrasing without markers', async () => {
    const phraser: AnswerPhraser = {
      async *phrase() {
        yield 'It costs fifty dollars.';
      },
    };
    const events = await collect(engine({ phraser }).send('what is the visa fee?'));
    expect(text(events)).toBe('It costs fifty dollars. [1]');
  });

  it('lists the passages as sources when the phrasing cites none and states nothing', async () => {
    const phraser: AnswerPhraser = {
      async *phrase() {
        yield 'Here is what I found:';
      },
    };
    const events = await collect(engine({ phraser }).send('what is the visa fee?'));
    expect(text(events)).toBe('Here is what I found:\n\nSources: [1]');
  });

  it('marks a claim its passage does not support and audits every claim', async () => {
    const phraser: AnswerPhraser = {
      async *phrase() {
        yield* ['The visa fee is $50 [1]. ', 'It is valid for 120 days [1].'];
      },
    };
    const events = await collect(engine({ phraser }).send('what is the visa fee?'));
    expect(text(events)).toBe(
      'The visa fee is $50 [1]. It is valid for 120 days [1]. ⚠ _(unsupported: “120” is not in passage 1)_',
    );
    const tool = events.find((e) => e.type === 'tool');
    const audit = (tool?.result as { data: AnswerData }).data.audit;
    expect(audit?.claims.map((c) => [c.text, c.citations, c.supported])).toEqual([
      ['The visa fee is $50.', [1], true],
      ['It is valid for 120 days.', [1], false],
    ]);
    expect(audit?.retrieved).toHaveLength(1);
    expect(audit?.used.map((c) => c.title)).toEqual(['Visa rules']);
  });

  it('falls back to the extractive answer when the LLM fails before saying anything', async () => {
    const phraser: AnswerPhraser = {
      // eslint-disable-next-line require-yield
      async *phrase() {
        throw new Error('connect ECONNREFUSED 127.0.0.1:11434');
      },
    };
    const events = await collect(engine({ phraser }).send('what is the visa fee?'));
    expect(text(events)).toBe(
      '_(The model could not phrase an answer: connect ECONNREFUSED 127.0.0.1:11434. The passages:)_\n\n> The visa fee is $50 for standard processing. [1]',
    );
    expect(events.at(-1)).toEqual({ type: 'done' });
  });

  it('says so when the LLM stops midway, and keeps the citations', async () => {
    const phraser: AnswerPhraser = {
      async *phrase() {
        yield 'The fee is [1]';
        throw new Error('socket hang up');
      },
    };
    const events = await collect(engine({ phraser }).send('what is the visa fee?'));
    expect(text(events)).toBe('The fee is [1]\n\n_(The model stopped: socket hang up.)_');
    expect(events.some((e) => e.type === 'citations')).toBe(true);
  });

  it('stays extractive when summarize is off', async () => {
    const phraser: AnswerPhraser = {
      async *phrase() {
        yield 'phrased';
      },
    };
    const events = await collect(
      engine({ phraser }).send('what is the visa fee?', { summarize: false }),
    );
    expect(text(events)).not.toContain('phrased');
  });
});

describe('ChatEngine: failures and routing', () => {
  it('maps port failures to tool error codes', async () => {
    vault.failNext = {
      method: 'search',
      error: new ChatPortError('UNAVAILABLE', 'the index is still building'),
    };
    const unavailable = await collect(engine().send('search for visa'));
    expect(unavailable.at(-1)).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE' } });
    expect(toolEvent(unavailable).result).toEqual({
      success: false,
      error: { code: 'UNAVAILABLE', message: 'the index is still building' },
    });

    vault.failNext = { method: 'createReminder', error: new TypeError('disk full') };
    const internal = await collect(engine().send('remind me tomorrow 5pm dentist'));
    expect(internal.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'INTERNAL_ERROR', message: 'create_reminder failed: disk full' },
    });
  });

  it('ends in an error event, not an exception, when the zone setting cannot be read', async () => {
    const chat = engine({
      zone: () => {
        throw new Error('settings not loaded');
      },
    });
    expect(await collect(chat.send('hi'))).toEqual([
      {
        type: 'error',
        error: {
          code: 'INTERNAL_ERROR',
          message: 'reading the clock and time zone failed: settings not loaded',
        },
      },
    ]);
  });

  it('answers bad input with one error event and runs nothing', async () => {
    for (const message of ['', '  ', 'x'.repeat(9000), 'search \u0007bell']) {
      const events = await collect(engine().send(message));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'error',
        error: { code: 'VALIDATION_ERROR', field: 'message' },
      });
    }
    expect(vault.writes).toBe(0);
  });

  it('replies in plain text to small talk and to a reminder with no time', async () => {
    const hello = await collect(engine().send('hello'));
    expect(hello.map((e) => e.type)).toEqual(['token', 'done']);
    const noTime = await collect(engine().send('remind me to call mom'));
    expect(text(noTime)).toMatch(/When should I remind you to call mom\?/);
    expect(vault.writes).toBe(0);
  });

  it('uses an LLM router when given, and the rules with the reason shown when it throws', async () => {
    const llm: MessageRouter = {
      route: async () => ({
        kind: 'tool',
        call: { name: 'search', args: { query: 'visa' } },
        rule: 'search',
        via: 'llm',
      }),
    };
    const viaLlm = await collect(engine({ router: llm }).send('anything about the visa'));
    expect(toolEvent(viaLlm).args).toEqual({ query: 'visa' });

    const broken: MessageRouter = {
      route: async () => {
        throw new Error('boom');
      },
    };
    const fallback = await collect(
      engine({ router: broken }).send('remind me tomorrow 5pm dentist'),
    );
    expect(text(fallback)).toMatch(
      /^_\(the model router failed \(boom\); used the built-in rules\.\)_/,
    );
    expect(toolEvent(fallback).name).toBe('create_reminder');

    const withReason: MessageRouter = {
      route: async (message, context) => ({
        ...routeMessage(message, context),
        via: 'rules',
        fallbackReason: 'the model proposed an unknown tool "delete_vault"',
      }),
    };
    const shown = await collect(engine({ router: withReason }).send('hello'));
    expect(text(shown)).toMatch(/unknown tool "delete_vault"; used the built-in rules/);
  });

  it('execute() checks arguments like any other caller', async () => {
    expect(await engine().execute('create_note', { title: 'x' })).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', field: 'body' },
    });
    expect(await engine().execute('rm_rf', {})).toMatchObject({
      success: false,
      error: { field: 'name' },
    });
  });

  it('undo rejects an unknown action', async () => {
    const result = await engine().undo({ kind: 'format_disk' } as unknown as UndoAction);
    expect(result).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', field: 'kind' },
    });
  });
});

describe('ChatEngine: conversations', () => {
  it('records each turn and names the conversation in done; a failing sink costs nothing', async () => {
    const turns: Array<[string | undefined, ChatTurn]> = [];
    const conversations = {
      record: async (conversation: string | undefined, turn: ChatTurn) => {
        turns.push([conversation, turn]);
        return conversation ?? 'Cairn/Chats/2026-11-22 visa.md';
      },
    };
    vault.addNote('Visa rules', 'The visa fee is $50.');
    const events = await collect(engine({ conversations }).send('what is the visa fee?'));
    expect(events.at(-1)).toEqual({ type: 'done', conversation: 'Cairn/Chats/2026-11-22 visa.md' });
    expect(turns[0]).toEqual([
      undefined,
      expect.objectContaining({
        at: Date.parse('2026-11-22T09:30:00Z'),
        user: 'what is the visa fee?',
        assistant: '> The visa fee is $50. [1]',
        tool: 'answer',
        citations: [expect.objectContaining({ path: 'Notes/visa-rules.md' })],
      }),
    ]);

    const failing = { record: async () => Promise.reject(new Error('vault is read-only')) };
    const stillDone = await collect(engine({ conversations: failing }).send('hi'));
    expect(stillDone.at(-1)).toEqual({ type: 'done' });
  });
});

describe('ChatEngine: memories in answers', () => {
  const passport: MemoryItem = {
    id: 'm-7k2p',
    text: 'my passport expires 2032-05',
    added: '2026-11-20',
    path: 'Cairn/Memory.md',
    line: 6,
    category: 'uncategorized',
    category_source: 'tag',
  };
  const memories: MemoryStore = {
    list: () => Promise.resolve([passport]),
    remember: () => Promise.reject(new Error('not in this test')),
    forget: () => Promise.reject(new Error('not in this test')),
  };

  it('lists a remembered fact once: the memory file is not quoted again under the notes', async () => {
    // The memory file is an indexed note too, so retrieval finds the same fact there.
    vault.addNote('Memory', 'my passport expires 2032-05', 'Cairn/Memory.md');
    vault.addNote('Travel', 'Renew the passport before the Lisbon trip', 'Travel/Lisbon.md');
    const events = await collect(engine({ memories }).send('when does my passport expire?'));
    const answer = text(events);
    expect(answer.match(/my passport expires 2032-05/g)).toHaveLength(1);
    expect(answer).toContain('From your notes:\n> Renew the passport before the Lisbon trip [2]');
    const citations = events.flatMap((event) =>
      event.type === 'citations' ? event.citations : [],
    );
    expect(citations.map((citation) => citation.path)).toEqual([
      'Cairn/Memory.md',
      'Travel/Lisbon.md',
    ]);
  });
});
