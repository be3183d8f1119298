import { MONTH_NAMES } from '../reminders/local-time';
import { describeRule } from '../reminders/rule-words';

/*
 * A task's `schedule` in words, for lists (the phone page, the plugin's task view): "once on
 * 28 November 2026 at 08:00", "every Friday at 17:00", "every month on the 1st at 09:00". The
 * common cron shapes are put into words; any other cron string is shown as it is, marked as
 * cron. Times are wall times of the task's zone. No croner here: this is for the screens.
 */

const CRON_DAY_NAMES = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
];
const CRON_DAY_ABBREVIATIONS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const NICKNAMES: Readonly<Record<string, string>> = {
  '@hourly': 'every hour',
  '@daily': 'every day at 00:00',
  '@midnight': 'every day at 00:00',
  '@weekly': 'every Sunday at 00:00',
  '@monthly': 'every month on the 1st at 00:00',
  '@yearly': 'every year on 1 January at 00:00',
  '@annually': 'every year on 1 January at 00:00',
};

const ONCE =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** `schedule` (and an RRULE's `start`) in words. */
export function describeTaskSchedule(schedule: string, start?: string): string {
  const text = schedule.trim();
  const once = ONCE.exec(text);
  if (once) {
    const month = MONTH_NAMES[Number(once[2]) - 1] ?? once[2];
    const offset = once[6] === undefined ? '' : ` (${once[6] === 'Z' ? 'UTC' : once[6]})`;
    return `once on ${Number(once[3])} ${month} ${once[1]} at ${once[4]}:${once[5]}${offset}`;
  }
  if (/^RRULE:/i.test(text)) return describeRule(text, start);
  return describeCron(text);
}

function describeCron(expression: string): string {
  const nickname = NICKNAMES[expression.toLowerCase()];
  if (nickname !== undefined) return nickname;
  const raw = `cron ${expression}`;
  const fields = expression.split(/\s+/);
  if (fields.length !== 5) return raw;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [
    string,
    string,
    string,
    string,
    string,
  ];
  const step = /^\*\/(\d+)$/.exec(minute);
  if (step && hour === '*' && dayOfMonth === '*' && month === '*' && dayOfWeek === '*') {
    return `every ${step[1]} minutes`;
  }
  if (!/^\d{1,2}$/.test(minute) || !/^\d{1,2}$/.test(hour) || month !== '*') return raw;
  const time = `at ${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`;
  if (dayOfMonth === '*' && dayOfWeek === '*') return `every day ${time}`;
  if (dayOfMonth === '*') {
    const days = weekdays(dayOfWeek);
    if (days === undefined) return raw;
    if (days.join() === '1,2,3,4,5') return `every weekday (Monday to Friday) ${time}`;
    if (days.join() === '6,0') return `every weekend day ${time}`;
    return `every ${listWords(days.map((day) => CRON_DAY_NAMES[day]!))} ${time}`;
  }
  if (dayOfWeek === '*' && /^\d{1,2}$/.test(dayOfMonth)) {
    return `every month on the ${ordinal(Number(dayOfMonth))} ${time}`;
  }
  return raw;
}

/** A cron weekday field (`FRI`, `1-5`, `MON,THU`, `7` = Sunday) as sorted 0–6, or undefined. */
function weekdays(field: string): number[] | undefined {
  const days = new Set<number>();
  for (const part of field.split(',')) {
    const range = part.split('-');
    if (range.length > 2) return undefined;
    const numbers = range.map(weekday);
    if (numbers.some((day) => day === undefined)) return undefined;
    const [from, to = from] = numbers as number[];
    if (from! > to!) return undefined;
    for (let day = from!; day <= to!; day++) days.add(day % 7);
  }
  return [...days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7));
}

function weekday(text: string): number | undefined {
  const upper = text.toUpperCase();
  const named = CRON_DAY_ABBREVIATIONS.indexOf(upper);
  if (named >= 0) return named;
  if (/^[0-7]$/.test(text)) return Number(text);
  return undefined;
}

function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function ordinal(day: number): string {
  const suffix =
    day % 100 >= 11 && day % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][day % 10] ?? 'th');
  return `${day}${suffix}`;
}
