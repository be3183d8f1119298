/**
 * What the editor widget next to a `@remind(...)` token shows, in one call: when it fires next
 * ("Mon 09:00"), what natural language will become once normalised ("→ 2026-11-24 17:00"), or
 * why the token is wrong. Pure: the plugin passes `now` from its clock and re-asks as time moves.
 */
import { checkSchedule, describeNextFire, nextFire } from './next-fire';
import { resolveNaturalTime } from './natural-time';
import { classifyRemindText } from './remind-value';
import type { ReminderSchedule, TaskState } from './reminder-schedule';

export interface RemindPreviewOptions {
  now: number;
  /** The vault's zone. */
  zone: string;
  /** The line's checkbox: a checked task shows as done. */
  taskState?: TaskState;
  /** Time of day for date-only phrases, `HH:mm`; default `09:00`. */
  defaultTime?: string;
}

export type RemindPreview =
  | {
      kind: 'scheduled';
      schedule: ReminderSchedule;
      /** Next fire (epoch ms), or null when it is over (past one-off, ended rule, checked task). */
      next: number | null;
      /** `today 17:00`, `Mon 09:00`, `done`, `past`, `ended`. */
      label: string;
    }
  | {
      kind: 'natural';
      /** The absolute form it normalises to, e.g. `2026-11-24 17:00`. */
      resolved: string;
      next: number;
      /** `→ 2026-11-24 17:00 (tomorrow 17:00)`. */
      label: string;
    }
  | { kind: 'invalid'; reason: string };

/** Previews the inner text of a token; never throws. */
export function previewRemindText(inner: string, options: RemindPreviewOptions): RemindPreview {
  const value = classifyRemindText(inner, options.zone);
  if (value.kind === 'invalid') return value;
  if (value.kind === 'natural') {
    const resolved = resolveNaturalTime(value.text, {
      now: options.now,
      zone: options.zone,
      ...(options.defaultTime === undefined ? {} : { defaultTime: options.defaultTime }),
    });
    if (!resolved.ok) return { kind: 'invalid', reason: resolved.message };
    const when = describeNextFire(resolved.instant, resolved.zone, options.now);
    return {
      kind: 'natural',
      resolved: resolved.text,
      next: resolved.instant,
      label: `→ ${resolved.text} (${when})`,
    };
  }
  const schedule: ReminderSchedule =
    value.kind === 'once'
      ? { kind: 'once', start: value.start, zone: value.zone }
      : { kind: 'recurring', rrule: value.rrule, start: value.start, zone: value.zone };
  const problem = checkSchedule(schedule);
  if (problem !== undefined) return { kind: 'invalid', reason: problem };
  const taskState = options.taskState ?? 'none';
  if (taskState === 'checked') return { kind: 'scheduled', schedule, next: null, label: 'done' };
  const next = nextFire(schedule, { status: 'active', taskState }, options.now);
  if (next === null) {
    return {
      kind: 'scheduled',
      schedule,
      next,
      label: schedule.kind === 'once' ? 'past' : 'ended',
    };
  }
  return {
    kind: 'scheduled',
    schedule,
    next,
    label: describeNextFire(next, schedule.zone, options.now),
  };
}
