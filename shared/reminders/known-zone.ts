/**
 * `isValidZone` with memory. Luxon answers by constructing an `Intl.DateTimeFormat`, which costs
 * 100-200 µs; a vault scan asks about the same one or two zones for every reminder line.
 */
import { isValidZone } from './local-time';

const answers = new Map<string, boolean>();
/** Anyone can write any zone name into a note; the memory stays bounded. */
const MEMORY_LIMIT = 1000;

export function isKnownZone(zone: string): boolean {
  if (typeof zone !== 'string') return false;
  let known = answers.get(zone);
  if (known === undefined) {
    if (answers.size >= MEMORY_LIMIT) answers.clear();
    known = isValidZone(zone);
    answers.set(zone, known);
  }
  return known;
}
