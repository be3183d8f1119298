/**
 * The assistant's words after a tool ran: short, factual, in the user's zone. The tool event
 * carries the data (the pane draws cards from it); this text is what a plain client shows.
 */
import { DateTime } from 'luxon';
import type { Reminder } from '../protocol/reminders';
import { describeRule } from '../reminders';
import type { SearchHit } from './ports';

/** At most this many reminders or results are spelled out in text. */
const LISTED_IN_TEXT = 10;

/** "Mon 23 Nov 2026, 08:00" in `zone`; the ISO text itself when it does not parse. */
export function formatWhen(iso: string, zone: string): string {
  const when = DateTime.fromISO(iso, { zone, setZone: false });
  return when.isValid ? when.setZone(zone).toFormat('ccc d LLL yyyy, HH:mm') : iso;
}

export function noteCreatedText(title: string, deduplicated: boolean): string {
  return deduplicated
    ? `You created the note "${title}" a moment ago; here it is again (nothing new was written).`
    : `Created the note "${title}".`;
}

export function appendedText(title: string): string {
  return `Added to "${title}".`;
}

/**
 * When a reminder rings, in words: "Mon 23 Nov 2026, 08:00" for a one-off; "every Monday at
 * 08:00 (next: Mon 23 Nov 2026, 08:00)" for a series, never its RRULE.
 */
export function reminderWhenText(reminder: Reminder): string {
  const nextIso = reminder.next_fire ?? reminder.due;
  const next = nextIso ? formatWhen(nextIso, reminder.timezone) : undefined;
  if (reminder.repeat === null) return next ?? 'no time';
  const rule = reminder.repeat_text ?? describeRule(reminder.repeat);
  return next === undefined ? rule : `${rule} (next: ${next})`;
}

export function reminderCreatedText(reminder: Reminder, deduplicated: boolean): string {
  const when = reminderWhenText(reminder);
  return deduplicated
    ? `You set the reminder "${reminder.title}" for ${when} a moment ago; here it is again (nothing new was written).`
    : `Reminder set: "${reminder.title}", ${when}.`;
}

export function snoozedText(reminder: Reminder, minutes: number): string {
  const until = reminder.snoozed_until
    ? ` until ${formatWhen(reminder.snoozed_until, reminder.timezone)}`
    : ` for ${minutes} minutes`;
  return `Snoozed "${reminder.title}"${until}.`;
}

export function completedText(reminder: Reminder): string {
  return `Marked "${reminder.title}" as done.`;
}

export function reminderListText(
  reminders: Reminder[],
  range: { from?: string; to?: string },
): string {
  const span =
    range.from && range.to
      ? range.from === range.to
        ? ` on ${range.from}`
        : ` from ${range.from} to ${range.to}`
      : '';
  if (reminders.length === 0) return `No reminders${span}.`;
  const lines = reminders.slice(0, LISTED_IN_TEXT).map((reminder) => {
    const when = reminderWhenText(reminder);
    const status = reminder.status === 'active' ? '' : ` (${reminder.status})`;
    return `- ${reminder.title}: ${when}${status}`;
  });
  const more =
    reminders.length > LISTED_IN_TEXT ? [`…and ${reminders.length - LISTED_IN_TEXT} more.`] : [];
  const count = reminders.length === 1 ? '1 reminder' : `${reminders.length} reminders`;
  return [`${count}${span}:`, ...lines, ...more].join('\n');
}

export function searchText(query: string, hits: SearchHit[]): string {
  if (hits.length === 0) return `Nothing in the vault matches "${query}".`;
  const lines = hits
    .slice(0, LISTED_IN_TEXT)
    .map((hit, index) => `${index + 1}. ${hit.citation.title} (${hit.citation.path})`);
  const count = hits.length === 1 ? '1 result' : `${hits.length} results`;
  return [`${count} for "${query}":`, ...lines].join('\n');
}

export const NOTHING_FOUND_TEXT =
  'I found nothing in the vault about that, so I cannot answer it. Try other words, or search.';
