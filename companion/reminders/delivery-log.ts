import type { SqliteDatabase } from '../db/open';
import { inTransaction } from '../db/open';
import type { DeliveryOutcome } from '../push/delivery-port';
import type { OccurrenceAction } from './fire-times';

/** A delivery row's life: claimed → sent | gone | failed, with retry in between. */
export type DeliveryState = 'claimed' | 'retry' | 'sent' | 'failed' | 'gone';

export interface DeliveryKey {
  readonly reminderId: string;
  readonly occurrence: number;
  readonly deviceId: string;
}

/** A claimed (or retrying) delivery, with everything needed to send it again. */
export interface PendingDelivery extends DeliveryKey {
  readonly state: 'claimed' | 'retry';
  readonly attempts: number;
  readonly claimedAt: number;
  readonly ttlSeconds: number;
  readonly topic: string;
  /** The PushPayload JSON, exactly as first built. */
  readonly payload: string;
}

export interface MissedRow {
  readonly reminderId: string;
  readonly occurrence: number;
  readonly title: string;
  readonly path: string;
  readonly line?: number;
  readonly zone: string;
  /** `expired` (older than the grace window when it came due) unless said otherwise. */
  readonly reason?: MissedRowReason;
}

/** Why an occurrence is on the missed list (migration 005). */
export type MissedRowReason = 'expired' | 'past_due';

export interface OccurrenceClaim {
  readonly reminderId: string;
  readonly occurrence: number;
  readonly deviceIds: readonly string[];
  readonly ttlSeconds: number;
  readonly topic: string;
  readonly payload: string;
}

export interface RecordedOutcome {
  readonly key: DeliveryKey;
  readonly outcome: DeliveryOutcome;
  readonly now: number;
  readonly retryAt?: number;
}

/** One reminder's step: what is listed missed, what is claimed, the new high-water mark. */
export interface PlanStep {
  readonly reminderId: string;
  readonly highWater: number;
  readonly missed: readonly MissedRow[];
  readonly claim?: OccurrenceClaim;
  readonly now: number;
}

/** A delivery's identity as one string, for sets and maps. */
export function deliveryKey(key: {
  readonly reminderId: string;
  readonly occurrence: number;
  readonly deviceId: string;
}): string {
  return `${key.reminderId}\u0000${key.occurrence}\u0000${key.deviceId}`;
}

interface DeliveryRow {
  reminder_id: string;
  occurrence: number;
  device_id: string;
  state: DeliveryState;
  attempts: number;
  claimed_at: number;
  ttl_seconds: number;
  topic: string;
  payload: string;
}

/**
 * The tables one scheduler keeps its state in. Reminders use migration 004's; scheduled tasks
 * (companion/tasks, migration 011) have the same tables under their own names, so the two
 * schedulers never see each other's claims, marks or missed lists.
 */
export interface DeliveryTables {
  readonly meta: string;
  readonly plan: string;
  readonly deliveries: string;
  readonly missed: string;
  readonly actions: string;
  readonly completions: string;
}

export const REMINDER_DELIVERY_TABLES: DeliveryTables = {
  meta: 'scheduler_meta',
  plan: 'reminder_plan',
  deliveries: 'deliveries',
  missed: 'missed_occurrences',
  actions: 'occurrence_actions',
  completions: 'reminder_completions',
};

/**
 * The scheduler's SQLite tables (migration 004). Every method that changes more than one row
 * does so in one transaction, so a crash leaves either all of a step or none of it; with
 * `synchronous=FULL` each commit is on disk when the method returns.
 */
export class DeliveryLog {
  private readonly statements;

  constructor(
    private readonly db: SqliteDatabase,
    tables: DeliveryTables = REMINDER_DELIVERY_TABLES,
  ) {
    const t = tables;
    this.statements = {
      getMeta: db.prepare(`SELECT value FROM ${t.meta} WHERE key = ?`).pluck(),
      setMeta: db.prepare(
        `INSERT INTO ${t.meta} (key, value) VALUES (?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ),
      highWaters: db.prepare(`SELECT reminder_id, high_water FROM ${t.plan}`),
      insertPlan: db.prepare(
        `INSERT INTO ${t.plan} (reminder_id, high_water, first_seen) VALUES (?, ?, ?)
         ON CONFLICT (reminder_id) DO NOTHING`,
      ),
      raiseHighWater: db.prepare(
        `INSERT INTO ${t.plan} (reminder_id, high_water, first_seen) VALUES (?, ?, ?)
         ON CONFLICT (reminder_id) DO UPDATE SET high_water = max(high_water, excluded.high_water)`,
      ),
      claim: db.prepare(
        `INSERT INTO ${t.deliveries} (reminder_id, occurrence, device_id, state, attempts, claimed_at,
           next_attempt_at, updated_at, ttl_seconds, topic, payload)
         VALUES (?, ?, ?, 'claimed', 0, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
      ),
      outcome: db.prepare(
        `UPDATE ${t.deliveries} SET state = ?, attempts = attempts + 1, next_attempt_at = ?,
           updated_at = ?, error = ?
         WHERE reminder_id = ? AND occurrence = ? AND device_id = ? AND state IN ('claimed', 'retry')`,
      ),
      pending: db.prepare(
        `SELECT reminder_id, occurrence, device_id, state, attempts, claimed_at, ttl_seconds, topic, payload
         FROM ${t.deliveries} WHERE state IN ('claimed', 'retry') AND next_attempt_at <= ?
         ORDER BY next_attempt_at, reminder_id, occurrence, device_id LIMIT ?`,
      ),
      nextAttempt: db
        .prepare(
          `SELECT min(next_attempt_at) FROM ${t.deliveries} WHERE state IN ('claimed', 'retry')`,
        )
        .pluck(),
      stateCounts: db.prepare(
        `SELECT state, count(*) AS count FROM ${t.deliveries} GROUP BY state`,
      ),
      deliveryState: db
        .prepare(
          `SELECT state FROM ${t.deliveries} WHERE reminder_id = ? AND occurrence = ? AND device_id = ?`,
        )
        .pluck(),
      insertMissed: db.prepare(
        `INSERT INTO ${t.missed}
           (reminder_id, occurrence, title, path, line, zone, recorded_at, reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      listMissed: db.prepare(
        `SELECT reminder_id, occurrence, title, path, line, zone, reason FROM ${t.missed}
         ORDER BY occurrence DESC, reminder_id LIMIT ? OFFSET ?`,
      ),
      countMissed: db.prepare(`SELECT count(*) FROM ${t.missed}`).pluck(),
      deleteMissed: db.prepare(`DELETE FROM ${t.missed} WHERE reminder_id = ? AND occurrence = ?`),
      actions: db.prepare(
        `SELECT reminder_id, occurrence, action, snoozed_until FROM ${t.actions}`,
      ),
      pruneDeliveries: db.prepare(
        `DELETE FROM ${t.deliveries} WHERE state IN ('sent', 'failed', 'gone') AND updated_at < ?`,
      ),
      pruneActions: db.prepare(
        `DELETE FROM ${t.actions} WHERE occurrence < @before
           AND (snoozed_until IS NULL OR snoozed_until < @before)`,
      ),
      pruneMissed: db.prepare(`DELETE FROM ${t.missed} WHERE recorded_at < ?`),
      insertCompletion: db.prepare(
        `INSERT INTO ${t.completions}
           (reminder_id, occurrence, completed_at, title, path, line)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ),
      completionsBetween: db.prepare(
        `SELECT reminder_id, occurrence, completed_at, title, path, line FROM ${t.completions}
         WHERE completed_at >= ? AND completed_at < ? ORDER BY completed_at, reminder_id`,
      ),
      putAction: db.prepare(
        `INSERT INTO ${t.actions} (reminder_id, occurrence, action, snoozed_until, created_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (reminder_id, occurrence) DO UPDATE SET action = excluded.action,
           snoozed_until = excluded.snoozed_until, created_at = excluded.created_at`,
      ),
    };
  }

  meta(key: 'epoch' | 'alive_at'): number | undefined {
    return this.statements.getMeta.get(key) as number | undefined;
  }

  setMeta(key: 'epoch' | 'alive_at', value: number): void {
    this.statements.setMeta.run(key, value);
  }

  highWaters(): Map<string, number> {
    const rows = this.statements.highWaters.all() as { reminder_id: string; high_water: number }[];
    return new Map(rows.map((row) => [row.reminder_id, row.high_water]));
  }

  /** Records high-water marks for reminders seen for the first time (existing rows are kept). */
  addReminders(entries: readonly { id: string; highWater: number }[], now: number): void {
    if (entries.length === 0) return;
    inTransaction(this.db, () => {
      for (const entry of entries) this.statements.insertPlan.run(entry.id, entry.highWater, now);
    });
  }

  /**
   * Steps of the plan, atomically (one transaction for the batch): for each, list its
   * `missed`, claim one delivery row per device for its `claim` (rows that already exist, sent or
   * not, are left alone), and raise the reminder's high-water mark. Returns the keys
   * (`deliveryKey`) of the rows created by this call: the ones to send now. Claim-before-send is
   * what makes a crash at any later point resume with a retry instead of a loss.
   */
  advanceAll(steps: readonly PlanStep[]): Set<string> {
    return inTransaction(this.db, () => {
      const created = new Set<string>();
      for (const step of steps) {
        for (const row of step.missed) {
          this.statements.insertMissed.run(
            row.reminderId,
            row.occurrence,
            row.title,
            row.path,
            row.line ?? null,
            row.zone,
            step.now,
            row.reason ?? 'expired',
          );
        }
        const claim = step.claim;
        if (claim) {
          for (const deviceId of claim.deviceIds) {
            const result = this.statements.claim.run(
              claim.reminderId,
              claim.occurrence,
              deviceId,
              step.now,
              step.now,
              step.now,
              claim.ttlSeconds,
              claim.topic,
              claim.payload,
            );
            if (result.changes === 1) {
              created.add(deliveryKey({ ...claim, deviceId }));
            }
          }
        }
        this.statements.raiseHighWater.run(step.reminderId, step.highWater, step.now);
      }
      return created;
    });
  }

  /**
   * Records what the push service answered, for several deliveries in one transaction. Only
   * rows still `claimed`/`retry` change: a row already final is never reopened. `retryAt` is
   * required for `retry`.
   */
  recordOutcomes(outcomes: readonly RecordedOutcome[]): void {
    if (outcomes.length === 0) return;
    inTransaction(this.db, () => {
      for (const { key, outcome, now, retryAt } of outcomes) {
        const error =
          outcome.kind === 'failed'
            ? outcome.reason
            : outcome.kind === 'retry'
              ? (outcome.reason ?? null)
              : null;
        this.statements.outcome.run(
          outcome.kind,
          outcome.kind === 'retry' ? (retryAt ?? now) : null,
          now,
          error,
          key.reminderId,
          key.occurrence,
          key.deviceId,
        );
      }
    });
  }

  /**
   * Gives a claimed/retrying delivery up as failed and, when given, lists its occurrence as
   * missed, in one transaction (a message that can no longer arrive in time must show up
   * somewhere the user looks).
   */
  giveUp(key: DeliveryKey, reason: string, missed: MissedRow | undefined, now: number): void {
    inTransaction(this.db, () => {
      this.recordOutcomes([{ key, outcome: { kind: 'failed', reason }, now }]);
      if (missed) {
        this.statements.insertMissed.run(
          missed.reminderId,
          missed.occurrence,
          missed.title,
          missed.path,
          missed.line ?? null,
          missed.zone,
          now,
          missed.reason ?? 'expired',
        );
      }
    });
  }

  /** Lists occurrences as missed on their own (a one-off already past when first seen). */
  listAsMissed(rows: readonly MissedRow[], now: number): void {
    if (rows.length === 0) return;
    inTransaction(this.db, () => {
      for (const row of rows) {
        this.statements.insertMissed.run(
          row.reminderId,
          row.occurrence,
          row.title,
          row.path,
          row.line ?? null,
          row.zone,
          now,
          row.reason ?? 'expired',
        );
      }
    });
  }

  /** Claimed or retrying deliveries whose attempt is due at `now`, oldest first. */
  pending(now: number, limit: number): PendingDelivery[] {
    const rows = this.statements.pending.all(now, limit) as DeliveryRow[];
    return rows.map((row) => ({
      reminderId: row.reminder_id,
      occurrence: row.occurrence,
      deviceId: row.device_id,
      state: row.state as 'claimed' | 'retry',
      attempts: row.attempts,
      claimedAt: row.claimed_at,
      ttlSeconds: row.ttl_seconds,
      topic: row.topic,
      payload: row.payload,
    }));
  }

  /** When the next claimed/retrying delivery is due, or undefined. */
  nextAttemptAt(): number | undefined {
    return (this.statements.nextAttempt.get() as number | null) ?? undefined;
  }

  stateOf(key: DeliveryKey): DeliveryState | undefined {
    return this.statements.deliveryState.get(key.reminderId, key.occurrence, key.deviceId) as
      DeliveryState | undefined;
  }

  stateCounts(): Record<DeliveryState, number> {
    const counts: Record<DeliveryState, number> = {
      claimed: 0,
      retry: 0,
      sent: 0,
      failed: 0,
      gone: 0,
    };
    for (const row of this.statements.stateCounts.all() as {
      state: DeliveryState;
      count: number;
    }[]) {
      counts[row.state] = row.count;
    }
    return counts;
  }

  missed(offset: number, limit: number): MissedRow[] {
    const rows = this.statements.listMissed.all(limit, offset) as {
      reminder_id: string;
      occurrence: number;
      title: string;
      path: string;
      line: number | null;
      zone: string;
      reason: MissedRowReason;
    }[];
    return rows.map((row) => ({
      reminderId: row.reminder_id,
      occurrence: row.occurrence,
      title: row.title,
      path: row.path,
      ...(row.line === null ? {} : { line: row.line }),
      zone: row.zone,
      reason: row.reason,
    }));
  }

  missedCount(): number {
    return this.statements.countMissed.get() as number;
  }

  dismissMissed(reminderId: string, occurrence: number): boolean {
    return this.statements.deleteMissed.run(reminderId, occurrence).changes === 1;
  }

  actions(): Map<string, Map<number, OccurrenceAction>> {
    const byReminder = new Map<string, Map<number, OccurrenceAction>>();
    const rows = this.statements.actions.all() as {
      reminder_id: string;
      occurrence: number;
      action: 'done' | 'snoozed';
      snoozed_until: number | null;
    }[];
    for (const row of rows) {
      let actions = byReminder.get(row.reminder_id);
      if (!actions) {
        actions = new Map();
        byReminder.set(row.reminder_id, actions);
      }
      actions.set(
        row.occurrence,
        row.action === 'snoozed'
          ? { kind: 'snoozed', until: row.snoozed_until! }
          : { kind: 'done' },
      );
    }
    return byReminder;
  }

  /**
   * Forgets history older than `before`: final delivery rows, actions on past occurrences, and
   * missed entries. Safe for "never twice": a fire time at or below a reminder's high-water mark
   * is never claimed again, whether or not its row is still here; high-water marks are kept.
   */
  prune(before: number): { deliveries: number; actions: number; missed: number } {
    return inTransaction(this.db, () => ({
      deliveries: this.statements.pruneDeliveries.run(before).changes,
      actions: this.statements.pruneActions.run({ before }).changes,
      missed: this.statements.pruneMissed.run(before).changes,
    }));
  }

  /** Records done/snooze of one occurrence and drops it from the missed list, in one step. */
  putAction(reminderId: string, occurrence: number, action: OccurrenceAction, now: number): void {
    inTransaction(this.db, () => {
      this.statements.putAction.run(
        reminderId,
        occurrence,
        action.kind,
        action.kind === 'snoozed' ? action.until : null,
        now,
      );
      this.statements.deleteMissed.run(reminderId, occurrence);
    });
  }

  /** Records that someone marked an occurrence done (the digest's "Reminders done"); the first record stands. */
  recordCompletion(completion: CompletionRow): void {
    this.statements.insertCompletion.run(
      completion.reminderId,
      completion.occurrence,
      completion.completedAt,
      completion.title,
      completion.path,
      completion.line ?? null,
    );
  }

  /** Completions made in [from, to), oldest first. */
  completionsBetween(from: number, to: number): CompletionRow[] {
    const rows = this.statements.completionsBetween.all(from, to) as Array<{
      reminder_id: string;
      occurrence: number;
      completed_at: number;
      title: string;
      path: string;
      line: number | null;
    }>;
    return rows.map((row) => ({
      reminderId: row.reminder_id,
      occurrence: row.occurrence,
      completedAt: row.completed_at,
      title: row.title,
      path: row.path,
      ...(row.line === null ? {} : { line: row.line }),
    }));
  }
}

/** One occurrence marked done, and when. */
export interface CompletionRow {
  readonly reminderId: string;
  readonly occurrence: number;
  readonly completedAt: number;
  readonly title: string;
  readonly path: string;
  readonly line?: number;
}
