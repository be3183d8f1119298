import { isValidZone, parseLocalDateTime } from '../../shared/reminders/local-time';
import { validateRrule } from '../../shared/reminders/recurrence';
import { checkCron } from '../../shared/tasks/cron-schedule';
import type { ScheduledDefinition } from './reminder-definition';

/** Longest reminder id accepted (the API takes ids up to 200; path+text keys run longer). */
export const MAX_REMINDER_ID_CHARS = 2_000;

/** Earliest and latest instants accepted: years 1900…9999. */
const EARLIEST = Date.UTC(1900, 0, 1);
const LATEST = Date.UTC(10_000, 0, 1) - 1;

/**
 * Checks a definition from a source before it is scheduled. Sources parse Markdown, so a bad
 * one is a bug or a hand-edited file; either way it is reported (as `unresolved` on the missed
 * list) rather than fired wrongly or thrown at the scheduler's loop. Returns the problem, naming
 * the field, or undefined when the definition is usable.
 */
export function definitionProblem(definition: ScheduledDefinition): string | undefined {
  const { id, schedule } = definition;
  if (typeof id !== 'string' || id.length === 0) return 'id: empty';
  if (id.length > MAX_REMINDER_ID_CHARS) {
    return `id: ${id.length} characters (at most ${MAX_REMINDER_ID_CHARS})`;
  }
  if (typeof definition.title !== 'string') return 'title: not text';
  if (typeof definition.path !== 'string' || definition.path.length === 0) return 'path: empty';
  if (
    definition.line !== undefined &&
    (!Number.isInteger(definition.line) || definition.line < 1)
  ) {
    return `line: ${String(definition.line)} is not a line number`;
  }
  if (!['active', 'done', 'cancelled'].includes(definition.status)) {
    return `status: "${String(definition.status)}" is not active, done or cancelled`;
  }
  if (
    definition.snoozedUntil !== undefined &&
    !(Number.isFinite(definition.snoozedUntil) && inRange(definition.snoozedUntil))
  ) {
    return 'snoozed_until: not an instant between 1900 and 9999';
  }
  if (typeof schedule !== 'object' || schedule === null) return 'schedule: missing';
  if (typeof schedule.zone !== 'string' || !isValidZone(schedule.zone)) {
    return `timezone: "${String(schedule.zone)}" is not an IANA time zone`;
  }
  if (schedule.kind === 'once') {
    if (!Number.isFinite(schedule.at) || !inRange(schedule.at)) {
      return 'due: not an instant between 1900 and 9999';
    }
    return undefined;
  }
  if (schedule.kind === 'recurring') {
    const start = parseLocalDateTime(schedule.start);
    if (!start.ok) return `due: ${start.message}`;
    const rule = checkedRule(schedule.rrule);
    if (!rule.ok) return `repeat: ${rule.message}`;
    return undefined;
  }
  if (schedule.kind === 'cron') {
    const cron = checkCron(schedule.expression, schedule.zone, EARLIEST);
    return cron.ok ? undefined : `schedule: ${cron.message}`;
  }
  return `schedule: unknown kind "${String((schedule as { kind?: unknown }).kind)}"`;
}

/** Rule texts already checked: many reminders share a handful of rules (weekly on Monday…). */
const ruleChecks = new Map<string, ReturnType<typeof validateRrule>>();
const RULE_CACHE_LIMIT = 5_000;

function checkedRule(rrule: string): ReturnType<typeof validateRrule> {
  let check = ruleChecks.get(rrule);
  if (check === undefined) {
    check = validateRrule(rrule);
    if (ruleChecks.size >= RULE_CACHE_LIMIT) ruleChecks.clear();
    ruleChecks.set(rrule, check);
  }
  return check;
}

function inRange(instant: number): boolean {
  return instant >= EARLIEST && instant <= LATEST;
}
