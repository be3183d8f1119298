import type { Clock } from '../../shared/ports';
import { compareCodeUnits } from '../../shared/protocol/json';
import { PUSH_ACTIONS } from '../../shared/protocol/push';
import type { PushPayload } from '../../shared/protocol/push';
import type { StatusResponse } from '../../shared/protocol/status';
import { formatInZone, formatWall, instantToWall } from '../../shared/reminders/local-time';
import { nextOccurrences, RecurrenceInputError } from '../../shared/reminders/recurrence';
import { cronNextAfter } from '../../shared/tasks/cron-schedule';
import type { SqliteDatabase } from '../db/open';
import { createLogger } from '../logging';
import type { Logger } from '../logging';
import type { MetricsRegistry } from '../metrics/registry';
import type { SchedulerStatusSource } from '../status/sources';
import { definitionProblem } from './check-definition';
import type { DeliveryOutcome, ReminderDeliverer } from '../push/delivery-port';
import { DeliveryLog } from './delivery-log';
import { deliveryKey } from './delivery-log';
import type { DeliveryTables } from './delivery-log';
import type {
  CompletionRow,
  MissedRow,
  OccurrenceClaim,
  PlanStep,
  RecordedOutcome,
} from './delivery-log';
import { DueQueue } from './due-queue';
import { FireTimes } from './fire-times';
import type { OccurrenceAction } from './fire-times';
import { MAX_PUSH_TITLE_CHARS } from './reminder-definition';
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from './retry-policy';
import type { ScheduledDefinition, UnresolvedReminder } from './reminder-definition';
import type { ReminderSource } from './reminder-source';
import { SchedulerMetrics } from './scheduler-metrics';
import { MAX_SLEEP_MS, nodeTimer } from './timer';
import type { TimerHandle, TimerPort } from './timer';

/**
 * A reminder first seen now is treated as if it had been in the vault this long already, so
 * one synced from a phone a few minutes after its due time still fires (within the grace
 * window). Longer would re-fire the past of an inline reminder without a block id each time its
 * line is edited (its identity is its text, docs/vault-format.md).
 */
export const SYNC_LAG_MS = 15 * 60_000;
/** Steps claimed in one transaction: one fsync for many reminders due at the same instant. */
const CLAIM_BATCH = 256;
/**
 * Deliveries in flight at once, counted from the hand-over to the deliverer until the outcome
 * is committed (each of these many workers takes its next delivery only after its last outcome
 * is on disk). A SIGKILL can leave at most this many messages accepted by a push service and
 * not marked `sent`, so at most this many are sent twice after it (docs/delivery.md). Equal
 * to the Web Push sender's connection limit (`DEFAULT_MAX_CONCURRENT_SENDS`): more workers
 * would only wait for a socket, and their answers waiting for a commit widened the window.
 */
export const SEND_WINDOW = 8;
/** Push services may drop messages with a TTL of 0 at once; a minute reaches a phone that is awake. */
const MIN_TTL_SECONDS = 60;
/** Delivery log, occurrence actions and missed entries are kept this long. */
export const HISTORY_DAYS = 30;
/** How often "still alive" is written to the database while running. */
const ALIVE_WRITE_INTERVAL_MS = 30 * 60_000;
/** Missed occurrences listed per reminder per catch-up; older ones are only counted in the log. */
export const MISSED_PER_REMINDER = 50;

export interface SchedulerOptions {
  /** Opened and migrated (migration 004); the scheduler does not close it. */
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly source: ReminderSource;
  readonly deliverer: ReminderDeliverer;
  /** Missed fire times younger than this fire on start; older ones are listed as missed. */
  readonly graceMs: number;
  readonly timer?: TimerPort;
  readonly logger?: Logger;
  /** Where fire lag and delivery counts are registered; absent, they are not exported. */
  readonly metrics?: MetricsRegistry;
  /** Jitter for retry backoff, in [0, 1); tests pin it. Default Math.random. */
  readonly random?: () => number;
  /** Where its state lives; the reminders' tables (migration 004) when absent. */
  readonly tables?: DeliveryTables;
  /**
   * How far before "now" (or the last time alive) a newly seen item's history starts;
   * {@link SYNC_LAG_MS} when absent. Scheduled tasks use 0: a task created at 17:05 must not
   * run for its 17:00 slot.
   */
  readonly lookbackMs?: number;
}

/** One fire time of one reminder that is being handed to delivery. */
interface Send {
  readonly reminderId: string;
  readonly occurrence: number;
  readonly deviceId: string;
  readonly ttlSeconds: number;
  readonly topic: string;
  readonly payload: PushPayload;
  /** 0 for a fresh claim; attempts so far for a retry. */
  readonly attempts: number;
}

/**
 * The companion's durable reminder scheduler (docs/delivery.md).
 *
 * Guarantees and how they are kept:
 * - **Never twice per device.** Each (reminder, occurrence, device) is a row in the delivery
 *   log, created in a committed transaction *before* the message is sent and marked `sent`
 *   after. A row is created at most once (primary key) and a `sent`/`gone`/`failed` row is
 *   never sent again.
 * - **At least once per device.** A claimed row that never got its outcome (the process was
 *   killed mid-send) is sent again on the next start. The one duplicate this allows: the push
 *   service accepted the message and the process died before the `sent` commit. A delivery is
 *   in that window from its hand-over to the deliverer until its outcome is committed (outcomes
 *   are group-committed per turn, see `commitOutcome`), and at most {@link SEND_WINDOW} are in
 *   it at once: each worker waits for its outcome's commit before it takes the next delivery.
 *   So a kill sends at most {@link SEND_WINDOW} messages twice (docs/delivery.md has the
 *   measured numbers). No protocol can close that window from this side; the message's
 *   `Topic` is the reminder id, so if the first copy is still queued at the push service the
 *   second replaces it, and the phone page shows one occurrence at most once.
 * - **Survives kill -9.** All state above is in SQLite (WAL, synchronous=FULL). Each reminder
 *   has a high-water mark: every fire time at or before it was handed to delivery or listed as
 *   missed; it is raised in the same transaction as the claim.
 * - **Catch-up policy** (after downtime, a suspended machine, or a clock jump): for each
 *   reminder, the fire times between its high-water mark and now are looked at together. The
 *   latest fires if it is younger than the grace window; earlier ones younger than the window
 *   collapse into it (like systemd's `Persistent=true` or Quartz's fire-once-now: a minutely
 *   reminder does not send 600 messages after ten hours down); ones older than the window go to
 *   the missed list (at most {@link MISSED_PER_REMINDER} per reminder and catch-up).
 * - **No polling.** One timer is armed for the earliest of: the next due time, the next retry,
 *   or {@link MAX_SLEEP_MS} from now (see timer.ts for why sleeps are capped).
 * - **Re-plans incrementally.** `replan(ids)` re-reads only those reminders from the source
 *   and moves only their entries in the due queue.
 * - **First run.** Nothing before the scheduler's first start on a database fires (before
 *   pairing, the plugin was in charge of reminders, and it fires its own).
 */
/**
 * What `snoozeOccurrence` did: `snoozed` (the occurrence, or the one whose snooze was moved,
 * now rings at `until`), or `merged` (the series' next occurrence at `into` comes first and
 * rings instead; the snoozed one is acknowledged).
 */
export type SnoozeOutcome =
  | { readonly kind: 'snoozed'; readonly occurrence: number; readonly until: number }
  | { readonly kind: 'merged'; readonly into: number };

export class ReminderScheduler implements SchedulerStatusSource {
  private readonly log: DeliveryLog;
  private readonly clock: Clock;
  private readonly timer: TimerPort;
  private readonly logger: Logger;
  private readonly metrics: SchedulerMetrics;
  private readonly source: ReminderSource;
  private readonly deliverer: ReminderDeliverer;
  private readonly graceMs: number;
  private readonly random: () => number;
  private readonly lookbackMs: number;

  private readonly plans = new Map<string, FireTimes>();
  private readonly rejected = new Map<string, UnresolvedReminder>();
  private readonly queue = new DueQueue();
  private highWaters = new Map<string, number>();
  private actions = new Map<string, Map<number, OccurrenceAction>>();
  private epoch = 0;
  /** True while the first start on a new database takes in the vault. */
  private firstLoad = false;
  /** While starting: when the previous run was last alive. Afterwards undefined (= now). */
  private coverageStart: number | undefined;

  private state: 'new' | 'running' | 'stopped' = 'new';
  private handle: TimerHandle | undefined;
  private pass: Promise<void> | undefined;
  private passAgain = false;
  private outcomeBatch: RecordedOutcome[] = [];
  private outcomeFlush: Promise<void> | undefined;
  private aliveWrittenAt = Number.NEGATIVE_INFINITY;
  private prunedAt = Number.NEGATIVE_INFINITY;
  private failedPasses = 0;

  constructor(options: SchedulerOptions) {
    if (!(options.graceMs >= 0)) throw new RangeError('graceMs must be a number ≥ 0');
    this.log = new DeliveryLog(options.db, options.tables);
    this.clock = options.clock;
    this.timer = options.timer ?? nodeTimer;
    this.logger = options.logger ?? createLogger('silent');
    this.source = options.source;
    this.deliverer = options.deliverer;
    this.graceMs = options.graceMs;
    this.random = options.random ?? Math.random;
    this.lookbackMs = options.lookbackMs ?? SYNC_LAG_MS;
    this.metrics = new SchedulerMetrics(options.metrics, {
      scheduled: () => this.queue.size,
      missed: () => (this.state === 'stopped' ? 0 : this.log.missedCount()),
    });
  }

  /**
   * Loads the delivery state and the source's reminders, fires what was missed within the
   * grace window, resends deliveries a crash interrupted, and arms the timer. Resolves once
   * that first pass is done.
   */
  async start(): Promise<void> {
    await this.begin();
    await this.catchUp();
  }

  /**
   * The first half of `start()`: resolves once the delivery state and the reminders are loaded
   * and planned; every other method may be called from then on. Nothing is sent yet (unless a
   * re-plan meanwhile finds something due): `catchUp()` is the second half. The companion
   * listens in between, so its API answers before a catch-up burst goes out instead of after.
   * Nothing is given up for it: every claim is committed before its send as always, and a
   * snooze, a done or a re-plan arriving meanwhile is taken the way it is during any pass.
   */
  async begin(): Promise<void> {
    if (this.state !== 'new') throw new Error(`scheduler: start() called when ${this.state}`);
    this.state = 'running';
    const now = this.clock.now();
    this.epoch = this.log.meta('epoch') ?? now;
    this.firstLoad = this.log.meta('epoch') === undefined;
    if (this.firstLoad) this.log.setMeta('epoch', this.epoch);
    this.coverageStart = Math.min(now, this.log.meta('alive_at') ?? now);
    this.highWaters = this.log.highWaters();
    this.actions = this.log.actions();

    const { reminders, unresolved } = await this.source.all();
    this.applyDefinitions(reminders, { complete: true });
    this.coverageStart = undefined;
    this.firstLoad = false;
    this.markAlive(now);
    this.logger.info(
      { reminders: this.plans.size, scheduled: this.queue.size, unresolved: unresolved.length },
      'scheduler started',
    );
  }

  /**
   * The second half of `start()`: the first pass (deliveries a crash interrupted, then what came
   * due while down), after which the timer is armed; resolves when that pass is done. Never
   * rejects (a failed pass is logged and tried again after a pause).
   */
  catchUp(): Promise<void> {
    this.assertRunning('catchUp');
    return this.runPass();
  }

  /** Clears the timer and waits for a pass in progress. Idempotent. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopped';
    if (this.handle !== undefined) this.timer.clear(this.handle);
    this.handle = undefined;
    await this.pass;
    await this.outcomeFlush;
    if (wasRunning) this.markAlive(this.clock.now(), true);
  }

  /**
   * Re-reads reminders from the source after the vault changed: only `ids` (a reminder absent
   * from the source's answer was deleted), or everything when `ids` is omitted. Fires at once
   * whatever became due (e.g. an edit that moved a reminder into the past within the grace
   * window).
   */
  async replan(ids?: readonly string[]): Promise<void> {
    this.assertRunning('replan');
    if (ids === undefined) {
      const { reminders } = await this.source.all();
      this.applyDefinitions(reminders, { complete: true });
    } else {
      const found = await this.source.get(ids);
      const seen = new Set(found.map((definition) => definition.id));
      for (const id of ids) {
        if (!seen.has(id)) this.forget(id);
      }
      this.applyDefinitions(found, { complete: false });
    }
    if (this.state !== 'running') return;
    this.rearm();
  }

  /**
   * Snoozes one occurrence (or a snooze's fire time) until `until`: it fires then, keyed by
   * `until`, and not at its own time if that has not come yet. For the phone's "snooze" action
   * and the API's snooze of a recurring reminder or an inline one-off. The caller picks `until`
   * (ReminderService: never before the occurrence's own time).
   */
  snoozeOccurrence(reminderId: string, occurrence: number, until: number): SnoozeOutcome {
    this.assertRunning('snoozeOccurrence');
    if (!Number.isFinite(until)) throw new RangeError('snooze: until is not an instant');
    const actions = this.actions.get(reminderId);
    // Snoozing a snooze's end moves that snooze: one occurrence has one pending ring, never two.
    const original = this.snoozedOccurrence(reminderId, occurrence);
    const plan = this.plans.get(reminderId);
    if (plan && plan.definition.schedule.kind === 'recurring') {
      // A snooze never adds a ring: when it would end at or after the series' next occurrence,
      // that occurrence's ring stands in for it and the snoozed one is acknowledged.
      const without = new Map(actions ?? []);
      without.set(original, { kind: 'done' });
      const following = new FireTimes(plan.definition, without).nextAfter(original);
      if (following !== undefined && following <= until) {
        this.putAction(reminderId, original, { kind: 'done' });
        return { kind: 'merged', into: following };
      }
    }
    this.putAction(reminderId, original, { kind: 'snoozed', until });
    return { kind: 'snoozed', occurrence: original, until };
  }

  /**
   * The fire times an action without a named occurrence is about: the latest at or before
   * `now` (it rang, or its time came while nothing could ring it) and the first after `now`.
   * Undefined when the reminder is not in the plan.
   */
  fireTimesAround(
    reminderId: string,
    now: number,
  ): { latest: number | undefined; next: number | undefined } | undefined {
    const plan = this.plans.get(reminderId);
    if (!plan) return undefined;
    return { latest: plan.latestIn(Number.NEGATIVE_INFINITY, now), next: plan.nextAfter(now) };
  }

  /**
   * Marks one occurrence done: it will not fire (again), and leaves the missed list. A snooze's
   * end (what the notification and `next_fire` name) means the occurrence it postponed, so done
   * ends the snooze too (docs/reminders.md).
   */
  completeOccurrence(reminderId: string, occurrence: number): void {
    this.assertRunning('completeOccurrence');
    const original = this.snoozedOccurrence(reminderId, occurrence);
    this.putAction(reminderId, original, { kind: 'done' });
    if (original !== occurrence) this.log.dismissMissed(reminderId, occurrence);
    const definition = this.plans.get(reminderId)?.definition;
    if (definition) this.recordCompletion(definition, original);
  }

  /** Occurrences marked done in [from, to), with when (the weekly digest). */
  completionsBetween(from: number, to: number): CompletionRow[] {
    return this.log.completionsBetween(from, to);
  }

  private recordCompletion(definition: ScheduledDefinition, occurrence: number): void {
    this.log.recordCompletion({
      reminderId: definition.id,
      occurrence,
      completedAt: this.clock.now(),
      title: definition.title,
      path: definition.path,
      ...(definition.line === undefined ? {} : { line: definition.line }),
    });
  }

  /**
   * A reminder seen done that was not (a `status: done`, a `- [x]`, written by ReminderService
   * or by hand and synced in): a completion now. At start the earlier state is unknown, except
   * for a line without a block id, whose unchecked twin left its high-water mark.
   */
  private noticeCompletion(definition: ScheduledDefinition, known: FireTimes | undefined): void {
    if (definition.status !== 'done' && !definition.taskChecked) return;
    const before = known?.definition;
    const wasOpen =
      before !== undefined
        ? before.status === 'active' && !before.taskChecked
        : this.coverageStart === undefined && this.highWaters.has(uncheckedTwin(definition));
    if (!wasOpen) return;
    const { schedule } = definition;
    const now = this.clock.now();
    const occurrence =
      schedule.kind === 'once'
        ? schedule.at
        : (new FireTimes(definition, undefined).latestIn(Number.NEGATIVE_INFINITY, now) ?? now);
    this.recordCompletion(definition, occurrence);
  }

  /** The occurrence whose snooze ends at `at`, else `at` itself. */
  private snoozedOccurrence(reminderId: string, at: number): number {
    for (const [occurrence, action] of this.actions.get(reminderId) ?? []) {
      if (action.kind === 'snoozed' && action.until === at) return occurrence;
    }
    return at;
  }

  /** Removes one entry from the missed list; false when it was not there. */
  dismissMissed(reminderId: string, occurrence: number): boolean {
    return this.log.dismissMissed(reminderId, occurrence);
  }

  /**
   * The earliest end of a snooze kept as delivery state that has not rung yet (it lies beyond
   * the reminder's high-water mark), or undefined.
   */
  pendingSnooze(reminderId: string): number | undefined {
    const handled = this.highWaters.get(reminderId) ?? this.epoch;
    let earliest: number | undefined;
    for (const action of this.actions.get(reminderId)?.values() ?? []) {
      if (action.kind !== 'snoozed' || action.until <= handled) continue;
      if (earliest === undefined || action.until < earliest) earliest = action.until;
    }
    return earliest;
  }

  /** Whether the occurrence was marked done (delivery state). */
  isDone(reminderId: string, occurrence: number): boolean {
    return this.actions.get(reminderId)?.get(occurrence)?.kind === 'done';
  }

  /** When `reminderId` fires next, or undefined (unknown, done, checked, nothing left). */
  nextFire(reminderId: string): number | undefined {
    return this.queue.dueOf(reminderId);
  }

  /** The reminder's zone, for formatting its instants; undefined when unknown. */
  zoneOf(reminderId: string): string | undefined {
    return this.plans.get(reminderId)?.definition.schedule.zone;
  }

  /**
   * Up to `count` occurrences of the reminder's schedule at or after `from` (epoch ms), as ISO
   * instants with the offset of its zone (`GET /api/v1/reminders/:id/occurrences`); undefined
   * when the reminder is unknown. Occurrences are the rule's, whatever was done or snoozed.
   */
  occurrences(reminderId: string, from: number, count: number): string[] | undefined {
    const plan = this.plans.get(reminderId);
    if (!plan) return undefined;
    const { schedule } = plan.definition;
    if (schedule.kind === 'once') {
      return schedule.at >= from && count > 0 ? [formatInZone(schedule.at, schedule.zone)] : [];
    }
    if (schedule.kind === 'cron') {
      const found: string[] = [];
      for (let at = from - 1; found.length < Math.min(count, 1000);) {
        const next = cronNextAfter(schedule.expression, schedule.zone, at);
        if (next === undefined) break;
        found.push(formatInZone(next, schedule.zone));
        at = next;
      }
      return found;
    }
    try {
      return nextOccurrences(
        { rrule: schedule.rrule, start: schedule.start },
        from - 1,
        schedule.zone,
        count,
      ).map((instant) => formatInZone(instant, schedule.zone));
    } catch (error) {
      if (error instanceof RecurrenceInputError) return [];
      throw error;
    }
  }

  schedulerStatus(): StatusResponse['scheduler'] {
    const next = this.queue.peek();
    const zone = next ? this.zoneOf(next.id) : undefined;
    return {
      reminders: this.queue.size,
      next_fire: next && zone ? formatInZone(next.due, zone) : null,
    };
  }

  /**
   * The missed/attention list: unresolved tokens first (current, from the source, by path and
   * line), then missed occurrences, newest first. `offset`/`limit` page through both.
   */
  async missed(offset: number, limit: number): Promise<{ items: MissedItem[]; total: number }> {
    const unresolved = [...(await this.source.unresolved()), ...this.rejected.values()].sort(
      (a, b) =>
        a.path.localeCompare(b.path) ||
        (a.line ?? 0) - (b.line ?? 0) ||
        compareCodeUnits(a.id, b.id),
    );
    const items: MissedItem[] = [];
    for (const entry of unresolved.slice(offset, offset + limit)) {
      items.push({ kind: 'unresolved', ...entry });
    }
    const rowsOffset = Math.max(0, offset - unresolved.length);
    const rowsWanted = limit - items.length;
    if (rowsWanted > 0) {
      for (const row of this.log.missed(rowsOffset, rowsWanted))
        items.push({ kind: 'expired', ...row });
    }
    return { items, total: unresolved.length + this.log.missedCount() };
  }

  /** Resolves once no pass is running (for tests and benchmarks driving a manual timer). */
  async whenIdle(): Promise<void> {
    while (this.pass) await this.pass;
  }

  /** Delivery rows by state, for tests and diagnostics. */
  deliveryCounts(): ReturnType<DeliveryLog['stateCounts']> {
    return this.log.stateCounts();
  }

  // -------------------------------------------------------------------------------------------
  // Plan

  /**
   * Takes definitions into the plan. With `complete`, the list is the whole vault: reminders
   * missing from it are forgotten.
   */
  private applyDefinitions(
    definitions: readonly ScheduledDefinition[],
    { complete }: { complete: boolean },
  ): void {
    const now = this.clock.now();
    const fresh: { id: string; highWater: number }[] = [];
    const pastDue: MissedRow[] = [];
    const seen = complete ? new Set<string>() : undefined;
    for (const definition of definitions) {
      const known = this.plans.get(definition.id);
      // A full re-plan after a rescan mostly sees unchanged reminders: keep their plan (checking
      // and expanding a rule is the expensive part) and their place in the queue.
      if (known && sameDefinition(known.definition, definition)) {
        seen?.add(definition.id);
        continue;
      }
      const problem = definitionProblem(definition);
      const id = typeof definition.id === 'string' ? definition.id : '';
      seen?.add(id);
      if (problem === undefined) this.noticeCompletion(definition, known);
      if (problem !== undefined) {
        this.forget(id);
        this.rejected.set(id, {
          id,
          title: typeof definition.title === 'string' ? definition.title : '',
          path: typeof definition.path === 'string' ? definition.path : '',
          ...(Number.isInteger(definition.line) ? { line: definition.line } : {}),
          detail: problem,
        });
        continue;
      }
      this.rejected.delete(id);
      const plan = new FireTimes(definition, this.actions.get(id));
      this.plans.set(id, plan);
      let highWater = this.highWaters.get(id);
      if (highWater === undefined) {
        highWater = Math.max(this.epoch, (this.coverageStart ?? now) - this.lookbackMs);
        this.highWaters.set(id, highWater);
        fresh.push({ id, highWater });
        // A one-off already past when first seen would never fire: list it instead of letting
        // it vanish. Not on a database's first start: the plugin fired those before pairing.
        const past =
          !this.firstLoad && definition.schedule.kind === 'once'
            ? plan.latestIn(Number.NEGATIVE_INFINITY, highWater)
            : undefined;
        if (past !== undefined)
          pastDue.push({ ...missedRow(definition, past), reason: 'past_due' });
      }
      this.queue.set(id, plan.nextAfter(highWater));
    }
    if (seen) {
      for (const id of [...this.plans.keys()]) if (!seen.has(id)) this.forget(id);
      for (const id of [...this.rejected.keys()]) if (!seen.has(id)) this.rejected.delete(id);
    }
    this.log.addReminders(fresh, now);
    this.log.listAsMissed(pastDue, now);
  }

  /** Drops a reminder from the plan; its high-water mark stays (in memory and on disk). */
  private forget(id: string): void {
    this.plans.delete(id);
    this.rejected.delete(id);
    this.queue.delete(id);
  }

  private putAction(reminderId: string, occurrence: number, action: OccurrenceAction): void {
    if (!Number.isFinite(occurrence)) throw new RangeError('occurrence is not an instant');
    this.log.putAction(reminderId, occurrence, action, this.clock.now());
    let actions = this.actions.get(reminderId);
    if (!actions) {
      actions = new Map();
      this.actions.set(reminderId, actions);
    }
    actions.set(occurrence, action);
    const plan = this.plans.get(reminderId);
    if (plan) {
      const refreshed = new FireTimes(plan.definition, actions);
      this.plans.set(reminderId, refreshed);
      this.queue.set(
        reminderId,
        refreshed.nextAfter(this.highWaters.get(reminderId) ?? this.epoch),
      );
      this.rearm();
    }
  }

  // -------------------------------------------------------------------------------------------
  // Timer and passes

  private assertRunning(what: string): void {
    if (this.state !== 'running') throw new Error(`scheduler: ${what}() called when ${this.state}`);
  }

  /** Re-arms the timer for the new earliest time, or runs a pass now if something is due. */
  private rearm(): void {
    if (this.state !== 'running') return;
    if (this.pass) {
      this.passAgain = true;
      return;
    }
    const wake = this.wakeAt();
    if (wake !== undefined && wake <= this.clock.now()) void this.runPass();
    else this.arm();
  }

  private wakeAt(): number | undefined {
    const due = this.queue.peek()?.due;
    const retry = this.log.nextAttemptAt();
    if (due === undefined) return retry;
    if (retry === undefined) return due;
    return Math.min(due, retry);
  }

  private arm(): void {
    if (this.handle !== undefined) this.timer.clear(this.handle);
    this.handle = undefined;
    if (this.state !== 'running') return;
    const now = this.clock.now();
    const wake = this.failedPasses > 0 ? undefined : this.wakeAt();
    const delay =
      this.failedPasses > 0
        ? Math.min(MAX_SLEEP_MS, 1_000 * 2 ** Math.min(this.failedPasses - 1, 20))
        : wake === undefined
          ? MAX_SLEEP_MS
          : Math.min(MAX_SLEEP_MS, Math.max(0, wake - now));
    this.handle = this.timer.set(() => {
      this.handle = undefined;
      void this.runPass();
    }, delay);
  }

  /**
   * Remembers that the scheduler was running at `now` (read on the next start, see
   * {@link SYNC_LAG_MS}). Written at most every {@link ALIVE_WRITE_INTERVAL_MS}, and on stop:
   * each write is an fsync, and a mark that is a little old only lets a reminder first seen
   * at the next start catch up a little further back.
   */
  private markAlive(now: number, force = false): void {
    if (!force && now - this.aliveWrittenAt < ALIVE_WRITE_INTERVAL_MS) return;
    this.log.setMeta('alive_at', now);
    this.aliveWrittenAt = now;
  }

  /** At most once a day: history older than {@link HISTORY_DAYS} is dropped (see `DeliveryLog.prune`). */
  private pruneHistory(now: number): void {
    if (now - this.prunedAt < 86_400_000) return;
    this.prunedAt = now;
    const before = now - HISTORY_DAYS * 86_400_000;
    const pruned = this.log.prune(before);
    for (const [reminderId, actions] of this.actions) {
      for (const [occurrence, action] of actions) {
        if (occurrence < before && (action.kind === 'done' || action.until < before)) {
          actions.delete(occurrence);
        }
      }
      if (actions.size === 0) this.actions.delete(reminderId);
    }
    if (pruned.deliveries + pruned.actions + pruned.missed > 0) {
      this.logger.info(pruned, `dropped reminder delivery history older than ${HISTORY_DAYS} days`);
    }
  }

  /** Runs passes until nothing more is due; one at a time. */
  private runPass(): Promise<void> {
    if (this.pass) {
      this.passAgain = true;
      return this.pass;
    }
    const work = async (): Promise<void> => {
      try {
        do {
          this.passAgain = false;
          if (this.state !== 'running') return;
          const now = this.clock.now();
          this.markAlive(now);
          this.pruneHistory(now);
          await this.resendPending(now);
          await this.fireDue(now);
          const wake = this.wakeAt();
          if (wake !== undefined && wake <= this.clock.now()) this.passAgain = true;
        } while (this.passAgain);
        this.failedPasses = 0;
      } catch (error) {
        // A database error (disk full) must not kill the loop silently, nor spin on it: log,
        // and try again after a growing pause. Nothing was half-done: every step is one
        // transaction.
        this.failedPasses += 1;
        this.logger.error(
          { err: error, failedPasses: this.failedPasses },
          'scheduler pass failed; retrying after a pause',
        );
      } finally {
        this.pass = undefined;
        this.arm();
      }
    };
    this.pass = work();
    return this.pass;
  }

  /** Claimed rows a crash interrupted, and retries whose time has come. */
  private async resendPending(now: number): Promise<void> {
    for (;;) {
      const pending = this.log.pending(now, CLAIM_BATCH);
      if (pending.length === 0) return;
      const sends: Send[] = [];
      for (const row of pending) {
        if (row.attempts >= MAX_DELIVERY_ATTEMPTS) {
          this.log.giveUp(row, `gave up after ${row.attempts} attempts`, undefined, now);
          this.metrics.delivery('failed');
          continue;
        }
        if (now - row.occurrence > this.graceMs) {
          // Interrupted or retried past its usefulness: list it, like any missed occurrence.
          const definition = this.plans.get(row.reminderId)?.definition;
          this.log.giveUp(
            row,
            'older than the grace window before it could be delivered',
            definition ? missedRow(definition, row.occurrence) : undefined,
            now,
          );
          this.metrics.delivery('failed');
          continue;
        }
        sends.push({
          reminderId: row.reminderId,
          occurrence: row.occurrence,
          deviceId: row.deviceId,
          ttlSeconds: row.ttlSeconds,
          topic: row.topic,
          payload: JSON.parse(row.payload) as PushPayload,
          attempts: row.attempts,
        });
      }
      await this.sendAll(sends);
      if (pending.length < CLAIM_BATCH || this.state !== 'running') return;
    }
  }

  /** Every reminder due at `now`: claim (in batches, one transaction each), then send. */
  private async fireDue(now: number): Promise<void> {
    const first = this.queue.peek();
    if (!first || first.due > now) return;
    // Read once, before planning: nothing may change the queue between a peek and its step.
    const devices = await this.deliverer.subscriptions();
    while (this.state === 'running') {
      const sends: Send[] = [];
      const steps: PlanStep[] = [];
      const undo: Array<{ id: string; highWater: number | undefined; due: number }> = [];
      for (let top = this.queue.peek(); top && top.due <= now && steps.length < CLAIM_BATCH;) {
        const plan = this.plans.get(top.id);
        if (!plan) {
          this.queue.delete(top.id);
        } else {
          const step = this.planStep(plan, top.due, now, devices);
          steps.push(step.log);
          undo.push({ id: top.id, highWater: this.highWaters.get(top.id), due: top.due });
          this.highWaters.set(top.id, step.highWater);
          this.queue.set(top.id, plan.nextAfter(step.highWater));
          if (step.claim) sends.push(...step.sends);
        }
        top = this.queue.peek();
      }
      if (steps.length === 0) return;
      let created: Set<string>;
      try {
        created = this.log.advanceAll(steps);
      } catch (error) {
        // Not committed: put the plan back as it was, so the next pass tries these again.
        for (const entry of undo.reverse()) {
          if (entry.highWater === undefined) this.highWaters.delete(entry.id);
          else this.highWaters.set(entry.id, entry.highWater);
          if (this.plans.has(entry.id)) this.queue.set(entry.id, entry.due);
        }
        throw error;
      }
      await this.sendAll(sends.filter((send) => created.has(deliveryKey(send))));
    }
  }

  /**
   * What to do for one reminder due at `now`: which fire time fires (if any), which are listed
   * as missed, and the new high-water mark. See the catch-up policy above.
   */
  private planStep(
    plan: FireTimes,
    due: number,
    now: number,
    devices: readonly { readonly id: string }[],
  ): {
    highWater: number;
    claim?: OccurrenceClaim;
    sends: Send[];
    log: PlanStep;
  } {
    const id = plan.definition.id;
    const above = this.highWaters.get(id) ?? this.epoch;
    const second = plan.nextAfter(due);
    const latest = second !== undefined && second <= now ? (plan.latestIn(above, now) ?? due) : due;
    const fires = now - latest <= this.graceMs;

    const missedTimes: number[] = [];
    const oldestYoung = now - this.graceMs;
    if (due < oldestYoung) {
      let cursor: number | undefined = fires
        ? plan.latestIn(above, Math.min(latest - 1, oldestYoung - 1))
        : latest;
      while (cursor !== undefined && missedTimes.length < MISSED_PER_REMINDER) {
        missedTimes.push(cursor);
        cursor = cursor > due ? plan.latestIn(above, cursor - 1) : undefined;
      }
      if (cursor !== undefined) {
        this.logger.warn(
          { listed: missedTimes.length },
          'reminder missed more occurrences than are listed; the oldest are not',
        );
      }
    }
    const { definition } = plan;
    const missed = missedTimes.map((occurrence) => missedRow(definition, occurrence));

    if (!fires) {
      return {
        highWater: latest,
        sends: [],
        log: { reminderId: id, highWater: latest, missed, now },
      };
    }
    const payload = this.payloadFor(definition, latest);
    const ttlSeconds = Math.max(60, Math.floor(Math.min(this.graceMs, 86_400_000) / 1000));
    // The reminder id: repeats of one reminder replace each other at the push service.
    const topic = id;
    const claim: OccurrenceClaim = {
      reminderId: id,
      occurrence: latest,
      deviceIds: devices.map((device) => device.id),
      ttlSeconds,
      topic,
      payload: JSON.stringify(payload),
    };
    const sends = claim.deviceIds.map((deviceId) => ({
      reminderId: id,
      occurrence: latest,
      deviceId,
      ttlSeconds,
      topic,
      payload,
      attempts: 0,
    }));
    return {
      highWater: latest,
      claim,
      sends,
      log: { reminderId: id, highWater: latest, missed, claim, now },
    };
  }

  private payloadFor(definition: ScheduledDefinition, occurrence: number): PushPayload {
    const zone = definition.schedule.zone;
    const local = formatWall(instantToWall(occurrence, zone)).slice(0, 16).replace('T', ' ');
    const title =
      definition.title.length > MAX_PUSH_TITLE_CHARS
        ? `${definition.title.slice(0, MAX_PUSH_TITLE_CHARS - 1)}…`
        : definition.title;
    return {
      title: title.trim() === '' ? 'Reminder' : title,
      body: `${local} · ${definition.path}`,
      reminder_id: definition.id,
      occurrence: formatInZone(occurrence, zone),
      deep_link: definition.deepLink,
      actions: [...PUSH_ACTIONS],
    };
  }

  /** Sends with bounded concurrency; each outcome is committed as soon as it arrives. */
  private async sendAll(sends: readonly Send[]): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < sends.length) {
        const send = sends[next++]!;
        await this.sendOne(send);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SEND_WINDOW, sends.length) }, () => worker()));
  }

  private async sendOne(send: Send): Promise<void> {
    const handedAt = this.clock.now();
    if (send.attempts === 0) this.metrics.fireLag(handedAt - send.occurrence);
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.deliverer.deliver({
        subscriptionId: send.deviceId,
        payload: send.payload,
        // What is left of the grace window: a reminder that arrives later than that is noise.
        ttlSeconds: Math.max(
          MIN_TTL_SECONDS,
          Math.min(send.ttlSeconds, Math.floor((send.occurrence + this.graceMs - handedAt) / 1000)),
        ),
        topic: send.topic,
        urgency: 'high',
        attempt: send.attempts + 1,
      });
    } catch (error) {
      // The port says deliverers answer outcomes; a throw is treated as a transient failure.
      outcome = { kind: 'retry', reason: (error as Error).message };
    }
    const now = this.clock.now();
    const key = {
      reminderId: send.reminderId,
      occurrence: send.occurrence,
      deviceId: send.deviceId,
    };
    const attempt = send.attempts + 1;
    if (outcome.kind === 'retry' && attempt >= MAX_DELIVERY_ATTEMPTS) {
      outcome = { kind: 'failed', reason: `gave up after ${attempt} attempts: ${outcome.reason}` };
    }
    const retryAt =
      outcome.kind === 'retry'
        ? now + retryDelayMs(attempt, outcome.retryAfterMs, this.random)
        : undefined;
    this.metrics.delivery(outcome.kind);
    await this.commitOutcome({ key, outcome, now, ...(retryAt === undefined ? {} : { retryAt }) });
  }

  /**
   * Group commit: outcomes that arrive in the same event-loop turn are written in one
   * transaction (one fsync instead of one per device). It adds at most one turn to the window
   * in which an accepted message is not yet marked sent; resolves once the batch is on disk.
   * If the write fails the rows stay claimed and are sent again later: a duplicate, never a loss.
   */
  private commitOutcome(entry: RecordedOutcome): Promise<void> {
    this.outcomeBatch.push(entry);
    this.outcomeFlush ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        const batch = this.outcomeBatch;
        this.outcomeBatch = [];
        this.outcomeFlush = undefined;
        try {
          this.log.recordOutcomes(batch);
        } catch (error) {
          this.logger.error(
            { err: error, deliveries: batch.length },
            'could not record delivery outcomes; they will be sent again',
          );
        }
        resolve();
      });
    });
    return this.outcomeFlush;
  }
}

export type MissedItem =
  | ({ readonly kind: 'unresolved' } & UnresolvedReminder)
  | ({ readonly kind: 'expired' } & MissedRow);

function sameDefinition(a: ScheduledDefinition, b: ScheduledDefinition): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function missedRow(definition: ScheduledDefinition, occurrence: number): MissedRow {
  return {
    reminderId: definition.id,
    occurrence,
    title: definition.title,
    path: definition.path,
    ...(definition.line === undefined ? {} : { line: definition.line }),
    zone: definition.schedule.zone,
  };
}

/**
 * The id the same task line had unchecked: a line without a block id is identified by its path
 * and text (shared/reminders/inline-reminders.ts), which checking its box changes.
 */
function uncheckedTwin(definition: ScheduledDefinition): string {
  const prefix = `${definition.path}::`;
  if (definition.line === undefined || !definition.id.startsWith(prefix)) return definition.id;
  return prefix + definition.id.slice(prefix.length).replace(TASK_BOX_CHECKED, '$1[ ]');
}

const TASK_BOX_CHECKED = /^(\s*(?:[-*+]|\d+[.)])\s+)\[[xX]\]/;
