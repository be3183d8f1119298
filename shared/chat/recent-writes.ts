/**
 * Dedup of chat writes (docs/chat.md): the same reminder (title + due instant) or the same note
 * (title + body + tags + folder) asked for again within five minutes returns what was written
 * the first time, flagged `deduplicated`, instead of writing a second file. A request that
 * differs in any of those is never swallowed. Titles compare without case and surrounding
 * space. Time comes from the injected Clock.
 *
 * Where the memory lives is a port: the plugin keeps it in memory (its chat runs in one
 * Obsidian window); the companion keeps it in its SQLite write memory (companion/idempotency),
 * the same one that replays `Idempotency-Key` requests, so the dedup survives a restart.
 */
import type { Clock } from '../ports';

export const DEDUP_WINDOW_MS = 5 * 60_000;
/** Bound on remembered writes in memory; a chat cannot produce more than this in five minutes. */
const MAX_ENTRIES = 1000;

/** Storage for RecentWrites: values are plain JSON; each entry is kept `ttlMs` from `at`. */
export interface RecentWritesStore {
  find(key: string): unknown;
  put(key: string, value: unknown, at: number, ttlMs: number): void;
  /** Removes the entries whose key starts with `prefix` and whose value `matches`. */
  remove(prefix: string, matches: (value: unknown) => boolean): void;
}

export class RecentWrites<T> {
  private readonly store: RecentWritesStore;

  /** `namespace` keeps kinds of writes apart in a shared store (`note`, `reminder`). */
  constructor(
    private readonly clock: Clock,
    private readonly namespace: string,
    store?: RecentWritesStore,
  ) {
    this.store = store ?? new InMemoryRecentWrites(clock);
  }

  static noteKey(note: { title: string; body: string; tags?: string[]; folder?: string }): string {
    return JSON.stringify([
      normaliseTitle(note.title),
      note.body,
      [...(note.tags ?? [])].sort(),
      note.folder ?? null,
    ]);
  }

  static reminderKey(title: string, dueInstant: number): string {
    return JSON.stringify([normaliseTitle(title), dueInstant]);
  }

  /** What was written under `key` within the window, if anything. */
  find(key: string): T | undefined {
    return this.store.find(`${this.namespace}:${key}`) as T | undefined;
  }

  remember(key: string, value: T): void {
    this.store.put(`${this.namespace}:${key}`, value, this.clock.now(), DEDUP_WINDOW_MS);
  }

  /** Forgets writes that `matches` (after an undo, so asking again writes again). */
  forget(matches: (value: T) => boolean): void {
    this.store.remove(`${this.namespace}:`, (value) => matches(value as T));
  }
}

/** The plugin's store: a bounded map, pruned as entries arrive. */
export class InMemoryRecentWrites implements RecentWritesStore {
  private readonly entries = new Map<string, { at: number; expires: number; value: unknown }>();

  constructor(private readonly clock: Clock) {}

  find(key: string): unknown {
    this.prune();
    return this.entries.get(key)?.value;
  }

  put(key: string, value: unknown, at: number, ttlMs: number): void {
    this.prune();
    this.entries.delete(key);
    this.entries.set(key, { at, expires: at + ttlMs, value });
    while (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  remove(prefix: string, matches: (value: unknown) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (key.startsWith(prefix) && matches(entry.value)) this.entries.delete(key);
    }
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) {
      // A clock set back (tests, NTP) must not keep entries forever either.
      if (entry.expires <= now || entry.at > now) this.entries.delete(key);
    }
  }
}

function normaliseTitle(title: string): string {
  return title.trim().replace(/\s+/g, ' ').toLowerCase();
}
