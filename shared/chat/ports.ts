/**
 * What the chat engine needs from the outside, as narrow interfaces. The plugin implements them
 * over the vault and its on-device search index, the companion over its database and vault writer; tests
 * over in-memory fakes. Implementations signal expected failures by throwing `ChatPortError`
 * with a tool error code; anything else they throw is reported as INTERNAL_ERROR.
 */
import type { Citation } from '../protocol/citation';
import type { ToolErrorCode } from '../protocol/errors';
import type { MemoryCreated, MemoryItem } from '../protocol/memories';
import type { Reminder, ReminderStatus } from '../protocol/reminders';
import type { RouteContext, RouteDecision } from './intent-router';
import type { CreateTaskArgs } from './tool-schemas';

export class ChatPortError extends Error {
  override readonly name = 'ChatPortError';
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface CreatedNote {
  /** Front-matter `id`. */
  id: string;
  /** Vault path of the file written. */
  path: string;
  title: string;
  /** True when the writer itself returned an identical recent note (e.g. the companion's own dedup). */
  deduplicated?: boolean;
}

export interface AppendedText {
  /** Vault path of the note appended to. */
  path: string;
  title: string;
}

/**
 * Who asked for a note, written as its `source` key: `chat` (the chat, the default), `command`
 * (the palette's New note); the companion's API writes `api`.
 */
export type NoteSource = 'chat' | 'command' | 'api';

export interface NoteWriter {
  /** Writes a front-mattered note (docs/vault-format.md, `source: chat` unless `source` says otherwise). */
  create(note: {
    title: string;
    body: string;
    tags?: string[];
    folder?: string;
    source?: NoteSource;
  }): Promise<CreatedNote>;
  /**
   * Appends `text` to the note named by `note` (a path, an id or an exact title, compared without
   * case), at the end of the `heading` section when given. NOT_FOUND when no note matches,
   * CONFLICT when several do.
   */
  append(request: { note: string; text: string; heading?: string }): Promise<AppendedText>;
  /** Undo of `create`: deletes the note if it still is what was written (CONFLICT otherwise). */
  deleteCreated(note: { id: string; path: string }): Promise<void>;
  /** Undo of `append`: removes that appended text if it is still there (CONFLICT otherwise). */
  removeAppended(append: { path: string; text: string }): Promise<void>;
}

export interface ReminderQuery {
  /** Dates are whole local days in the reminder's zone, inclusive; date-times are instants. */
  from?: string;
  to?: string;
  status?: ReminderStatus;
  limit?: number;
}

export interface ReminderReader {
  /** Reminders whose next occurrence falls in [from, to], soonest first. */
  list(query: ReminderQuery): Promise<Reminder[]>;
  /** One reminder by its id, or undefined. */
  get(id: string): Promise<Reminder | undefined>;
}

/**
 * A sentence a writer adds for the user when a write went somewhere other than usual (the
 * plugin writing into the vault because the paired companion was unreachable, say). The engine
 * puts it into the tool result's data and under the reply.
 */
export interface WriteNotice {
  notice?: string;
}

export interface ReminderWriter {
  /**
   * Writes a reminder note (docs/vault-format.md). `due` without offset is wall time in `timezone`.
   * With `memory`, the note's body links that memory's line (`memoryLinkBody`).
   */
  create(reminder: {
    title: string;
    due: string;
    timezone: string;
    repeat?: string;
    memory?: MemoryItem;
  }): Promise<Reminder & WriteNotice & { deduplicated?: boolean }>;
  snooze(id: string, minutes: number): Promise<Reminder & WriteNotice>;
  complete(id: string): Promise<Reminder & WriteNotice>;
  /** Undo of `create`: deletes (or cancels) the reminder. */
  delete(id: string): Promise<void | WriteNotice>;
  /**
   * Takes back a reminder `create` has just written, file and all, when its answer cannot be
   * kept after all (the dedup record failed): the error then means nothing was written.
   * Writers without it fall back to `delete`.
   */
  removeCreated?(reminder: Reminder): Promise<void>;
  /** Undo of `snooze`/`complete`: writes back status and snoozed_until as they were. */
  restore(previous: Reminder): Promise<void | WriteNotice>;
}

export interface SearchHit {
  citation: Citation;
  score: number;
  /**
   * 0..1 on the answer gate's scale (shared/search/answer-gate.ts): below ANSWER_RELEVANCE the
   * passage does not answer the query. Absent when the searcher cannot judge.
   */
  relevance?: number;
}

export interface Searcher {
  search(request: {
    query: string;
    limit?: number;
    type?: 'note' | 'reminder' | 'pdf';
    folder?: string;
    tag?: string;
    from?: string;
    to?: string;
  }): Promise<SearchHit[]>;
}

/** An extractive answer (docs/search.md): passages quoted with `[n]` markers into `citations`. */
export interface ExtractiveAnswer {
  answer: string;
  citations: Citation[];
}

export interface Answerer {
  answer(request: { question: string; limit?: number }): Promise<ExtractiveAnswer>;
}

/**
 * Phrases an answer from retrieved passages only (an LLM), streaming text. Passages are numbered
 * from 1 in the order given; the text cites them as `[1]`, `[2]`.
 */
export interface AnswerPhraser {
  phrase(request: {
    question: string;
    passages: Citation[];
    signal?: AbortSignalLike;
  }): AsyncIterable<string>;
}

/**
 * The model chose a tool of one of the user's MCP servers (docs/tools.md): its arguments are
 * checked by the tool runner's gate against the server's schema, not here.
 */
export interface ExternalRoute {
  kind: 'external';
  name: string;
  args: unknown;
  rule: 'llm';
}

/** How a message was routed: by the rules, or by an LLM (with why it fell back, when it did). */
export type RoutedMessage = (RouteDecision | ExternalRoute) & {
  via: 'rules' | 'llm';
  /** Why an LLM's choice was not used (shown to the user as a note), when it was not. */
  fallbackReason?: string;
  /** What the model said with its tool call, shown as the "why" of an ask. */
  why?: string;
};

export interface MessageRouter {
  route(message: string, context: RouteContext): Promise<RoutedMessage>;
}

/** Minimal AbortSignal shape, so shared code needs no DOM types. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The user's memory file (docs/clients.md, `Cairn/Memory.md`): the companion's MemoryService, or the
 * plugin's vault adapter. Reads are always fresh (hand edits count at once).
 */
export interface MemoryStore {
  /** Current facts, file order. */
  list(): Promise<MemoryItem[]>;
  /** Appends a fact (a duplicate returns the existing one; contradicted facts are struck through). */
  remember(text: string): Promise<MemoryCreated>;
  /** Removes the one line of memory `id`; NOT_FOUND when there is none. */
  forget(id: string): Promise<MemoryItem>;
}

/** A scheduled task as chat shows it (docs/tasks.md). */
export interface ScheduledTaskView {
  id: string;
  name: string;
  path: string;
  timezone: string;
  /** ISO with the zone's offset, or null when it will not run again. */
  next_run: string | null;
}

/** Creates scheduled tasks (the companion's task service); absent, `create_task` is UNAVAILABLE. */
export interface TaskCreator {
  create(task: CreateTaskArgs): Promise<ScheduledTaskView>;
}
