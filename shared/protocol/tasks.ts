import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Cursor, IanaZone, IsoInstant, NonBlank, TagName, VaultPath } from './formats';

/*
 * Scheduled tasks over HTTP (docs/tasks.md): `/api/v1/tasks`. A task is a Markdown file in the
 * vault; these shapes are its API view. Schemas check shapes; what they cannot (a schedule that
 * never runs, a zone luxon does not know, a prompt task with no language model) is checked by
 * shared/tasks `checkTaskFields`, and answered with a 400 naming the field too.
 */

export const TASK_NAME_MAX_CHARS = 100;
export const TASK_TEXT_MAX_CHARS = 2000;
export const TASK_RUNS_MAX = 200;

const TaskActionSchema = Type.Union([
  Type.Literal('ask'),
  Type.Literal('search'),
  Type.Literal('digest'),
  Type.Literal('prompt'),
]);
const TaskDeliverySchema = Type.Union([Type.Literal('note'), Type.Literal('push')]);
const TaskWindowSchema = Type.Union([
  Type.Literal('day'),
  Type.Literal('week'),
  Type.Literal('month'),
]);
const TaskText = () => NonBlank({ maxLength: TASK_TEXT_MAX_CHARS });

const taskFields = {
  /** An ISO date-time (once; without offset it is wall time in `timezone`), `RRULE:…`, or cron. */
  schedule: NonBlank({ maxLength: 1000 }),
  timezone: Type.Optional(IanaZone()),
  enabled: Type.Optional(Type.Boolean()),
  action: TaskActionSchema,
  question: Type.Optional(TaskText()),
  query: Type.Optional(TaskText()),
  period: Type.Optional(Type.Literal('week')),
  prompt: Type.Optional(TaskText()),
  folder: Type.Optional(VaultPath()),
  tag: Type.Optional(TagName()),
  within: Type.Optional(TaskWindowSchema),
  deliver: Type.Optional(Type.Array(TaskDeliverySchema, { minItems: 1, maxItems: 2 })),
  /** Where runs are appended; default `<task folder>/<name> (runs).md`. */
  output: Type.Optional(
    VaultPath({ pattern: '^(?!/)(?!.*(?:^|/)\\.\\.(?:/|$))[^\\\\\\x00]+\\.md$' }),
  ),
  /** An RRULE's first occurrence, local `YYYY-MM-DDTHH:mm`; default a fixed lattice. */
  start: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$' })),
};

/** `POST /api/v1/tasks`. */
export const TaskCreate = Type.Object(
  { name: NonBlank({ maxLength: TASK_NAME_MAX_CHARS }), ...taskFields },
  { additionalProperties: false },
);
export type TaskCreate = Static<typeof TaskCreate>;

/** `PATCH /api/v1/tasks/:id`: only the keys given change (the name is the file's: rename it in Obsidian). */
export const TaskPatch = Type.Partial(Type.Object(taskFields), { additionalProperties: false });
export type TaskPatch = Static<typeof TaskPatch>;

export const TaskRunStatusSchema = Type.Union([
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  Type.Literal('skipped'),
]);

export const TaskRun = Type.Object({
  /** The schedule's slot, with the task zone's offset. */
  slot: IsoInstant(),
  started_at: IsoInstant(),
  finished_at: Type.Union([IsoInstant(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  status: TaskRunStatusSchema,
  /** Why it failed or was skipped; a delivery note on success (push reached no phone). */
  reason: Type.Union([Type.String(), Type.Null()]),
  output_path: Type.Union([Type.String(), Type.Null()]),
  /** The result's first line. */
  summary: Type.Union([Type.String(), Type.Null()]),
});
export type TaskRun = Static<typeof TaskRun>;

export const Task = Type.Object({
  id: Type.String(),
  name: Type.String(),
  path: Type.String(),
  schedule: Type.String(),
  timezone: Type.String(),
  enabled: Type.Boolean(),
  action: TaskActionSchema,
  question: Type.Optional(Type.String()),
  query: Type.Optional(Type.String()),
  period: Type.Optional(Type.String()),
  prompt: Type.Optional(Type.String()),
  folder: Type.Optional(Type.String()),
  tag: Type.Optional(Type.String()),
  within: Type.Optional(TaskWindowSchema),
  deliver: Type.Array(TaskDeliverySchema),
  output: Type.String(),
  /** `digest` for the weekly digest task Cairn made. */
  builtin: Type.Optional(Type.Literal('digest')),
  next_run: Type.Union([IsoInstant(), Type.Null()]),
  last_run: Type.Union([TaskRun, Type.Null()]),
});
export type Task = Static<typeof Task>;

export const TaskFileProblem = Type.Object({
  field: Type.String(),
  line: Type.Integer({ minimum: 1 }),
  message: Type.String(),
});

/** A task file that cannot run (hand-edited), with each problem's field and line. */
export const InvalidTask = Type.Object({
  id: Type.String(),
  name: Type.String(),
  path: Type.String(),
  problems: Type.Array(TaskFileProblem),
});
export type InvalidTask = Static<typeof InvalidTask>;

export const TaskListResponse = Type.Object({
  tasks: Type.Array(Task),
  invalid: Type.Array(InvalidTask),
});
export type TaskListResponse = Static<typeof TaskListResponse>;

export const TaskIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1024 }) });
export type TaskIdParams = Static<typeof TaskIdParams>;

export const TaskRunsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TASK_RUNS_MAX })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);
export type TaskRunsQuery = Static<typeof TaskRunsQuery>;

export const TaskRunsResponse = Type.Object({
  runs: Type.Array(TaskRun),
  next_cursor: Type.Optional(Type.String()),
});
export type TaskRunsResponse = Static<typeof TaskRunsResponse>;
