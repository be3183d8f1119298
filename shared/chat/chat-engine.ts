/**
 * The chat engine (docs/chat.md): route → validate → run exactly one tool through the ports →
 * optionally phrase an answer with an LLM → stream events (shared/protocol/chat.ts). No loops:
 * whatever a tool returns, the turn ends.
 *
 * Event order follows the protocol: the assistant's text as `token`s, then at most one `tool`
 * (name, checked arguments and the result envelope), at most one `citations`, then exactly one
 * `done` (with the conversation's path when it was saved) or `error`. A request that never
 * reaches a tool (blank message, bad zone) ends in `error`; a tool that fails sends its `tool`
 * event with the failure envelope, then `error` with the same code and message.
 *
 * Writes carry an `undo` action in their result data (the created path, the appended text, the
 * reminder as it was); `undo(action)` reverses it through the same ports.
 */
import { DateTime } from 'luxon';
import type { Clock } from '../ports';
import type { ChatEvent } from '../protocol/chat';
import type { Citation } from '../protocol/citation';
import type { MemoryItem } from '../protocol/memories';
import type { ToolError } from '../protocol/errors';
import type { Reminder } from '../protocol/reminders';
import { isValidZone, parseLocalDateTime, wallToInstant } from '../reminders/local-time';
import { validateRrule } from '../reminders/recurrence';
import { CitationMarkerFilter } from './citation-markers';
import { routeMessage, type RouteContext } from './intent-router';
import {
  ChatPortError,
  type AbortSignalLike,
  type Answerer,
  type AnswerPhraser,
  type CreatedNote,
  type MemoryStore,
  type MessageRouter,
  type NoteWriter,
  type ReminderReader,
  type ReminderWriter,
  type RoutedMessage,
  type Searcher,
  type SearchHit,
  type WriteNotice,
} from './ports';
import {
  forgetFact,
  memoriesForAnswer,
  memoryCitation,
  recallFacts,
  rememberFact,
} from './memory-tools';
import { deriveTitle } from './intent-router';
import { RecentWrites } from './recent-writes';
import type { RecentWritesStore } from './recent-writes';
import { resolveReminder } from './reminder-reference';
import {
  NOTHING_FOUND_TEXT,
  appendedText,
  completedText,
  noteCreatedText,
  reminderCreatedText,
  reminderListText,
  searchText,
  snoozedText,
} from './reply-text';
import {
  WRITE_TOOLS,
  toolFailure,
  toolSuccess,
  validateToolCall,
  writeScopeRefusal,
  type ToolCall,
  type ToolName,
  type ToolResult,
} from './tool-schemas';

/** What undoes a write. Plain JSON, so it survives the SSE hop and a stored conversation. */
export type UndoAction =
  | { kind: 'delete_note'; id: string; path: string }
  | { kind: 'remove_appended'; path: string; text: string }
  | { kind: 'delete_reminder'; id: string; path: string }
  | { kind: 'restore_reminder'; previous: Reminder }
  | { kind: 'forget_memory'; id: string; path: string }
  | { kind: 'remember_memory'; text: string; path: string };

export interface NoteCreatedData {
  note: { id: string; path: string; title: string };
  undo: UndoAction;
}
export interface AppendedData {
  path: string;
  title: string;
  text: string;
  undo: UndoAction;
}
export interface ReminderWrittenData {
  reminder: Reminder;
  undo: UndoAction;
  /** Where the write went when not the usual place (e.g. the vault, companion unreachable). */
  notice?: string;
}
export interface ReminderListData {
  reminders: Reminder[];
}
export interface SearchData {
  query: string;
  results: SearchHit[];
}
export interface AnswerData {
  answer: string;
  citations: Citation[];
}

/** One finished turn, for the conversation file. */
export interface ChatTurn {
  /** Epoch ms the message arrived. */
  at: number;
  user: string;
  assistant: string;
  tool?: ToolName;
  /** The tool's result envelope, when a tool ran. */
  result?: ToolResult;
  citations: Citation[];
}

/** Saves turns; answers the conversation's vault path. */
export interface ConversationSink {
  record(conversation: string | undefined, turn: ChatTurn): Promise<string>;
}

export interface ChatEngineDeps {
  clock: Clock;
  /** The user's IANA zone (vault setting); read per message so a settings change applies. */
  zone: () => string;
  notes: NoteWriter;
  reminderReader: ReminderReader;
  reminderWriter: ReminderWriter;
  searcher: Searcher;
  answerer: Answerer;
  /** An LLM router (Ollama); without one, the deterministic rules route. */
  router?: MessageRouter;
  /** An LLM that phrases answers from passages; without one, answers stay extractive. */
  phraser?: AnswerPhraser;
  conversations?: ConversationSink;
  /** Where the five-minute dedup of writes is kept; in memory when absent. */
  recentWrites?: RecentWritesStore;
  /** `Cairn/Memory.md` (docs/clients.md); without it "remember that …" writes a note instead. */
  memories?: MemoryStore;
}

export interface ChatTurnOptions {
  /** Conversation to continue (vault path); a new one is started when absent. */
  conversation?: string;
  /** Phrase answers with the LLM when one is configured; default true. */
  summarize?: boolean;
  signal?: AbortSignalLike;
  /**
   * False when the caller's token lacks the write scope (docs/clients.md): a routed write tool is
   * refused with FORBIDDEN instead of run. Default true.
   */
  canWrite?: boolean;
  /** False: do not keep this turn as a chat note (clients that keep their own history). */
  record?: boolean;
}

type Outcome = {
  text: string;
  result: ToolResult;
  citations?: Citation[];
  /** Streams the answer text instead of `text` (LLM phrasing). */
  stream?: AsyncIterable<string>;
};

const rulesRouter: MessageRouter = {
  route: (message, context) => Promise.resolve({ ...routeMessage(message, context), via: 'rules' }),
};

export class ChatEngine {
  private readonly recentNotes: RecentWrites<NoteCreatedData>;
  private readonly recentReminders: RecentWrites<ReminderWrittenData>;

  constructor(private readonly deps: ChatEngineDeps) {
    this.recentNotes = new RecentWrites(deps.clock, 'chat-note', deps.recentWrites);
    this.recentReminders = new RecentWrites(deps.clock, 'chat-reminder', deps.recentWrites);
  }

  /** One chat turn as a stream of events; never throws (failures become an `error` event). */
  async *send(message: string, options: ChatTurnOptions = {}): AsyncGenerator<ChatEvent> {
    let at: number;
    let context: RouteContext;
    try {
      at = this.deps.clock.now();
      context = { now: at, zone: this.deps.zone() };
    } catch (error) {
      yield { type: 'error', error: toToolError(error, 'reading the clock and time zone') };
      return;
    }
    let routed: RoutedMessage;
    try {
      routed = await (this.deps.router ?? rulesRouter).route(message, context);
    } catch (error) {
      // A broken LLM router must not cost the user their message.
      routed = {
        ...routeMessage(message, context),
        via: 'rules',
        fallbackReason: `the model router failed (${describe(error)})`,
      };
    }
    if (routed.fallbackReason !== undefined) {
      yield { type: 'token', text: `_(${routed.fallbackReason}; used the built-in rules.)_\n\n` };
    }

    if (routed.kind === 'invalid') {
      yield { type: 'error', error: routed.error };
      return;
    }
    if (routed.kind === 'reply') {
      yield { type: 'token', text: routed.text };
      yield await this.finish(options, {
        at,
        user: message,
        assistant: routed.text,
        citations: [],
      });
      return;
    }

    const outcome =
      options.canWrite === false && WRITE_TOOLS.has(routed.call.name)
        ? { text: '', result: toolFailure(writeScopeRefusal(routed.call.name)) }
        : await this.run(routed.call, options, context);
    let assistant = '';
    if (outcome.stream !== undefined) {
      for await (const piece of outcome.stream) {
        if (piece === '') continue;
        assistant += piece;
        yield { type: 'token', text: piece };
      }
    } else if (outcome.text !== '') {
      assistant = outcome.text;
      yield { type: 'token', text: outcome.text };
    }
    yield { type: 'tool', name: routed.call.name, args: routed.call.args, result: outcome.result };
    const citations = outcome.citations ?? [];
    if (citations.length > 0) yield { type: 'citations', citations };
    if (!outcome.result.success) {
      yield { type: 'error', error: outcome.result.error };
      return;
    }
    yield await this.finish(options, {
      at,
      user: message,
      assistant,
      tool: routed.call.name,
      result: outcome.result,
      citations,
    });
  }

  /**
   * Runs one tool call (from the router, an LLM, or an HTTP client) with the standard envelope.
   * Arguments are checked again here: the engine trusts no caller.
   */
  async execute(name: string, args: unknown): Promise<ToolResult> {
    return (await this.runTool(name, args)).result;
  }

  /**
   * `execute` plus what the chat would have said and cited: for clients that show text (MCP,
   * the OpenAI route). Never phrased by an LLM: a client's own model does that.
   */
  async runTool(
    name: string,
    args: unknown,
  ): Promise<{ result: ToolResult; text: string; citations: Citation[] }> {
    const check = validateToolCall(name, args);
    if (!check.ok) return { result: toolFailure(check.error), text: '', citations: [] };
    const context = { now: this.deps.clock.now(), zone: this.deps.zone() };
    const outcome = await this.run(check.call, { summarize: false }, context);
    return { result: outcome.result, text: outcome.text, citations: outcome.citations ?? [] };
  }

  /** Reverses a write made by this engine (or another: the action carries all it needs). */
  async undo(
    action: UndoAction,
  ): Promise<ToolResult<{ undone: UndoAction['kind']; path?: string; notice?: string }>> {
    try {
      switch (action.kind) {
        case 'delete_note':
          await this.deps.notes.deleteCreated({ id: action.id, path: action.path });
          this.recentNotes.forget((data) => data.note.path === action.path);
          return toolSuccess({ undone: action.kind, path: action.path });
        case 'remove_appended':
          await this.deps.notes.removeAppended({ path: action.path, text: action.text });
          return toolSuccess({ undone: action.kind, path: action.path });
        case 'delete_reminder': {
          const written = await this.deps.reminderWriter.delete(action.id);
          this.recentReminders.forget((data) => data.reminder.id === action.id);
          return toolSuccess({ undone: action.kind, path: action.path, ...noticeOf(written) });
        }
        case 'restore_reminder': {
          const written = await this.deps.reminderWriter.restore(action.previous);
          return toolSuccess({
            undone: action.kind,
            path: action.previous.path,
            ...noticeOf(written),
          });
        }
        case 'forget_memory':
          await this.memoryStore().forget(action.id);
          return toolSuccess({ undone: action.kind, path: action.path });
        case 'remember_memory':
          await this.memoryStore().remember(action.text);
          return toolSuccess({ undone: action.kind, path: action.path });
        default:
          return toolFailure({
            code: 'VALIDATION_ERROR',
            message: `unknown undo action "${String((action as { kind?: unknown }).kind)}"`,
            field: 'kind',
          });
      }
    } catch (error) {
      return toolFailure(toToolError(error, 'undo'));
    }
  }

  private async run(
    call: ToolCall,
    options: ChatTurnOptions,
    context: RouteContext,
  ): Promise<Outcome> {
    try {
      switch (call.name) {
        case 'create_note':
          return await this.createNote(call.args);
        case 'append_to_note':
          return await this.appendToNote(call.args);
        case 'create_reminder':
          return await this.createReminder(call.args, context);
        case 'list_reminders': {
          const reminders = await this.deps.reminderReader.list(call.args);
          const data: ReminderListData = { reminders };
          return { text: reminderListText(reminders, call.args), result: toolSuccess(data) };
        }
        case 'snooze_reminder': {
          const previous = await resolveReminder(this.deps.reminderReader, call.args.id);
          const { notice, ...reminder } = await this.deps.reminderWriter.snooze(
            previous.id,
            call.args.minutes,
          );
          const data: ReminderWrittenData = {
            reminder,
            undo: { kind: 'restore_reminder', previous },
            ...noticeOf({ notice }),
          };
          return {
            text: withNotice(snoozedText(reminder, call.args.minutes), notice),
            result: toolSuccess(data),
          };
        }
        case 'complete_reminder': {
          const previous = await resolveReminder(this.deps.reminderReader, call.args.id);
          const { notice, ...reminder } = await this.deps.reminderWriter.complete(previous.id);
          const data: ReminderWrittenData = {
            reminder,
            undo: { kind: 'restore_reminder', previous },
            ...noticeOf({ notice }),
          };
          return { text: withNotice(completedText(reminder), notice), result: toolSuccess(data) };
        }
        case 'search': {
          const results = await this.deps.searcher.search(call.args);
          const data: SearchData = { query: call.args.query, results };
          return {
            text: searchText(call.args.query, results),
            result: toolSuccess(data),
            citations: results.map((hit) => hit.citation),
          };
        }
        case 'answer':
          return await this.answer(call.args, options);
        case 'remember': {
          if (this.deps.memories === undefined) {
            // No memory file here (an older host): keep the fact as a note rather than lose it.
            const body = call.args.text;
            return await this.createNote({ title: deriveTitle(body), body });
          }
          const { text, data, citations } = await rememberFact(this.deps.memories, call.args);
          return { text, result: toolSuccess(data), citations };
        }
        case 'forget': {
          const { text, data } = await forgetFact(this.memoryStore(), call.args);
          return { text, result: toolSuccess(data) };
        }
        case 'recall': {
          const { text, data, citations } = await recallFacts(this.memoryStore(), call.args);
          return { text, result: toolSuccess(data), citations };
        }
      }
    } catch (error) {
      const failure = toToolError(error, call.name);
      return { text: '', result: toolFailure(failure) };
    }
  }

  private async createNote(
    args: Extract<ToolCall, { name: 'create_note' }>['args'],
  ): Promise<Outcome> {
    const key = RecentWrites.noteKey(args);
    const recent = this.recentNotes.find(key);
    if (recent !== undefined) {
      return {
        text: noteCreatedText(recent.note.title, true),
        result: toolSuccess(recent, { deduplicated: true }),
      };
    }
    const created: CreatedNote = await this.deps.notes.create(args);
    const data: NoteCreatedData = {
      note: { id: created.id, path: created.path, title: created.title },
      undo: { kind: 'delete_note', id: created.id, path: created.path },
    };
    try {
      this.recentNotes.remember(key, data);
    } catch (error) {
      // Not remembered (the companion's database disk is full): the error must mean nothing was
      // written, or asking again would write a second note. Take this one back first.
      if (created.deduplicated !== true) {
        await this.deps.notes
          .deleteCreated({ id: created.id, path: created.path })
          .catch(() => undefined);
      }
      throw error;
    }
    const deduplicated = created.deduplicated === true;
    return {
      text: noteCreatedText(created.title, deduplicated),
      result: toolSuccess(data, { deduplicated }),
    };
  }

  private async appendToNote(
    args: Extract<ToolCall, { name: 'append_to_note' }>['args'],
  ): Promise<Outcome> {
    const appended = await this.deps.notes.append(args);
    const data: AppendedData = {
      path: appended.path,
      title: appended.title,
      text: args.text,
      undo: { kind: 'remove_appended', path: appended.path, text: args.text },
    };
    return { text: appendedText(appended.title), result: toolSuccess(data) };
  }

  private async createReminder(
    args: Extract<ToolCall, { name: 'create_reminder' }>['args'],
    context: RouteContext,
  ): Promise<Outcome> {
    const timezone = args.timezone ?? context.zone;
    if (!isValidZone(timezone)) {
      throw new ChatPortError(
        'VALIDATION_ERROR',
        `"${timezone}" is not an IANA time zone`,
        'timezone',
      );
    }
    const due = dueInstant(args.due, timezone);
    if (due <= context.now) {
      throw new ChatPortError('VALIDATION_ERROR', `due ${args.due} is in the past`, 'due');
    }
    let repeat: string | undefined;
    if (args.repeat !== undefined) {
      const rule = validateRrule(args.repeat);
      if (!rule.ok)
        throw new ChatPortError('VALIDATION_ERROR', `repeat: ${rule.message}`, 'repeat');
      repeat = rule.rrule;
    }

    const key = RecentWrites.reminderKey(args.title, due);
    const recent = this.recentReminders.find(key);
    if (recent !== undefined) {
      return {
        text: reminderCreatedText(recent.reminder, true),
        result: toolSuccess(recent, { deduplicated: true }),
      };
    }
    const { notice, deduplicated, ...reminder } = await this.deps.reminderWriter.create({
      title: args.title,
      due: args.due,
      timezone,
      ...(repeat === undefined ? {} : { repeat }),
    });
    const data: ReminderWrittenData = {
      reminder,
      undo: { kind: 'delete_reminder', id: reminder.id, path: reminder.path },
      ...noticeOf({ notice }),
    };
    try {
      this.recentReminders.remember(key, data);
    } catch (error) {
      // As for notes: an error must mean no reminder was written (and none will fire).
      if (deduplicated !== true) {
        const writer = this.deps.reminderWriter;
        await (writer.removeCreated?.(reminder) ?? writer.delete(reminder.id)).catch(
          () => undefined,
        );
      }
      throw error;
    }
    // The writer may itself know the reminder from an identical request (the companion's API).
    const again = deduplicated === true;
    return {
      text: withNotice(reminderCreatedText(reminder, again), notice),
      result: toolSuccess(data, { deduplicated: again }),
    };
  }

  private async answer(
    args: Extract<ToolCall, { name: 'answer' }>['args'],
    options: ChatTurnOptions,
  ): Promise<Outcome> {
    const extractive = withMemories(
      this.deps.memories ? await memoriesForAnswer(this.deps.memories, args.question) : [],
      await this.deps.answerer.answer(args),
    );
    const data: AnswerData = { answer: extractive.answer, citations: extractive.citations };
    const result = toolSuccess(data);
    if (extractive.citations.length === 0) {
      // No claim without a citation: nothing retrieved means nothing to say.
      return { text: NOTHING_FOUND_TEXT, result, citations: [] };
    }
    const phraser = this.deps.phraser;
    if (phraser === undefined || options.summarize === false) {
      return { text: extractive.answer, result, citations: extractive.citations };
    }
    const stream = phraseWithFallback(phraser, args.question, extractive, options.signal);
    return { text: '', result, citations: extractive.citations, stream };
  }

  private memoryStore(): MemoryStore {
    if (this.deps.memories === undefined) {
      throw new ChatPortError('UNAVAILABLE', 'memories are not available here', 'memory');
    }
    return this.deps.memories;
  }

  private finish(options: ChatTurnOptions, turn: ChatTurn): Promise<ChatEvent> {
    return finishTurn(this.deps.conversations, options, turn);
  }
}

/** Saves a finished turn (unless the options say not to) and answers the turn's `done`. */
export async function finishTurn(
  sink: ConversationSink | undefined,
  options: ChatTurnOptions,
  turn: ChatTurn,
): Promise<ChatEvent> {
  if (sink === undefined || options.record === false) return { type: 'done' };
  try {
    const conversation = await sink.record(options.conversation, turn);
    return { type: 'done', conversation };
  } catch {
    // The answer was given; a failed transcript write must not turn it into an error.
    return { type: 'done' };
  }
}

/**
 * The LLM's phrasing with its citation markers checked. If the model fails before saying
 * anything, the extractive answer is shown instead; if it fails midway, the text says so. If
 * the phrasing cites nothing, the passages it was given are listed as its sources.
 */
async function* phraseWithFallback(
  phraser: AnswerPhraser,
  question: string,
  extractive: { answer: string; citations: Citation[] },
  signal: AbortSignalLike | undefined,
): AsyncGenerator<string> {
  const markers = new CitationMarkerFilter(extractive.citations.length);
  let said = false;
  try {
    const request = { question, passages: extractive.citations, ...(signal ? { signal } : {}) };
    for await (const piece of phraser.phrase(request)) {
      const shown = markers.push(piece);
      if (shown.trim() !== '') said = true;
      if (shown !== '') yield shown;
    }
    const rest = markers.flush();
    if (rest !== '') yield rest;
  } catch (error) {
    if (!said) {
      yield `_(The model could not phrase an answer: ${describe(error)}. The passages:)_\n\n`;
      yield extractive.answer;
      return;
    }
    yield `\n\n_(The model stopped: ${describe(error)}.)_`;
  }
  if (said && markers.cited.size === 0) {
    const all = extractive.citations.map((_, index) => `[${index + 1}]`).join(' ');
    yield `\n\nSources: ${all}`;
  }
  if (!said) yield extractive.answer;
}

/**
 * docs/clients.md: answers consult memories first. Relevant facts lead the answer as `[1]…[k]`, each
 * cited as its line of the memory file; the vault's passages follow, their markers shifted.
 */
function withMemories(
  memories: readonly MemoryItem[],
  found: { answer: string; citations: Citation[] },
): { answer: string; citations: Citation[] } {
  if (memories.length === 0) return found;
  const extractive = withoutMemoryQuotes(found, new Set(memories.map((memory) => memory.path)));
  const shift = memories.length;
  const facts = memories.map((memory, index) => `- ${memory.text} [${index + 1}]`).join('\n');
  const vault = extractive.answer.replace(/\[(\d+)\]/g, (_, n: string) => `[${Number(n) + shift}]`);
  return {
    answer:
      extractive.citations.length === 0
        ? `From what you asked me to remember:\n${facts}`
        : `From what you asked me to remember:\n${facts}\n\nFrom your notes:\n${vault}`,
    citations: [...memories.map((memory) => memoryCitation(memory)), ...extractive.citations],
  };
}

/**
 * The vault answer without its quotes of the memory file itself: the memories are listed first
 * already, and Cairn/Memory.md is an indexed note like any other, so retrieval finds the same
 * lines again. The extractive answer is one `“quote” [n]` line per citation; the kept lines are
 * renumbered. An answer in another shape (phrased by a model) is left whole.
 */
function withoutMemoryQuotes(
  extractive: { answer: string; citations: Citation[] },
  memoryPaths: ReadonlySet<string>,
): { answer: string; citations: Citation[] } {
  const lines = extractive.answer.split('\n');
  const markers = lines.map((line) => /\[(\d+)\]$/.exec(line)?.[1]);
  if (markers.some((marker) => marker === undefined)) return extractive;
  const lineOf = new Map(extractive.citations.map((citation, index) => [index + 1, citation]));
  const kept: string[] = [];
  const citations: Citation[] = [];
  lines.forEach((line, index) => {
    const citation = lineOf.get(Number(markers[index]));
    if (citation === undefined || memoryPaths.has(citation.path)) return;
    citations.push(citation);
    kept.push(line.replace(/\[\d+\]$/, `[${citations.length}]`));
  });
  if (citations.length === extractive.citations.length) return extractive;
  return { answer: kept.join('\n'), citations };
}

/** `due` as an instant: with an offset as written, without one as wall time in `zone`. */
function dueInstant(due: string, zone: string): number {
  const normalised = due.replace(' ', 'T');
  if (/(?:Z|[+-]\d{2}:?\d{2})$/.test(normalised)) {
    const instant = DateTime.fromISO(normalised, { setZone: true });
    if (!instant.isValid) {
      throw new ChatPortError(
        'VALIDATION_ERROR',
        `due "${due}" is not a real date and time`,
        'due',
      );
    }
    return instant.toMillis();
  }
  const local = parseLocalDateTime(normalised.replace(/(T\d{2}:\d{2}):00(?:\.0+)?$/, '$1'));
  if (!local.ok) throw new ChatPortError('VALIDATION_ERROR', `due: ${local.message}`, 'due');
  return wallToInstant(local.wall, zone);
}

function toToolError(error: unknown, what: string): ToolError {
  if (error instanceof ChatPortError) {
    return error.field === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, field: error.field };
  }
  return { code: 'INTERNAL_ERROR', message: `${what} failed: ${describe(error)}` };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `{ notice }` when a writer said where its write went, else nothing (no `notice: undefined`). */
function noticeOf(written: WriteNotice | void): WriteNotice {
  const notice = written?.notice;
  return notice === undefined || notice === '' ? {} : { notice };
}

/** The reply, with the writer's notice as its own paragraph. */
function withNotice(text: string, notice: string | undefined): string {
  return notice === undefined || notice === '' ? text : `${text}\n\n${notice}`;
}
