import { Cron } from 'croner';

/*
 * Cron strings for scheduled tasks (docs/tasks.md), read by croner (zero dependencies, DST rules
 * written down and tested by its authors). Why croner and not cron-parser: croner states what a
 * job does across a DST change, the rule Vixie cron follows: a fixed-time job (one minute and
 * one hour, `0 17 * * FRI`) whose local time falls in a spring-forward gap runs at the first
 * valid time after the gap, and once when a fall-back repeats its time; an interval job
 * (`*\/30 * * * *`) skips the times in a gap and runs on both passes of a repeated hour. It also
 * answers "the run before" (`previousRuns`), which catch-up after downtime needs.
 *
 * Five fields only (minute hour day-of-month month day-of-week, names and `@daily`-style
 * nicknames allowed): seconds would let a hand-edited task run every second.
 */

export type CronCheck = { ok: true } | { ok: false; message: string };

/** Parsed expressions by `zone\u0000expression`: a rule is read once, asked often. */
const parsed = new Map<string, Cron>();
const PARSED_LIMIT = 2_000;

function cronFor(expression: string, zone: string): Cron {
  const key = `${zone}\u0000${expression}`;
  let cron = parsed.get(key);
  if (cron === undefined) {
    // `paused` and no function: croner never arms a timer; it is used as a calculator only.
    cron = new Cron(expression, { timezone: zone, paused: true, mode: '5-part' });
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    parsed.set(key, cron);
  }
  return cron;
}

/** Whether `expression` is a five-field cron string that runs at least once from `from`. */
export function checkCron(expression: string, zone: string, from: number): CronCheck {
  let cron: Cron;
  try {
    cron = cronFor(expression, zone);
  } catch (error) {
    return { ok: false, message: cronMessage(expression, error) };
  }
  try {
    if (cron.nextRun(new Date(from)) === null) {
      return { ok: false, message: `cron "${expression}" never runs (no date matches it)` };
    }
  } catch (error) {
    return { ok: false, message: cronMessage(expression, error) };
  }
  return { ok: true };
}

/** The first run strictly after `after` (epoch ms), or undefined. Expects a checked expression. */
export function cronNextAfter(expression: string, zone: string, after: number): number | undefined {
  return cronFor(expression, zone).nextRun(new Date(after))?.getTime();
}

/** The latest run at or before `atOrBefore` (epoch ms), or undefined. */
export function cronLatestAtOrBefore(
  expression: string,
  zone: string,
  atOrBefore: number,
): number | undefined {
  // croner's previousRuns is strictly before its reference: ask from just after.
  const [previous] = cronFor(expression, zone).previousRuns(1, new Date(atOrBefore + 1));
  return previous === undefined ? undefined : previous.getTime();
}

/** croner's messages start with its class name ("CronPattern: …"); keep the words. */
function cronMessage(expression: string, error: unknown): string {
  const fields = expression.trim().split(/\s+/).length;
  if (!expression.trim().startsWith('@') && fields !== 5) {
    return `"${expression}" is not a five-field cron string (minute hour day month weekday, e.g. 0 17 * * FRI): it has ${fields} field${fields === 1 ? '' : 's'}`;
  }
  const text = error instanceof Error ? error.message : String(error);
  return `"${expression}" is not a five-field cron string (minute hour day month weekday): ${text.replace(/^Cron\w*: /, '')}`;
}
