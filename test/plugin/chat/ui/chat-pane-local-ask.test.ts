import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatServicesSlot, ChatSession } from '../../../../plugin/chat/chat-session';
import type { ChatPaneServices } from '../../../../plugin/chat/chat-session';
import {
  LocalToolPolicy,
  localChatBackend,
  setLocalTool,
} from '../../../../plugin/chat/local-tool-policy';
import { VaultNoteWriter } from '../../../../plugin/notes/vault-note-writer';
import { VaultReminders } from '../../../../plugin/reminders/stores/vault-reminders';
import type { ReadableConnection } from '../../../../plugin/connection/connection-monitor';
import ChatPane from '../../../../plugin/chat/ui/ChatPane.svelte';
import { ChatEngine } from '../../../../shared/chat/chat-engine';
import { ExtractiveAnswerer } from '../../../../shared/chat/extractive-answerer';
import type { Searcher } from '../../../../shared/chat/ports';
import { defaultSettings } from '../../../../shared/settings/cairn-settings';
import type { CairnSettings } from '../../../../shared/settings/cairn-settings';
import { ManualClock, ManualTimers } from '../../../fakes/clock';
import { countingBytes, MemoryVaultFiles } from '../memory-vault-files';

/*
 * The ask card of the plugin's own chat (docs/tools.md): the pane over the real ChatSession,
 * the plugin's engine (rules routing, no LLM) and LocalToolPolicy, with `create_note` set to
 * "ask" in the plugin's settings. The card appears with the exact call; its buttons answer the
 * policy, and the turn goes on (or is refused) in the pane.
 */

const ZONE = 'Europe/Berlin';
const connection: ReadableConnection = {
  subscribe: (listener) => {
    listener({ kind: 'not-configured' });
    return () => {};
  },
};

let clock: ManualClock;
let timers: ManualTimers;
let files: MemoryVaultFiles;
let settings: CairnSettings;
let policy: LocalToolPolicy;

beforeEach(() => {
  clock = ManualClock.at('2026-11-22T09:30:00Z');
  timers = new ManualTimers(clock);
  files = new MemoryVaultFiles();
  settings = defaultSettings(ZONE);
  setLocalTool(settings, 'create_note', { permission: 'ask' });
  policy = new LocalToolPolicy({
    settings: () => settings,
    clock,
    schedule: timers.schedule,
    randomBytes: countingBytes(),
  });
});

afterEach(() => {
  cleanup();
  policy.close();
});

function setUp() {
  const searcher: Searcher = { search: () => Promise.resolve([]) };
  const reminders = new VaultReminders({
    files,
    clock,
    zone: () => ZONE,
    remindersFolder: () => 'Cairn/Reminders',
    randomBytes: countingBytes(),
  });
  const engine = new ChatEngine({
    clock,
    zone: () => ZONE,
    notes: new VaultNoteWriter({
      files,
      clock,
      zone: () => ZONE,
      notesFolder: () => 'Cairn/Notes',
      randomBytes: countingBytes(),
    }),
    reminderReader: reminders,
    reminderWriter: reminders,
    searcher,
    answerer: new ExtractiveAnswerer(searcher),
    policy,
  });
  const session = new ChatSession(localChatBackend(engine, policy));
  const services: ChatPaneServices = {
    session,
    renderMarkdown: (el, text) => {
      const p = document.createElement('p');
      p.textContent = text;
      el.append(p);
    },
    openCitation: vi.fn(),
    openFile: vi.fn(),
  };
  const chat = new ChatServicesSlot();
  chat.set(services);
  const view = render(ChatPane, {
    props: { connection, chat, onRetry: vi.fn(), onOpenSettings: vi.fn() },
  });
  const settle = async () => {
    for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
    flushSync();
  };
  const send = async (text: string) => {
    await fireEvent.input(screen.getByLabelText<HTMLTextAreaElement>('Message'), {
      target: { value: text },
    });
    await fireEvent.click(view.container.querySelector<HTMLButtonElement>('.cairn-composer-send')!);
    await settle();
  };
  const card = () => view.container.querySelector<HTMLElement>('.cairn-chat-ask');
  const notes = () => [...files.files.keys()].filter((path) => path.startsWith('Cairn/Notes/'));
  return { session, view, settle, send, card, notes };
}

describe('the ask card of the plugin’s own chat', () => {
  it('shows the exact call; Allow once runs it and the answer continues', async () => {
    const { send, card, settle, notes, view } = setUp();
    await send('note: buy rope');
    const shown = card();
    expect(shown?.getAttribute('aria-label')).toBe('Allow create_note?');
    expect(shown?.textContent).toContain('Cairn wants to run a tool');
    expect(shown?.textContent).toContain('Changes notes (Undo can revert)');
    expect(shown?.textContent).toContain('You asked: “note: buy rope”');
    expect(JSON.parse(shown?.querySelector('.cairn-chat-ask-args')?.textContent ?? '')).toEqual({
      title: 'Buy rope',
      body: 'buy rope',
    });
    expect(notes()).toEqual([]);

    await fireEvent.click(screen.getByRole('button', { name: 'Allow once' }));
    await settle();
    expect(card()?.textContent).toContain('Allowed once.');
    expect(view.container.textContent).toContain('Created the note "Buy rope".');
    expect(view.container.querySelector('.cairn-chat-error')).toBeNull();
    expect(notes()).toHaveLength(1);
  });

  it('Deny: nothing is written and the pane says the call was declined', async () => {
    const { send, settle, notes, view, card } = setUp();
    await send('note: buy rope');
    await fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    await settle();
    expect(card()?.textContent).toContain('Denied.');
    expect(view.container.querySelector('.cairn-chat-error')?.textContent).toContain(
      'you declined to run create_note',
    );
    expect(notes()).toEqual([]);
  });

  it('unanswered for two minutes: the card says so and the pane shows the refusal', async () => {
    const { send, settle, notes, view, card } = setUp();
    await send('note: buy rope');
    expect(card()).not.toBeNull();
    timers.advance(120_000);
    await settle();
    expect(card()?.textContent).toContain('Nobody answered in time: it did not run.');
    expect(card()?.querySelector('button')).toBeNull();
    expect(view.container.querySelector('.cairn-chat-error')?.textContent).toContain(
      'nobody answered the request to run create_note in time',
    );
    expect(notes()).toEqual([]);
  });

  it('Stop while the card waits declines the call: nothing is written', async () => {
    const { send, settle, notes, session } = setUp();
    await send('note: buy rope');
    session.stop();
    await settle();
    expect(policy.asks.list()).toEqual([]);
    expect(notes()).toEqual([]);
    expect(session.current.busy).toBe(false);
  });

  it('a tool denied in the settings: no card, a sentence naming where to change it', async () => {
    setLocalTool(settings, 'create_note', { permission: 'deny' });
    const { send, card, view } = setUp();
    await send('note: buy rope');
    expect(card()).toBeNull();
    expect(view.container.querySelector('.cairn-chat-error')?.textContent).toContain(
      'create_note is not permitted (permission: deny); change that in Cairn’s settings, under “Tools this device’s chat may use”',
    );
  });
});
