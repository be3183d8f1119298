/**
 * What the chat pane shows, built on a chat backend (the ChatEngine in the plugin; anything that
 * speaks the same event stream): the messages of the open conversation with streaming text,
 * write cards with their Undo, citations, errors, the composer's history and the saved chats.
 * A Svelte store (subscribe contract), so the pane renders it with `$session`; no `obsidian`.
 *
 * A turn never leaves the pane blank: an `error` event, a stream that throws (a companion that
 * went away mid-answer) or a turn that ends with no text all become a visible message.
 *
 * A message with images goes to the image backend (vision-chat.ts) instead of the engine; without
 * one, or while it refuses (no vision model set), such a message is not sent and the pane says why.
 */
import type { ChatTurnOptions, UndoAction } from '../../shared/chat/chat-engine';
import type {
  ConversationLink,
  ConversationListing,
  ConversationMessage,
  ConversationProblem,
  Conversation,
  StoredUndo,
} from '../../shared/chat/conversation-file';
import { isToolName } from '../../shared/chat/tool-schemas';
import type { ToolName, ToolResult } from '../../shared/chat/tool-schemas';
import type { ChatEvent } from '../../shared/protocol/chat';
import type { Citation } from '../../shared/protocol/citation';
import type { ApiError } from '../../shared/protocol/errors';
import type { AskDecision, ToolAsk } from '../../shared/protocol/tools';
import type { Readable } from 'svelte/store';
import type { ChatAttachments } from './chat-scope';
import { NO_VISION_MODEL, type ChatImage } from './chat-images';

/** The engine as the session uses it; `ChatEngine` fits as is. */
export interface ChatBackend {
  send(message: string, options?: ChatTurnOptions): AsyncIterable<ChatEvent>;
  undo(action: UndoAction): Promise<ToolResult>;
  /**
   * Answers an `ask` the turn is waiting on (docs/tools.md): the plugin's own tool policy
   * (local-tool-policy.ts), or the companion's `POST /api/v1/tools/asks/:id`. Backends that
   * never ask leave it out.
   */
  answerAsk?(id: string, decision: AskDecision): Promise<void>;
}

/** A tool call waiting for the user's yes, as the pane shows it. */
export interface AskCardView {
  ask: ToolAsk;
  /** `expired`: nobody answered in time (or the turn was stopped), so the call did not run. */
  state: 'pending' | 'sending' | 'answered' | 'failed' | 'expired';
  decision?: AskDecision;
  error?: string;
}

/** Messages with images (vision-chat.ts fits as is). */
export interface ImageBackend {
  /** Why a message with images would be refused now (no vision model set), else undefined. */
  refusal(): string | undefined;
  send(
    message: string,
    images: readonly ChatImage[],
    options?: ChatTurnOptions,
  ): AsyncIterable<ChatEvent>;
}

/** Saved chats (vault-conversations.ts fits as is). */
export interface ConversationStore {
  list(): Promise<{
    conversations: ConversationListing[];
    problems: Array<ConversationProblem & { path: string }>;
  }>;
  open(
    path: string,
  ): Promise<
    | { ok: true; conversation: Conversation }
    | { ok: false; problem: ConversationProblem }
    | undefined
  >;
  /** Why a reopened write's Undo cannot run (its file gone or changed), else undefined. */
  undoBlocker?(undo: StoredUndo): Promise<string | undefined>;
}

/** A write the assistant made, shown as a card with the file and an Undo. */
export interface WriteCard {
  tool: ToolName;
  /** "Note created", "Reminder set", … */
  label: string;
  title: string;
  path: string;
  deduplicated: boolean;
  /** Absent for writes that cannot be undone (or a chat saved before undo was kept). */
  undo?: UndoAction;
  /** A reopened card's undo as the chat file kept it: checked again before it runs. */
  stored?: StoredUndo;
  /** Why Undo is disabled (the file changed or went away since the write). */
  undoBlocked?: string;
  undoState: 'available' | 'undoing' | 'undone' | 'failed';
  undoError?: string;
  /** What the undo said about where it went (e.g. cancelled on the companion, note kept). */
  undoNotice?: string;
}

export interface ChatMessageView {
  /** Unique within the session, for keyed lists. */
  key: number;
  role: 'user' | 'assistant';
  text: string;
  /** Images the user sent with the message (shown as thumbnails). */
  images?: readonly ChatImage[];
  streaming: boolean;
  /** Stopped by the user before the turn ended. */
  stopped: boolean;
  citations: Citation[];
  card?: WriteCard;
  /** The turn waits for the user to allow or deny a tool call. */
  ask?: AskCardView;
  error?: ApiError;
}

export interface ChatSessionState {
  messages: ChatMessageView[];
  busy: boolean;
  /** Vault path of the open conversation, once saved. */
  conversation?: string;
  /** Title of a reopened conversation. */
  title?: string;
  conversations: ConversationListing[];
  /** Files in the chats folder that do not read as chats, with why. */
  conversationProblems: Array<ConversationProblem & { path: string }>;
  /** A problem of the pane itself (a chat that would not open, a list that failed). */
  notice?: string;
  /** How search ranks, e.g. "keyword only (no embedding provider)"; shown under the composer. */
  searchMode?: string;
  /** Text to put into the composer (Ask Cairn about this note), consumed by the pane. */
  draft?: { text: string; serial: number };
}

/** What the pane needs once the chat is running: the session and the adapter's actions. */
export interface ChatPaneServices {
  session: ChatSession;
  /** Renders Markdown into `el` (Obsidian's MarkdownRenderer); returns what releases it. */
  renderMarkdown(el: HTMLElement, text: string, sourcePath: string): (() => void) | void;
  /** Opens the cited file at the heading, line or page. */
  openCitation(citation: Citation): void;
  /** Opens a file the chat wrote. */
  openFile(path: string): void;
  /** Draws an Obsidian (Lucide) icon into `el`; absent outside Obsidian (tests): text only. */
  setIcon?(el: HTMLElement, icon: string): void;
  /** Shows Obsidian's page preview of a citation (hover). */
  previewCitation?(event: MouseEvent, citation: Citation): void;
  /** What can be done with a finished answer's text; absent: no action buttons. */
  answerActions?: AnswerActions;
  /** Pointing the chat at notes: attachments and `[[` mentions; absent: whole vault only. */
  scope?: ChatScopeControl;
}

/** The composer's side of chat-scope.ts, with the active note and link resolution bound in. */
export interface ChatScopeControl {
  attached: Readable<ChatAttachments>;
  attachActiveNote(): void;
  attachActiveFolder(): void;
  detach(item: { note: string } | { folder: true }): void;
  /** Fixes the scope of the turn `message` starts (attachments plus its mentions). */
  beginTurn(message: string): void;
  /** Notes for a partial `[[` mention, best first; `linkText` is what goes between the brackets. */
  suggestNotes(query: string): Array<{ linkText: string; path: string }>;
}

/** The actions under every finished answer. Each reports its own outcome (a notice). */
export interface AnswerActions {
  copy(text: string): void;
  /** Into the editor of the note last active in the main area, at its cursor. */
  insertAtCursor(text: string): void;
  /** At the end of the note last active in the main area, in one atomic write. */
  appendToNote(text: string): void;
}

/** A store of the services: null until the plugin has built the chat (after layout-ready). */
export interface ReadableChatServices {
  subscribe(listener: (services: ChatPaneServices | null) => void): () => void;
}

/** Holds the services for the pane: the plugin sets them after layout-ready, clears on unload. */
export class ChatServicesSlot implements ReadableChatServices {
  private value: ChatPaneServices | null = null;
  private readonly listeners = new Set<(services: ChatPaneServices | null) => void>();

  subscribe(listener: (services: ChatPaneServices | null) => void): () => void {
    this.listeners.add(listener);
    listener(this.value);
    return () => this.listeners.delete(listener);
  }

  get current(): ChatPaneServices | null {
    return this.value;
  }

  set(services: ChatPaneServices | null): void {
    this.value = services;
    for (const listener of this.listeners) listener(services);
  }
}

export type ChatSessionListener = (state: ChatSessionState) => void;

export const HISTORY_LIMIT = 50;

const WRITE_LABEL: Partial<Record<ToolName, string>> = {
  create_note: 'Note created',
  append_to_note: 'Appended to note',
  create_reminder: 'Reminder set',
  snooze_reminder: 'Reminder snoozed',
  complete_reminder: 'Reminder done',
};

export class ChatSession {
  private state: ChatSessionState = {
    messages: [],
    busy: false,
    conversations: [],
    conversationProblems: [],
  };
  private readonly listeners = new Set<ChatSessionListener>();
  private readonly sent: string[] = [];
  private nextKey = 1;
  private draftSerial = 0;
  private controller: AbortController | null = null;
  /** Bumped by New chat / reopen, so a turn still streaming cannot write into another chat. */
  private generation = 0;
  private disposed = false;

  constructor(
    private readonly backend: ChatBackend,
    private readonly store?: ConversationStore,
    private readonly searchMode?: () => string | undefined,
    private readonly images?: ImageBackend,
  ) {
    this.state.searchMode = this.readSearchMode();
  }

  subscribe(listener: ChatSessionListener): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  get current(): ChatSessionState {
    return this.state;
  }

  /** Messages the user sent, oldest first (for ↑ in the composer). */
  get history(): readonly string[] {
    return this.sent;
  }

  /** Why a message with images cannot be sent now, or undefined when it can. */
  imageRefusal(): string | undefined {
    return this.images === undefined ? NO_VISION_MODEL : this.images.refusal();
  }

  /**
   * Sends one message, with images if any; resolves when the turn has ended (or was stopped).
   * A message with images is not sent while `imageRefusal()` has a reason: the notice says it.
   */
  async send(message: string, images: readonly ChatImage[] = []): Promise<void> {
    if (this.state.busy || this.disposed) return;
    const text = message.trim();
    if (text === '' && images.length === 0) return;
    const refused = images.length === 0 ? undefined : this.imageRefusal();
    if (refused !== undefined) {
      this.set({ notice: refused });
      return;
    }
    if (text !== '') this.remember(text);
    const generation = this.generation;
    const controller = new AbortController();
    this.controller = controller;
    const user = this.message('user', text);
    if (images.length > 0) user.images = images;
    const reply = { ...this.message('assistant', ''), streaming: true };
    this.set({
      messages: [...this.state.messages, user, reply],
      busy: true,
      notice: undefined,
      searchMode: this.readSearchMode(),
    });

    const update = (change: Partial<ChatMessageView>) => {
      if (generation !== this.generation) return;
      this.set({
        messages: this.state.messages.map((m) => (m.key === reply.key ? { ...m, ...change } : m)),
      });
    };
    const view = () => this.state.messages.find((m) => m.key === reply.key) ?? reply;
    const options: ChatTurnOptions = {
      signal: controller.signal,
      ...(this.state.conversation === undefined ? {} : { conversation: this.state.conversation }),
    };
    try {
      const events =
        images.length > 0 && this.images !== undefined
          ? this.images.send(text, images, options)
          : this.backend.send(text, options);
      for await (const event of events) {
        if (this.disposed) return;
        const stopped = controller.signal.aborted;
        switch (event.type) {
          case 'token':
            if (!stopped) update({ text: view().text + event.text });
            break;
          case 'ask':
            update({ ask: { ask: event.ask, state: 'pending' } });
            break;
          case 'tool': {
            // A write that happened is shown even after Stop: the file exists.
            const card = isToolName(event.name) ? writeCard(event.name, event.result) : undefined;
            if (card !== undefined) update({ card });
            const pending = view().ask;
            const refusedBy = event.result.success ? undefined : event.result.error.reason;
            if (pending !== undefined && pending.state !== 'answered') {
              // Settled without this pane's answer: it expired, or was denied elsewhere.
              if (refusedBy === 'ask_expired') update({ ask: { ...pending, state: 'expired' } });
              if (refusedBy === 'ask_denied') {
                update({ ask: { ...pending, state: 'answered', decision: 'deny' } });
              }
            }
            break;
          }
          case 'citations':
            if (!stopped) update({ citations: event.citations });
            break;
          case 'done':
            if (event.conversation !== undefined && generation === this.generation) {
              this.set({ conversation: event.conversation });
            }
            break;
          case 'error':
            if (!stopped) update({ error: event.error });
            break;
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) {
        update({
          error: {
            code: 'UNAVAILABLE',
            message: `the answer broke off: ${error instanceof Error ? error.message : String(error)}`,
          },
        });
      }
    } finally {
      const current = this.controller === controller;
      if (current) this.controller = null;
      const last = view();
      if (
        last.text === '' &&
        last.error === undefined &&
        last.card === undefined &&
        !last.stopped
      ) {
        update({ text: '_(No answer came back.)_' });
      }
      update({ streaming: false });
      // After Stop a newer turn may be running: only the current turn clears `busy`.
      if (current && generation === this.generation) this.set({ busy: false });
      void this.refreshConversations();
    }
  }

  /** Stops the turn in progress: the text so far stays, marked as stopped. */
  stop(): void {
    const controller = this.controller;
    if (controller === null) return;
    controller.abort();
    this.controller = null;
    // A call still waiting for a yes must not run after Stop: the stopped turn declines it.
    for (const m of this.state.messages) {
      if (m.streaming && m.ask?.state === 'pending') void this.answerAsk(m.key, 'deny');
    }
    this.set({
      busy: false,
      messages: this.state.messages.map((m) =>
        m.streaming ? { ...m, streaming: false, stopped: true } : m,
      ),
    });
  }

  /** Answers the ask shown on a message (Allow once, Allow for this conversation, Deny). */
  async answerAsk(key: number, decision: AskDecision): Promise<void> {
    const card = this.state.messages.find((m) => m.key === key)?.ask;
    if (card === undefined || (card.state !== 'pending' && card.state !== 'failed')) return;
    const setAsk = (change: Partial<AskCardView>) =>
      this.set({
        messages: this.state.messages.map((m) =>
          m.key === key && m.ask ? { ...m, ask: { ...m.ask, ...change } } : m,
        ),
      });
    if (this.backend.answerAsk === undefined) {
      setAsk({ state: 'failed', error: 'this chat cannot answer asks' });
      return;
    }
    setAsk({ state: 'sending', decision, error: undefined });
    try {
      await this.backend.answerAsk(card.ask.id, decision);
      setAsk({ state: 'answered' });
    } catch (error) {
      setAsk({ state: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Undoes the write shown on a message's card. */
  async undo(key: number): Promise<void> {
    const card = this.state.messages.find((m) => m.key === key)?.card;
    if (
      card?.undo === undefined ||
      card.undoBlocked !== undefined ||
      card.undoState === 'undoing' ||
      card.undoState === 'undone'
    )
      return;
    const setCard = (change: Partial<WriteCard>) =>
      this.set({
        messages: this.state.messages.map((m) =>
          m.key === key && m.card ? { ...m, card: { ...m.card, ...change } } : m,
        ),
      });
    setCard({ undoState: 'undoing', undoError: undefined });
    let result: ToolResult;
    try {
      // The file may have changed since the chat was reopened.
      const blocked = card.stored === undefined ? undefined : await this.blockerOf(card.stored);
      if (blocked !== undefined) {
        setCard({ undoState: 'available', undoBlocked: blocked });
        return;
      }
      result = await this.backend.undo(card.undo);
    } catch (error) {
      result = {
        success: false,
        error: {
          code: 'INTERNAL_ERROR',
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }
    if (result.success) {
      const notice = (result.data as { notice?: unknown } | null)?.notice;
      setCard({
        undoState: 'undone',
        ...(typeof notice === 'string' ? { undoNotice: notice } : {}),
      });
    } else setCard({ undoState: 'failed', undoError: result.error.message });
  }

  /** Starts a fresh conversation (the running turn, if any, is stopped). */
  newChat(): void {
    this.stop();
    this.generation += 1;
    this.set({ messages: [], conversation: undefined, title: undefined, notice: undefined });
  }

  /** Puts `text` into the composer (the pane picks it up and focuses it). */
  prefill(text: string): void {
    this.draftSerial += 1;
    this.set({ draft: { text, serial: this.draftSerial } });
  }

  /** The composer took the prefilled text: a pane opened later must not put it back. */
  clearDraft(): void {
    if (this.state.draft !== undefined) this.set({ draft: undefined });
  }

  async refreshConversations(): Promise<void> {
    if (this.store === undefined || this.disposed) return;
    try {
      const { conversations, problems } = await this.store.list();
      if (!this.disposed) this.set({ conversations, conversationProblems: problems });
    } catch (error) {
      this.set({ notice: `Saved chats could not be listed: ${describe(error)}` });
    }
  }

  /** Reopens a saved chat; later messages continue it. */
  async open(path: string): Promise<void> {
    if (this.store === undefined) return;
    let opened: Awaited<ReturnType<ConversationStore['open']>>;
    try {
      opened = await this.store.open(path);
    } catch (error) {
      this.set({ notice: `${path} could not be read: ${describe(error)}` });
      return;
    }
    if (opened === undefined) {
      this.set({ notice: `${path} no longer exists.` });
      void this.refreshConversations();
      return;
    }
    if (!opened.ok) {
      const where = opened.problem.line === undefined ? '' : `:${opened.problem.line}`;
      this.set({ notice: `${path}${where} is not a readable chat: ${opened.problem.message}` });
      return;
    }
    const stored = opened.conversation.messages;
    const blockers = await Promise.all(
      stored.map((message) =>
        message.undo === undefined ? Promise.resolve(undefined) : this.blockerOf(message.undo),
      ),
    );
    this.stop();
    this.generation += 1;
    const messages = stored.map((message, index) => this.reopened(message, blockers[index]));
    this.set({
      messages,
      conversation: path,
      title: opened.conversation.title,
      notice: undefined,
    });
  }

  dispose(): void {
    this.stop();
    this.disposed = true;
    this.listeners.clear();
  }

  private reopened(stored: ConversationMessage, blocked: string | undefined): ChatMessageView {
    const view = this.message(stored.role, stored.text);
    view.citations = stored.citations.map(linkCitation);
    if (stored.tool !== undefined && stored.wrote !== undefined && WRITE_LABEL[stored.tool]) {
      view.card = {
        tool: stored.tool,
        label: WRITE_LABEL[stored.tool] ?? stored.tool,
        title: stored.wrote.replace(/^.*\//, '').replace(/\.md$/, ''),
        path: stored.wrote,
        deduplicated: false,
        ...(stored.undo === undefined ? {} : { undo: stored.undo.action, stored: stored.undo }),
        ...(blocked === undefined ? {} : { undoBlocked: blocked }),
        undoState: 'available',
      };
    }
    return view;
  }

  /** The store's verdict on a kept undo; a store that cannot check lets the undo's own checks decide. */
  private async blockerOf(undo: StoredUndo): Promise<string | undefined> {
    if (this.store?.undoBlocker === undefined) return undefined;
    try {
      return await this.store.undoBlocker(undo);
    } catch (error) {
      return `the file could not be checked: ${describe(error)}`;
    }
  }

  private readSearchMode(): string | undefined {
    try {
      return this.searchMode?.();
    } catch {
      return undefined;
    }
  }

  private remember(text: string): void {
    if (this.sent[this.sent.length - 1] !== text) this.sent.push(text);
    if (this.sent.length > HISTORY_LIMIT) this.sent.splice(0, this.sent.length - HISTORY_LIMIT);
  }

  private message(role: 'user' | 'assistant', text: string): ChatMessageView {
    return { key: this.nextKey++, role, text, streaming: false, stopped: false, citations: [] };
  }

  private set(change: Partial<ChatSessionState>): void {
    if (this.disposed) return;
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener(this.state);
  }
}

/** The card for a write tool's result; undefined for reads and failures. */
export function writeCard(tool: ToolName, result: ToolResult): WriteCard | undefined {
  const label = WRITE_LABEL[tool];
  if (label === undefined || !result.success) return undefined;
  const data = result.data as {
    note?: { path?: unknown; title?: unknown };
    reminder?: { path?: unknown; title?: unknown };
    path?: unknown;
    title?: unknown;
    undo?: UndoAction;
  } | null;
  const target = data?.note ?? data?.reminder ?? data;
  if (typeof target?.path !== 'string') return undefined;
  return {
    tool,
    label,
    title: typeof target.title === 'string' ? target.title : target.path,
    path: target.path,
    deduplicated: result.deduplicated === true,
    ...(data?.undo === undefined ? {} : { undo: data.undo }),
    undoState: 'available',
  };
}

/** A stored chat keeps links, not excerpts: enough for a chip that opens the place. */
function linkCitation(link: ConversationLink): Citation {
  const title = link.title ?? link.path.replace(/^.*\//, '').replace(/\.(md|pdf)$/i, '');
  if (link.page !== undefined) {
    return { type: 'pdf', path: link.path, title, excerpt: '', score: 0, page: link.page };
  }
  return {
    type: 'note',
    path: link.path,
    title,
    excerpt: '',
    score: 0,
    lines: [1, 1],
    ...(link.heading === undefined ? {} : { heading: link.heading }),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
