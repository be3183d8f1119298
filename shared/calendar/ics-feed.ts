/**
 * The iCalendar feed (RFC 5545, docs/memory-digest-calendar.md) that phone and desktop calendars subscribe to:
 * every reminder as a VEVENT (UID = reminder id, DTSTART;TZID in its zone, its RRULE, a VALARM
 * at the start, a URL opening the note) and notes with Full Calendar front matter as events.
 * Each zone used gets a VTIMEZONE with its real offset changes over the years the feed spans.
 * Lines end in CRLF and are folded at 75 octets; text values are escaped.
 */
import { MS_PER_DAY, MS_PER_MINUTE } from '../chat/zone-calendar';
import { reminderDeepLink } from '../reminders/deep-link';
import { textHash } from '../search/hash';
import {
  formatWall,
  instantToWall,
  parseLocalDateTime,
  wallToInstant,
  zoneOffsetMs,
} from '../reminders/local-time';
import {
  nextOccurrences,
  occurrencesBetween,
  RecurrenceInputError,
  validateRrule,
} from '../reminders/recurrence';
import type { CalendarReminder, NoteEvent } from './calendar-entries';
import { dayNumber } from './calendar-week';
import { civilFromDays, daysFromCivil, weekdayOfDay } from '../reminders/local-time';

export interface IcsFeedInput {
  readonly reminders: Iterable<CalendarReminder>;
  readonly events: Iterable<NoteEvent>;
  /** DTSTAMP of every event: when the feed was generated. */
  readonly now: number;
  /** Vault name, for the `obsidian://` links of events. */
  readonly vaultName: string;
  /** X-WR-CALNAME: what calendar apps show as the calendar's name. */
  readonly calendarName: string;
}

/** VTIMEZONE transitions are written from this many years before the earliest start… */
const ZONE_YEARS_BEFORE = 1;
/** …to this many years after now (subscribed calendars re-fetch far more often than this). */
const ZONE_YEARS_AFTER = 5;
/**
 * A recurring reminder whose start lies further back is written from its first occurrence
 * within this window: an `every monday` line starts in 2000 (INLINE_RECURRENCE_START), and the
 * calendar need not carry 26 years of time-zone history. Only rules without COUNT move (COUNT
 * counts from DTSTART); the new DTSTART is itself an occurrence, so INTERVAL keeps its phase.
 */
const RECURRING_HISTORY_MS = 366 * MS_PER_DAY;

/** A task box at the start of a line (`- [ ] `, `* [x] `, `1. [/] `): what checking it changes. */
const TASK_BOX = /^(\s*(?:[-*+]|\d+[.)])\s+)\[.\]\s*/u;

/**
 * The event's UID: the reminder's id (front-matter id or block id), which survives edits. A
 * line without a block id is identified by its path and text (shared/reminders'
 * inline-reminders), which checking its box changes and which is no address; its UID is a hash
 * of the path and the text without the box state, so the event a calendar shows stays one
 * event when it is checked off (and its alarm goes).
 */
export function reminderUid(reminder: Pick<CalendarReminder, 'id' | 'path'>): string {
  const prefix = `${reminder.path}::`;
  if (!reminder.id.startsWith(prefix)) return reminder.id;
  const text = reminder.id.slice(prefix.length).replace(TASK_BOX, '$1[ ] ');
  return `line-${textHash(`${reminder.path}\n${text}`)}@cairn`;
}

export function buildIcsFeed(input: IcsFeedInput): string {
  const lines: string[] = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Cairn//Cairn companion//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(input.calendarName)}`,
    'REFRESH-INTERVAL;VALUE=DURATION:PT1H',
    'X-PUBLISHED-TTL:PT1H',
  ];
  const events: string[] = [];
  const zones = new Map<string, number>();
  const useZone = (zone: string, instant: number) => {
    const earliest = zones.get(zone);
    if (earliest === undefined || instant < earliest) zones.set(zone, instant);
  };
  const stamp = `DTSTAMP:${utcStamp(input.now)}`;

  for (const reminder of input.reminders) {
    const start = reminderStart(reminder, input.now);
    if (start === undefined) continue;
    const zone = reminder.schedule.zone;
    useZone(zone, start.instant);
    const done = reminder.status === 'done' || reminder.taskChecked;
    const cancelled = reminder.status === 'cancelled';
    events.push(
      'BEGIN:VEVENT',
      `UID:${escapeText(reminderUid(reminder))}`,
      stamp,
      `DTSTART;TZID=${zone}:${wallStamp(start.wall)}`,
      ...(start.rrule === undefined ? [] : [`RRULE:${start.rrule}`]),
      ...start.exceptions,
      `SUMMARY:${escapeText(reminder.title)}`,
      `URL:${reminder.deepLink}`,
      // RFC 5545 3.8.1.11: a VEVENT is TENTATIVE, CONFIRMED or CANCELLED (COMPLETED is for
      // VTODO), so a done reminder is a CONFIRMED event marked done for Cairn's readers.
      ...(cancelled ? ['STATUS:CANCELLED'] : ['STATUS:CONFIRMED']),
      ...(done && !cancelled ? ['X-CAIRN-STATUS:DONE'] : []),
      'CATEGORIES:Reminder',
      // Only what will still ring alarms: subscribed calendars alert on every VALARM they see.
      ...(done || cancelled
        ? ['TRANSP:TRANSPARENT']
        : [
            'BEGIN:VALARM',
            'ACTION:DISPLAY',
            `DESCRIPTION:${escapeText(reminder.title)}`,
            'TRIGGER:PT0S',
            'END:VALARM',
          ]),
      'END:VEVENT',
    );
  }

  for (const event of input.events) {
    const lines = noteEventLines(event, input.vaultName, stamp, useZone);
    events.push(...lines);
  }

  for (const [zone, earliest] of [...zones].sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(...vtimezone(zone, earliest, input.now));
  }
  // Concatenated, not spread: a 10k-reminder feed has ~200k lines, past the argument limit.
  const all = lines.concat(events, ['END:VCALENDAR']);
  return all.map(foldLine).join('\r\n') + '\r\n';
}

/** DTSTART and RRULE of a reminder, or undefined when its rule cannot be read. */
function reminderStart(
  reminder: CalendarReminder,
  now: number,
): { instant: number; wall: number; rrule?: string; exceptions: string[] } | undefined {
  const schedule = reminder.schedule;
  if (schedule.kind === 'once') {
    return {
      instant: schedule.at,
      wall: instantToWall(schedule.at, schedule.zone),
      exceptions: [],
    };
  }
  const check = validateRrule(schedule.rrule);
  const start = parseLocalDateTime(schedule.start);
  if (!check.ok || !start.ok) return undefined;
  const rrule = check.rrule.replace(/^RRULE:/, '');
  try {
    const startInstant = wallToInstant(start.wall, schedule.zone);
    const from = /(?:^|;)COUNT=/.test(rrule)
      ? startInstant - 1
      : Math.max(startInstant - 1, now - RECURRING_HISTORY_MS);
    // DTSTART must itself be an occurrence (RFC 5545 §3.8.5.3 counts it as the first one), and
    // is written as the rule's own wall time: expanded in UTC, wall time and instant coincide.
    const wall = nextOccurrences(schedule, instantToWall(from, schedule.zone), 'UTC', 1)[0];
    if (wall === undefined) return undefined;
    const instant = wallToInstant(wall, schedule.zone);
    const exceptions = dstExceptions(schedule, wall, now);
    return { instant, wall, rrule, exceptions };
  } catch (error) {
    if (error instanceof RecurrenceInputError) return undefined;
    throw error;
  }
}

/**
 * Parsers disagree on wall times that a DST change skips or repeats: RFC 5545 §3.3.5 (and
 * Cairn) read a skipped 02:30 as 03:30 and a repeated 01:30 as its first instance, while some
 * (ical.js among them) pick the other instant. For each occurrence on such a wall time, the
 * feed excludes the wall time (EXDATE, which every parser resolves as it resolves the rule) and
 * adds Cairn's instant in UTC (RDATE), so every calendar shows the time Cairn fires.
 */
function dstExceptions(
  schedule: { rrule: string; start: string; zone: string },
  firstWall: number,
  now: number,
): string[] {
  const zone = schedule.zone;
  const until = wallToInstant(firstWall, zone) > now ? wallToInstant(firstWall, zone) : now;
  const lines: string[] = [];
  for (const change of zoneTransitions(
    zone,
    wallToInstant(firstWall, zone) - MS_PER_DAY,
    until + ZONE_YEARS_AFTER * 366 * MS_PER_DAY,
  )) {
    const wallAt = change.at + change.from;
    const nominals = occurrencesBetween(
      schedule,
      Math.max(firstWall - 1, wallAt - MS_PER_DAY),
      wallAt + MS_PER_DAY,
      'UTC',
      100,
    );
    for (const wall of nominals) {
      const instant = wallToInstant(wall, zone);
      const skipped = instantToWall(instant, zone) !== wall;
      const repeated =
        change.from > change.to &&
        instantToWall(instant + (change.from - change.to), zone) === wall;
      if (!skipped && !repeated) continue;
      lines.push(`EXDATE;TZID=${zone}:${wallStamp(wall)}`, `RDATE:${utcStamp(instant)}`);
    }
  }
  return lines;
}

function noteEventLines(
  event: NoteEvent,
  vaultName: string,
  stamp: string,
  useZone: (zone: string, instant: number) => void,
): string[] {
  const repeat = event.repeat;
  const firstDate = repeat.kind === 'single' ? repeat.date : (repeat.startRecur ?? '2000-01-03');
  let firstDay = dayNumber(firstDate);
  let rrule: string | undefined;
  if (repeat.kind === 'weekly') {
    // DTSTART must be an occurrence: move to the first listed weekday on or after the start.
    while (!repeat.days.includes(weekdayOfDay(firstDay))) firstDay++;
    const byDay = repeat.days
      .map((day) => ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'][day])
      .join(',');
    const until =
      repeat.endRecur === null
        ? ''
        : `;UNTIL=${event.allDay ? dateStamp(dayNumber(repeat.endRecur)) : utcStamp(wallToInstant((dayNumber(repeat.endRecur) + 1) * MS_PER_DAY - MS_PER_MINUTE, event.zone))}`;
    rrule = `FREQ=WEEKLY;BYDAY=${byDay}${until}`;
  }
  const lines = ['BEGIN:VEVENT', `UID:${escapeText(event.id)}`, stamp];
  if (event.allDay) {
    const span =
      repeat.kind === 'single' && repeat.endDate !== null
        ? dayNumber(repeat.endDate) - firstDay + 1
        : 1;
    lines.push(
      `DTSTART;VALUE=DATE:${dateStamp(firstDay)}`,
      `DTEND;VALUE=DATE:${dateStamp(firstDay + span)}`,
    );
  } else {
    const startWall = firstDay * MS_PER_DAY + minutesOf(event.startTime!) * MS_PER_MINUTE;
    useZone(event.zone, wallToInstant(startWall, event.zone));
    lines.push(`DTSTART;TZID=${event.zone}:${wallStamp(startWall)}`);
    if (event.endTime !== null) {
      const endDay =
        repeat.kind === 'single' && repeat.endDate !== null ? dayNumber(repeat.endDate) : firstDay;
      let endWall = endDay * MS_PER_DAY + minutesOf(event.endTime) * MS_PER_MINUTE;
      if (endWall <= startWall) endWall += MS_PER_DAY;
      lines.push(`DTEND;TZID=${event.zone}:${wallStamp(endWall)}`);
    }
  }
  if (rrule !== undefined) lines.push(`RRULE:${rrule}`);
  lines.push(
    `SUMMARY:${escapeText(event.title)}`,
    `URL:${reminderDeepLink(vaultName, event.path)}`,
    'END:VEVENT',
  );
  return lines;
}

/**
 * A VTIMEZONE listing every offset change of `zone` from a year before `earliest` to a few
 * years after `now`, one observance per change (no RRULE: the rules of real zones change, and
 * an explicit list is what every parser reads the same way).
 */
export function vtimezone(zone: string, earliest: number, now: number): string[] {
  const fromYear =
    civilFromDays(Math.floor(Math.min(earliest, now) / MS_PER_DAY)).year - ZONE_YEARS_BEFORE;
  const toYear = civilFromDays(Math.floor(now / MS_PER_DAY)).year + ZONE_YEARS_AFTER;
  const from = daysFromCivil(fromYear, 1, 1) * MS_PER_DAY;
  const to = daysFromCivil(toYear + 1, 1, 1) * MS_PER_DAY;
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`];
  const initial = zoneOffsetMs(from, zone);
  lines.push(...observance('STANDARD', from + initial, initial, initial));
  for (const change of zoneTransitions(zone, from, to)) {
    const kind = change.to > change.from ? 'DAYLIGHT' : 'STANDARD';
    lines.push(...observance(kind, change.at + change.from, change.from, change.to));
  }
  lines.push('END:VTIMEZONE');
  return lines;
}

/** An offset change of a zone: at instant `at` the offset goes from `from` to `to` (ms). */
export interface ZoneTransition {
  readonly at: number;
  readonly from: number;
  readonly to: number;
}

/**
 * Offset changes per zone, by whole-year span: a feed asks for the same zone's changes for
 * every reminder in it, and each scan costs thousands of offset lookups.
 */
const transitionCache = new Map<string, ZoneTransition[]>();
const TRANSITION_CACHE_LIMIT = 200;

/** Offset changes of `zone` in [from, to), to the minute. */
export function zoneTransitions(zone: string, from: number, to: number): ZoneTransition[] {
  const fromYear = civilFromDays(Math.floor(from / MS_PER_DAY)).year;
  const toYear = civilFromDays(Math.floor(to / MS_PER_DAY)).year;
  const key = `${zone}|${fromYear}|${toYear}`;
  let all = transitionCache.get(key);
  if (all === undefined) {
    if (transitionCache.size >= TRANSITION_CACHE_LIMIT) transitionCache.clear();
    all = scanTransitions(
      zone,
      daysFromCivil(fromYear, 1, 1) * MS_PER_DAY,
      daysFromCivil(toYear + 1, 1, 1) * MS_PER_DAY,
    );
    transitionCache.set(key, all);
  }
  return all.filter((change) => change.at >= from && change.at < to);
}

function scanTransitions(zone: string, from: number, to: number): ZoneTransition[] {
  const changes: ZoneTransition[] = [];
  let offset = zoneOffsetMs(from, zone);
  // Offsets are sampled every 6 hours; a change is then pinned to the minute by bisection.
  const step = 6 * 3_600_000;
  for (let at = from + step; at < to + step; at += step) {
    const next = zoneOffsetMs(at, zone);
    if (next === offset) continue;
    let low = at - step;
    let high = at;
    while (high - low > MS_PER_MINUTE) {
      const middle =
        low + Math.max(1, Math.floor((high - low) / 2 / MS_PER_MINUTE)) * MS_PER_MINUTE;
      if (zoneOffsetMs(middle, zone) === offset) low = middle;
      else high = middle;
    }
    if (high < to) changes.push({ at: high, from: offset, to: next });
    offset = next;
  }
  return changes;
}

function observance(
  kind: 'STANDARD' | 'DAYLIGHT',
  wallBefore: number,
  from: number,
  to: number,
): string[] {
  return [
    `BEGIN:${kind}`,
    `DTSTART:${wallStamp(wallBefore)}`,
    `TZOFFSETFROM:${offsetText(from)}`,
    `TZOFFSETTO:${offsetText(to)}`,
    `END:${kind}`,
  ];
}

/** RFC 5545 §3.3.11 TEXT: backslash, semicolon, comma escaped, line breaks as `\n`. */
export function escapeText(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/**
 * RFC 5545 §3.1: lines longer than 75 octets are split, continuation lines starting with a
 * space; a split never falls inside a UTF-8 sequence (or a surrogate pair).
 */
export function foldLine(line: string): string {
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = utf8Length(char);
    const limit = parts.length === 0 ? 75 : 74;
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

function utf8Length(char: string): number {
  const code = char.codePointAt(0)!;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

function wallStamp(wall: number): string {
  return formatWall(wall).replace(/[-:]/g, '');
}

function utcStamp(instant: number): string {
  return `${wallStamp(Math.floor(instant / 1000) * 1000)}Z`;
}

function dateStamp(day: number): string {
  return wallStamp(day * MS_PER_DAY).slice(0, 8);
}

function offsetText(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.abs(Math.round(offsetMs / MS_PER_MINUTE));
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}${String(minutes % 60).padStart(2, '0')}`;
}

function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}
