import { formatInZone, parseLocalDateTime, wallToInstant } from '../../shared/reminders';
import type { Reminder, ReminderStatus } from '../../shared/protocol/reminders';
import type { ReminderDefinition } from './reminder-definition';

/** What the view needs from the scheduler: the plan's next fire time and pending snooze. */
export interface NextFireSource {
  nextFire(reminderId: string): number | undefined;
  /** The end of a snooze kept as delivery state that has not rung yet. */
  pendingSnooze(reminderId: string): number | undefined;
}

/**
 * A scheduler definition as the API's `Reminder` (companion/README.md). An inline reminder on a checked
 * task line is `done` (that is how a line is done, docs/vault-format.md); otherwise its status is the
 * note's. `next_fire` is the scheduler's plan, so done occurrences and snoozes are reflected;
 * `snoozed_until` shows a snooze wherever it is kept.
 */
export function reminderView(definition: ReminderDefinition, plan: NextFireSource): Reminder {
  const { schedule } = definition;
  const zone = schedule.zone;
  const due = schedule.kind === 'once' ? schedule.at : wallStart(schedule.start, zone);
  const status: ReminderStatus = definition.taskChecked ? 'done' : definition.status;
  const next = plan.nextFire(definition.id);
  // Front matter's `snoozed_until`, else a snooze the companion keeps (inline lines, series).
  const snoozed = definition.snoozedUntil ?? plan.pendingSnooze(definition.id);
  return {
    id: definition.id,
    title: definition.title,
    due: formatInZone(due, zone),
    timezone: zone,
    repeat: schedule.kind === 'recurring' ? schedule.rrule : null,
    path: definition.path,
    status,
    source: definition.line === undefined ? 'note' : 'inline',
    ...(definition.line === undefined ? {} : { line: definition.line }),
    snoozed_until: snoozed === undefined ? null : formatInZone(snoozed, zone),
    next_fire: next === undefined || status !== 'active' ? null : formatInZone(next, zone),
  };
}

/** The first occurrence of a recurring schedule, from its wall-time start. */
export function wallStart(start: string, zone: string): number {
  const parsed = parseLocalDateTime(start);
  if (!parsed.ok) throw new RangeError(`schedule start: ${parsed.message}`);
  return wallToInstant(parsed.wall, zone);
}
