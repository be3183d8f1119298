import type { Clock } from '../../shared/ports';
import type { StatusResponse } from '../../shared/protocol/status';
import { formatInZone } from '../../shared/reminders';
import type { SqliteDatabase } from '../db/open';
import { ApiHttpError } from '../http/api-error';
import { definitionProblem } from './check-definition';
import { DeliveryLog } from './delivery-log';
import { FireTimes } from './fire-times';
import type { OccurrenceAction } from './fire-times';
import type { ReminderPlan } from './reminder-service';
import type { VaultReminderSource } from './vault-reminder-source';

/**
 * The reminders' plan while no companion runs, for the command line (`cairn-companion remind`,
 * `reminders`): it reads the delivery state the last companion left (done occurrences, snoozes,
 * the missed list) and computes fire times from the vault on demand, but arms no timer, delivers
 * nothing and writes no delivery state (the missed list is the running companion's alone). A second scheduler beside a stopped one would decide
 * what the next start catches up on (its high-water marks); this one leaves that to the
 * companion. Re-planning is nothing to do (every answer is computed from the source as it is);
 * actions on an occurrence (snooze, done, dismiss) answer 503: they are delivery state, which
 * only the running companion keeps.
 */
export class ReadOnlyReminderPlan implements ReminderPlan {
  private readonly log: DeliveryLog;
  private readonly actions: Map<string, Map<number, OccurrenceAction>>;
  private readonly highWaters: Map<string, number>;

  constructor(
    db: SqliteDatabase,
    private readonly source: VaultReminderSource,
    private readonly clock: Clock,
  ) {
    this.log = new DeliveryLog(db);
    this.actions = this.log.actions();
    this.highWaters = this.log.highWaters();
  }

  replan(): Promise<void> {
    return Promise.resolve();
  }

  /** The first fire time after now: occurrences marked done are skipped, snoozes count. */
  nextFire(reminderId: string): number | undefined {
    return this.fireTimes(reminderId)?.nextAfter(this.clock.now());
  }

  /** Whether the last companion recorded the occurrence done (delivery state). */
  isDone(reminderId: string, occurrence: number): boolean {
    return this.actions.get(reminderId)?.get(occurrence)?.kind === 'done';
  }

  pendingSnooze(reminderId: string): number | undefined {
    const handled = this.highWaters.get(reminderId) ?? this.clock.now();
    let earliest: number | undefined;
    for (const action of this.actions.get(reminderId)?.values() ?? []) {
      if (action.kind !== 'snoozed' || action.until <= handled) continue;
      if (earliest === undefined || action.until < earliest) earliest = action.until;
    }
    return earliest;
  }

  fireTimesAround(
    reminderId: string,
    now: number,
  ): { latest: number | undefined; next: number | undefined } | undefined {
    const plan = this.fireTimes(reminderId);
    if (!plan) return undefined;
    return { latest: plan.latestIn(Number.NEGATIVE_INFINITY, now), next: plan.nextAfter(now) };
  }

  occurrences(): string[] | undefined {
    throw companionNeeded('listing occurrences');
  }

  snoozeOccurrence(): never {
    throw companionNeeded('snoozing');
  }

  completeOccurrence(): void {
    throw companionNeeded('marking an occurrence done');
  }

  dismissMissed(): boolean {
    throw companionNeeded('dismissing a missed reminder');
  }

  /** What a companion started now would have scheduled: active reminders with a time ahead. */
  schedulerStatus(): StatusResponse['scheduler'] {
    const now = this.clock.now();
    let reminders = 0;
    let first: { at: number; zone: string } | undefined;
    for (const definition of this.source.all().reminders) {
      if (definitionProblem(definition) !== undefined) continue;
      const next = new FireTimes(definition, this.actions.get(definition.id)).nextAfter(now);
      if (next === undefined) continue;
      reminders += 1;
      if (!first || next < first.at) first = { at: next, zone: definition.schedule.zone };
    }
    return { reminders, next_fire: first ? formatInZone(first.at, first.zone) : null };
  }

  private fireTimes(reminderId: string): FireTimes | undefined {
    const [definition] = this.source.get([reminderId]);
    if (definition === undefined || definitionProblem(definition) !== undefined) return undefined;
    return new FireTimes(definition, this.actions.get(reminderId));
  }
}

function companionNeeded(what: string): ApiHttpError {
  return new ApiHttpError(
    'UNAVAILABLE',
    `${what} needs the running companion (it keeps the delivery state); start it and try again`,
  );
}
