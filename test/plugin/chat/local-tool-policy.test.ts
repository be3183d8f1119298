import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LocalToolPolicy,
  localChatBackend,
  localDefaultPermission,
  localToolListing,
  setLocalTool,
} from '../../../plugin/chat/local-tool-policy';
import { ChatSession } from '../../../plugin/chat/chat-session';
import { describeLocalTool } from '../../../plugin/settings/tool-settings';
import { VaultConversations } from '../../../plugin/chat/vault-conversations';
import { VaultMemories } from '../../../plugin/chat/vault-memories';
import { VaultNoteWriter } from '../../../plugin/notes/vault-note-writer';
import { VaultReminders } from '../../../plugin/reminders/stores/vault-reminders';
import { ChatEngine } from '../../../shared/chat/chat-engine';
import { ExtractiveAnswerer } from '../../../shared/chat/extractive-answerer';
import { OllamaRouter } from '../../../shared/chat/ollama-router';
import type { MessageRouter, Searcher } from '../../../shared/chat/ports';
import { ChatEvent } from '../../../shared/protocol/chat';
import type { ToolAsk } from '../../../shared/protocol/tools';
import { checkSchema } from '../../../shared/protocol/validate';
import { defaultSettings } from '../../../shared/settings/cairn-settings';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import { loadSettings } from '../../../shared/settings/load-settings';
import { ManualClock, ManualTimers } from '../../fakes/clock';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { NodeOllamaHttp } from '../../shared/chat/node-ollama-http';
import { countingBytes, MemoryVaultFiles } from './memory-vault-files';

/*
 * The plugin's own chat (the pane's, not the companion's) through the tool gate
 * (docs/tools.md): the engine as chat-services.ts builds it, over the plugin's vault writers in
 * memory, routed by the fake Ollama's tool calls or by the rules, with LocalToolPolicy reading
 * the plugin's settings. Asks expire on an injected clock.
 */

const ZONE = 'Europe/Berlin';
const http = new NodeOllamaHttp();
let ollama: FakeOllamaServer;
let clock: ManualClock;
let timers: ManualTimers;
let files: MemoryVaultFiles;
let settings: CairnSettings;
let policy: LocalToolPolicy;

const searcher: Searcher = { search: () => Promise.resolve([]) };

beforeEach(async () => {
  ollama = await FakeOllamaServer.start();
  clock = ManualClock.at('2026-11-22T09:30:00Z');
  timers = new ManualTimers(clock);
  files = new MemoryVaultFiles();
  settings = defaultSettings(ZONE);
  policy = new LocalToolPolicy({
    settings: () => settings,
    clock,
    schedule: timers.schedule,
    randomBytes: countingBytes(),
  });
});

afterEach(async () => {
  policy.close();
  await ollama.close();
});

function ollamaRouter(): MessageRouter {
  return new OllamaRouter({ http, baseUrl: `${ollama.url}/`, model: 'llama3.2' });
}

/** The engine as chat-services.ts builds it; `router` undefined: the rules route. */
function engine(router?: MessageRouter): ChatEngine {
  const reminders = new VaultReminders({
    files,
    clock,
    zone: () => ZONE,
    remindersFolder: () => settings.folders.reminders,
    randomBytes: countingBytes(),
  });
  return new ChatEngine({
    clock,
    zone: () => ZONE,
    notes: new VaultNoteWriter({
      files,
      clock,
      zone: () => ZONE,
      notesFolder: () => settings.folders.notes,
      randomBytes: countingBytes(),
    }),
    reminderReader: reminders,
    reminderWriter: reminders,
    searcher,
    answerer: new ExtractiveAnswerer(searcher),
    memories: new VaultMemories({ files, clock, zone: () => ZONE }),
    conversations: new VaultConversations({
      files,
      folder: () => settings.folders.chats,
      zone: () => ZONE,
      randomBytes: countingBytes(),
    }),
    ...(router === undefined ? {} : { router }),
    policy,
  });
}

function modelCalls(name: string, args: Record<string, unknown>, content = ''): void {
  ollama.chatReply = { content, toolCalls: [{ function: { name, arguments: args } }] };
}

/** Runs a turn to its end; `onAsk` answers (or lets expire) the ask when one comes. */
async function turn(
  chat: ChatEngine,
  message: string,
  onAsk?: (ask: ToolAsk) => void,
  conversation?: string,
): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  const options = conversation === undefined ? {} : { conversation };
  for await (const event of chat.send(message, options)) {
    expect(checkSchema(ChatEvent, event).ok, JSON.stringify(event)).toBe(true);
    events.push(event);
    if (event.type === 'ask') {
      if (onAsk === undefined) throw new Error('an ask nobody expected');
      onAsk(event.ask);
    }
  }
  return events;
}

const errorOf = (events: ChatEvent[]) => {
  const last = events.at(-1);
  return last?.type === 'error' ? last.error : undefined;
};
const notes = () => [...files.files.keys()].filter((path) => path.startsWith('Cairn/Notes/'));

describe('the plugin chat engine through the tool gate, routed by the fake Ollama', () => {
  it('allow: a read and a write run at once, and each run is logged without content', async () => {
    const chat = engine(ollamaRouter());
    modelCalls('create_note', { title: 'Rope', body: 'buy 30 m of rope' });
    const events = await turn(chat, 'note that I need rope');
    expect(events.some((event) => event.type === 'ask')).toBe(false);
    expect(events.at(-1)?.type).toBe('done');
    expect(notes()).toHaveLength(1);

    modelCalls('recall', { query: 'rope' });
    await turn(chat, 'what do you know about rope?');
    const runs = policy.runs();
    expect(runs.map((run) => [run.tool, run.source, run.outcome])).toEqual([
      ['create_note', 'cairn', 'ok'],
      ['recall', 'cairn', 'ok'],
    ]);
    expect(JSON.stringify(runs)).not.toMatch(/rope/i);
  });

  it('ask, allowed once: the turn waits for the answer, then writes', async () => {
    setLocalTool(settings, 'create_note', { permission: 'ask' });
    const chat = engine(ollamaRouter());
    modelCalls(
      'create_note',
      { title: 'Rope', body: 'buy 30 m of rope' },
      'I will keep that as a note.',
    );
    let seen: ToolAsk | undefined;
    const events = await turn(chat, 'note that I need rope', (ask) => {
      seen = ask;
      // Nothing is written while the ask is open.
      expect(notes()).toEqual([]);
      policy.answer(ask.id, 'allow_once');
    });
    expect(seen).toMatchObject({
      tool: 'create_note',
      source: 'cairn',
      danger: 'medium',
      args: { title: 'Rope', body: 'buy 30 m of rope' },
      reason: 'I will keep that as a note.',
      expires_at: '2026-11-22T09:32:00.000Z',
    });
    expect(seen?.id).toMatch(/^ask-[A-Za-z0-9_-]{12}$/);
    expect(events.at(-1)?.type).toBe('done');
    expect(notes()).toHaveLength(1);
    expect(timers.size).toBe(0);
  });

  it('ask, allowed for this conversation: later turns of that chat do not ask, others do', async () => {
    setLocalTool(settings, 'create_note', { permission: 'ask' });
    const chat = engine(ollamaRouter());
    modelCalls('recall', { query: 'rope' });
    const opened = (await turn(chat, 'what do you know about rope?')).at(-1);
    if (opened?.type !== 'done' || opened.conversation === undefined) throw new Error('not saved');
    const done = { conversation: opened.conversation };
    modelCalls('create_note', { title: 'Rope', body: 'buy rope' });
    await turn(
      chat,
      'note: rope',
      (ask) => {
        expect(ask.conversation).toBe(done.conversation);
        policy.answer(ask.id, 'allow_conversation');
      },
      done.conversation,
    );

    modelCalls('create_note', { title: 'Tent', body: 'buy a tent' });
    const again = await turn(chat, 'note: tent', undefined, done.conversation);
    expect(again.at(-1)?.type).toBe('done');

    modelCalls('create_note', { title: 'Stove', body: 'buy a stove' });
    let asked = false;
    await turn(chat, 'note: stove', (ask) => {
      asked = true;
      policy.answer(ask.id, 'deny');
    });
    expect(asked).toBe(true);
    expect(notes()).toHaveLength(2);
  });

  it('ask, denied: nothing is written and the chat says so', async () => {
    setLocalTool(settings, 'create_reminder', { permission: 'ask' });
    const chat = engine(ollamaRouter());
    modelCalls('create_reminder', { title: 'Call mum', due: '2026-11-23T17:00' });
    const events = await turn(chat, 'remind me to call mum tomorrow at 5', (ask) =>
      policy.answer(ask.id, 'deny'),
    );
    expect(errorOf(events)).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'ask_denied',
      message: 'you declined to run create_reminder',
    });
    expect([...files.files.keys()].filter((path) => path.startsWith('Cairn/Reminders/'))).toEqual(
      [],
    );
    expect(policy.runs().at(-1)).toMatchObject({ outcome: 'refused', reason: 'ask_denied' });
  });

  it('ask, unanswered: after two minutes on the injected clock it expires and is refused', async () => {
    setLocalTool(settings, 'append_to_note', { permission: 'ask' });
    files.files.set('Cairn/Notes/Packing.md', '# Packing\n');
    const chat = engine(ollamaRouter());
    modelCalls('append_to_note', { note: 'Packing', text: '- rope' });
    const events = await turn(chat, 'add rope to my packing list', () => {
      timers.advance(119_999);
      expect(policy.asks.list()).toHaveLength(1);
      timers.advance(1);
    });
    expect(errorOf(events)).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'ask_expired',
      message: 'nobody answered the request to run append_to_note in time, so it did not run',
    });
    expect(files.files.get('Cairn/Notes/Packing.md')).toBe('# Packing\n');
    // Answering it now is too late.
    expect(() => policy.answer('ask-late', 'allow_once')).toThrow(/no pending ask/);
  });

  it('deny: refused with a sentence naming the tool and where to change it', async () => {
    setLocalTool(settings, 'create_note', { permission: 'deny' });
    const chat = engine(ollamaRouter());
    modelCalls('create_note', { title: 'Rope', body: 'buy rope' });
    const events = await turn(chat, 'note that I need rope');
    expect(errorOf(events)).toMatchObject({
      code: 'FORBIDDEN',
      reason: 'permission_denied',
      message:
        'create_note is not permitted (permission: deny); change that in Cairn’s settings, under “Tools this device’s chat may use”',
    });
    expect(notes()).toEqual([]);
  });

  it('a tool switched off is refused, naming where to switch it on', async () => {
    setLocalTool(settings, 'recall', { enabled: false });
    const chat = engine(ollamaRouter());
    modelCalls('recall', { query: 'rope' });
    const events = await turn(chat, 'what do you know about rope?');
    expect(errorOf(events)).toMatchObject({
      reason: 'tool_disabled',
      message:
        'recall is switched off; switch it on in Cairn’s settings, under “Tools this device’s chat may use”',
    });
  });

  it('offline mode: Cairn’s own tools need no internet, so they run; permissions still apply', async () => {
    settings.privacy.offlineMode = true;
    expect(policy.offline()).toBe(true);
    const chat = engine(ollamaRouter());
    modelCalls('create_note', { title: 'Rope', body: 'buy rope' });
    expect((await turn(chat, 'note: rope')).at(-1)?.type).toBe('done');

    setLocalTool(settings, 'create_note', { permission: 'deny' });
    modelCalls('create_note', { title: 'Tent', body: 'buy a tent' });
    expect(errorOf(await turn(chat, 'note: tent'))?.reason).toBe('permission_denied');
    expect(policy.runs().map((run) => run.reason)).toEqual([undefined, 'permission_denied']);

    settings.privacy.offlineMode = false;
    expect(policy.offline()).toBe(false);
  });
});

describe('the plugin chat without an LLM: the rules pick the tool, permissions apply', () => {
  it('allow by default; deny refuses with the sentence; ask waits for the pane', async () => {
    const chat = engine();
    expect((await turn(chat, 'note: buy rope')).at(-1)?.type).toBe('done');
    expect(notes()).toHaveLength(1);

    setLocalTool(settings, 'create_note', { permission: 'deny' });
    const denied = await turn(chat, 'note: buy a tent');
    expect(errorOf(denied)?.message).toMatch(
      /^create_note is not permitted .*“Tools this device’s chat may use”$/,
    );

    setLocalTool(settings, 'create_note', { permission: 'ask' });
    let reason = '';
    await turn(chat, 'note: buy a stove', (ask) => {
      reason = ask.reason;
      policy.answer(ask.id, 'allow_once');
    });
    expect(reason).toBe('You asked: “note: buy a stove”');
    expect(notes()).toHaveLength(2);
  });

  it('the pane’s session answers the ask through the local backend', async () => {
    setLocalTool(settings, 'create_note', { permission: 'ask' });
    const session = new ChatSession(localChatBackend(engine(), policy));
    const sent = session.send('note: buy rope');
    await until(() => session.current.messages.some((m) => m.ask?.state === 'pending'));
    const reply = session.current.messages.find((m) => m.ask !== undefined);
    expect(reply?.ask?.ask.tool).toBe('create_note');
    await session.answerAsk(reply?.key ?? -1, 'allow_once');
    await sent;
    const last = session.current.messages.at(-1);
    expect(last?.ask?.state).toBe('answered');
    expect(last?.card?.label).toBe('Note created');
    expect(last?.text).toBe('Created the note "Buy rope".');
    session.dispose();
  });

  it('Allow for this conversation in a new chat’s first turn belongs to that chat, not the session', async () => {
    setLocalTool(settings, 'create_note', { permission: 'ask' });
    const backend = localChatBackend(engine(), policy);
    const run = async (message: string, conversation?: string, decision?: 'allow_conversation') => {
      const events: ChatEvent[] = [];
      let asked = false;
      const options = conversation === undefined ? {} : { conversation };
      for await (const event of backend.send(message, options)) {
        events.push(event);
        if (event.type !== 'ask') continue;
        asked = true;
        await backend.answerAsk?.(event.ask.id, decision ?? 'allow_once');
      }
      const last = events.at(-1);
      return { asked, conversation: last?.type === 'done' ? last.conversation : undefined };
    };
    const first = await run('note: buy rope', undefined, 'allow_conversation');
    expect(first.asked).toBe(true);
    expect(first.conversation).toMatch(/^Cairn\/Chats\//);
    expect((await run('note: buy a tent', first.conversation)).asked).toBe(false);
    // Another new chat asks again: the rule was not kept for the whole session.
    expect((await run('note: buy a stove')).asked).toBe(true);
    expect(notes()).toHaveLength(3);
  });

  it('an ask left open when the session stops expires at close, and the turn is refused', async () => {
    setLocalTool(settings, 'create_note', { permission: 'ask' });
    const chat = engine();
    const events = await turn(chat, 'note: buy rope', () => policy.close());
    expect(errorOf(events)?.reason).toBe('ask_expired');
    expect(notes()).toEqual([]);
  });
});

describe('the local tool settings', () => {
  it('defaults: reads and undoable writes allowed, anything Cairn cannot undo asks', () => {
    expect(localDefaultPermission('low')).toBe('allow');
    expect(localDefaultPermission('medium')).toBe('allow');
    expect(localDefaultPermission('high')).toBe('ask');
    const listing = localToolListing(settings);
    expect(listing.find((tool) => tool.name === 'search')).toMatchObject({
      danger: 'low',
      enabled: true,
      permission: 'allow',
      isDefault: true,
      alwaysAsks: false,
    });
    expect(listing.find((tool) => tool.name === 'create_note')).toMatchObject({
      danger: 'medium',
      permission: 'allow',
    });
    const search = listing.find((tool) => tool.name === 'search');
    if (search === undefined) throw new Error('search not listed');
    expect(describeLocalTool(search)).toBe('Reads only · Default');
    setLocalTool(settings, 'search', { permission: 'ask' });
    const changed = localToolListing(settings).find((tool) => tool.name === 'search');
    if (changed === undefined) throw new Error('search not listed');
    expect(describeLocalTool(changed)).toBe('Reads only');
    expect(changed.permission).toBe('ask');
    // A high tool asks even when allowed (none of Cairn's own is high today).
    expect(
      describeLocalTool({ ...changed, danger: 'high', alwaysAsks: true, isDefault: false }),
    ).toBe('Can change things Cairn cannot undo · Asks every time, even when allowed');
  });

  it('a change survives data.json and a bad entry is named and dropped', () => {
    setLocalTool(settings, 'create_note', { permission: 'ask', enabled: false });
    setLocalTool(settings, 'create_note', { enabled: true });
    setLocalTool(settings, 'forget', { enabled: false });
    const stored = JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
    const loaded = loadSettings(stored, ZONE);
    expect(loaded.problems).toEqual([]);
    expect(loaded.settings.chatTools).toEqual({
      permissions: { create_note: 'ask' },
      disabled: ['forget'],
    });
    const bad = loadSettings(
      { ...stored, chatTools: { permissions: { create_note: 'sometimes', search: 'deny' } } },
      ZONE,
    );
    expect(bad.settings.chatTools.permissions).toEqual({ search: 'deny' });
    expect(bad.problems).toEqual([
      {
        field: 'chatTools.permissions.create_note',
        message:
          'expected one of "allow", "ask", "deny", found text "sometimes"; using the default',
      },
    ]);
  });

  it('a session rule and a conversation rule come before the setting', () => {
    const tool = policy.descriptor('create_note');
    if (tool === undefined) throw new Error('create_note unknown');
    setLocalTool(settings, 'create_note', { permission: 'deny' });
    policy.setSessionPermission('create_note', 'ask');
    policy.allowForConversation('create_note', 'Cairn/Chats/a.md');
    expect(policy.permission(tool, {})).toBe('ask');
    expect(policy.permission(tool, { conversation: 'Cairn/Chats/a.md' })).toBe('allow');
    expect(policy.permission(tool, { conversation: 'Cairn/Chats/b.md' })).toBe('ask');
    expect(policy.descriptor('read_note')).toBeUndefined();
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}
