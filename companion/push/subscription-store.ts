import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/ports';
import type { SqliteDatabase } from '../db/open';

/** One subscribed device. Times are Unix milliseconds. */
export interface StoredSubscription {
  readonly id: string;
  /** Secret-ish: whoever knows it can push to the device. Never logged or shown. */
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
  readonly name: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastSuccessAt: number | null;
  readonly lastFailureAt: number | null;
  readonly lastFailure: string | null;
}

export interface SubscriptionInput {
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
  /** Absent on a re-subscribe keeps the stored name. */
  readonly name?: string;
}

interface Row {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  name: string | null;
  created_at: number;
  updated_at: number;
  last_success_at: number | null;
  last_failure_at: number | null;
  last_failure: string | null;
}

/** Failure reasons are kept short: they are for a device list, not a log. */
const MAX_FAILURE_REASON = 300;

/** The `push_subscriptions` table (migration 003). */
export class PushSubscriptionStore {
  /**
   * Successes not written yet, by id: written together a turn later, in one transaction. A
   * write (and its fsync) per accepted message sat between the push service's 201 and the
   * scheduler's `sent` commit, and a kill in that window sends the message again (issue #25).
   */
  private readonly unwrittenSuccesses = new Map<string, number>();
  private successWrite: NodeJS.Immediate | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: Clock,
  ) {}

  /**
   * Adds a device, or, when the endpoint is already known (the browser subscribed again),
   * replaces its keys and keeps its id, so the device is never listed or notified twice.
   */
  upsert(input: SubscriptionInput): { subscription: StoredSubscription; created: boolean } {
    return this.db
      .transaction(() => {
        const now = this.clock.now();
        const existing = this.db
          .prepare('SELECT * FROM push_subscriptions WHERE endpoint = ?')
          .get(input.endpoint) as Row | undefined;
        if (existing) {
          this.db
            .prepare(
              `UPDATE push_subscriptions
             SET p256dh = ?, auth = ?, name = COALESCE(?, name), updated_at = ?
             WHERE id = ?`,
            )
            .run(input.p256dh, input.auth, input.name ?? null, now, existing.id);
          return { subscription: this.mustGet(existing.id), created: false };
        }
        const id = newSubscriptionId();
        this.db
          .prepare(
            `INSERT INTO push_subscriptions (id, endpoint, p256dh, auth, name, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(id, input.endpoint, input.p256dh, input.auth, input.name ?? null, now, now);
        return { subscription: this.mustGet(id), created: true };
      })
      .immediate();
  }

  get(id: string): StoredSubscription | undefined {
    const row = this.db.prepare('SELECT * FROM push_subscriptions WHERE id = ?').get(id) as
      Row | undefined;
    return row ? this.withUnwritten(fromRow(row)) : undefined;
  }

  hasEndpoint(endpoint: string): boolean {
    return (
      this.db.prepare('SELECT 1 FROM push_subscriptions WHERE endpoint = ?').get(endpoint) !==
      undefined
    );
  }

  /** Oldest first. */
  list(): StoredSubscription[] {
    const rows = this.db
      .prepare('SELECT * FROM push_subscriptions ORDER BY created_at, id')
      .all() as Row[];
    return rows.map((row) => this.withUnwritten(fromRow(row)));
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM push_subscriptions').get() as { n: number })
      .n;
  }

  /** True when a row was deleted. */
  delete(id: string): boolean {
    this.unwrittenSuccesses.delete(id);
    return this.db.prepare('DELETE FROM push_subscriptions WHERE id = ?').run(id).changes > 0;
  }

  /** Noted at once (reads see it), written with the others of this turn. */
  recordSuccess(id: string): void {
    this.unwrittenSuccesses.set(id, this.clock.now());
    this.successWrite ??= setImmediate(() => this.writeSuccesses());
  }

  /** Writes the successes noted so far (also before the database is closed). */
  writeSuccesses(): void {
    if (this.successWrite !== undefined) clearImmediate(this.successWrite);
    this.successWrite = undefined;
    if (this.unwrittenSuccesses.size === 0) return;
    const entries = [...this.unwrittenSuccesses];
    this.unwrittenSuccesses.clear();
    try {
      const update = this.db.prepare(
        'UPDATE push_subscriptions SET last_success_at = max(coalesce(last_success_at, 0), ?) WHERE id = ?',
      );
      this.db.transaction(() => {
        for (const [id, at] of entries) update.run(at, id);
      })();
    } catch {
      // A closed or full database: the time of a device's last success is informational only.
    }
  }

  private withUnwritten(subscription: StoredSubscription): StoredSubscription {
    const at = this.unwrittenSuccesses.get(subscription.id);
    return at === undefined || (subscription.lastSuccessAt ?? 0) >= at
      ? subscription
      : { ...subscription, lastSuccessAt: at };
  }

  recordFailure(id: string, reason: string): void {
    this.db
      .prepare('UPDATE push_subscriptions SET last_failure_at = ?, last_failure = ? WHERE id = ?')
      .run(this.clock.now(), reason.slice(0, MAX_FAILURE_REASON), id);
  }

  private mustGet(id: string): StoredSubscription {
    const subscription = this.get(id);
    if (!subscription) throw new Error(`push subscription ${id} vanished inside its transaction`);
    return subscription;
  }
}

/** 96 random bits, base64url (16 characters): unguessable, URL-safe. */
function newSubscriptionId(): string {
  return randomBytes(12).toString('base64url');
}

function fromRow(row: Row): StoredSubscription {
  return {
    id: row.id,
    endpoint: row.endpoint,
    p256dh: row.p256dh,
    auth: row.auth,
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSuccessAt: row.last_success_at,
    lastFailureAt: row.last_failure_at,
    lastFailure: row.last_failure,
  };
}
