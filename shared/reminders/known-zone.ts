/**
 * Zone names as people write them, checked, with the letter case corrected (`europe/berlin` and
 * `utc` become `Europe/Berlin` and `UTC`, so they compare equal to the vault's zone and pass
 * the protocol's zone pattern). Answers are remembered: luxon and Intl construct an
 * `Intl.DateTimeFormat` per question (100-200 µs), and a vault scan asks about the same one or
 * two zones for every reminder line.
 */
import { isValidZone } from './local-time';

const answers = new Map<string, string | null>();
/** Anyone can write any zone name into a note; the memory stays bounded. */
const MEMORY_LIMIT = 1000;

/** The zone with its letter case corrected, or undefined when it is not a valid IANA zone. */
export function canonicalZone(zone: string): string | undefined {
  if (typeof zone !== 'string') return undefined;
  let answer = answers.get(zone);
  if (answer === undefined) {
    if (answers.size >= MEMORY_LIMIT) answers.clear();
    answer = isValidZone(zone) ? spelled(zone) : null;
    answers.set(zone, answer);
  }
  return answer ?? undefined;
}

export function isKnownZone(zone: string): boolean {
  return canonicalZone(zone) !== undefined;
}

/**
 * Only the letter case is corrected: ICU's "canonical" names are often the old ones
 * (`Asia/Kolkata` resolves to `Asia/Calcutta`), and a user's spelling of a real zone stays; so
 * `asia/kolkata` keeps its (valid, case-insensitive) spelling.
 */
function spelled(zone: string): string {
  if (zone.toLowerCase() === 'utc') return 'UTC';
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return zone;
  }
  return resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
}
