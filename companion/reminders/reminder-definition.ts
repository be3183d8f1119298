import type { UnresolvedProblem } from '../../shared/protocol/reminders';

/**
 * What the scheduler is told about each reminder: the scheduler's input port, independent of
 * how reminders are written in the vault (reminder notes, `@remind(...)` lines, other plugins'
 * syntaxes). A vault adapter turns Markdown into these; tests build them directly.
 */

/**
 * When the scheduler fires a reminder. Two schedule types on purpose, with different names:
 * `ReminderSchedule` (shared/reminders/reminder-schedule.ts) is what the vault says, a wall time
 * in a zone, which the plugin and the companion both read and write back; `FireSchedule` is the
 * scheduler's input, with a one-off already resolved to an instant by the source
 * (`toFireSchedule` in vault-reminder-source.ts), so a nonexistent or doubled local time (DST) is
 * settled once, where the note is read, and reported there as unresolved if it cannot be, never
 * inside the delivery loop. A recurring one keeps its wall time: each occurrence is resolved in
 * its own zone offset (fire-times.ts). Instants are epoch milliseconds.
 */
export type FireSchedule =
  | {
      readonly kind: 'once';
      /** The one occurrence, already resolved from wall time in `zone` by the source. */
      readonly at: number;
      /** Used to show the occurrence with the zone's offset. */
      readonly zone: string;
    }
  | {
      readonly kind: 'recurring';
      /** RFC 5545 RRULE (with or without `RRULE:`), expanded by shared/reminders/recurrence. */
      readonly rrule: string;
      /** Wall time of the first occurrence, `YYYY-MM-DDTHH:mm`, in `zone`. */
      readonly start: string;
      readonly zone: string;
    };

/**
 * A five-field cron string, expanded in `zone` by croner (shared/tasks/cron-schedule.ts). Only
 * scheduled tasks (companion/tasks) fire on it; reminder files never do, so it is not part of
 * {@link FireSchedule} (which the calendar, the digest and the reminder API read).
 */
export interface CronFireSchedule {
  readonly kind: 'cron';
  readonly expression: string;
  readonly zone: string;
}

/** What the scheduler fires on: a reminder's schedule, or a task's cron. */
export type SchedulerFireSchedule = FireSchedule | CronFireSchedule;

/**
 * What the scheduler plans: a reminder, or a scheduled task, which may also fire on cron
 * (companion/tasks gives its tasks to its own scheduler in this shape).
 */
export type ScheduledDefinition = Omit<ReminderDefinition, 'schedule'> & {
  readonly schedule: SchedulerFireSchedule;
};

export interface ReminderDefinition {
  /** Front-matter `id`, block id, or path+text key: stable across edits (docs/vault-format.md). */
  readonly id: string;
  readonly title: string;
  /** Vault-relative path of the note holding it. */
  readonly path: string;
  /** 1-based line of an inline reminder. */
  readonly line?: number;
  readonly schedule: FireSchedule;
  readonly status: 'active' | 'done' | 'cancelled';
  /** A `- [x]` task line: never fires (docs/vault-format.md). */
  readonly taskChecked: boolean;
  /**
   * Front-matter `snoozed_until`: fires then instead of the occurrences at or before it that
   * have not fired yet.
   */
  readonly snoozedUntil?: number;
  /** `obsidian://open?vault=…&file=…#^r-xxxx`. */
  readonly deepLink: string;
}

/**
 * A `@remind(...)` the companion will not guess at (natural language left unnormalised, a bad
 * date, zone or rule). Listed on the missed/attention list with reason `unresolved`, never fired.
 */
export interface UnresolvedReminder {
  /** Stable key, e.g. the block id or path + line text. */
  readonly id: string;
  readonly title: string;
  readonly path: string;
  readonly line?: number;
  /** What is wrong, naming the token, e.g. `"tomorrow 5pm" is natural language; open the note to fix it`. */
  readonly detail: string;
  /** Which kind of problem; `invalid` when absent. */
  readonly problem?: UnresolvedProblem;
}

/** Longest title carried into a push message; longer ones are cut (the payload limit is ~4 KB). */
export const MAX_PUSH_TITLE_CHARS = 200;
