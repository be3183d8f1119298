/**
 * Reminders already written for other plugins, read (never rewritten) so users keep them:
 * - the Reminder plugin (uphy/obsidian-reminder), default format: `(@2026-11-23 17:00)` or
 *   date-only `(@2026-11-23)`, which that plugin fires at its default time (09:00 unless set);
 * - the Reminder plugin's Tasks-plugin format with its reminder emoji: `⏰ 2026-11-23 10:00`,
 *   and date-only `⏰ 2026-11-23`. (The Tasks plugin itself has no reminders; `⏰` is the
 *   Reminder plugin's extension of the Tasks emoji format, next to Tasks' own `📅` due dates,
 *   which are deadlines, not reminders, and are not read.)
 * Both are local times in the default zone; neither has a zone or recurrence syntax.
 */
import { daysInMonth, formatWall, wallFromParts } from './local-time';

export type ForeignSyntax = 'reminder-plugin' | 'tasks';

export interface ForeignToken {
  syntax: ForeignSyntax;
  /** Line-relative offsets of the whole token (`(@…)` or `⏰ …`). */
  from: number;
  to: number;
  /** The written date and time, e.g. `2026-11-23 17:00`. */
  written: string;
  /** Wall time `YYYY-MM-DDTHH:mm` (date-only tokens get the default time), or the error. */
  result: { ok: true; start: string } | { ok: false; reason: string };
}

const REMINDER_PLUGIN = /\(@(\d{4}-\d{2}-\d{2})(?: (\d{1,2}):(\d{2}))?\)/g;
const TASKS_REMINDER = /⏰\uFE0F? ?(\d{4}-\d{2}-\d{2})(?: (\d{1,2}):(\d{2}))?(?![\d:])/g;

/** Tokens of the given syntaxes in one line, in order of position. */
export function findForeignTokens(
  line: string,
  syntaxes: { reminderPlugin: boolean; tasks: boolean },
  defaultTime: { hour: number; minute: number },
): ForeignToken[] {
  const tokens: ForeignToken[] = [];
  const scan = (pattern: RegExp, syntax: ForeignSyntax) => {
    pattern.lastIndex = 0;
    for (const match of line.matchAll(pattern)) {
      const written = match[0].replace(/^\(@|\)$/g, '').replace(/^⏰\uFE0F? ?/, '');
      tokens.push({
        syntax,
        from: match.index,
        to: match.index + match[0].length,
        written,
        result: readDateTime(match, defaultTime),
      });
    }
  };
  if (syntaxes.reminderPlugin && line.includes('(@')) scan(REMINDER_PLUGIN, 'reminder-plugin');
  if (syntaxes.tasks && line.includes('⏰')) scan(TASKS_REMINDER, 'tasks');
  return tokens.sort((a, b) => a.from - b.from);
}

function readDateTime(
  match: RegExpMatchArray,
  defaultTime: { hour: number; minute: number },
): ForeignToken['result'] {
  const [year, month, day] = match[1]!.split('-').map(Number) as [number, number, number];
  if (month < 1 || month > 12) return { ok: false, reason: `month ${month} does not exist` };
  if (day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, reason: `${match[1]} is not a date (no day ${day} in that month)` };
  }
  let hour = defaultTime.hour;
  let minute = defaultTime.minute;
  if (match[2] !== undefined) {
    hour = Number(match[2]);
    minute = Number(match[3]);
    if (hour > 23 || minute > 59) {
      return { ok: false, reason: `${match[2]}:${match[3]} is not a time of day (00:00 to 23:59)` };
    }
  }
  return {
    ok: true,
    start: formatWall(wallFromParts(year, month, day, hour, minute)).slice(0, 16),
  };
}
