/**
 * Dedup of chat writes (DESIGN §4): the same reminder (title + due instant) or note (title) asked
 * for again within five minutes returns what was written the first time, flagged
 * `deduplicated`, instead of writing a second file. A double-sent message or a retried request
 * is the usual cause. Titles compare without case and surrounding space. Time comes from the
 * injected Clock; entries older than the window are dropped as new ones arrive.
 */
import type { Clock } from '../ports';

export const DEDUP_WINDOW_MS = 5 * 60_000;
/** Bound on remembered writes; a chat cannot produce more than this in five minutes. */
const MAX_ENTRIES = 1000;

export class RecentWrites<T> {
  private readonly entries = new Map<string, { at: number; value: T }>();

  constructor(private readonly clock: Clock) {}

  static noteKey(title: string): string {
    return `note:${normaliseTitle(title)}`;
  }

  static reminderKey(title: string, dueInstant: number): string {
    return `reminder:${normaliseTitle(title)}@${dueInstant}`;
  }

  /** What was written under `key` within the window, if anything. */
  find(key: string): T | undefined {
    this.prune();
    return this.entries.get(key)?.value;
  }

  remember(key: string, value: T): void {
    this.prune();
    this.entries.delete(key);
    this.entries.set(key, { at: this.clock.now(), value });
    while (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets writes that `matches` (after an undo, so asking again writes again). */
  forget(matches: (value: T) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  private prune(): void {
    const cutoff = this.clock.now() - DEDUP_WINDOW_MS;
    for (const [key, entry] of this.entries) {
      // A clock set back (tests, NTP) must not keep entries forever either.
      if (entry.at <= cutoff || entry.at > this.clock.now()) this.entries.delete(key);
    }
  }
}

function normaliseTitle(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}
