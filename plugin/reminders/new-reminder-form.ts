/**
 * The "New reminder" modal's logic: reads what the user typed (natural-language or absolute
 * time, a title, an optional repeat), says live what it will be ("Tue 24 Nov 17:00") or why it
 * cannot be saved, and writes the reminder note (docs/vault-format.md) into the reminders folder under a
 * collision-safe name. The modal keeps Save disabled while `checkNewReminder` reports a problem.
 */
import { hasControlCharacters } from './control-characters';
import { newNoteId, newShortId, uniqueNotePath } from '../../shared/markdown';
import type { RandomBytes } from '../../shared/markdown';
import {
  buildReminderNoteFile,
  classifyRemindText,
  describeNextFire,
  formatInZone,
  parseEveryPhrase,
  readReminderNote,
  resolveNaturalTime,
  validateRrule,
  wallToInstant,
  parseLocalDateTime,
} from '../../shared/reminders';

export interface NewReminderInput {
  title: string;
  when: string;
  /** Empty, an `every …` phrase, or an RRULE. */
  repeat: string;
}

export type NewReminderCheck =
  | {
      ok: true;
      title: string;
      /** `YYYY-MM-DDTHH:mm:ss±hh:mm` in `zone`. */
      due: string;
      dueInstant: number;
      zone: string;
      repeat?: string;
      /** `Tue 24 Nov 17:00`, plus the repeat when there is one. */
      preview: string;
    }
  | { ok: false; field: 'title' | 'when' | 'repeat'; reason: string };

export const MAX_TITLE_LENGTH = 200;

export function checkNewReminder(
  input: NewReminderInput,
  options: { now: number; zone: string },
): NewReminderCheck {
  const title = input.title.trim();
  if (title === '') return { ok: false, field: 'title', reason: 'a title is required' };
  if (title.length > MAX_TITLE_LENGTH) {
    return {
      ok: false,
      field: 'title',
      reason: `the title is longer than ${MAX_TITLE_LENGTH} characters`,
    };
  }
  if (hasControlCharacters(title)) {
    return { ok: false, field: 'title', reason: 'the title holds control characters' };
  }
  const when = input.when.trim();
  if (when === '') return { ok: false, field: 'when', reason: 'say when, e.g. "tomorrow 5pm"' };
  const value = classifyRemindText(when, options.zone);
  let instant: number;
  let zone = options.zone;
  if (value.kind === 'once') {
    const wall = parseLocalDateTime(value.start);
    if (!wall.ok) return { ok: false, field: 'when', reason: wall.message };
    zone = value.zone;
    instant = wallToInstant(wall.wall, zone);
    if (instant <= options.now) return { ok: false, field: 'when', reason: 'that time has passed' };
  } else if (value.kind === 'natural') {
    const resolved = resolveNaturalTime(value.text, { now: options.now, zone: options.zone });
    if (!resolved.ok) return { ok: false, field: 'when', reason: resolved.message };
    instant = resolved.instant;
    zone = resolved.zone;
  } else if (value.kind === 'recurring') {
    return {
      ok: false,
      field: 'when',
      reason: 'give the first time here and the rule under Repeat',
    };
  } else {
    return { ok: false, field: 'when', reason: value.reason };
  }
  let repeat: string | undefined;
  const repeatText = input.repeat.trim();
  if (repeatText !== '') {
    const rule = readRepeat(repeatText, formatInZone(instant, zone).slice(11, 16));
    if (!rule.ok) return { ok: false, field: 'repeat', reason: rule.reason };
    repeat = rule.rrule;
  }
  const when_ = describeNextFire(instant, zone, options.now);
  return {
    ok: true,
    title,
    due: formatInZone(instant, zone),
    dueInstant: instant,
    zone,
    ...(repeat === undefined ? {} : { repeat }),
    preview: repeat === undefined ? when_ : `${when_}, repeating ${repeatText}`,
  };
}

/** `every weekday` takes its time of day from the first occurrence (`dueTime`, `HH:mm`). */
function readRepeat(
  text: string,
  dueTime: string,
): { ok: true; rrule: string } | { ok: false; reason: string } {
  if (/^every\b/i.test(text)) {
    let phrase = parseEveryPhrase(text);
    if (!phrase.ok && phrase.needsTimeOfDay === true) {
      phrase = parseEveryPhrase(`${text} ${dueTime}`);
    }
    if (!phrase.ok) return { ok: false, reason: phrase.message };
    return { ok: true, rrule: phrase.rrule };
  }
  const rrule = text.replace(/^RRULE:/i, '');
  const check = validateRrule(rrule);
  if (!check.ok) return { ok: false, reason: check.message };
  return { ok: true, rrule: check.rrule };
}

export interface ReminderNoteFiles {
  exists(path: string): boolean;
  create(path: string, text: string): Promise<void>;
}

/** Writes the reminder note; returns its path. */
export async function writeNewReminder(
  check: Extract<NewReminderCheck, { ok: true }>,
  options: { folder: string; files: ReminderNoteFiles; randomBytes: RandomBytes; now: number },
): Promise<string> {
  const path = uniqueNotePath(
    options.folder,
    check.title,
    (candidate) => options.files.exists(candidate),
    () => newShortId(options.randomBytes),
  );
  const data: Record<string, unknown> = {
    id: newNoteId(options.randomBytes),
    type: 'reminder',
    title: check.title,
    due: check.due,
    timezone: check.zone,
    status: 'active',
    // Reminder notes have minute resolution; readReminderNote refuses seconds.
    created: formatInZone(Math.floor(options.now / 60_000) * 60_000, check.zone),
  };
  if (check.repeat !== undefined) data.repeat = check.repeat;
  const read = readReminderNote(data, path);
  if (!read.ok) throw new Error(read.problems.map((problem) => problem.message).join('; '));
  await options.files.create(path, buildReminderNoteFile(read.note, ''));
  return path;
}
