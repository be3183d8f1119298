/**
 * The reminder note of docs/vault-format.md as a model: front matter read into a validated `ReminderNote`
 * (or problems each naming its field), and the ordered fields to write one back.
 *
 * Reading is lenient where nothing is lost: `status` defaults to `active`, `title` to the file
 * name, `timezone` to the vault's zone when given; a numeric `id` (YAML reads `id: 1234` as a
 * number) is taken as text; dates may come as strings or as `Date` objects (YAML 1.1 parsers
 * turn unquoted timestamps into Dates). `due` without an offset is wall time in `timezone`;
 * with an offset it is an instant, and its wall time in `timezone` is the recurrence start.
 * Minute resolution: seconds, when written, must be 00.
 */
import { canonicalZone, isKnownZone } from './known-zone';
import {
  daysInMonth,
  formatInZone,
  formatWall,
  instantToWall,
  wallFromParts,
  wallToInstant,
} from './local-time';
import { validateRrule } from './recurrence';
import type { ReminderSchedule, ReminderStatus } from './reminder-schedule';

export interface ReminderNote {
  id: string;
  /** Vault-relative path the note was read from. */
  path: string;
  title: string;
  /** First occurrence, epoch ms. */
  due: number;
  timezone: string;
  /** Normalised RRULE (no `RRULE:` prefix). */
  repeat?: string;
  status: ReminderStatus;
  snoozedUntil?: number;
  created?: number;
  /** `due` + `timezone` + `repeat` as the shared schedule model. */
  schedule: ReminderSchedule;
}

export interface ReminderNoteProblem {
  /** The front-matter key, e.g. `due`. */
  field: string;
  /** Names the field and the value: ``due: `2026-11-32T17:00` is not a date``. */
  message: string;
}

export type ReminderNoteRead =
  { ok: true; note: ReminderNote } | { ok: false; problems: ReminderNoteProblem[] };

export interface ReadReminderNoteOptions {
  /** Zone used when the note has no `timezone`; without it, a missing `timezone` is a problem. */
  defaultZone?: string;
  /** Title when the note has none, e.g. the body's first H1; else the file name. */
  fallbackTitle?: string;
}

const STATUSES: readonly ReminderStatus[] = ['active', 'done', 'cancelled'];
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/;
const MAX_ID_LENGTH = 200;
const MAX_TITLE_LENGTH = 500;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000a-\u001f\u007f]/;

export function readReminderNote(
  data: Record<string, unknown>,
  path: string,
  options: ReadReminderNoteOptions = {},
): ReminderNoteRead {
  const problems: ReminderNoteProblem[] = [];
  const fail = (field: string, message: string) => {
    problems.push({ field, message: `${field}: ${message}` });
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { ok: false, problems: [{ field: '', message: 'front matter is not a mapping' }] };
  }

  if (data.type !== 'reminder') {
    fail(
      'type',
      data.type === undefined ? 'missing (must be reminder)' : `${show(data.type)} is not reminder`,
    );
  }

  let id: string | undefined;
  if (typeof data.id === 'string' || (typeof data.id === 'number' && Number.isFinite(data.id))) {
    id = String(data.id).trim();
    if (id === '') fail('id', 'is empty');
    else if (id.length > MAX_ID_LENGTH) fail('id', `is longer than ${MAX_ID_LENGTH} characters`);
    else if (CONTROL_CHARACTER.test(id)) fail('id', 'contains a control character');
  } else {
    fail(
      'id',
      data.id === undefined || data.id === null ? 'missing' : `${show(data.id)} is not text`,
    );
  }

  let title = options.fallbackTitle?.trim() || fileStem(path);
  if (typeof data.title === 'string' || typeof data.title === 'number') {
    const written = String(data.title).replace(/\s+/g, ' ').trim();
    if (written.length > MAX_TITLE_LENGTH)
      fail('title', `is longer than ${MAX_TITLE_LENGTH} characters`);
    else if (written !== '') title = written;
  } else if (data.title !== undefined && data.title !== null) {
    fail('title', `${show(data.title)} is not text`);
  }

  let timezone: string | undefined;
  if (data.timezone === undefined || data.timezone === null || data.timezone === '') {
    if (options.defaultZone !== undefined && isKnownZone(options.defaultZone)) {
      timezone = options.defaultZone;
    } else {
      fail('timezone', 'missing (an IANA zone like Europe/Berlin)');
    }
  } else if (typeof data.timezone === 'string' && isKnownZone(data.timezone.trim())) {
    timezone = canonicalZone(data.timezone.trim()) ?? data.timezone.trim();
  } else {
    fail('timezone', `${show(data.timezone)} is not an IANA time zone (like Europe/Berlin)`);
  }

  const due = readInstant(data.due, 'due', timezone, fail, true);

  let repeat: string | undefined;
  if (typeof data.repeat === 'string' && data.repeat.trim() !== '') {
    const rule = validateRrule(data.repeat.trim());
    if (rule.ok) repeat = rule.rrule;
    else fail('repeat', `${show(data.repeat)}: ${rule.message}`);
  } else if (data.repeat !== undefined && data.repeat !== null && data.repeat !== '') {
    fail('repeat', `${show(data.repeat)} is not an RRULE (like FREQ=WEEKLY;BYDAY=MO)`);
  }

  let status: ReminderStatus = 'active';
  if (data.status !== undefined && data.status !== null) {
    if (STATUSES.includes(data.status as ReminderStatus)) status = data.status as ReminderStatus;
    else fail('status', `${show(data.status)} is not one of ${STATUSES.join(', ')}`);
  }

  const snoozedUntil = readInstant(data.snoozed_until, 'snoozed_until', timezone, fail, false);
  const created = readInstant(data.created, 'created', timezone, fail, false, false);

  if (problems.length > 0 || id === undefined || timezone === undefined || due === undefined) {
    return { ok: false, problems };
  }
  const start = formatWall(instantToWall(due, timezone)).slice(0, 16);
  const schedule: ReminderSchedule =
    repeat === undefined
      ? { kind: 'once', start, zone: timezone }
      : { kind: 'recurring', rrule: repeat, start, zone: timezone };
  return {
    ok: true,
    note: {
      id,
      path,
      title,
      due,
      timezone,
      ...(repeat === undefined ? {} : { repeat }),
      status,
      ...(snoozedUntil === undefined ? {} : { snoozedUntil }),
      ...(created === undefined ? {} : { created }),
      schedule,
    },
  };
}

/**
 * The note's front matter as ordered `[key, value]` pairs, docs/vault-format.md's order: id, type, title,
 * due (with the zone's UTC offset), timezone, repeat?, status, snoozed_until?, created?.
 * Values are plain strings for the Markdown writer to quote as YAML needs.
 */
export function reminderNoteFields(note: ReminderNote): Array<[string, string]> {
  const fields: Array<[string, string]> = [
    ['id', note.id],
    ['type', 'reminder'],
    ['title', note.title],
    ['due', formatInZone(note.due, note.timezone)],
    ['timezone', note.timezone],
  ];
  if (note.repeat !== undefined) fields.push(['repeat', note.repeat]);
  fields.push(['status', note.status]);
  if (note.snoozedUntil !== undefined) {
    fields.push(['snoozed_until', formatInZone(note.snoozedUntil, note.timezone)]);
  }
  if (note.created !== undefined)
    fields.push(['created', formatInZone(note.created, note.timezone)]);
  return fields;
}

/**
 * Reads an ISO date-time (with or without offset; without, it is wall time in `zone`) or a Date
 * into epoch ms; reports a problem and returns undefined otherwise.
 */
function readInstant(
  value: unknown,
  field: string,
  zone: string | undefined,
  fail: (field: string, message: string) => void,
  required: boolean,
  /** `due` and `snoozed_until` are when something fires, to the minute; `created` is a record. */
  minuteResolution = true,
): number | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) fail(field, 'missing (a date and time like 2026-11-23T17:00:00+01:00)');
    return undefined;
  }
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) {
      fail(field, 'is not a valid date');
      return undefined;
    }
    return ms;
  }
  if (typeof value !== 'string') {
    fail(field, `${show(value)} is not a date and time (like 2026-11-23T17:00:00+01:00)`);
    return undefined;
  }
  const text = value.trim();
  const match = DATE_TIME.exec(text);
  if (!match) {
    fail(field, `${show(text)} is not a date and time (like 2026-11-23T17:00:00+01:00)`);
    return undefined;
  }
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    fail(field, `${show(text)} is not a date`);
    return undefined;
  }
  if (hour > 23 || minute > 59) {
    fail(field, `${show(text)} is not a time of day`);
    return undefined;
  }
  const seconds = Number(match[6] ?? 0);
  const fraction = match[7] === undefined ? 0 : Number(`0.${match[7]}`);
  if (minuteResolution && (seconds !== 0 || fraction !== 0)) {
    fail(field, `${show(text)}: seconds must be 00 (reminders have minute resolution)`);
    return undefined;
  }
  if (seconds > 59) {
    fail(field, `${show(text)} is not a time of day`);
    return undefined;
  }
  const wall =
    wallFromParts(year, month, day, hour, minute) + Math.floor((seconds + fraction) * 1000);
  const offset = match[8];
  if (offset === undefined) {
    // Wall time in the note's zone; if the zone is missing that problem is already reported.
    return zone === undefined ? undefined : wallToInstant(wall, zone);
  }
  if (offset === 'Z') return wall;
  const digits = offset.replace(':', '');
  const offsetHours = Number(digits.slice(1, 3));
  const offsetMinutes = Number(digits.slice(3, 5));
  if (offsetHours > 18 || offsetMinutes > 59) {
    fail(field, `${show(text)} has an impossible UTC offset ${offset}`);
    return undefined;
  }
  const sign = digits.startsWith('-') ? -1 : 1;
  return wall - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/** A value quoted for a message, cut short and with control characters escaped. */
function show(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Date) text = value.toISOString();
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  text = text.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  if (text.length > 60) text = `${text.slice(0, 59)}…`;
  return `\`${text}\``;
}

function fileStem(path: string): string {
  const name = path.split('/').pop() ?? path;
  return name.replace(/\.md$/i, '') || 'Reminder';
}
