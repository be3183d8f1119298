/**
 * The tool runner (docs/chat.md): runs exactly one tool call through the ports and answers the
 * standard envelope (`ToolResult`), what the chat would say, and its citations. It never throws:
 * a port's expected failure (`ChatPortError`, or whatever the host's `toolError` recognises) is
 * the failure envelope with its code, anything else INTERNAL_ERROR. One place maps errors.
 *
 * Two kinds of caller: the chat engine (chat-engine.ts) routes a message to a call and streams
 * the outcome; outside clients (MCP and the OpenAI route, companion/clients) check a client
 * tool's arguments once against its schema (companion/tools/client-tools.ts) and hand the typed call to `call`.
 * `execute` is for callers whose arguments are unchecked: it validates them first.
 *
 * Writes carry an `undo` action in their result data (the created path, the appended text, the
 * reminder as it was); `undo(action)` reverses it through the same ports. Writes within five
 * minutes of an identical one are answered from `RecentWrites` instead of written again.
 */
import { DateTime } from 'luxon';
import type { Clock } from '../ports';
import type { AnswerAudit, UnsupportedClaimPolicy } from '../protocol/answer-audit';
import type { Citation } from '../protocol/citation';
import type { MemoryItem } from '../protocol/memories';
import type { ToolError } from '../protocol/errors';
import type { DryRunOutcome, DryRunResponse, PlannedChange } from '../protocol/dry-run';
import { TITLE_MAX_CHARS } from '../protocol/reminders';
import type { Reminder } from '../protocol/reminders';
import { isValidZone, parseLocalDateTime, wallToInstant } from '../reminders/local-time';
import { validateRrule } from '../reminders/recurrence';
import { ClaimStream, answerAudit, extractiveAudit } from '../search/claim-check';
import { formatSourceNotes, sourceDateNotes } from '../search/source-dates';
import type { ClaimSimilarity } from '../search/claim-check';
import { CitationMarkerFilter } from './citation-markers';
import {
  DEFAULT_TOOL_TIMEOUT_MS,
  runGated,
  type GateAskEvent,
  type GateSteps,
  type GatedRequest,
  type ToolPolicy,
} from './tool-policy';
import type { RouteContext } from './intent-router';
import {
  ChatPortError,
  type AbortSignalLike,
  type Answerer,
  type AnswerPhraser,
  type CreatedNote,
  type MemoryStore,
  type NoteWriter,
  type ReminderReader,
  type ReminderWriter,
  type Searcher,
  type SearchHit,
  type WriteNotice,
  type TaskCreator,
  type ScheduledTaskView,
} from './ports';
import {
  forgetFact,
  memoriesForAnswer,
  memoryCitation,
  pickMemory,
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
  toolFailure,
  toolSuccess,
  validateToolCall,
  type ToolCall,
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
/** A reminder made from a memory: the reminder (its note links the memory) and the memory. */
export interface MemoryReminderData extends ReminderWrittenData {
  memory: MemoryItem;
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
  /**
   * What was retrieved, used and claimed (shared/search/claim-check.ts). For a phrased answer it
   * is complete once the answer's stream has ended (the `tool` event comes after it).
   */
  audit?: AnswerAudit;
}

export interface ToolRunnerDeps {
  clock: Clock;
  /** The user's IANA zone (vault setting); read per call so a settings change applies. */
  zone: () => string;
  notes: NoteWriter;
  reminderReader: ReminderReader;
  reminderWriter: ReminderWriter;
  searcher: Searcher;
  answerer: Answerer;
  /** An LLM that phrases answers from passages; without one, answers stay extractive. */
  phraser?: AnswerPhraser;
  /** Where the five-minute dedup of writes is kept; in memory when absent. */
  recentWrites?: RecentWritesStore;
  /** What a phrased answer's unsupported claims become (a user setting); default `mark`. */
  unsupportedClaims?: () => UnsupportedClaimPolicy;
  /** Embedding similarity for the claim check, when a model is loaded. */
  claimSimilarity?: ClaimSimilarity;
  /** `Cairn/Memory.md` (docs/clients.md); without it "remember that …" writes a note instead. */
  memories?: MemoryStore;
  /** Scheduled tasks (docs/tasks.md); without it `create_task` answers UNAVAILABLE. */
  tasks?: TaskCreator;
  /**
   * The host's expected errors as tool errors (the companion's HTTP and vault-write errors), so
   * its ports throw what its services throw and the mapping happens here, once (the gate's run
   * step too; a `ChatPortError` never reaches it). `what` names the tool or step. Answer undefined
   * for an error it does not know: that
   * one is INTERNAL_ERROR with the error's message (a host whose callers must not see raw error
   * text, the companion's, answers every error itself).
   */
  toolError?: (error: unknown, what: string) => ToolError | undefined;
  /**
   * Where tools, permissions, asks and the run log live (docs/tools.md): with it every call goes
   * through the gate (tool-policy.ts); without it (older hosts, unit tests) calls run as before.
   */
  policy?: ToolPolicy;
  /**
   * Runs a write as a dry run (docs/clients.md "Dry run"): the host's vault write path records
   * the change instead of making it. Without it, `dry_run: true` is refused.
   */
  dryRun?: <T>(work: () => Promise<T>) => Promise<DryRunOutcome<T>>;
}

export interface ToolRunOptions {
  /** Phrase answers with the LLM when one is configured; default true. */
  summarize?: boolean;
  /**
   * `memory_to_reminder` naming no memory writes a plain reminder titled with the words (chat's
   * "remind me about the dentist on Friday at 9" when nothing about the dentist is remembered);
   * without it (MCP) such a call is a NOT_FOUND.
   */
  plainReminderWithoutMemory?: boolean;
  signal?: AbortSignalLike;
}

/** What a tool call returns: the envelope, what the chat says, and its citations. */
export interface ToolOutcome {
  text: string;
  result: ToolResult;
  citations?: Citation[];
  /** Streams the answer text instead of `text` (LLM phrasing). */
  stream?: AsyncIterable<string>;
}

/** A tool's outcome for clients that show text (MCP, the OpenAI route): never LLM-phrased. */
export interface ClientToolOutcome {
  result: ToolResult;
  text: string;
  citations: Citation[];
}

export class ToolRunner {
  private readonly recentNotes: RecentWrites<NoteCreatedData>;
  private readonly recentReminders: RecentWrites<ReminderWrittenData>;

  constructor(private readonly deps: ToolRunnerDeps) {
    this.recentNotes = new RecentWrites(deps.clock, 'chat-note', deps.recentWrites);
    this.recentReminders = new RecentWrites(deps.clock, 'chat-reminder', deps.recentWrites);
  }

  /**
   * A checked call from an outside client (its arguments already passed the client tool's
   * schema): the outcome without LLM phrasing, since a client's own model does that.
   */
  async call(call: ToolCall): Promise<ClientToolOutcome> {
    let context: RouteContext;
    try {
      context = { now: this.deps.clock.now(), zone: this.deps.zone() };
    } catch (error) {
      return { result: toolFailure(this.toolError(error, call.name)), text: '', citations: [] };
    }
    const outcome = await this.run(call, { summarize: false }, context);
    return { result: outcome.result, text: outcome.text, citations: outcome.citations ?? [] };
  }

  /** A call whose arguments nobody checked yet (an LLM's, a test's): validated, then run. */
  async execute(name: string, args: unknown): Promise<ClientToolOutcome> {
    const check = validateToolCall(name, args);
    if (!check.ok) return { result: toolFailure(check.error), text: '', citations: [] };
    return this.call(check.call);
  }

  /** The host's tool policy, when it has one (docs/tools.md). */
  get policy(): ToolPolicy | undefined {
    return this.deps.policy;
  }

  /**
   * Any tool call through the gate (tool-policy.ts): enabled, permission (yielding an ask when
   * the user must answer first), schema, offline mode, scope; then the run with its timeout and
   * output cap, recorded. Without a policy only the schema is checked, as before.
   */
  async *gated<T extends { result: ToolResult }>(
    request: GatedRequest,
    steps: GateSteps<T>,
  ): AsyncGenerator<GateAskEvent, T> {
    const policy = this.deps.policy;
    if (policy !== undefined) {
      return yield* runGated(policy, request, steps, (error) =>
        this.toolError(error, request.name),
      );
    }
    const invalid = steps.validate();
    if (invalid !== undefined) return steps.refused(invalid);
    try {
      return await steps.run({
        timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      return steps.refused(this.toolError(error, request.name));
    }
  }

  /** The gate's steps for one of Cairn's own tools, its call already typed. */
  cairnSteps(
    call: ToolCall,
    options: ToolRunOptions,
    context: RouteContext,
  ): GateSteps<ToolOutcome> {
    return {
      validate: () => {
        const check = validateToolCall(call.name, call.args);
        return check.ok ? undefined : check.error;
      },
      run: () => this.run(call, options, context),
      refused: (error) => ({ text: '', result: toolFailure(error) }),
    };
  }

  /** The gate's steps for a tool of one of the user's MCP servers. */
  externalSteps(name: string, args: unknown): GateSteps<ToolOutcome> {
    const external = this.deps.policy?.external;
    return {
      validate: () =>
        external === undefined
          ? { code: 'VALIDATION_ERROR', message: `unknown tool "${name}"`, field: 'name' }
          : external.validate(name, args),
      run: async (limits) => {
        if (external === undefined) throw new ChatPortError('UNAVAILABLE', 'no MCP servers here');
        return await external.call(name, args, limits);
      },
      refused: (error) => ({ text: '', result: toolFailure(error) }),
    };
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
      return toolFailure(this.toolError(error, 'undo'));
    }
  }

  /**
   * Runs a checked call; never throws. A write with `dry_run: true` runs as a dry run (the host's
   * `dryRun`): its answer is the change it would make, and nothing is written.
   */
  async run(call: ToolCall, options: ToolRunOptions, context: RouteContext): Promise<ToolOutcome> {
    const { dry_run: asked, ...args } = call.args as { dry_run?: boolean };
    if (asked === undefined) return this.runChecked(call, options, context);
    const plain = { name: call.name, args } as ToolCall;
    if (asked !== true) return this.runChecked(plain, options, context);
    if (this.deps.dryRun === undefined) {
      return {
        text: '',
        result: toolFailure({
          code: 'VALIDATION_ERROR',
          message: `${call.name}: dry_run needs the Cairn companion; nothing was written`,
          field: 'dry_run',
        }),
      };
    }
    let outcome: DryRunOutcome<ToolOutcome>;
    try {
      outcome = await this.deps.dryRun(() => this.runChecked(plain, options, context));
    } catch (error) {
      return { text: '', result: toolFailure(this.toolError(error, call.name)) };
    }
    if (!outcome.stopped) return outcome.value;
    const data: DryRunResponse = { dry_run: true, changes: [...outcome.changes] };
    return { text: dryRunText(outcome.changes), result: toolSuccess(data) };
  }

  private async runChecked(
    call: ToolCall,
    options: ToolRunOptions,
    context: RouteContext,
  ): Promise<ToolOutcome> {
    try {
      switch (call.name) {
        case 'create_note':
          return await this.createNote(call.args);
        case 'append_to_note':
          return await this.appendToNote(call.args);
        case 'create_reminder':
          return await this.createReminder(call.args, context);
        case 'create_task': {
          if (this.deps.tasks === undefined) {
            throw new ChatPortError('UNAVAILABLE', 'scheduled tasks need the Cairn companion');
          }
          const task = await this.deps.tasks.create({
            ...call.args,
            timezone: call.args.timezone ?? context.zone,
          });
          return { text: taskCreatedText(task), result: toolSuccess({ task }) };
        }
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
        case 'memory_to_reminder':
          return await this.memoryToReminder(call.args, options, context);
      }
    } catch (error) {
      return { text: '', result: toolFailure(this.toolError(error, call.name)) };
    }
  }

  private async createNote(
    args: Extract<ToolCall, { name: 'create_note' }>['args'],
  ): Promise<ToolOutcome> {
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
  ): Promise<ToolOutcome> {
    const appended = await this.deps.notes.append(args);
    const data: AppendedData = {
      path: appended.path,
      title: appended.title,
      text: args.text,
      undo: { kind: 'remove_appended', path: appended.path, text: args.text },
    };
    return { text: appendedText(appended.title), result: toolSuccess(data) };
  }

  /**
   * A reminder whose note links a memory's line (docs/memory-digest-calendar.md), titled with
   * the memory's words unless a title is given. Chat's "remind me about X" names no memory more
   * often than not: with `plainReminderWithoutMemory` that is a plain reminder titled X.
   */
  private async memoryToReminder(
    args: Extract<ToolCall, { name: 'memory_to_reminder' }>['args'],
    options: ToolRunOptions,
    context: RouteContext,
  ): Promise<ToolOutcome> {
    const { memory: words, title, ...when } = args;
    let memory: MemoryItem;
    try {
      memory = pickMemory(await this.memoryStore().list(), words);
    } catch (error) {
      const noMemory =
        error instanceof ChatPortError &&
        (error.code === 'NOT_FOUND' || error.code === 'UNAVAILABLE');
      if (!noMemory || options.plainReminderWithoutMemory !== true) throw error;
      return await this.createReminder({ ...when, title: title ?? words }, context);
    }
    const reminderTitle = title ?? memory.text.slice(0, TITLE_MAX_CHARS).trim();
    const outcome = await this.createReminder({ ...when, title: reminderTitle }, context, memory);
    if (!outcome.result.success) return outcome;
    const data: MemoryReminderData = { ...(outcome.result.data as ReminderWrittenData), memory };
    return {
      text: `${outcome.text}\nIt links the memory "${memory.text}" (^${memory.id} in ${memory.path}).`,
      result: toolSuccess(data, { deduplicated: outcome.result.deduplicated === true }),
      citations: [memoryCitation(memory)],
    };
  }

  private async createReminder(
    args: Extract<ToolCall, { name: 'create_reminder' }>['args'],
    context: RouteContext,
    memory?: MemoryItem,
  ): Promise<ToolOutcome> {
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

    const key = RecentWrites.reminderKey(args.title, due) + (memory ? `|${memory.id}` : '');
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
      ...(memory === undefined ? {} : { memory }),
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
    options: ToolRunOptions,
  ): Promise<ToolOutcome> {
    const extractive = withMemories(
      this.deps.memories ? await memoriesForAnswer(this.deps.memories, args.question) : [],
      await this.deps.answerer.answer(args),
    );
    const data: AnswerData = {
      answer: extractive.answer,
      citations: extractive.citations,
      audit: extractiveAudit(extractive),
    };
    const result = toolSuccess(data);
    if (extractive.citations.length === 0) {
      // No claim without a citation: nothing retrieved means nothing to say.
      return { text: NOTHING_FOUND_TEXT, result, citations: [] };
    }
    // The sources' age and disagreements (source-dates.ts), under the answer however phrased.
    const notes = formatSourceNotes(sourceDateNotes(extractive.citations, this.deps.clock.now()));
    const phraser = this.deps.phraser;
    if (phraser === undefined || options.summarize === false) {
      return { text: extractive.answer + notes, result, citations: extractive.citations };
    }
    const claims = new ClaimStream(
      extractive.citations.map((citation) => ({ text: citation.excerpt, title: citation.title })),
      this.deps.unsupportedClaims?.() ?? 'mark',
      {
        question: args.question,
        ...(this.deps.claimSimilarity ? { similarity: this.deps.claimSimilarity } : {}),
      },
    );
    const stream = withTail(
      phraseWithFallback(phraser, args.question, extractive, options.signal, claims, (audit) => {
        data.audit = audit;
      }),
      notes,
    );
    return { text: '', result, citations: extractive.citations, stream };
  }

  private memoryStore(): MemoryStore {
    if (this.deps.memories === undefined) {
      throw new ChatPortError('UNAVAILABLE', 'memories are not available here', 'memory');
    }
    return this.deps.memories;
  }

  /** The one mapping from what a tool threw to the error its caller sees. */
  private toolError(error: unknown, what: string): ToolError {
    // A port's own ChatPortError is already a tool error; the host maps only its own errors.
    if (error instanceof ChatPortError) return toToolError(error, what);
    return this.deps.toolError?.(error, what) ?? toToolError(error, what);
  }
}

/** A stream, then `tail` once it has ended. */
async function* withTail(stream: AsyncIterable<string>, tail: string): AsyncGenerator<string> {
  yield* stream;
  if (tail !== '') yield tail;
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
  claims: ClaimStream,
  onAudit: (audit: AnswerAudit) => void,
): AsyncGenerator<string> {
  const markers = new CitationMarkerFilter(extractive.citations.length);
  let said = false;
  try {
    const request = { question, passages: extractive.citations, ...(signal ? { signal } : {}) };
    for await (const piece of phraser.phrase(request)) {
      const shown = await claims.push(markers.push(piece));
      if (shown.trim() !== '') said = true;
      if (shown !== '') yield shown;
    }
    const rest = await claims.push(markers.flush());
    const last = rest + (await claims.end());
    if (last.trim() !== '') said = true;
    if (last !== '') yield last;
  } catch (error) {
    const pending = await claims.end();
    if (!said && pending.trim() === '') {
      yield `_(The model could not phrase an answer: ${describe(error)}. The passages:)_\n\n`;
      yield extractive.answer;
      onAudit(extractiveAudit(extractive));
      return;
    }
    said = true;
    yield `${pending}\n\n_(The model stopped: ${describe(error)}.)_`;
  }
  if (said && claims.claims.every((claim) => claim.citations.length === 0)) {
    const all = extractive.citations.map((_, index) => `[${index + 1}]`).join(' ');
    yield `\n\nSources: ${all}`;
  }
  if (!said) {
    yield extractive.answer;
    onAudit(extractiveAudit(extractive));
    return;
  }
  onAudit(answerAudit(extractive.citations, claims.claims));
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

/** A port's `ChatPortError` as its tool error; anything else is INTERNAL_ERROR naming `what`. */
export function toToolError(error: unknown, what: string): ToolError {
  if (error instanceof ChatPortError) {
    return error.field === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, field: error.field };
  }
  return { code: 'INTERNAL_ERROR', message: `${what} failed: ${describe(error)}` };
}

export function describe(error: unknown): string {
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

/** "Task "House" is set: Cairn/Tasks/House.md. It runs next on 2026-12-04 17:00 (Europe/Berlin)." */
function taskCreatedText(task: ScheduledTaskView): string {
  const next =
    task.next_run === null
      ? 'It has no run left in its schedule.'
      : `It runs next on ${task.next_run.slice(0, 16).replace('T', ' ')} (${task.timezone}); each result goes to "${task.name} (runs)".`;
  return `Task "${task.name}" is set: ${task.path}. ${next}`;
}

/** What the chat says for a dry run: each file's change as its diff. */
function dryRunText(changes: readonly PlannedChange[]): string {
  const parts = changes.map((change) => {
    const what =
      change.action === 'move'
        ? `move ${change.path} to ${change.to ?? ''}`
        : change.action === 'schedule'
          ? `change the schedule of a reminder in ${change.path}`
          : `${change.action} ${change.path}`;
    return `Dry run, nothing written. Would ${what}:\n${change.diff}`;
  });
  return parts.join('\n');
}
