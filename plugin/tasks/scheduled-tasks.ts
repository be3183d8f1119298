/**
 * The "Scheduled tasks" view's data and its "New scheduled task" form (docs/tasks.md): tasks
 * run on the companion, so everything here goes through the plugin's one companion client to
 * `/api/v1/tasks`. Pure: no `obsidian`, no DOM.
 */
import { Task, TaskListResponse } from '../../shared/protocol/tasks';
import type { InvalidTask, TaskCreate } from '../../shared/protocol/tasks';
import { ACTION_INPUT_KEY, TASK_ACTIONS } from '../../shared/tasks/task-file';
import type { TaskAction } from '../../shared/tasks/task-file';
import { describeTaskSchedule } from '../../shared/tasks/schedule-words';
import type { CompanionClient } from '../connection/client';

export interface TasksSource {
  client: Pick<CompanionClient, 'callForFields'>;
  /** The companion URL from settings; empty when none is configured. */
  companionUrl: () => string;
}

export const NEEDS_COMPANION =
  'Scheduled tasks run on the Cairn companion (also while Obsidian is closed), and none is paired. Set its URL and token in Settings → Cairn → Companion, then open this again.';

export type LoadedTasks =
  { ok: true; tasks: Task[]; invalid: InvalidTask[] } | { ok: false; message: string };

/** `GET /api/v1/tasks`; never throws: a failure is a sentence for the view. */
export async function loadTasks(source: TasksSource): Promise<LoadedTasks> {
  if (source.companionUrl().trim() === '') return { ok: false, message: NEEDS_COMPANION };
  const answer = await source.client.callForFields('GET', '/api/v1/tasks', TaskListResponse);
  if (!answer.ok) {
    return { ok: false, message: `The companion could not list tasks: ${answer.message}.` };
  }
  return { ok: true, tasks: answer.value.tasks, invalid: answer.value.invalid };
}

/** Turns a task on or off (`PATCH { enabled }`, written into its note by the companion). */
export async function setTaskEnabled(
  source: TasksSource,
  id: string,
  enabled: boolean,
): Promise<{ ok: true; task: Task } | { ok: false; message: string }> {
  const answer = await source.client.callForFields(
    'PATCH',
    `/api/v1/tasks/${encodeURIComponent(id)}`,
    Task,
    { enabled },
  );
  return answer.ok ? { ok: true, task: answer.value } : { ok: false, message: answer.message };
}

/** A task's schedule in words, with its zone when it is not the device's. */
export function scheduleWords(task: Pick<Task, 'schedule' | 'timezone'>, zone: string): string {
  const words = describeTaskSchedule(task.schedule);
  const sentence = words.charAt(0).toUpperCase() + words.slice(1);
  return task.timezone === zone ? sentence : `${sentence} (${task.timezone})`;
}

export const SCHEDULE_KINDS = ['once', 'daily', 'weekly', 'cron', 'rrule'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
export const SCHEDULE_KIND_LABELS: Readonly<Record<ScheduleKind, string>> = {
  once: 'Once, at a date and time',
  daily: 'Every day at',
  weekly: 'Every week on',
  cron: 'Cron string',
  rrule: 'RRULE',
};
export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const ACTION_LABELS: Readonly<Record<TaskAction, string>> = {
  ask: 'Ask a question (a cited answer from your notes)',
  search: 'Search (the matching notes as links)',
  digest: 'Weekly digest (the week before)',
  prompt: 'Prompt the language model (with your top passages)',
};
export const INPUT_LABELS: Readonly<Record<TaskAction, string | null>> = {
  ask: 'Question',
  search: 'Query',
  digest: null,
  prompt: 'Prompt',
};

/** What the form holds; every field a string or flag as the inputs give them. */
export interface TaskDraft {
  name: string;
  kind: ScheduleKind;
  /** `once`: `YYYY-MM-DDTHH:mm` (a datetime-local input). */
  at: string;
  /** `daily` and `weekly`: `HH:mm`. */
  time: string;
  days: Weekday[];
  cron: string;
  rrule: string;
  timezone: string;
  action: TaskAction;
  input: string;
  deliverNote: boolean;
  deliverPush: boolean;
}

export function emptyDraft(zone: string): TaskDraft {
  return {
    name: '',
    kind: 'weekly',
    at: '',
    time: '17:00',
    days: ['FRI'],
    cron: '',
    rrule: '',
    timezone: zone,
    action: 'ask',
    input: '',
    deliverNote: true,
    deliverPush: false,
  };
}

/** The form's fields a message can stand next to. */
export type DraftField =
  'name' | 'at' | 'time' | 'days' | 'cron' | 'rrule' | 'timezone' | 'action' | 'input' | 'deliver';
export type FieldErrors = Partial<Record<DraftField | 'form', string>>;

/** The field showing the schedule for the draft's kind. */
function scheduleField(kind: ScheduleKind): DraftField {
  return kind === 'once'
    ? 'at'
    : kind === 'daily'
      ? 'time'
      : kind === 'weekly'
        ? 'days'
        : kind === 'cron'
          ? 'cron'
          : 'rrule';
}

/**
 * The request body for `POST /api/v1/tasks`, or the form's own errors (what can be said
 * before asking: an empty name, no weekday ticked). Everything else, a schedule that never
 * runs or an unknown zone, is the companion's to check; its 400 names the field.
 */
export function draftToRequest(
  draft: TaskDraft,
): { ok: true; body: TaskCreate } | { ok: false; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const name = draft.name.trim();
  if (name === '') errors.name = 'Give the task a name (it becomes the note’s name).';
  const time = /^(\d{1,2}):(\d{2})$/.exec(draft.time.trim());
  let schedule = '';
  switch (draft.kind) {
    case 'once':
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(draft.at.trim())) {
        errors.at = 'Pick a date and a time.';
      } else schedule = draft.at.trim();
      break;
    case 'daily':
    case 'weekly':
      if (!time || Number(time[1]) > 23 || Number(time[2]) > 59) {
        errors.time = 'A time of day, e.g. 17:00.';
      } else if (draft.kind === 'weekly' && draft.days.length === 0) {
        errors.days = 'Tick at least one day.';
      } else {
        const days =
          draft.kind === 'daily'
            ? '*'
            : WEEKDAYS.filter((day) => draft.days.includes(day)).join(',');
        schedule = `${Number(time[2])} ${Number(time[1])} * * ${days}`;
      }
      break;
    case 'cron':
      if (draft.cron.trim() === '') errors.cron = 'A five-field cron string, e.g. 0 17 * * FRI.';
      else schedule = draft.cron.trim();
      break;
    case 'rrule': {
      const rule = draft.rrule.trim();
      if (rule === '') errors.rrule = 'A rule, e.g. RRULE:FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9.';
      else schedule = /^RRULE:/i.test(rule) ? rule : `RRULE:${rule}`;
      break;
    }
  }
  const inputKey = ACTION_INPUT_KEY[draft.action];
  const input = draft.input.trim();
  if (draft.action !== 'digest' && input === '') {
    errors.input = `A ${draft.action} task needs its ${inputKey}.`;
  }
  const deliver = [
    ...(draft.deliverNote ? (['note'] as const) : []),
    ...(draft.deliverPush ? (['push'] as const) : []),
  ];
  if (deliver.length === 0) errors.deliver = 'Choose a note, a push, or both.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const body: TaskCreate = {
    name,
    schedule,
    action: draft.action,
    deliver,
    ...(draft.timezone.trim() === '' ? {} : { timezone: draft.timezone.trim() }),
    ...(draft.action === 'digest' ? { period: 'week' as const } : { [inputKey]: input }),
  };
  return { ok: true, body };
}

/** The companion's error field (`schedule`, `question`, `deliver[0]`, …) as the form's field. */
export function draftFieldOf(field: string | undefined, kind: ScheduleKind): DraftField | 'form' {
  if (field === undefined) return 'form';
  const key = field.replace(/\[\d+\]$/, '').replace(/^\//, '');
  if (key === 'schedule' || key === 'start') return scheduleField(kind);
  if (key === 'question' || key === 'query' || key === 'prompt' || key === 'period') {
    return 'input';
  }
  if (key === 'name' || key === 'timezone' || key === 'action' || key === 'deliver') return key;
  return 'form';
}

export type CreateOutcome = { ok: true; task: Task } | { ok: false; errors: FieldErrors };

/** Checks the draft, then `POST /api/v1/tasks`; a 400 comes back next to its field. */
export async function createTask(source: TasksSource, draft: TaskDraft): Promise<CreateOutcome> {
  if (source.companionUrl().trim() === '') return { ok: false, errors: { form: NEEDS_COMPANION } };
  const request = draftToRequest(draft);
  if (!request.ok) return request;
  const answer = await source.client.callForFields('POST', '/api/v1/tasks', Task, request.body);
  if (answer.ok) return { ok: true, task: answer.value };
  const field = answer.status === 400 || answer.status === 409 ? answer.field : undefined;
  const where = draftFieldOf(field, draft.kind);
  return {
    ok: false,
    errors: { [where]: where === 'form' ? answer.message : (answer.detail ?? answer.message) },
  };
}

/** Action choices for the form, in the API's order. */
export const ACTIONS: readonly TaskAction[] = TASK_ACTIONS;

/** The device's IANA zone (the form's default). */
export function deviceZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** "Fri 4 Dec, 17:00" in the device's locale and zone. */
export function formatWhen(iso: string): string {
  const instant = Date.parse(iso);
  if (!Number.isFinite(instant)) return iso;
  return new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(instant);
}
