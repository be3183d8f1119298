import { MEMORY_CATEGORIES } from '../memory/memory-category';
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { ToolError } from '../protocol/errors';
import type { ToolDanger } from '../protocol/tools';
import {
  IanaZone,
  IsoDateOrDateTime,
  IsoLocalOrInstant,
  NonBlank,
  RruleText,
  TagName,
  VaultPath,
} from '../protocol/formats';
import { MEMORY_TEXT_MAX } from '../protocol/memories';
import { NOTE_BODY_MAX_CHARS } from '../protocol/notes';
import { SNOOZE_MINUTES_MAX, ReminderStatus, TITLE_MAX_CHARS } from '../protocol/reminders';
import { DocumentType, QUERY_MAX_CHARS, SEARCH_LIMIT_MAX } from '../protocol/search';
import { checkSchema } from '../protocol/validate';

/*
 * The chat tools (docs/chat.md). Each argument schema is what the LLM sees (OpenAI/Ollama native
 * tool calling), what the deterministic router must produce, and what both are checked against
 * before anything runs. Descriptions are written for a small local model: short and concrete.
 */

export const TOOL_SCHEMA_VERSION = '1.0';

const strict = { additionalProperties: false } as const;

/**
 * `dry_run` on every write tool (docs/clients.md "Dry run"): answer the change the call would
 * make (a unified diff per file) and write nothing. Only the companion can; elsewhere it is
 * refused, never ignored.
 */
export const DryRunArg = Type.Optional(
  Type.Boolean({
    description: 'optional: true to get the diff this call would make, without writing anything',
  }),
);

export const SearchArgs = Type.Object(
  {
    query: NonBlank({ maxLength: QUERY_MAX_CHARS, description: 'words to look for in the vault' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_LIMIT_MAX })),
    type: Type.Optional(DocumentType),
    folder: Type.Optional(VaultPath()),
    tag: Type.Optional(TagName()),
    from: Type.Optional(IsoDateOrDateTime()),
    to: Type.Optional(IsoDateOrDateTime()),
  },
  strict,
);
export type SearchArgs = Static<typeof SearchArgs>;

export const AnswerArgs = Type.Object(
  {
    question: NonBlank({ maxLength: QUERY_MAX_CHARS, description: "the user's question" }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
  },
  strict,
);
export type AnswerArgs = Static<typeof AnswerArgs>;

export const CreateNoteArgs = Type.Object(
  {
    title: NonBlank({ maxLength: TITLE_MAX_CHARS, description: 'a short title for the note' }),
    body: Type.String({ maxLength: NOTE_BODY_MAX_CHARS, description: 'the note text, Markdown' }),
    tags: Type.Optional(Type.Array(TagName(), { maxItems: 50 })),
    folder: Type.Optional(VaultPath()),
    dry_run: DryRunArg,
  },
  strict,
);
export type CreateNoteArgs = Static<typeof CreateNoteArgs>;

export const AppendToNoteArgs = Type.Object(
  {
    note: NonBlank({
      maxLength: 1024,
      description: "the note's path, id or exact title",
    }),
    text: NonBlank({ maxLength: NOTE_BODY_MAX_CHARS, description: 'Markdown to append' }),
    /** Append at the end of this heading's section instead of the end of the note. */
    heading: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    dry_run: DryRunArg,
  },
  strict,
);
export type AppendToNoteArgs = Static<typeof AppendToNoteArgs>;

export const CreateReminderArgs = Type.Object(
  {
    title: NonBlank({ maxLength: TITLE_MAX_CHARS, description: 'what to be reminded of' }),
    due: IsoLocalOrInstant(),
    timezone: Type.Optional(IanaZone()),
    repeat: Type.Optional(RruleText()),
    dry_run: DryRunArg,
  },
  strict,
);
export type CreateReminderArgs = Static<typeof CreateReminderArgs>;

/** A scheduled task (docs/tasks.md); the companion checks the schedule, zone and action. */
export const CreateTaskArgs = Type.Object(
  {
    name: NonBlank({ maxLength: 100, description: "the task's name (its file name)" }),
    schedule: NonBlank({
      maxLength: 1000,
      description:
        'when: an ISO date-time for once (2026-11-28T08:00), RRULE:FREQ=… or a five-field cron string (0 17 * * FRI)',
    }),
    timezone: Type.Optional(IanaZone()),
    action: Type.Union(
      [Type.Literal('ask'), Type.Literal('search'), Type.Literal('digest'), Type.Literal('prompt')],
      { description: 'ask (question), search (query), digest (weekly), prompt (needs an LLM)' },
    ),
    question: Type.Optional(NonBlank({ maxLength: 2000 })),
    query: Type.Optional(NonBlank({ maxLength: 2000 })),
    prompt: Type.Optional(NonBlank({ maxLength: 2000 })),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    within: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]),
    ),
    deliver: Type.Optional(
      Type.Array(Type.Union([Type.Literal('note'), Type.Literal('push')]), {
        minItems: 1,
        maxItems: 2,
      }),
    ),
    dry_run: DryRunArg,
  },
  strict,
);
export type CreateTaskArgs = Static<typeof CreateTaskArgs>;

export const ListRemindersArgs = Type.Object(
  {
    from: Type.Optional(IsoDateOrDateTime()),
    to: Type.Optional(IsoDateOrDateTime()),
    status: Type.Optional(ReminderStatus),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  },
  strict,
);
export type ListRemindersArgs = Static<typeof ListRemindersArgs>;

const ReminderId = NonBlank({ maxLength: 200, description: 'the reminder id' });

export const SnoozeReminderArgs = Type.Object(
  {
    id: ReminderId,
    minutes: Type.Integer({ minimum: 1, maximum: SNOOZE_MINUTES_MAX }),
    dry_run: DryRunArg,
  },
  strict,
);
export type SnoozeReminderArgs = Static<typeof SnoozeReminderArgs>;

export const CompleteReminderArgs = Type.Object({ id: ReminderId, dry_run: DryRunArg }, strict);
export type CompleteReminderArgs = Static<typeof CompleteReminderArgs>;

export const RememberArgs = Type.Object(
  {
    text: NonBlank({ maxLength: MEMORY_TEXT_MAX, description: 'the fact about the user to keep' }),
    dry_run: DryRunArg,
  },
  strict,
);
export type RememberArgs = Static<typeof RememberArgs>;

export const ForgetArgs = Type.Object(
  {
    memory: NonBlank({
      maxLength: MEMORY_TEXT_MAX,
      description: "the memory's id (m-xxxx) or words of the fact to forget",
    }),
    dry_run: DryRunArg,
  },
  strict,
);
export type ForgetArgs = Static<typeof ForgetArgs>;

export const RecallArgs = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: QUERY_MAX_CHARS,
        description: 'what the facts are about; empty for all',
      }),
    ),
    category: Type.Optional(
      Type.Union(
        MEMORY_CATEGORIES.map((name) => Type.Literal(name)),
        { description: 'only facts of this category (food, movies, books, places, …)' },
      ),
    ),
  },
  strict,
);
export type RecallArgs = Static<typeof RecallArgs>;

/** A reminder made from a memory (docs/memory-digest-calendar.md): its note links the memory. */
export const MemoryToReminderArgs = Type.Object(
  {
    memory: NonBlank({
      maxLength: MEMORY_TEXT_MAX,
      description: "the memory's id (m-xxxx) or words of the remembered fact",
    }),
    due: IsoLocalOrInstant(),
    timezone: Type.Optional(IanaZone()),
    repeat: Type.Optional(RruleText()),
    title: Type.Optional(
      NonBlank({
        maxLength: TITLE_MAX_CHARS,
        description: "the reminder's title; the memory's words when absent",
      }),
    ),
    dry_run: DryRunArg,
  },
  strict,
);
export type MemoryToReminderArgs = Static<typeof MemoryToReminderArgs>;

interface ToolDefinition<S extends TSchema> {
  readonly description: string;
  readonly args: S;
  /**
   * `write` when the tool changes the vault (a note, reminder or memory): it needs a token with
   * the `write` scope (docs/clients.md). The one place a tool is classified: REST chat, MCP and
   * `/v1/chat/completions` all read it from here.
   */
  readonly scope: 'read' | 'write';
  /**
   * docs/tools.md: `low` reads, `medium` writes that Undo can revert, `high` anything else (it
   * asks the user every time). Absent: `low` for read tools, `medium` for write tools.
   */
  readonly danger?: ToolDanger;
  /** True when the tool itself reaches beyond this device and the LAN. Absent: false. */
  readonly requiresNetwork?: boolean;
}

/** Every tool, its description for the model, its argument schema and the scope it needs. */
export const TOOLS = {
  search: {
    description: 'Find notes, reminders and PDFs in the vault that match some words.',
    args: SearchArgs,
    scope: 'read',
  },
  answer: {
    description: 'Answer a question from the vault, quoting the passages it relies on.',
    args: AnswerArgs,
    scope: 'read',
  },
  create_note: {
    description: 'Create a new note in the vault.',
    args: CreateNoteArgs,
    scope: 'write',
  },
  append_to_note: {
    description: 'Add text to the end of an existing note (or of one of its sections).',
    args: AppendToNoteArgs,
    scope: 'write',
  },
  create_reminder: {
    description:
      'Create a reminder at a date and time (ISO 8601, e.g. 2026-11-23T17:00), optionally repeating (RRULE).',
    args: CreateReminderArgs,
    scope: 'write',
  },
  create_task: {
    description:
      'Schedule a task: ask a question, search, or write the digest at a time, an RRULE or a cron schedule; the result is written to a note (and pushed).',
    args: CreateTaskArgs,
    scope: 'write',
  },
  list_reminders: {
    description: 'List reminders, optionally those due between two dates.',
    args: ListRemindersArgs,
    scope: 'read',
  },
  snooze_reminder: {
    description: 'Postpone a reminder by a number of minutes.',
    args: SnoozeReminderArgs,
    scope: 'write',
  },
  complete_reminder: {
    description: 'Mark a reminder as done.',
    args: CompleteReminderArgs,
    scope: 'write',
  },
  remember: {
    description: 'Keep a personal fact about the user in their memory file.',
    args: RememberArgs,
    scope: 'write',
  },
  forget: { description: 'Remove one remembered fact.', args: ForgetArgs, scope: 'write' },
  recall: {
    description: 'List remembered facts about something.',
    args: RecallArgs,
    scope: 'read',
  },
  memory_to_reminder: {
    description:
      'Create a reminder about a remembered fact at a date and time (ISO 8601); the reminder links back to the memory.',
    args: MemoryToReminderArgs,
    scope: 'write',
  },
} as const satisfies Record<string, ToolDefinition<TSchema>>;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

/** Tools that change the vault (`scope: 'write'` in TOOLS): they need the `write` scope. */
export const WRITE_TOOLS: ReadonlySet<string> = new Set(
  TOOL_NAMES.filter((name) => TOOLS[name].scope === 'write'),
);

/** A Cairn tool's danger: as TOOLS says, else by its scope (reads low, writes medium). */
export function cairnToolDanger(name: ToolName): ToolDanger {
  const tool: ToolDefinition<TSchema> = TOOLS[name];
  return tool.danger ?? (tool.scope === 'write' ? 'medium' : 'low');
}

/** Whether a Cairn tool reaches the network itself (none does unless TOOLS says so). */
export function cairnToolNeedsNetwork(name: ToolName): boolean {
  const tool: ToolDefinition<TSchema> = TOOLS[name];
  return tool.requiresNetwork ?? false;
}

/** The refusal a tool call gets when the token may only read. */
export function writeScopeRefusal(tool: string): ToolError {
  return {
    code: 'FORBIDDEN',
    message: `${tool} needs the write scope, which this token does not have`,
  };
}

/** A checked call: the name narrows the arguments. */
export type ToolCall = {
  [N in ToolName]: { name: N; args: Static<(typeof TOOLS)[N]['args']> };
}[ToolName];

export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(TOOLS, name);
}

export type ToolCallCheck = { ok: true; call: ToolCall } | { ok: false; error: ToolError };

/**
 * Checks a tool call proposed by the router or an LLM before anything runs. `args` may be an
 * object (Ollama) or a JSON string (OpenAI-style `function.arguments`). Top-level `null` values
 * are read as "not given": small models emit `"tag": null` for every optional they skip.
 * Nothing else is coerced: a wrong call fails, and the chat falls back to `answer`.
 */
export function validateToolCall(name: string, args: unknown): ToolCallCheck {
  if (!isToolName(name)) {
    return invalid(`unknown tool "${name}"; expected one of ${TOOL_NAMES.join(', ')}`, 'name');
  }
  let value = args;
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : JSON.parse(value);
    } catch {
      return invalid(`${name}: arguments are not valid JSON`, 'arguments');
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    return invalid(`${name}: arguments must be an object`, 'arguments');
  }
  const withoutNulls = Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null),
  );
  const check = checkSchema(TOOLS[name].args, withoutNulls);
  if (!check.ok) {
    return invalid(`${name}: ${check.violation.message}`, check.violation.field || undefined);
  }
  return { ok: true, call: { name, args: check.value } as ToolCall };
}

function invalid(message: string, field: string | undefined): ToolCallCheck {
  const error: ToolError =
    field === undefined
      ? { code: 'VALIDATION_ERROR', message }
      : { code: 'VALIDATION_ERROR', message, field };
  return { ok: false, error };
}

/* Result envelopes (docs/chat.md). */

export const ToolSuccess = <T extends TSchema>(data: T) =>
  Type.Object({
    success: Type.Literal(true),
    /** Present (true) when an identical write within 5 minutes was returned instead of repeated. */
    deduplicated: Type.Optional(Type.Literal(true)),
    data,
  });

export const ToolFailure = Type.Object({ success: Type.Literal(false), error: ToolError });
export type ToolFailure = Static<typeof ToolFailure>;

/** Any tool's result, data unchecked: for transports (SSE, logs) that relay results. */
export const ToolResultSchema = Type.Union([ToolSuccess(Type.Unknown()), ToolFailure]);

export type ToolResult<T = unknown> =
  { success: true; deduplicated?: true; data: T } | { success: false; error: ToolError };

export function toolSuccess<T>(data: T, options: { deduplicated?: boolean } = {}): ToolResult<T> {
  return options.deduplicated
    ? { success: true, deduplicated: true, data }
    : { success: true, data };
}

export function toolFailure(error: ToolError): ToolResult<never> {
  return { success: false, error };
}

/** A tool as OpenAI's and Ollama's `tools` parameter wants it. */
export interface FunctionToolSpec {
  type: 'function';
  /** A Cairn tool's name, or an MCP server's tool as `server__tool` (docs/tools.md). */
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * The tools for native tool calling, version `TOOL_SCHEMA_VERSION`. Parameters are plain JSON:
 * TypeBox's symbol-keyed metadata is stripped so clients serialise exactly what they are given.
 */
export function toolSpecs(): FunctionToolSpec[] {
  return TOOL_NAMES.map((name) => ({
    type: 'function',
    function: {
      name,
      description: TOOLS[name].description,
      parameters: JSON.parse(JSON.stringify(TOOLS[name].args)) as Record<string, unknown>,
    },
  }));
}
