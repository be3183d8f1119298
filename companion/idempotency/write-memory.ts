import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/ports';
import type { SqliteDatabase } from '../db/open';

/** What a write answered, kept so that a repeat of the same request gets the same answer. */
export interface RememberedWrite {
  /** sha256 of what identifies the request (method, path, body), to tell a reuse from a repeat. */
  readonly requestHash: string;
  readonly status: number;
  /** The response body as JSON text. */
  readonly response: string;
}

/** How long a remembered write is kept before it is pruned, at most. */
const PRUNE_EVERY_MS = 60_000;

/**
 * The companion's one memory of recent writes (table `write_memory`, migration 005), used by
 * `Idempotency-Key` handling (idempotency-key.ts), the five-minute dedup of identical creates
 * (content-dedup.ts) and chat's RecentWrites (chat-write-memory.ts). It lives in SQLite so a
 * client's retry after a restart is still recognised. Keys are namespaced by their users
 * (`idem:`, `dedup:`); each row expires on its own.
 *
 * `exclusive` serialises work on one key inside this process, so two identical requests
 * arriving together do not both write: the second waits and then finds the first's answer.
 */
export class WriteMemory {
  private readonly statements;
  private readonly running = new Map<string, Promise<unknown>>();
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(
    db: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    this.statements = {
      recall: db.prepare(
        'SELECT request_hash, status, response FROM write_memory WHERE key = ? AND expires_at > ?',
      ),
      put: db.prepare(
        `INSERT INTO write_memory (key, request_hash, status, response, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET request_hash = excluded.request_hash,
           status = excluded.status, response = excluded.response,
           created_at = excluded.created_at, expires_at = excluded.expires_at`,
      ),
      remove: db.prepare('DELETE FROM write_memory WHERE key = ?'),
      prefixed: db.prepare(
        // Every key starting with `prefix` sorts in [prefix, prefix + U+FFFF).
        `SELECT key, response FROM write_memory
         WHERE key >= @prefix AND key < @prefix || char(65535) AND expires_at > @now`,
      ),
      prune: db.prepare('DELETE FROM write_memory WHERE expires_at <= ?'),
    };
  }

  /** The write remembered under `key`, unless it expired. */
  recall(key: string): RememberedWrite | undefined {
    const row = this.statements.recall.get(key, this.clock.now()) as
      { request_hash: string; status: number; response: string } | undefined;
    if (!row) return undefined;
    return { requestHash: row.request_hash, status: row.status, response: row.response };
  }

  /** Remembers `write` under `key` for `ttlMs` from now (replacing what was there). */
  remember(key: string, write: RememberedWrite, ttlMs: number): void {
    const now = this.clock.now();
    this.pruneNowAndThen(now);
    this.statements.put.run(key, write.requestHash, write.status, write.response, now, now + ttlMs);
  }

  forget(key: string): void {
    this.statements.remove.run(key);
  }

  /** Live entries whose key starts with `prefix` (a namespace), as key and response text. */
  entries(prefix: string): { key: string; response: string }[] {
    return this.statements.prefixed.all({ prefix, now: this.clock.now() }) as {
      key: string;
      response: string;
    }[];
  }

  /** Runs `work` when no other work on `key` is running in this process. */
  async exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    for (;;) {
      const current = this.running.get(key);
      if (current === undefined) break;
      await current.catch(() => undefined);
    }
    const run = work();
    this.running.set(key, run);
    try {
      return await run;
    } finally {
      if (this.running.get(key) === run) this.running.delete(key);
    }
  }

  private pruneNowAndThen(now: number): void {
    if (now - this.prunedAt < PRUNE_EVERY_MS && now >= this.prunedAt) return;
    this.prunedAt = now;
    this.statements.prune.run(now);
  }
}

/** sha256 (hex) of values, each as JSON: a compact, order-sensitive digest (not a cursor's query
 * fingerprint, companion/http/cursor.ts). */
export function digestOf(...values: unknown[]): string {
  const hash = createHash('sha256');
  for (const value of values) hash.update(`${JSON.stringify(value) ?? 'undefined'}\u0000`);
  return hash.digest('hex');
}
