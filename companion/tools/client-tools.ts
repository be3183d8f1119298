import { Type } from '@sinclair/typebox';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { Citation } from '../../shared/protocol/citation';
import { VaultPath } from '../../shared/protocol/formats';
import {
  AnswerArgs,
  AppendToNoteArgs,
  CompleteReminderArgs,
  CreateNoteArgs,
  CreateReminderArgs,
  CreateTaskArgs,
  DryRunArg,
  ForgetArgs,
  ListRemindersArgs,
  MemoryToReminderArgs,
  RecallArgs,
  RememberArgs,
  SearchArgs,
  SnoozeReminderArgs,
  TOOLS,
} from '../../shared/chat/tool-schemas';
import type { ToolName } from '../../shared/chat/tool-schemas';

/*
 * The tools an outside client sees (docs/clients.md: MCP, and the OpenAI route's instructions), built
 * from the chat tools' schemas (tool-schemas.ts) so a tool's arguments are checked the same way
 * wherever it is called. One tool exists only here: `read_note` (a chat has the note open).
 */

const strict = { additionalProperties: false } as const;

/** Lines `read_note` returns at most in one call; ask again with `from_line` for more. */
export const READ_NOTE_MAX_LINES = 2000;

export const ReadNoteArgs = Type.Object(
  {
    path: VaultPath({ description: "the note's vault path, e.g. Travel/Visa rules.md" }),
    from_line: Type.Optional(Type.Integer({ minimum: 1, description: 'first line, 1-based' })),
    to_line: Type.Optional(Type.Integer({ minimum: 1, description: 'last line, inclusive' })),
  },
  strict,
);

/** docs/clients.md names the note `path`; the chat tool calls it `note` (path, id or title). */
export const ClientAppendArgs = Type.Object(
  {
    path: AppendToNoteArgs.properties.note,
    text: AppendToNoteArgs.properties.text,
    heading: AppendToNoteArgs.properties.heading,
    dry_run: DryRunArg,
  },
  strict,
);

/** docs/clients.md names the fact `fact`; the chat tool calls it `text`. */
export const ClientRememberArgs = Type.Object(
  { fact: RememberArgs.properties.text, dry_run: DryRunArg },
  strict,
);

/** Longest `idempotency_key` (as the REST `Idempotency-Key` header). */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/**
 * The optional `idempotency_key` every write tool takes (docs/clients.md): MCP has no per-call
 * header, so a client that retries a call (a timeout, a dropped connection) passes the same key
 * again, and the companion answers the first call's result instead of writing twice.
 */
export const IdempotencyKeyArg = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX_CHARS,
    pattern: '^[!-~]+$',
    description:
      'optional: a unique string per intended write (e.g. a UUID). Retrying with the same key and arguments returns the first result and writes nothing again',
  }),
);

/** A write tool's arguments with `idempotency_key` added. */
function keyed<T extends TObject>(schema: T) {
  return Type.Object({ ...schema.properties, idempotency_key: IdempotencyKeyArg }, strict);
}

export interface ClientToolDefinition {
  readonly description: string;
  readonly args: TSchema;
  /**
   * `write` for tools that change the vault (docs/clients.md), else `read`: a chat tool's own
   * scope from TOOLS, never a second classification.
   */
  readonly scope: 'read' | 'write';
  /** The chat tool that runs it, when it is one. */
  readonly chatTool?: ToolName;
}

export const CLIENT_TOOLS = {
  search: {
    description: TOOLS.search.description,
    args: SearchArgs,
    scope: TOOLS.search.scope,
    chatTool: 'search',
  },
  ask: {
    description: TOOLS.answer.description,
    args: AnswerArgs,
    scope: TOOLS.answer.scope,
    chatTool: 'answer',
  },
  read_note: {
    description: `Read a note's text with line numbers (at most ${READ_NOTE_MAX_LINES} lines per call).`,
    args: ReadNoteArgs,
    scope: 'read',
  },
  list_reminders: {
    description: TOOLS.list_reminders.description,
    args: ListRemindersArgs,
    scope: TOOLS.list_reminders.scope,
    chatTool: 'list_reminders',
  },
  create_task: {
    description: TOOLS.create_task.description,
    args: keyed(CreateTaskArgs),
    scope: TOOLS.create_task.scope,
    chatTool: 'create_task',
  },
  create_reminder: {
    description: TOOLS.create_reminder.description,
    args: keyed(CreateReminderArgs),
    scope: TOOLS.create_reminder.scope,
    chatTool: 'create_reminder',
  },
  complete_reminder: {
    description: TOOLS.complete_reminder.description,
    args: keyed(CompleteReminderArgs),
    scope: TOOLS.complete_reminder.scope,
    chatTool: 'complete_reminder',
  },
  snooze_reminder: {
    description: TOOLS.snooze_reminder.description,
    args: keyed(SnoozeReminderArgs),
    scope: TOOLS.snooze_reminder.scope,
    chatTool: 'snooze_reminder',
  },
  create_note: {
    description: TOOLS.create_note.description,
    args: keyed(CreateNoteArgs),
    scope: TOOLS.create_note.scope,
    chatTool: 'create_note',
  },
  append_to_note: {
    description: TOOLS.append_to_note.description,
    args: keyed(ClientAppendArgs),
    scope: TOOLS.append_to_note.scope,
    chatTool: 'append_to_note',
  },
  remember: {
    description: TOOLS.remember.description,
    args: keyed(ClientRememberArgs),
    scope: TOOLS.remember.scope,
    chatTool: 'remember',
  },
  recall: {
    description: TOOLS.recall.description,
    args: RecallArgs,
    scope: TOOLS.recall.scope,
    chatTool: 'recall',
  },
  forget: {
    description: TOOLS.forget.description,
    args: keyed(ForgetArgs),
    scope: TOOLS.forget.scope,
    chatTool: 'forget',
  },
  memory_to_reminder: {
    description: TOOLS.memory_to_reminder.description,
    args: keyed(MemoryToReminderArgs),
    scope: TOOLS.memory_to_reminder.scope,
    chatTool: 'memory_to_reminder',
  },
} as const satisfies Record<string, ClientToolDefinition>;

export type ClientToolName = keyof typeof CLIENT_TOOLS;
export const CLIENT_TOOL_NAMES = Object.keys(CLIENT_TOOLS) as ClientToolName[];

export function isClientToolName(name: string): name is ClientToolName {
  return Object.prototype.hasOwnProperty.call(CLIENT_TOOLS, name);
}

/** A tool's argument schema as plain JSON Schema (TypeBox's symbol keys stripped). */
export function clientToolJsonSchema(name: ClientToolName): Record<string, unknown> {
  return JSON.parse(JSON.stringify(CLIENT_TOOLS[name].args)) as Record<string, unknown>;
}

/**
 * The numbered source list a reply ends with (docs/clients.md): `[1]: path#heading, lines a–b`
 * (`line a` for one line), or `[2]: file.pdf, page 3`. Empty string without citations.
 */
export function formatSourceList(citations: readonly Citation[]): string {
  return citations
    .map((citation, index) => {
      if (citation.type === 'pdf') return `[${index + 1}]: ${citation.path}, page ${citation.page}`;
      const [from, to] = citation.lines;
      const heading = citation.heading === undefined ? '' : `#${citation.heading}`;
      const lines = from === to ? `line ${from}` : `lines ${from}–${to}`;
      return `[${index + 1}]: ${citation.path}${heading}, ${lines}`;
    })
    .join('\n');
}
