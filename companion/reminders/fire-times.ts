import {
  nextOccurrences,
  previousOccurrence,
  RecurrenceInputError,
} from '../../shared/reminders/recurrence';
import { cronLatestAtOrBefore, cronNextAfter } from '../../shared/tasks/cron-schedule';
import type { ScheduledDefinition } from './reminder-definition';

/**
 * What the companion itself remembers about single occurrences (docs/vault-format.md: snoozing one
 * occurrence of a recurring reminder is delivery state in the companion): `done` skips that
 * occurrence, `snoozed` skips it and fires at `until` instead.
 */
export type OccurrenceAction =
  { readonly kind: 'done' } | { readonly kind: 'snoozed'; readonly until: number };

/** Occurrence instant → what was done to it. */
export type OccurrenceActions = ReadonlyMap<number, OccurrenceAction>;

const NO_ACTIONS: OccurrenceActions = new Map();

/** Occurrences fetched per call while skipping ones marked done or snoozed. */
const BATCH = 16;
/** How many consecutive skipped occurrences are walked before giving up (a guard, never hit in use). */
const MAX_SKIPPED = 10_000;

/**
 * The instants at which one reminder fires, in order: its rule's occurrences (or its one
 * instant), minus those the companion marked done or snoozed, minus those swallowed by the
 * front-matter `snoozed_until`, plus `snoozed_until` itself and every companion snooze's end.
 * "Fire times" rather than "occurrences" because a snooze's end is a time to fire that is no
 * occurrence of the rule; it is keyed in the delivery log by its own instant.
 *
 * Pure: no clock, no database. Never throws for a broken rule (the source should have listed
 * it as unresolved; here it simply never fires).
 */
export class FireTimes {
  private readonly actions: OccurrenceActions;

  constructor(
    readonly definition: ScheduledDefinition,
    actions: OccurrenceActions = NO_ACTIONS,
  ) {
    this.actions = actions;
  }

  /** False for done/cancelled reminders and checked tasks: they never fire. */
  get active(): boolean {
    return this.definition.status === 'active' && !this.definition.taskChecked;
  }

  /** The last `nextAfter` question and answer: the scheduler asks the same one twice per fire. */
  private memo: { after: number; next: number | undefined } | undefined;

  /** The earliest fire time strictly after `after`, or undefined when nothing is left. */
  nextAfter(after: number): number | undefined {
    if (this.memo?.after === after) return this.memo.next;
    const next = this.computeNextAfter(after);
    this.memo = { after, next };
    return next;
  }

  private computeNextAfter(after: number): number | undefined {
    if (!this.active) return undefined;
    let best = this.nextOccurrenceAfter(after);
    for (const extra of this.extraTimes()) {
      if (extra > after && (best === undefined || extra < best)) best = extra;
    }
    return best;
  }

  /** The latest fire time in `(above, atOrBefore]`, or undefined. */
  latestIn(above: number, atOrBefore: number): number | undefined {
    if (!this.active || atOrBefore <= above) return undefined;
    let best = this.latestOccurrenceIn(above, atOrBefore);
    for (const extra of this.extraTimes()) {
      if (extra > above && extra <= atOrBefore && (best === undefined || extra > best)) {
        best = extra;
      }
    }
    return best;
  }

  /** `snoozed_until` from the note and the ends of the companion's own snoozes. */
  private *extraTimes(): Generator<number> {
    if (this.definition.snoozedUntil !== undefined) yield this.definition.snoozedUntil;
    for (const action of this.actions.values()) {
      if (action.kind === 'snoozed') yield action.until;
    }
  }

  /** Occurrences at or before the front-matter snooze are replaced by it. */
  private get swallowedThrough(): number {
    return this.definition.snoozedUntil ?? Number.NEGATIVE_INFINITY;
  }

  private skipped(occurrence: number): boolean {
    return occurrence <= this.swallowedThrough || this.actions.has(occurrence);
  }

  private nextOccurrenceAfter(after: number): number | undefined {
    const { schedule } = this.definition;
    if (schedule.kind === 'once') {
      return schedule.at > after && !this.skipped(schedule.at) ? schedule.at : undefined;
    }
    let cursor = Math.max(after, this.swallowedThrough);
    if (schedule.kind === 'cron') {
      for (let walked = 0; walked < MAX_SKIPPED; walked++) {
        const found = cronNextAfter(schedule.expression, schedule.zone, cursor);
        if (found === undefined || !this.skipped(found)) return found;
        cursor = found;
      }
      return undefined;
    }
    for (let walked = 0; walked < MAX_SKIPPED; walked += BATCH) {
      const batch = this.expand(() =>
        nextOccurrences(
          { rrule: schedule.rrule, start: schedule.start },
          cursor,
          schedule.zone,
          BATCH,
        ),
      );
      if (batch === undefined) return undefined;
      for (const occurrence of batch) {
        if (!this.skipped(occurrence)) return occurrence;
      }
      if (batch.length < BATCH) return undefined;
      cursor = batch[batch.length - 1]!;
    }
    return undefined;
  }

  private latestOccurrenceIn(above: number, atOrBefore: number): number | undefined {
    const { schedule } = this.definition;
    if (schedule.kind === 'once') {
      const at = schedule.at;
      return at > above && at <= atOrBefore && !this.skipped(at) ? at : undefined;
    }
    let cursor = atOrBefore;
    for (let walked = 0; walked < MAX_SKIPPED; walked++) {
      const found =
        schedule.kind === 'cron'
          ? cronLatestAtOrBefore(schedule.expression, schedule.zone, cursor)
          : this.expand(() =>
              previousOccurrence(
                { rrule: schedule.rrule, start: schedule.start },
                cursor,
                schedule.zone,
              ),
            );
      if (found === undefined || found <= above) return undefined;
      if (!this.skipped(found)) return found;
      cursor = found - 1;
    }
    return undefined;
  }

  private expand<T>(work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      if (error instanceof RecurrenceInputError) return undefined;
      throw error;
    }
  }
}
