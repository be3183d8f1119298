import { parseFrontMatter, stringifyNoteFile } from '../markdown/front-matter';
import { portableNameProblem } from '../markdown/portable-name';
import { isValidZone, parseLocalDateTime, wallToInstant } from '../reminders/local-time';
import { validateRrule } from '../reminders/recurrence';
import { INLINE_RECURRENCE_START } from '../reminders/reminder-schedule';
import { checkCron } from './cron-schedule';

/*
 * A scheduled task is a Markdown file (docs/tasks.md), `Cairn/Tasks/<name>.md`:
 *
 *   ---
 *   id: 3f0c…
 *   type: task
 *   schedule: "0 17 * * FRI"        # ISO date-time (once) | RRULE:… | five-field cron
 *   timezone: Europe/Berlin
 *   enabled: true
 *   action: ask                      # ask | search | digest | prompt
 *   question: What did I write about the house this week?
 *   deliver: [note, push]
 *   ---
 *
 * This module reads and writes that file; it never touches the disk or the clock.
 */

export const DEFAULT_TASKS_FOLDER = 'Cairn/Tasks';
export const TASK_ACTIONS = ['ask', 'search', 'digest', 'prompt'] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];
export const TASK_DELIVERIES = ['note', 'push'] as const;
export type TaskDelivery = (typeof TASK_DELIVERIES)[number];
/** What a `digest` task covers: the ISO week before the run. */
export const TASK_PERIODS = ['week'] as const;
export type TaskPeriod = (typeof TASK_PERIODS)[number];
/** The key holding each action's input. */
export const ACTION_INPUT_KEY: Readonly<
  Record<TaskAction, 'question' | 'query' | 'period' | 'prompt'>
> = {
  ask: 'question',
  search: 'query',
  digest: 'period',
  prompt: 'prompt',
};
export const MAX_TASK_NAME_CHARS = 100;
export const MAX_TASK_INPUT_CHARS = 2_000;
/** The file-name tail of a task's default output note. */
export const RUNS_NOTE_SUFFIX = ' (runs)';

/**
 * When a task runs. `once` is resolved to an instant where the file is read (a local time in a
 * DST gap moves forward by the gap, a doubled one means its first pass, as for reminders);
 * `rrule` keeps its wall-time start and is expanded by shared/reminders/recurrence; `cron` is
 * expanded by croner (cron-schedule.ts). Both recurring kinds are expanded in `timezone`.
 */
export type TaskSchedule =
  | { readonly kind: 'once'; readonly at: number }
  | { readonly kind: 'rrule'; readonly rrule: string; readonly start: string }
  | { readonly kind: 'cron'; readonly expression: string };

/** How far back an ask, search or prompt task looks (notes created or changed since). */
export const TASK_WINDOWS = ['day', 'week', 'month'] as const;
export type TaskWindow = (typeof TASK_WINDOWS)[number];
export const TASK_WINDOW_MS: Readonly<Record<TaskWindow, number>> = {
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

export interface TaskFilters {
  readonly folder?: string;
  readonly tag?: string;
  /** Only notes created or changed within this long before the run. */
  readonly within?: TaskWindow;
}

export interface TaskDefinition {
  /** Front-matter `id`; a file without one is known by its path. */
  readonly id: string;
  /** The file name without `.md`. */
  readonly name: string;
  readonly path: string;
  /** As written: `2026-11-28T08:00`, `RRULE:FREQ=…`, `0 17 * * FRI`. */
  readonly scheduleText: string;
  readonly schedule: TaskSchedule;
  readonly timezone: string;
  readonly enabled: boolean;
  readonly action: TaskAction;
  /** The question, query, period or prompt. */
  readonly input: string;
  readonly filters: TaskFilters;
  readonly deliver: readonly TaskDelivery[];
  /** Vault path of the note runs are appended to. */
  readonly output: string;
  /** `digest` for the weekly digest Cairn writes itself (the user may move or disable it). */
  readonly builtin?: 'digest';
}

/** One thing wrong with a task file or request: the field, and the 1-based file line when read from a file. */
export interface TaskProblem {
  readonly field: string;
  readonly message: string;
  readonly line?: number;
}

export type TaskFileRead =
  | { readonly kind: 'task'; readonly task: TaskDefinition }
  | {
      readonly kind: 'invalid';
      readonly id: string;
      readonly name: string;
      readonly problems: readonly TaskProblem[];
    }
  /** No `type: task`: some other note (a runs note, a README) in the folder. */
  | { readonly kind: 'not-a-task' };

/** The fields a task is made of, before they are checked: an API body or a file's front matter. */
export interface TaskFields {
  readonly schedule?: unknown;
  readonly timezone?: unknown;
  readonly enabled?: unknown;
  readonly action?: unknown;
  readonly question?: unknown;
  readonly query?: unknown;
  readonly period?: unknown;
  readonly prompt?: unknown;
  readonly folder?: unknown;
  readonly tag?: unknown;
  readonly within?: unknown;
  readonly deliver?: unknown;
  readonly output?: unknown;
  readonly start?: unknown;
  readonly builtin?: unknown;
}

export interface TaskCheckContext {
  /** The vault's zone, for a task without `timezone`. */
  readonly defaultZone: string;
  /** Now, for "does this cron ever run". */
  readonly now: number;
  /** Whether a language model is configured (a `prompt` task needs one). */
  readonly llm: boolean;
}

/** The checked parts of a task, or every problem found (each naming its field). */
export type TaskCheck =
  | {
      readonly ok: true;
      readonly value: Omit<TaskDefinition, 'id' | 'name' | 'path' | 'output'> & {
        readonly output?: string;
        /** For an RRULE: the start written (or to be written) as `start`. */
        readonly start?: string;
      };
    }
  | { readonly ok: false; readonly problems: readonly TaskProblem[] };

const ISO_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Checks task fields (from a request or a file). Every problem is reported, not just the first,
 * so a hand-edited file is fixed in one go.
 */
export function checkTaskFields(fields: TaskFields, context: TaskCheckContext): TaskCheck {
  const problems: TaskProblem[] = [];
  const problem = (field: string, message: string): void => {
    problems.push({ field, message });
  };

  let timezone = context.defaultZone;
  if (fields.timezone !== undefined && fields.timezone !== null) {
    if (typeof fields.timezone !== 'string' || !isValidZone(fields.timezone)) {
      problem(
        'timezone',
        `${JSON.stringify(fields.timezone)} is not an IANA time zone (e.g. Europe/Berlin)`,
      );
    } else timezone = fields.timezone;
  }

  let enabled = true;
  if (fields.enabled !== undefined && fields.enabled !== null) {
    if (typeof fields.enabled !== 'boolean') problem('enabled', 'must be true or false');
    else enabled = fields.enabled;
  }

  let action: TaskAction | undefined;
  if (
    typeof fields.action !== 'string' ||
    !(TASK_ACTIONS as readonly string[]).includes(fields.action)
  ) {
    problem(
      'action',
      fields.action === undefined
        ? `missing: one of ${TASK_ACTIONS.join(', ')}`
        : `${JSON.stringify(fields.action)} is not one of ${TASK_ACTIONS.join(', ')}`,
    );
  } else action = fields.action as TaskAction;

  let input = '';
  if (action !== undefined) {
    const key = ACTION_INPUT_KEY[action];
    const value = fields[key];
    if (action === 'digest') {
      input = value === undefined || value === null ? 'week' : String(value);
      if (!(TASK_PERIODS as readonly string[]).includes(input)) {
        problem(
          'period',
          `${JSON.stringify(value)} is not a period Cairn writes digests for (${TASK_PERIODS.join(', ')})`,
        );
      }
    } else if (typeof value !== 'string' || value.trim() === '') {
      problem(key, `a ${action} task needs its ${key} (text)`);
    } else if (value.length > MAX_TASK_INPUT_CHARS) {
      problem(key, `${value.length} characters; at most ${MAX_TASK_INPUT_CHARS}`);
    } else input = value.trim();
    if (action === 'prompt' && !context.llm) {
      problem(
        'action',
        'a prompt task needs a language model, and none is configured (set CAIRN_OLLAMA_CHAT_MODEL); an ask task answers from your notes without one',
      );
    }
  }

  const filters: { folder?: string; tag?: string; within?: TaskWindow } = {};
  if (fields.within !== undefined && fields.within !== null) {
    if (!(TASK_WINDOWS as readonly unknown[]).includes(fields.within)) {
      problem(
        'within',
        `${JSON.stringify(fields.within)} is not one of ${TASK_WINDOWS.join(', ')}`,
      );
    } else filters.within = fields.within as TaskWindow;
  }
  for (const key of ['folder', 'tag'] as const) {
    const value = fields[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.trim() === '') problem(key, 'must be text');
    else filters[key] = key === 'tag' ? value.trim().replace(/^#/, '') : value.trim();
  }

  let deliver: TaskDelivery[] = ['note'];
  if (fields.deliver !== undefined && fields.deliver !== null) {
    const list = typeof fields.deliver === 'string' ? [fields.deliver] : fields.deliver;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every((entry) => (TASK_DELIVERIES as readonly unknown[]).includes(entry))
    ) {
      problem(
        'deliver',
        `must be a list of ${TASK_DELIVERIES.join(' and/or ')}, e.g. [note, push]`,
      );
    } else deliver = [...new Set(list as TaskDelivery[])].sort();
  }

  let output: string | undefined;
  if (fields.output !== undefined && fields.output !== null) {
    if (
      typeof fields.output !== 'string' ||
      !/\.md$/i.test(fields.output) ||
      fields.output.startsWith('/')
    ) {
      problem(
        'output',
        'must be a vault path of a Markdown note, e.g. Cairn/Tasks/House (runs).md',
      );
    } else if (fields.output.split('/').some((part) => part === '..' || part === '')) {
      problem('output', 'must stay inside the vault (no empty or ".." parts)');
    } else output = fields.output;
  }

  let builtin: 'digest' | undefined;
  if (fields.builtin !== undefined && fields.builtin !== null) {
    if (fields.builtin !== 'digest') problem('builtin', 'the only built-in task is digest');
    else builtin = 'digest';
  }

  const scheduled = readSchedule(fields.schedule, fields.start, timezone, context);
  if (!scheduled.ok) problems.push(...scheduled.problems);

  if (problems.length > 0 || action === undefined || !scheduled.ok) return { ok: false, problems };
  return {
    ok: true,
    value: {
      scheduleText: scheduled.text,
      schedule: scheduled.schedule,
      timezone,
      enabled,
      action,
      input,
      filters,
      deliver,
      ...(output === undefined ? {} : { output }),
      ...(scheduled.start === undefined ? {} : { start: scheduled.start }),
      ...(builtin === undefined ? {} : { builtin }),
    },
  };
}

function readSchedule(
  value: unknown,
  startValue: unknown,
  zone: string,
  context: TaskCheckContext,
):
  | { ok: true; text: string; schedule: TaskSchedule; start?: string }
  | { ok: false; problems: TaskProblem[] } {
  const fail = (field: string, message: string) => ({
    ok: false as const,
    problems: [{ field, message }],
  });
  if (typeof value !== 'string' || value.trim() === '') {
    return fail('schedule', 'missing: an ISO date-time (once), an RRULE:… or a cron string');
  }
  const text = value.trim();
  const iso = ISO_DATE_TIME.exec(text);
  if (iso) {
    const wall = parseLocalDateTime(`${iso[1]}T${iso[2]}`);
    if (!wall.ok || (iso[3] !== undefined && iso[3] !== '00')) {
      return fail('schedule', `"${text}" is not a possible date and time (minutes, no seconds)`);
    }
    const offset = iso[4];
    const at = offset === undefined ? wallToInstant(wall.wall, zone) : wall.wall - offsetMs(offset);
    return { ok: true, text, schedule: { kind: 'once', at } };
  }
  if (/^RRULE:/i.test(text)) {
    const rule = validateRrule(text);
    if (!rule.ok) return fail('schedule', rule.message);
    // Without a `start`, the fixed lattice inline reminders use: reading the file again never
    // moves an INTERVAL, and no occurrence falls at "now" (the rule must fix its time of day).
    let start: string | undefined;
    if (startValue !== undefined && startValue !== null) {
      const parsed = typeof startValue === 'string' ? parseLocalDateTime(startValue) : undefined;
      if (parsed === undefined || !parsed.ok) {
        return fail(
          'start',
          `${JSON.stringify(startValue)} is not a local date and time (YYYY-MM-DDTHH:mm)`,
        );
      }
      start = startValue as string;
    }
    return {
      ok: true,
      text,
      schedule: { kind: 'rrule', rrule: rule.rrule, start: start ?? INLINE_RECURRENCE_START },
      ...(start === undefined ? {} : { start }),
    };
  }
  const cron = checkCron(text, zone, context.now);
  if (!cron.ok)
    return fail('schedule', `${cron.message}; an ISO date-time or an RRULE:… also works`);
  return { ok: true, text, schedule: { kind: 'cron', expression: text } };
}

function offsetMs(offset: string): number {
  if (offset === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
}

/** `Cairn/Tasks/House.md` → `House`. */
export function taskNameOf(path: string): string {
  return (path.split('/').pop() ?? path).replace(/\.md$/i, '');
}

/** The runs note beside the task file: `Cairn/Tasks/House (runs).md`. */
export function defaultRunsNotePath(path: string): string {
  return path.replace(/\.md$/i, '') + `${RUNS_NOTE_SUFFIX}.md`;
}

/** Why `name` cannot be a task's file name, or null. */
export function taskNameProblem(name: string): string | null {
  if (name.trim() === '') return 'must not be empty';
  if (name.length > MAX_TASK_NAME_CHARS)
    return `${name.length} characters; at most ${MAX_TASK_NAME_CHARS}`;
  if (name.includes('/')) return 'must not contain "/" (it is the file name)';
  if (name.endsWith(RUNS_NOTE_SUFFIX))
    return `must not end with "${RUNS_NOTE_SUFFIX}" (that is the runs note's name)`;
  return portableNameProblem(`${name}.md`);
}

/**
 * Reads a task file. Problems carry the 1-based file line of their key (or of the front
 * matter's opening fence when the key is missing), like a missed reminder's `path:line`.
 */
export function readTaskFile(path: string, text: string, context: TaskCheckContext): TaskFileRead {
  const parsed = parseFrontMatter(text);
  const name = taskNameOf(path);
  if (!parsed.ok) {
    // A broken block cannot say whether it was a task; in the tasks folder assume it is.
    return {
      kind: 'invalid',
      id: path,
      name,
      problems: [
        {
          field: parsed.error.field ?? 'front matter',
          message: parsed.error.message,
          line: parsed.error.line,
        },
      ],
    };
  }
  if (parsed.data['type'] !== 'task') return { kind: 'not-a-task' };
  const data = parsed.data;
  const id = typeof data['id'] === 'string' && data['id'].trim() !== '' ? data['id'].trim() : path;
  const check = checkTaskFields(data as TaskFields, context);
  if (!check.ok) {
    const lines = keyLines(text);
    return {
      kind: 'invalid',
      id,
      name,
      problems: check.problems.map((entry) => ({ ...entry, line: lines.get(entry.field) ?? 1 })),
    };
  }
  const { start: _start, output, ...value } = check.value;
  return {
    kind: 'task',
    task: { ...value, id, name, path, output: output ?? defaultRunsNotePath(path) },
  };
}

/** Line of each top-level key in the front matter (1-based, the opening fence is line 1). */
function keyLines(text: string): Map<string, number> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const found = new Map<string, number>();
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (/^---\s*$/.test(line)) break;
    const key = /^([A-Za-z_][\w-]*)\s*:/.exec(line);
    if (key && !found.has(key[1]!)) found.set(key[1]!, index + 1);
  }
  return found;
}

/** What `buildTaskFile` writes. */
export interface NewTaskFile {
  readonly id: string;
  readonly name: string;
  readonly scheduleText: string;
  readonly timezone: string;
  readonly enabled: boolean;
  readonly action: TaskAction;
  readonly input: string;
  readonly filters: TaskFilters;
  readonly deliver: readonly TaskDelivery[];
  readonly output?: string;
  readonly start?: string;
  readonly builtin?: 'digest';
  /** ISO date-time with offset. */
  readonly created: string;
}

/** The Markdown of a new task file (API, chat, MCP, the built-in digest). */
export function buildTaskFile(task: NewTaskFile): string {
  const runs = task.output ?? `${task.name}${RUNS_NOTE_SUFFIX}.md`;
  const link = runs.replace(/\.md$/i, '');
  const body =
    `Cairn runs this task on its schedule and writes each result into [[${link}]].\n` +
    'Edit the front matter to change it; set `enabled: false` to pause it.\n' +
    (task.builtin === 'digest'
      ? 'This is the weekly digest Cairn made for you (it writes `Cairn/Digests/<week>.md`). ' +
        'Move it, change its `schedule`, or delete this note to stop digests: Cairn does not ' +
        'create it again.\n'
      : '');
  return stringifyNoteFile(
    [
      ['id', task.id],
      ['type', 'task'],
      ['schedule', task.scheduleText],
      ['timezone', task.timezone],
      ['start', task.start],
      ['enabled', task.enabled],
      ['action', task.action],
      [ACTION_INPUT_KEY[task.action], task.input],
      ['folder', task.filters.folder],
      ['tag', task.filters.tag],
      ['within', task.filters.within],
      ['deliver', [...task.deliver]],
      ['output', task.output],
      ['builtin', task.builtin],
      ['created', task.created],
    ],
    body,
  );
}
