import { DateTime } from 'luxon';
import { canonicalZone } from '../../shared/reminders/known-zone';
import { ApiHttpError } from '../http/api-error';

/**
 * Reads a time from a request (`from`, `to`, `occurrence`): an instant with offset, a wall
 * date-time read in `zone`, or (with `dateOnly`) a whole day in `zone`, taken as its start or,
 * for `to`, its end. Anything luxon cannot read is a 400 naming the field.
 */
export function readRequestTime(
  text: string,
  zone: string,
  field: string,
  edge: 'start' | 'end' = 'start',
): number {
  const iso = text.trim().replace(' ', 'T');
  const parsed = DateTime.fromISO(iso, { zone });
  if (!parsed.isValid) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      `${field}: ${JSON.stringify(text)} is not a date or date-time (${parsed.invalidExplanation ?? parsed.invalidReason ?? 'unreadable'})`,
      field,
    );
  }
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(iso);
  if (dateOnly && edge === 'end') return parsed.endOf('day').toMillis();
  return parsed.toMillis();
}

/**
 * A zone a request names (`timezone` of a create or PATCH), with its letter case corrected; a
 * 400 naming the field when it is not an IANA zone, before anything reads a time in it (luxon
 * would otherwise answer NaN dates with a message about some other field).
 */
export function readRequestZone(zone: string, field = 'timezone'): string {
  const known = canonicalZone(zone);
  if (known === undefined) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      `${field}: ${JSON.stringify(zone)} is not an IANA time zone (such as Europe/Berlin)`,
      field,
    );
  }
  return known;
}
