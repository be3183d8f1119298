import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { parseReminderPhrase, REMINDER_OPENER } from '../../shared/chat/reminder-phrase';
import { readDayRange } from '../../shared/chat/time-words';
import { zoneNow } from '../../shared/chat/zone-calendar';
import type { Clock } from '../../shared/ports';
import type { Citation } from '../../shared/protocol/citation';
import type { MemoryCreated } from '../../shared/protocol/memories';
import type { NoteCreated } from '../../shared/protocol/notes';
import type {
  Reminder,
  ReminderCreated,
  ReminderListResponse,
} from '../../shared/protocol/reminders';
import type { AnswerResponse, SearchResponse } from '../../shared/protocol/search';
import type { StatusResponse } from '../../shared/protocol/status';
import { formatInZone, parseLocalDateTime, wallToInstant } from '../../shared/reminders';
import { OPTIONS } from '../options';
import type { ApiAnswer, CompanionConnection } from './connection-shapes';
import { ConnectionError } from './connection-shapes';

/** Exit codes of the vault commands (docs/cli.md): scripts test them. */
export const EXIT = { found: 0, nothing: 1, usage: 2, unavailable: 3 } as const;

import type { VaultCommandName } from './vault-command-names';

interface FlagSpec {
  readonly name: string;
  readonly kind: 'string' | 'boolean';
  readonly value?: string;
  /** Values the flag takes (help and shell completion). */
  readonly choices?: readonly string[];
  readonly multiple?: boolean;
  readonly description: string;
}

interface CommandSpec {
  /** The positional argument, as help shows it; absent = none taken. */
  readonly argument?: string;
  readonly summary: string;
  readonly flags: readonly FlagSpec[];
  readonly example: string;
}

const JSON_FLAG: FlagSpec = {
  name: 'json',
  kind: 'boolean',
  description: "print the API's JSON answer (docs/clients.md shapes)",
};
const FILTER_FLAGS: readonly FlagSpec[] = [
  { name: 'folder', kind: 'string', value: 'F', description: 'only this folder and below' },
  { name: 'tag', kind: 'string', value: 'T', description: 'only notes with this tag' },
  {
    name: 'type',
    kind: 'string',
    value: 'K',
    choices: ['note', 'pdf', 'reminder'],
    description: 'only this kind: note, pdf or reminder',
  },
];

/** The vault commands, one table: parsing, `--help` and shell completion come from it. */
export const VAULT_COMMANDS: Readonly<Record<VaultCommandName, CommandSpec>> = {
  search: {
    argument: '"query"',
    summary: 'Search the vault (keywords and meaning); one result per line, as path:line.',
    flags: [
      {
        name: 'limit',
        kind: 'string',
        value: 'N',
        description: 'at most N results (1–50, default 10)',
      },
      ...FILTER_FLAGS,
      JSON_FLAG,
    ],
    example: 'cairn-companion search "visa fee" --folder Travel',
  },
  ask: {
    argument: '"question"',
    summary: 'Answer a question from the vault: quoted passages with their sources.',
    flags: [
      {
        name: 'limit',
        kind: 'string',
        value: 'N',
        description: 'at most N passages (1–20, default 5)',
      },
      {
        name: 'summarize',
        kind: 'boolean',
        description: 'have the LLM (CAIRN_OLLAMA_CHAT_MODEL) phrase the answer from the passages',
      },
      ...FILTER_FLAGS,
      JSON_FLAG,
    ],
    example: 'cairn-companion ask "what is the visa fee?"',
  },
  remind: {
    argument: '"what and when"',
    summary:
      'Write a reminder note from a phrase, as the chat reads it; shows what it understood first.',
    flags: [
      {
        name: 'yes',
        kind: 'boolean',
        description: 'write even when the time is a guess ("at 5" without am/pm); no question',
      },
      {
        name: 'dry-run',
        kind: 'boolean',
        description: 'show what would be written; write nothing',
      },
      JSON_FLAG,
    ],
    example: 'cairn-companion remind "call the bank tomorrow at 5pm"',
  },
  note: {
    argument: '"title"',
    summary: 'Write a new note into the notes folder.',
    flags: [
      {
        name: 'body',
        kind: 'string',
        value: 'TEXT|-',
        description: 'the note text; - reads it from stdin',
      },
      {
        name: 'folder',
        kind: 'string',
        value: 'F',
        description: 'vault folder (default: notes folder)',
      },
      {
        name: 'tag',
        kind: 'string',
        value: 'T',
        multiple: true,
        description: 'a tag (repeatable)',
      },
      JSON_FLAG,
    ],
    example: 'echo "Ask about the fee" | cairn-companion note "Bank call" --body -',
  },
  reminders: {
    summary: 'List active reminders, soonest first.',
    flags: [
      {
        name: 'due',
        kind: 'string',
        value: 'WHEN',
        choices: ['today', 'this-week', 'overdue'],
        description: 'today, this-week (through Sunday) or overdue (one-offs past their time)',
      },
      JSON_FLAG,
    ],
    example: 'cairn-companion reminders --due this-week',
  },
  remember: {
    argument: '"fact"',
    summary: 'Add a fact to Cairn/Memory.md (what the chat remembers about you).',
    flags: [JSON_FLAG],
    example: 'cairn-companion remember "my bank is Sparkasse"',
  },
  status: {
    summary: 'Is the companion running? What is indexed, what is scheduled.',
    flags: [JSON_FLAG],
    example: 'cairn-companion status',
  },
  import: {
    argument: 'FILE',
    summary:
      'Import a browser bookmark export (.html) or Kindle "My Clippings.txt" as notes, whole or nothing.',
    flags: [
      {
        name: 'kind',
        kind: 'string',
        value: 'K',
        choices: ['bookmarks', 'kindle'],
        description: 'bookmarks or kindle (default: from the file name, .html or .txt)',
      },
      {
        name: 'folder',
        kind: 'string',
        value: 'F',
        description: 'vault folder (default Imports/Bookmarks or Imports/Kindle)',
      },
      {
        name: 'dry-run',
        kind: 'boolean',
        description: 'show the first note that would be written; write nothing',
      },
      JSON_FLAG,
    ],
    example: 'cairn-companion import "~/Documents/My Clippings.txt"',
  },
};

export function vaultCommandUsage(name: VaultCommandName): string {
  const spec = VAULT_COMMANDS[name];
  const column = (flag: FlagSpec) => `--${flag.name}${flag.value ? ` ${flag.value}` : ''}`;
  const width = Math.max(...spec.flags.map((flag) => column(flag).length), 14) + 2;
  return [
    `Usage: cairn-companion ${name}${spec.argument ? ` ${spec.argument}` : ''} [options] --vault <path>`,
    '',
    spec.summary,
    '',
    'Options:',
    ...spec.flags.map((flag) => `  ${column(flag).padEnd(width)}${flag.description}`),
    `  ${'--vault <path>'.padEnd(width)}the vault (env CAIRN_VAULT); --data, --timezone as for the server`,
    `  ${'--help'.padEnd(width)}this help`,
    '',
    'Uses the companion running on this vault (its data folder says where), else reads the',
    'index in this process; writes go through the same checks and audit log either way.',
    `Exit codes: 0 found/done, 1 nothing found or declined, 2 bad input, 3 companion or index problem.`,
    '',
    `Example: ${spec.example}`,
    '',
  ].join('\n');
}

export interface VaultCommandIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stdout is a terminal: colour (unless NO_COLOR) and questions need one. */
  readonly stdoutIsTty: boolean;
  readonly stdinIsTty: boolean;
  readStdin(): Promise<string>;
  /** Asks on the terminal and resolves with the line typed (stdin a TTY only). */
  question(prompt: string): Promise<string>;
}

export interface VaultCommandContext {
  readonly io: VaultCommandIo;
  readonly clock: Clock;
  /** The vault's zone (config): days and times are read and shown in it. */
  readonly zone: string;
  /** Opens the connection once the arguments are known to be good. */
  connect(options: { queries: boolean }): Promise<CompanionConnection>;
}

/** What `parseVaultCommand` read: the command's flags, the rest for the server's config. */
export interface ParsedVaultCommand {
  readonly text: string;
  readonly flags: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly serverFlags: Record<string, string | boolean | undefined>;
}

/** Parses a vault command's arguments; a string is the usage error (exit 2). */
export function parseVaultCommand(
  name: VaultCommandName,
  argv: readonly string[],
): ParsedVaultCommand | string {
  const spec = VAULT_COMMANDS[name];
  const options: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
    OPTIONS.map((option) => [option.name, { type: option.kind }]),
  );
  for (const flag of spec.flags) {
    options[flag.name] = { type: flag.kind, ...(flag.multiple ? { multiple: true } : {}) };
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
    }) as { values: typeof values; positionals: string[] });
  } catch (error) {
    return (error as Error).message;
  }
  const own = new Set(spec.flags.map((flag) => flag.name));
  const flags: Record<string, string | boolean | string[] | undefined> = {};
  const serverFlags: Record<string, string | boolean | undefined> = {};
  for (const [key, value] of Object.entries(values)) {
    if (own.has(key)) flags[key] = value;
    else if (!Array.isArray(value)) serverFlags[key] = value;
  }
  for (const flag of spec.flags) {
    const value = flags[flag.name];
    if (flag.choices && typeof value === 'string' && !flag.choices.includes(value)) {
      return `--${flag.name}: "${value}" is not one of ${flag.choices.join(', ')}`;
    }
  }
  const text = positionals.join(' ').trim();
  if (serverFlags.help !== true) {
    if (spec.argument === undefined && text !== '') {
      return `${name} takes no argument (got "${text}")`;
    }
    if (spec.argument !== undefined && text === '') return `${name} needs ${spec.argument}`;
  }
  return { text, flags, serverFlags };
}

/** Runs a parsed vault command; returns the exit code. */
export async function runVaultCommand(
  name: VaultCommandName,
  parsed: ParsedVaultCommand,
  context: VaultCommandContext,
): Promise<number> {
  const out = new Output(name, context.io);
  let connection: CompanionConnection | undefined;
  const open = async (queries: boolean) => {
    connection = await context.connect({ queries });
    return connection;
  };
  try {
    switch (name) {
      case 'search':
        return await search(parsed, await open(true), out);
      case 'ask':
        return await ask(parsed, await open(true), out);
      case 'remind':
        return await remind(parsed, context, open, out);
      case 'note':
        return await note(parsed, context, await open(false), out);
      case 'reminders':
        return await reminders(parsed, context, await open(false), out);
      case 'remember':
        return await remember(parsed, await open(false), out);
      case 'import':
        return await importFile(parsed, context, open, out);
      case 'status':
        return await status(parsed, await open(false), out);
      default:
        return name satisfies never;
    }
  } catch (error) {
    if (error instanceof ConnectionError || error instanceof ApiProblem) {
      out.error(error.message);
      return error instanceof ApiProblem ? error.exitCode : EXIT.unavailable;
    }
    throw error;
  } finally {
    await (connection as CompanionConnection | undefined)?.close();
  }
}

// ---- the commands -----------------------------------------------------------------------------

/** API fields a command sends, by the flag (or argument) the user gave them as. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  q: 'the query',
  question: 'the question',
  text: 'the fact',
  title: 'the title',
  limit: '--limit',
  folder: '--folder',
  tag: '--tag',
  tags: '--tag',
  type: '--type',
  body: '--body',
  due: 'the time',
  summarize: '--summarize',
};

async function search(
  parsed: ParsedVaultCommand,
  connection: CompanionConnection,
  out: Output,
): Promise<number> {
  const query = new URLSearchParams({ q: parsed.text });
  for (const key of ['limit', 'folder', 'tag', 'type'] as const) {
    const value = parsed.flags[key];
    if (typeof value === 'string') query.set(key, value);
  }
  const answer = expect<SearchResponse>(
    await connection.request('GET', `/api/v1/search?${query.toString()}`),
  );
  if (parsed.flags.json === true) out.json(answer);
  else {
    for (const { citation } of answer.results) out.line(out.citationLine(citation));
    if (answer.mode === 'keyword') out.note('(keyword search: no embedding model in use)');
  }
  if (answer.results.length === 0) out.note(`nothing found for "${parsed.text}"`);
  return answer.results.length > 0 ? EXIT.found : EXIT.nothing;
}

async function ask(
  parsed: ParsedVaultCommand,
  connection: CompanionConnection,
  out: Output,
): Promise<number> {
  const body: Record<string, unknown> = { question: parsed.text };
  if (typeof parsed.flags.limit === 'string') {
    const limit = Number(parsed.flags.limit);
    body.limit = Number.isInteger(limit) ? limit : parsed.flags.limit;
  }
  if (parsed.flags.summarize === true) body.summarize = true;
  for (const key of ['folder', 'tag', 'type'] as const) {
    const value = parsed.flags[key];
    if (typeof value === 'string') body[key] = value;
  }
  const answer = expect<AnswerResponse>(await connection.request('POST', '/api/v1/answer', body));
  if (parsed.flags.json === true) out.json(answer);
  else {
    out.line(answer.answer.trim());
    if (answer.citations.length > 0) {
      out.line('');
      out.line(out.bold('Sources:'));
      answer.citations.forEach((citation, index) =>
        out.line(`[${index + 1}] ${out.citationLine(citation)}`),
      );
    }
  }
  if (parsed.flags.summarize === true && !answer.summarized && answer.citations.length > 0) {
    out.note('quotes only: no LLM phrased this (set CAIRN_OLLAMA_URL and CAIRN_OLLAMA_CHAT_MODEL)');
  }
  return answer.citations.length > 0 ? EXIT.found : EXIT.nothing;
}

async function remind(
  parsed: ParsedVaultCommand,
  context: VaultCommandContext,
  open: (queries: boolean) => Promise<CompanionConnection>,
  out: Output,
): Promise<number> {
  const phrase = parseReminderPhrase(
    parsed.text.replace(REMINDER_OPENER, '').trim(),
    zoneNow(context.clock.now(), context.zone),
  );
  if (!phrase.ok) {
    out.error(phrase.reply);
    return EXIT.usage;
  }
  const when = describeWall(phrase.due, context.zone);
  const understood = [
    `${out.bold(phrase.title)}`,
    `  ${when} (${context.zone})${phrase.repeat ? `, repeating ${phrase.repeat}` : ''}`,
    ...(phrase.ambiguous ? [`  ${out.warn(phrase.ambiguous)}`] : []),
  ];
  // With --json, stdout is the API's answer alone.
  for (const line of understood) {
    if (parsed.flags.json === true) out.note(line);
    else out.line(line);
  }
  if (parsed.flags['dry-run'] === true) {
    out.note('dry run: nothing written');
    return EXIT.found;
  }
  if (phrase.ambiguous !== undefined && parsed.flags.yes !== true) {
    if (!context.io.stdinIsTty) {
      out.error(
        `not written: ${phrase.ambiguous}; say am/pm or a 24-hour time ("6pm", "18:00"), or pass --yes`,
      );
      return EXIT.nothing;
    }
    const reply = await context.io.question('Write this reminder? [y/N] ');
    if (!/^y(?:es)?$/i.test(reply.trim())) {
      out.note('not written');
      return EXIT.nothing;
    }
  }
  const connection = await open(false);
  const created = expect<ReminderCreated>(
    await connection.request('POST', '/api/v1/reminders', {
      title: phrase.title,
      due: phrase.due,
      timezone: context.zone,
      ...(phrase.repeat ? { repeat: phrase.repeat } : {}),
    }),
  );
  if (parsed.flags.json === true) out.json(created);
  else {
    out.line(
      `${created.deduplicated ? 'Already written' : 'Written'}: ${out.path(created.path)}` +
        (created.next_fire ? `, first at ${describeInstant(created.next_fire)}` : ''),
    );
  }
  return EXIT.found;
}

async function note(
  parsed: ParsedVaultCommand,
  context: VaultCommandContext,
  connection: CompanionConnection,
  out: Output,
): Promise<number> {
  const bodyFlag = parsed.flags.body;
  const body = bodyFlag === '-' ? await context.io.readStdin() : (bodyFlag ?? '');
  const tags = parsed.flags.tag;
  const created = expect<NoteCreated>(
    await connection.request('POST', '/api/v1/notes', {
      title: parsed.text,
      body,
      ...(typeof parsed.flags.folder === 'string' ? { folder: parsed.flags.folder } : {}),
      ...(Array.isArray(tags) ? { tags } : {}),
    }),
  );
  if (parsed.flags.json === true) out.json(created);
  else
    out.line(`${created.deduplicated ? 'Already written' : 'Written'}: ${out.path(created.path)}`);
  return EXIT.found;
}

async function reminders(
  parsed: ParsedVaultCommand,
  context: VaultCommandContext,
  connection: CompanionConnection,
  out: Output,
): Promise<number> {
  const due = parsed.flags.due as 'today' | 'this-week' | 'overdue' | undefined;
  const query = new URLSearchParams({ status: 'active', limit: '200' });
  if (due === 'today' || due === 'this-week') {
    const range = readDayRange(due.replace('-', ' '), zoneNow(context.clock.now(), context.zone));
    if (range) {
      query.set('from', range.from);
      query.set('to', range.to);
    }
  }
  const all: Reminder[] = [];
  for (let cursor: string | null = null; ;) {
    if (cursor !== null) query.set('cursor', cursor);
    const page: ReminderListResponse = expect<ReminderListResponse>(
      await connection.request('GET', `/api/v1/reminders?${query.toString()}`),
    );
    all.push(...page.reminders);
    cursor = page.next_cursor;
    if (cursor === null) break;
  }
  // Overdue: what the API marks so (a one-off whose time passed, unchecked, not done).
  const shown =
    due === 'overdue'
      ? all.filter((reminder) => typeof reminder.overdue_since === 'string')
      : all.filter((reminder) => reminder.next_fire !== null && reminder.next_fire !== undefined);
  // An inline series has no `due` of its own, only its next fire.
  const when = (reminder: Reminder) => reminder.next_fire ?? reminder.due ?? '';
  shown.sort((a, b) => Date.parse(when(a)) - Date.parse(when(b)));
  if (parsed.flags.json === true) {
    out.json({ reminders: shown, next_cursor: null } satisfies ReminderListResponse);
  } else {
    for (const reminder of shown) {
      const where = `${reminder.path}${reminder.line === undefined ? '' : `:${reminder.line}`}`;
      out.line(
        `${out.dim(describeInstant(when(reminder)))}  ${reminder.title}` +
          `${reminder.repeat ? out.dim(' (repeats)') : ''}  ${out.path(where)}`,
      );
    }
  }
  if (shown.length === 0) out.note(due ? `no reminders ${due.replace('-', ' ')}` : 'no reminders');
  return shown.length > 0 ? EXIT.found : EXIT.nothing;
}

async function remember(
  parsed: ParsedVaultCommand,
  connection: CompanionConnection,
  out: Output,
): Promise<number> {
  const created = expect<MemoryCreated>(
    await connection.request('POST', '/api/v1/memories', { text: parsed.text }),
  );
  if (parsed.flags.json === true) out.json(created);
  else {
    out.line(
      `${created.deduplicated ? 'Already remembered' : 'Remembered'} (${created.id}): ` +
        out.path(`${created.path}:${created.line}`),
    );
  }
  return EXIT.found;
}

async function importFile(
  parsed: ParsedVaultCommand,
  context: VaultCommandContext,
  open: (queries: boolean) => Promise<CompanionConnection>,
  out: Output,
): Promise<number> {
  const file = parsed.text;
  const named = typeof parsed.flags.kind === 'string' ? parsed.flags.kind : undefined;
  const kind =
    named ?? (/\.html?$/i.test(file) ? 'bookmarks' : /\.txt$/i.test(file) ? 'kindle' : undefined);
  if (kind === undefined) {
    context.io.stderr(
      `cairn-companion import: say --kind bookmarks or --kind kindle for ${file}\n`,
    );
    return EXIT.usage;
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    context.io.stderr(`cairn-companion import: ${file}: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  const connection = await open(false);
  const body = {
    kind,
    file: basename(file),
    text,
    ...(typeof parsed.flags.folder === 'string' ? { folder: parsed.flags.folder } : {}),
  };
  const dryRun = parsed.flags['dry-run'] === true;
  const answer = expect<{
    notes?: Array<{ path: string }>;
    changes?: Array<{ path: string; diff: string }>;
  }>(await connection.request('POST', `/api/v1/import${dryRun ? '?dry_run=true' : ''}`, body));
  if (parsed.flags.json === true) out.json(answer);
  else if (dryRun) {
    for (const change of answer.changes ?? [])
      out.line(`Would create ${out.path(change.path)}:\n${change.diff}`);
  } else {
    for (const note of answer.notes ?? []) out.line(out.path(note.path));
    out.line(`Imported ${answer.notes?.length ?? 0} notes from ${basename(file)}.`);
  }
  return EXIT.found;
}

async function status(
  parsed: ParsedVaultCommand,
  connection: CompanionConnection,
  out: Output,
): Promise<number> {
  const answer = expect<StatusResponse>(await connection.request('GET', '/api/v1/status'));
  if (parsed.flags.json === true) {
    out.json(answer);
    return EXIT.found;
  }
  const { index, scheduler } = answer;
  out.line(
    connection.kind === 'server'
      ? `companion ${answer.version}: running at ${connection.url ?? ''}`
      : `companion ${answer.version}: not running (read the index in this process; nothing fires until it runs)`,
  );
  out.line(
    `index: ${index.files} files, ${index.chunks} passages` +
      (index.pending > 0 ? `, ${index.pending} waiting` : '') +
      (index.failed.length > 0 ? out.warn(`, ${index.failed.length} failed`) : ''),
  );
  const { semantic } = index;
  out.line(
    `search: ${
      index.embedding
        ? `keywords and meaning (${index.embedding.model})`
        : semantic.embedded > 0
          ? `keywords and meaning (${semantic.embedded} of ${semantic.total} passages have vectors)`
          : `keywords only${semantic.reason ? out.dim(` (${semantic.reason})`) : ''}`
    }`,
  );
  out.line(
    `reminders: ${scheduler.reminders} scheduled` +
      (scheduler.next_fire ? `, next ${describeInstant(scheduler.next_fire)}` : ''),
  );
  out.line(`phones: ${answer.push.subscriptions} subscribed`);
  for (const failure of index.failed.slice(0, 5)) {
    out.line(out.warn(`  failed: ${failure.path}: ${failure.error}`));
  }
  return EXIT.found;
}

// ---- answers and output -----------------------------------------------------------------------

/** An API answer that is not the one asked for: its error, and the exit code it means. */
class ApiProblem extends Error {
  override name = 'ApiProblem';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

function expect<T>(answer: ApiAnswer): T {
  if (answer.status >= 200 && answer.status < 300) return answer.body as T;
  const error = (answer.body as { error?: { code?: string; message?: string; field?: string } })
    ?.error;
  const message = error?.message ?? `HTTP ${answer.status}`;
  if (answer.status === 400 || answer.status === 404 || answer.status === 422) {
    const field = error?.field?.replace(/^(?:body|querystring|params)\./, '');
    const flag = field === undefined ? undefined : FLAG_OF_FIELD[field.split('.')[0] ?? ''];
    // "querystring.limit must be >= 1" → "--limit: must be >= 1".
    const said =
      field === undefined
        ? message
        : message.replace(
            new RegExp(
              `^(?:(?:body|querystring|params)\\.)?${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `,
            ),
            '',
          );
    return fail(flag ? `${flag}: ${said}` : message, EXIT.usage);
  }
  if (answer.status === 401 || answer.status === 403) {
    return fail(
      `${message} (the token from CAIRN_TOKEN or the data folder's token file)`,
      EXIT.unavailable,
    );
  }
  return fail(`${error?.code ? `${error.code}: ` : ''}${message}`, EXIT.unavailable);
}

function fail(message: string, exitCode: number): never {
  throw new ApiProblem(message, exitCode);
}

/** Text for people: colour on a terminal only, and never with NO_COLOR set. */
class Output {
  private readonly colour: boolean;

  constructor(
    private readonly command: string,
    private readonly io: VaultCommandIo,
  ) {
    const noColor = io.env.NO_COLOR;
    this.colour = io.stdoutIsTty && (noColor === undefined || noColor === '');
  }

  line(text: string): void {
    this.io.stdout(`${text}\n`);
  }

  json(value: unknown): void {
    this.io.stdout(`${JSON.stringify(value, null, this.io.stdoutIsTty ? 2 : undefined)}\n`);
  }

  /** Remarks go to stderr, so stdout stays what a script reads. */
  note(text: string): void {
    this.io.stderr(`${text}\n`);
  }

  error(text: string): void {
    this.io.stderr(`cairn-companion ${this.command}: ${text}\n`);
  }

  /** `path:line` (editors and terminals open it), the title and heading, and the passage. */
  citationLine(citation: Citation): string {
    const where =
      citation.type === 'note'
        ? `${citation.path}:${citation.lines[0]}`
        : `${citation.path}#page=${citation.page}`;
    const heading = citation.type === 'note' && citation.heading ? ` › ${citation.heading}` : '';
    const excerpt = citation.excerpt.replace(/\s+/g, ' ').trim();
    return `${this.path(where)}  ${this.bold(citation.title)}${heading}\n    ${this.dim(excerpt)}`;
  }

  path(text: string): string {
    return this.paint(text, '36');
  }

  bold(text: string): string {
    return this.paint(text, '1');
  }

  dim(text: string): string {
    return this.paint(text, '2');
  }

  warn(text: string): string {
    return this.paint(text, '33');
  }

  private paint(text: string, code: string): string {
    return this.colour ? `\u001b[${code}m${text}\u001b[0m` : text;
  }
}

const WEEKDAY = new Intl.DateTimeFormat('en-GB', { weekday: 'short', timeZone: 'UTC' });

/** `YYYY-MM-DDTHH:mm` wall time in `zone` → "Fri 2026-11-28 17:00". */
function describeWall(wall: string, zone: string): string {
  const parsed = parseLocalDateTime(wall);
  if (!parsed.ok) return wall;
  return describeInstant(formatInZone(wallToInstant(parsed.wall, zone), zone));
}

/** An ISO instant with its offset → "Fri 2026-11-28 17:00" in the offset it carries. */
function describeInstant(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  if (!match) return iso;
  const day = new Date(`${match[1]}T00:00:00Z`);
  return `${WEEKDAY.format(day)} ${match[1]} ${match[2]}`;
}
