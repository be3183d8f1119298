/**
 * What calendars (the week view, the iCalendar feed, the digest) are built from: reminders as
 * the scheduler sees them, and notes carrying Full Calendar's front matter. Both are plain data,
 * so the companion (from its vault source) and the plugin (from the metadata cache) fill them in.
 */

/** A reminder as the companion's scheduler knows it (structurally its ReminderDefinition). */
export interface CalendarReminder {
  readonly id: string;
  readonly title: string;
  readonly path: string;
  readonly line?: number;
  readonly schedule:
    | { readonly kind: 'once'; readonly at: number; readonly zone: string }
    | {
        readonly kind: 'recurring';
        readonly rrule: string;
        /** Wall time `YYYY-MM-DDTHH:mm` of DTSTART in `zone`. */
        readonly start: string;
        readonly zone: string;
      };
  readonly status: 'active' | 'done' | 'cancelled';
  readonly taskChecked: boolean;
  readonly deepLink: string;
}

/**
 * A note with Full Calendar front matter: `date` (+ `endDate`), `startTime`/`endTime`
 * (`HH:mm`), `allDay`; or `type: recurring` with `daysOfWeek`, `startRecur`, `endRecur`.
 */
export interface NoteEvent {
  /** Front-matter `id`, else the path. */
  readonly id: string;
  readonly title: string;
  readonly path: string;
  readonly allDay: boolean;
  /** Wall times are read in this zone (the vault's). */
  readonly zone: string;
  readonly repeat:
    | { readonly kind: 'single'; readonly date: string; readonly endDate: string | null }
    | {
        readonly kind: 'weekly';
        /** Monday = 0 … Sunday = 6. */
        readonly days: readonly number[];
        readonly startRecur: string | null;
        readonly endRecur: string | null;
      };
  /** `HH:mm`, absent for all-day events. */
  readonly startTime: string | null;
  readonly endTime: string | null;
}

export interface NoteEventProblem {
  readonly path: string;
  readonly field: string;
  readonly message: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{1,2}):(\d{2})(?::\d{2})?$/;
/** Full Calendar's day letters, Sunday first as it writes them. */
const FULL_CALENDAR_DAYS: Record<string, number> = { M: 0, T: 1, W: 2, R: 3, F: 4, S: 5, U: 6 };

/**
 * The event a note's front matter describes, a problem naming the field, or undefined when
 * the note has no calendar keys (most notes). Never throws.
 */
export function readNoteEvent(
  data: Record<string, unknown>,
  path: string,
  zone: string,
): { event: NoteEvent } | { problem: NoteEventProblem } | undefined {
  const recurring = data.type === 'recurring';
  // Many notes carry a `date` for other reasons (daily notes): only Full Calendar's own keys
  // alongside it make an event.
  const calendarKeys =
    data.type === 'single' || data.startTime !== undefined || data.allDay !== undefined;
  if (!recurring && (data.date === undefined || !calendarKeys)) return undefined;
  const problem = (field: string, message: string) => ({
    problem: { path, field, message: `${path}: front matter "${field}": ${message}` },
  });
  const allDay = data.allDay === true || data.allDay === 'true';
  const times: { startTime: string | null; endTime: string | null } = {
    startTime: null,
    endTime: null,
  };
  for (const field of ['startTime', 'endTime'] as const) {
    const value = data[field];
    if (value === undefined || value === null || value === '' || allDay) continue;
    const time = readTime(value);
    if (time === undefined) return problem(field, `${JSON.stringify(value)} is not a time HH:mm`);
    times[field] = time;
  }
  if (!allDay && times.startTime === null) {
    return problem('startTime', 'missing; set a time HH:mm, or allDay: true');
  }
  const title =
    typeof data.title === 'string' && data.title.trim() !== '' ? data.title.trim() : basename(path);
  const id = typeof data.id === 'string' && data.id.trim() !== '' ? data.id.trim() : path;
  const common = { id, title, path, allDay, zone, ...times };

  if (recurring) {
    const raw = data.daysOfWeek;
    if (!Array.isArray(raw) || raw.length === 0) {
      return problem('daysOfWeek', 'a recurring event needs a list of days, e.g. [M, W, F]');
    }
    const days: number[] = [];
    for (const letter of raw) {
      const day =
        typeof letter === 'string' ? FULL_CALENDAR_DAYS[letter.trim().toUpperCase()] : undefined;
      if (day === undefined) {
        return problem('daysOfWeek', `${JSON.stringify(letter)} is not one of U M T W R F S`);
      }
      if (!days.includes(day)) days.push(day);
    }
    const range: { startRecur: string | null; endRecur: string | null } = {
      startRecur: null,
      endRecur: null,
    };
    for (const field of ['startRecur', 'endRecur'] as const) {
      if (data[field] === undefined || data[field] === null || data[field] === '') continue;
      const date = readDate(data[field]);
      if (date === undefined)
        return problem(field, `${JSON.stringify(data[field])} is not a date YYYY-MM-DD`);
      range[field] = date;
    }
    return { event: { ...common, repeat: { kind: 'weekly', days: days.sort(), ...range } } };
  }
  const date = readDate(data.date);
  if (date === undefined)
    return problem('date', `${JSON.stringify(data.date)} is not a date YYYY-MM-DD`);
  let endDate: string | null = null;
  if (data.endDate !== undefined && data.endDate !== null && data.endDate !== '') {
    endDate = readDate(data.endDate) ?? null;
    if (endDate === null)
      return problem('endDate', `${JSON.stringify(data.endDate)} is not a date YYYY-MM-DD`);
    if (endDate < date) return problem('endDate', `${endDate} is before date ${date}`);
  }
  return { event: { ...common, repeat: { kind: 'single', date, endDate } } };
}

function readDate(value: unknown): string | undefined {
  if (value instanceof Date && !Number.isNaN(value.getTime()))
    return value.toISOString().slice(0, 10);
  if (typeof value !== 'string') return undefined;
  const match = DATE.exec(value.trim());
  if (!match) return undefined;
  const month = Number(match[2]);
  const day = Number(match[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 ? value.trim() : undefined;
}

function readTime(value: unknown): string | undefined {
  // YAML 1.1 readers turn 09:30 into 570 (sexagesimal); accept that as minutes.
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 24 * 60) {
    return `${pad(Math.floor(value / 60))}:${pad(value % 60)}`;
  }
  if (typeof value !== 'string') return undefined;
  const match = TIME.exec(value.trim());
  if (!match) return undefined;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  return hour < 24 && minute < 60 ? `${pad(hour)}:${pad(minute)}` : undefined;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

function basename(path: string): string {
  return (path.split('/').pop() ?? path).replace(/\.md$/i, '');
}
