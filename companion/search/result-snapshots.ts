import { randomBytes } from 'node:crypto';

/*
 * Search pages are slices of one ranking, taken once. The first page ranks the whole result
 * window and keeps it here under a random id that the cursor carries; later pages slice the kept
 * list. So the concatenation of pages is exactly one long page (no repeats, no gaps), even when
 * the vault changes between two pages, and a cursor whose snapshot is gone (expired, evicted or
 * the server restarted) gets a clear 410 CURSOR_EXPIRED instead of a shifted page.
 */

/** Snapshots are kept this long after they were last read. */
export const SNAPSHOT_TTL_MS = 15 * 60_000;
/** At most this many snapshots are kept; the least recently read goes first. */
export const MAX_SNAPSHOTS = 256;

interface Entry<T> {
  readonly value: T;
  readonly fingerprint: string;
  touchedMs: number;
}

export class ResultSnapshots<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    /** Milliseconds since the epoch (the app's clock). */
    private readonly now: () => number,
    private readonly ttlMs = SNAPSHOT_TTL_MS,
    private readonly max = MAX_SNAPSHOTS,
  ) {}

  /** Keeps `value` (a ranking) for the query `fingerprint`; returns the snapshot's id. */
  keep(value: T, fingerprint: string): string {
    this.expire();
    const id = randomBytes(9).toString('base64url');
    this.entries.set(id, { value, fingerprint, touchedMs: this.now() });
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return id;
  }

  /** The kept value, or undefined when the snapshot is gone or belongs to another query. */
  read(id: string, fingerprint: string): T | undefined {
    this.expire();
    const entry = this.entries.get(id);
    if (entry === undefined || entry.fingerprint !== fingerprint) return undefined;
    entry.touchedMs = this.now();
    // Re-inserted: Map order is the eviction order (least recently read first).
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.value;
  }

  get size(): number {
    return this.entries.size;
  }

  private expire(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [id, entry] of this.entries) if (entry.touchedMs < cutoff) this.entries.delete(id);
  }
}
