/**
 * Finds the reminder a user means by their own words ("bank", "call the bank") for snooze and
 * complete. The router passes those words as the tool's `id`; an LLM usually passes a real id.
 * Order: an exact id; then active reminders whose title equals the words (case aside); then
 * active reminders whose title contains every word. One match is used; none is NOT_FOUND;
 * several are CONFLICT, listing them, so the user can say which.
 */
import type { Reminder } from '../protocol/reminders';
import { ChatPortError, type ReminderReader } from './ports';

/** Reminders scanned for a title match. */
const CANDIDATE_LIMIT = 200;
const LISTED_IN_CONFLICT = 5;
const IGNORED_WORDS = new Set(['the', 'a', 'an', 'my', 'to', 'reminder']);

export async function resolveReminder(
  reader: ReminderReader,
  reference: string,
): Promise<Reminder> {
  const byId = await reader.get(reference);
  if (byId !== undefined) return byId;

  const active = await reader.list({ status: 'active', limit: CANDIDATE_LIMIT });
  const wanted = reference.trim().toLowerCase();
  const exact = active.filter((reminder) => reminder.title.trim().toLowerCase() === wanted);
  if (exact.length === 1) return exact[0]!;
  if (exact.length > 1) throw ambiguous(reference, exact);

  const words = wordsOf(reference).filter((word) => !IGNORED_WORDS.has(word));
  const matching =
    words.length === 0
      ? []
      : active.filter((reminder) => {
          const titleWords = wordsOf(reminder.title);
          return words.every((word) => titleWords.some((titleWord) => titleWord.startsWith(word)));
        });
  if (matching.length === 1) return matching[0]!;
  if (matching.length > 1) throw ambiguous(reference, matching);
  throw new ChatPortError('NOT_FOUND', `no active reminder matches "${reference}"`, 'id');
}

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

function ambiguous(reference: string, reminders: Reminder[]): ChatPortError {
  const titles = reminders.slice(0, LISTED_IN_CONFLICT).map((reminder) => `"${reminder.title}"`);
  const more =
    reminders.length > LISTED_IN_CONFLICT
      ? ` and ${reminders.length - LISTED_IN_CONFLICT} more`
      : '';
  return new ChatPortError(
    'CONFLICT',
    `"${reference}" matches ${reminders.length} reminders: ${titles.join(', ')}${more}; name the one you mean`,
    'id',
  );
}
