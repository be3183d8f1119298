import { cleanup, fireEvent, render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatPaneServices, ConversationStore } from '../../../../plugin/chat/chat-session';
import type { ReadableConnection } from '../../../../plugin/connection/connection-monitor';
import ChatPane from '../../../../plugin/chat/ui/ChatPane.svelte';
import { ENTER_SENDS_CONTEXT } from '../../../../plugin/chat/ui/composer-keys';
import { ChatScope } from '../../../../plugin/chat/chat-scope';
import {
  REMINDER_TOOL,
  ScriptedBackend,
  VISA_NOTE,
  VISA_PDF,
  scriptedServices,
} from './scripted-chat';

const connection: ReadableConnection = {
  subscribe: (listener) => {
    listener({ kind: 'not-configured' });
    return () => {};
  },
};

/** A store of the chat services, as main.ts keeps it. */
function chatStore(services: ChatPaneServices | null) {
  let value = services;
  const listeners = new Set<(s: ChatPaneServices | null) => void>();
  return {
    subscribe(listener: (s: ChatPaneServices | null) => void) {
      listeners.add(listener);
      listener(value);
      return () => listeners.delete(listener);
    },
    set(next: ChatPaneServices | null) {
      value = next;
      for (const listener of listeners) listener(next);
    },
    get subscribers() {
      return listeners.size;
    },
  };
}

function setUp(
  options: { store?: ConversationStore; searchMode?: () => string; enterSends?: boolean } = {},
) {
  const backend = new ScriptedBackend();
  const chat = scriptedServices(backend, options.store, options.searchMode);
  const store = chatStore(chat.services);
  const view = render(ChatPane, {
    props: { connection, chat: store, onRetry: vi.fn(), onOpenSettings: vi.fn() },
    ...(options.enterSends === undefined
      ? {}
      : { context: new Map([[ENTER_SENDS_CONTEXT, options.enterSends]]) }),
  });
  const input = () => screen.getByLabelText<HTMLTextAreaElement>('Message');
  const settle = async () => {
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
    flushSync();
  };
  return { backend, ...chat, store, view, input, settle };
}

async function type(input: HTMLTextAreaElement, text: string) {
  await fireEvent.input(input, { target: { value: text } });
}

afterEach(() => cleanup());

describe('ChatPane with a chat', () => {
  it('on a touch keyboard Enter is a new line and Send sends', async () => {
    const { input, view, settle } = setUp({ enterSends: false });
    await type(input(), 'first line');
    const enter = new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true });
    input().dispatchEvent(enter);
    await settle();
    // Not taken: the keyboard's own Enter writes the new line.
    expect(enter.defaultPrevented).toBe(false);
    expect(input().value).toBe('first line');
    expect(view.container.querySelectorAll('.cairn-message')).toHaveLength(0);
    await type(input(), 'first line\nsecond line');
    await fireEvent.click(view.container.querySelector<HTMLButtonElement>('.cairn-composer-send')!);
    await settle();
    expect(input().value).toBe('');
    expect(view.container.textContent).toContain('second line');
  });

  it('the composer is enabled once the chat exists, and appears when it is built later', async () => {
    const backend = new ScriptedBackend();
    const store = chatStore(null);
    render(ChatPane, {
      props: { connection, chat: store, onRetry: vi.fn(), onOpenSettings: vi.fn() },
    });
    expect(screen.getByLabelText<HTMLTextAreaElement>('Message').disabled).toBe(true);
    store.set(scriptedServices(backend).services);
    flushSync();
    expect(screen.getByLabelText<HTMLTextAreaElement>('Message').disabled).toBe(false);
  });

  it('Enter sends, streams tokens as plain text, then renders Markdown once with citation chips', async () => {
    const { backend, input, settle, rendered, view } = setUp();
    await type(input(), 'What is the visa fee?');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    await settle();
    expect(backend.sent).toEqual(['What is the visa fee?']);
    expect(input().value).toBe('');
    expect(screen.getByText('What is the visa fee?')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy();

    backend.emit({ type: 'token', text: 'The fee is ' });
    await settle();
    backend.emit({ type: 'token', text: '$50 [1].' });
    await settle();
    const streaming = view.container.querySelector('.cairn-chat-streaming');
    expect(streaming?.textContent).toContain('The fee is $50 [1].');
    expect(rendered).toEqual([]);

    backend.emit(
      { type: 'citations', citations: [VISA_NOTE, VISA_PDF] },
      { type: 'done', conversation: 'Cairn/Chats/visa.md' },
    );
    await settle();
    expect(view.container.querySelector('.cairn-chat-streaming')).toBeNull();
    expect(rendered).toEqual([{ text: 'The fee is $50 [1].', sourcePath: 'Cairn/Chats/visa.md' }]);
    const chips = [...view.container.querySelectorAll<HTMLElement>('.cairn-citation-chip')];
    expect(chips.map((chip) => chip.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      '1 Visa rules summary › Key points',
      '2 Visa form › p. 3',
    ]);
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
  });

  it('a finished answer offers copy / insert / append as icon buttons; chips hover to a preview', async () => {
    const backend = new ScriptedBackend();
    const chat = scriptedServices(backend);
    const actions = { copy: vi.fn(), insertAtCursor: vi.fn(), appendToNote: vi.fn() };
    const icons: string[] = [];
    const previewCitation = vi.fn();
    const services: ChatPaneServices = {
      ...chat.services,
      answerActions: actions,
      previewCitation,
      setIcon: (el, name) => {
        icons.push(name);
        el.dataset.icon = name;
      },
    };
    const view = render(ChatPane, {
      props: {
        connection,
        chat: chatStore(services),
        onRetry: vi.fn(),
        onOpenSettings: vi.fn(),
      },
    });
    const settle = async () => {
      for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
      flushSync();
    };
    const message = screen.getByLabelText<HTMLTextAreaElement>('Message');
    await fireEvent.input(message, { target: { value: 'What is the visa fee?' } });
    await fireEvent.keyDown(message, { key: 'Enter' });
    await settle();
    backend.emit({ type: 'token', text: 'The fee is $50 [1].' });
    await settle();
    // No actions while the answer streams.
    expect(screen.queryByRole('button', { name: 'Copy answer' })).toBeNull();
    backend.emit(
      { type: 'citations', citations: [VISA_NOTE] },
      { type: 'done', conversation: 'Cairn/Chats/visa.md' },
    );
    await settle();
    await fireEvent.click(screen.getByRole('button', { name: 'Copy answer' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Insert at cursor' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Append to note' }));
    expect(actions.copy).toHaveBeenCalledWith('The fee is $50 [1].');
    expect(actions.insertAtCursor).toHaveBeenCalledWith('The fee is $50 [1].');
    expect(actions.appendToNote).toHaveBeenCalledWith('The fee is $50 [1].');
    expect(icons).toEqual(
      expect.arrayContaining(['history', 'square-pen', 'copy', 'text-cursor-input', 'file-plus-2']),
    );
    expect(screen.getByRole('button', { name: 'Copy answer' }).textContent).toBe('');
    // The user's own message gets no actions.
    expect(view.container.querySelectorAll('.cairn-chat-answer-actions').length).toBe(1);
    const chip = view.container.querySelector<HTMLElement>('.cairn-citation-chip')!;
    await fireEvent.mouseEnter(chip);
    expect(previewCitation).toHaveBeenCalledWith(expect.any(MouseEvent), VISA_NOTE);
    expect(view.container.querySelector('.cairn-citation.has-page-preview')).not.toBeNull();
  });

  it('[[ suggests notes, Enter picks one; attachments show as chips and scope the turn', async () => {
    const backend = new ScriptedBackend();
    const chat = scriptedServices(backend);
    const scope = new ChatScope({ resolveLink: (link) => `Travel/${link}.md` });
    const turns: string[] = [];
    const services: ChatPaneServices = {
      ...chat.services,
      scope: {
        attached: scope.attached,
        attachActiveNote: () => scope.attachNote('Travel/Japan trip.md'),
        attachActiveFolder: () => scope.attachFolder('Travel'),
        detach: (item) => scope.detach(item),
        beginTurn: (message) => {
          turns.push(message);
          scope.beginTurn(message);
        },
        suggestNotes: (query) =>
          ['Visa rules', 'Visa form']
            .filter((name) => name.toLowerCase().includes(query.toLowerCase()))
            .map((name) => ({ linkText: name, path: `Travel/${name}.md` })),
      },
    };
    const view = render(ChatPane, {
      props: { connection, chat: chatStore(services), onRetry: vi.fn(), onOpenSettings: vi.fn() },
    });
    const field = screen.getByLabelText<HTMLTextAreaElement>('Message');
    field.value = 'fees in [[visa';
    field.setSelectionRange(14, 14);
    await fireEvent.input(field);
    const options = () =>
      [...view.container.querySelectorAll('.cairn-mention-suggestion .cairn-mention-name')].map(
        (e) => e.textContent,
      );
    expect(options()).toEqual(['Visa rules', 'Visa form']);
    await fireEvent.keyDown(field, { key: 'ArrowDown' });
    await fireEvent.keyDown(field, { key: 'Enter' });
    expect(field.value).toBe('fees in [[Visa form]]');
    expect(options()).toEqual([]);
    expect(backend.sent).toEqual([]);

    await fireEvent.click(screen.getByRole('button', { name: 'Attach active note' }));
    await fireEvent.click(screen.getByRole('button', { name: "Attach active note's folder" }));
    flushSync();
    expect(
      [...view.container.querySelectorAll('.cairn-chat-attachment')].map((e) =>
        e.textContent?.replace('×', '').trim(),
      ),
    ).toEqual(['Japan trip', 'Travel/']);
    await fireEvent.click(screen.getByRole('button', { name: 'Detach folder Travel' }));
    flushSync();
    expect(view.container.querySelectorAll('.cairn-chat-attachment').length).toBe(1);

    await fireEvent.keyDown(field, { key: 'Enter' });
    expect(turns).toEqual(['fees in [[Visa form]]']);
    expect(scope.current).toEqual({ paths: ['Travel/Japan trip.md', 'Travel/Visa form.md'] });
  });

  it('a chip opens its exact citation and carries its excerpt as the hover text', async () => {
    const { backend, input, settle, services, view } = setUp();
    await type(input(), 'fee?');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit(
      { type: 'token', text: 'Quoted.' },
      { type: 'citations', citations: [VISA_NOTE, VISA_PDF] },
      { type: 'done' },
    );
    await settle();
    const chips = view.container.querySelectorAll<HTMLElement>('.cairn-citation-chip');
    await fireEvent.click(chips[1]!);
    expect(services.openCitation).toHaveBeenCalledWith(VISA_PDF);
    await fireEvent.click(chips[0]!);
    expect(services.openCitation).toHaveBeenLastCalledWith(VISA_NOTE);
    const tip = document.getElementById(chips[0]!.getAttribute('aria-describedby') ?? '');
    expect(tip?.textContent).toBe(VISA_NOTE.excerpt);
    expect(tip?.getAttribute('role')).toBe('tooltip');
  });

  it('Stop aborts the turn: text so far stays, marked stopped, the composer is free', async () => {
    const { backend, input, settle, view } = setUp();
    await type(input(), 'long question');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit({ type: 'token', text: 'Partial ' });
    await settle();
    await fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    await settle();
    expect(screen.getByText('Stopped.')).toBeTruthy();
    expect(view.container.querySelector('.rendered-markdown')?.textContent).toBe('Partial ');
    backend.emit({ type: 'token', text: 'ignored' }, { type: 'done' });
    await settle();
    expect(view.container.textContent).not.toContain('ignored');
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
  });

  it('a reminder card links the file and its Undo calls the engine undo', async () => {
    const { backend, input, settle, services, view } = setUp();
    await type(input(), 'remind me next Monday at 8 to call the bank');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit(
      { type: 'token', text: 'Reminder set: "Call the bank", Mon 23 Nov 2026, 08:00.' },
      REMINDER_TOOL,
      { type: 'done' },
    );
    await settle();
    const card = view.container.querySelector<HTMLElement>('.cairn-tool-card');
    expect(card?.dataset.tool).toBe('create_reminder');
    expect(card?.textContent).toContain('Reminder set');
    expect(card?.textContent).toContain('Cairn/Reminders/call-the-bank.md');
    await fireEvent.click(screen.getByRole('button', { name: 'Call the bank' }));
    expect(services.openFile).toHaveBeenCalledWith('Cairn/Reminders/call-the-bank.md');
    await fireEvent.click(screen.getByRole('button', { name: 'Undo' }));
    await settle();
    expect(backend.undone).toEqual([
      { kind: 'delete_reminder', id: 'r1', path: 'Cairn/Reminders/call-the-bank.md' },
    ]);
    expect(card?.dataset.undo).toBe('undone');
    expect(screen.getByText('Undone')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Call the bank' })).toBeNull();
  });

  it('a failed undo says why', async () => {
    const { backend, input, settle } = setUp();
    backend.undoResult = {
      success: false,
      error: { code: 'CONFLICT', message: 'the note changed since it was written' },
    };
    await type(input(), 'remind me');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit(REMINDER_TOOL, { type: 'done' });
    await settle();
    await fireEvent.click(screen.getByRole('button', { name: 'Undo' }));
    await settle();
    expect(screen.getByRole('alert').textContent).toBe(
      'Undo failed: the note changed since it was written',
    );
    expect(screen.getByRole('button', { name: 'Undo' })).toBeTruthy();
  });

  it('an undo that only cancelled the reminder says so and keeps the link', async () => {
    const { backend, input, settle } = setUp();
    backend.undoResult = {
      success: true,
      data: {
        undone: 'delete_reminder',
        notice: 'The companion cancelled it; the note stays, with status: cancelled.',
      },
    };
    await type(input(), 'remind me');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit(REMINDER_TOOL, { type: 'done' });
    await settle();
    await fireEvent.click(screen.getByRole('button', { name: 'Undo' }));
    await settle();
    expect(
      screen.getByText('The companion cancelled it; the note stays, with status: cancelled.'),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Call the bank' })).toBeTruthy();
  });

  it('shows an error event in the pane, with its field', async () => {
    const { backend, input, settle } = setUp();
    await type(input(), 'remind me yesterday');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit({
      type: 'error',
      error: {
        code: 'VALIDATION_ERROR',
        message: 'due 2026-11-21T08:00 is in the past',
        field: 'due',
      },
    });
    await settle();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('due 2026-11-21T08:00 is in the past (field: due)');
    expect(alert.dataset.code).toBe('VALIDATION_ERROR');
  });

  it('Shift+Enter is a newline, ↑ recalls earlier messages and ↓ walks back', async () => {
    const { backend, input, settle } = setUp();
    for (const message of ['first', 'second']) {
      await type(input(), message);
      await fireEvent.keyDown(input(), { key: 'Enter' });
      backend.emit({ type: 'token', text: 'ok' }, { type: 'done' });
      await settle();
    }
    const shift = await fireEvent.keyDown(input(), { key: 'Enter', shiftKey: true });
    expect(shift).toBe(true); // not prevented: the textarea inserts the newline itself
    expect(backend.sent).toEqual(['first', 'second']);

    await fireEvent.keyDown(input(), { key: 'ArrowUp' });
    expect(input().value).toBe('second');
    await fireEvent.keyDown(input(), { key: 'ArrowUp' });
    expect(input().value).toBe('first');
    await fireEvent.keyDown(input(), { key: 'ArrowUp' });
    expect(input().value).toBe('first');
    await fireEvent.keyDown(input(), { key: 'ArrowDown' });
    expect(input().value).toBe('second');
    await fireEvent.keyDown(input(), { key: 'ArrowDown' });
    expect(input().value).toBe('');
  });

  it('↑ leaves a message being written alone', async () => {
    const { backend, input, settle } = setUp();
    await type(input(), 'sent');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit({ type: 'done' });
    await settle();
    await type(input(), 'draft in progress');
    await fireEvent.keyDown(input(), { key: 'ArrowUp' });
    expect(input().value).toBe('draft in progress');
  });

  it('New chat clears the messages; the saved chats list reopens one', async () => {
    const store: ConversationStore = {
      list: () =>
        Promise.resolve({
          conversations: [
            { path: 'Cairn/Chats/visa.md', id: 'c1', title: 'Visa fee', updated: 0, messages: 2 },
          ],
          problems: [{ path: 'Cairn/Chats/odd.md', message: 'not a chat', line: 2 }],
        }),
      open: () =>
        Promise.resolve({
          ok: true,
          conversation: {
            id: 'c1',
            title: 'Visa fee',
            created: 0,
            updated: 0,
            timezone: 'UTC',
            messages: [
              { role: 'user', at: 0, text: 'What is the visa fee?', citations: [] },
              {
                role: 'assistant',
                at: 0,
                text: 'It is $50 [1].',
                citations: [
                  {
                    path: 'Travel/Visa rules.md',
                    heading: 'Key points',
                    title: 'Visa rules summary',
                  },
                ],
              },
            ],
          },
        }),
    };
    const { backend, input, settle, view, services } = setUp({ store });
    await type(input(), 'hello');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit({ type: 'token', text: 'hi' }, { type: 'done' });
    await settle();
    await fireEvent.click(screen.getByRole('button', { name: 'New chat' }));
    expect(view.container.querySelector('.cairn-chat-message')).toBeNull();
    expect(screen.getByText('Ask your vault, get answers with citations.')).toBeTruthy();

    await fireEvent.click(screen.getByRole('button', { name: 'Saved chats' }));
    await settle();
    expect(view.container.querySelector('.cairn-chat-list-problems')?.textContent).toContain(
      'Cairn/Chats/odd.md:2: not a chat',
    );
    await fireEvent.click(screen.getByTitle('Cairn/Chats/visa.md'));
    await settle();
    expect(view.container.querySelector('.cairn-chat-title')?.textContent).toBe('Visa fee');
    expect(screen.getByText('What is the visa fee?')).toBeTruthy();
    const chip = view.container.querySelector<HTMLElement>('.cairn-citation-chip');
    expect(chip?.textContent).toContain('Visa rules summary › Key points');
    await fireEvent.click(chip!);
    expect(services.openCitation).toHaveBeenCalledWith(
      expect.objectContaining({ path: 'Travel/Visa rules.md', heading: 'Key points' }),
    );
  });

  it('a reopened card whose note changed shows Undo disabled with the reason', async () => {
    const action = { kind: 'delete_note' as const, id: 'n1', path: 'Cairn/Notes/packing.md' };
    const store: ConversationStore = {
      list: () => Promise.resolve({ conversations: [], problems: [] }),
      open: () =>
        Promise.resolve({
          ok: true,
          conversation: {
            id: 'c2',
            title: 'Packing',
            created: 0,
            updated: 0,
            timezone: 'UTC',
            messages: [
              { role: 'user', at: 0, text: 'note: packing', citations: [] },
              {
                role: 'assistant',
                at: 0,
                text: 'Note created.',
                citations: [],
                tool: 'create_note',
                wrote: action.path,
                undo: { action, hash: 'h' },
              },
            ],
          },
        }),
      undoBlocker: () => Promise.resolve(`${action.path} changed since Cairn wrote it`),
    };
    const { backend, settle, session } = setUp({ store });
    await session.open('Cairn/Chats/packing.md');
    await settle();
    const undo = screen.getByRole<HTMLButtonElement>('button', { name: 'Undo' });
    expect(undo.disabled).toBe(true);
    expect(
      screen.getByText('Undo unavailable: Cairn/Notes/packing.md changed since Cairn wrote it'),
    ).toBeTruthy();
    await fireEvent.click(undo);
    expect(backend.undone).toEqual([]);
  });

  it('labels keyword-only search, and says nothing when hybrid', () => {
    setUp({ searchMode: () => 'keyword only (no embedding provider)' });
    expect(screen.getByText('Search: keyword only (no embedding provider)')).toBeTruthy();
    cleanup();
    setUp({ searchMode: () => 'hybrid: keyword + use-lite' });
    expect(screen.queryByText(/Search:/)).toBeNull();
  });

  it('a prefilled question lands in the composer (Ask Cairn about this note)', async () => {
    const { session, input } = setUp();
    session.prefill('About "Visa rules summary": ');
    flushSync();
    expect(input().value).toBe('About "Visa rules summary": ');
    // Taken once: a pane opened later starts empty.
    expect(session.current.draft).toBeUndefined();
  });

  it('unmounting releases the session and rendered Markdown', async () => {
    const { backend, input, settle, view, store, released } = setUp();
    await type(input(), 'q');
    await fireEvent.keyDown(input(), { key: 'Enter' });
    backend.emit({ type: 'token', text: 'a' }, { type: 'done' });
    await settle();
    view.unmount();
    expect(store.subscribers).toBe(0);
    expect(released.count).toBe(1);
  });
});
