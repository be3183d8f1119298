import type { ScheduledDefinition, UnresolvedReminder } from './reminder-definition';

type MaybePromise<T> = T | Promise<T>;

/**
 * Where the scheduler reads the current reminders from (the vault, through the indexer; an
 * in-memory list in tests). The scheduler re-reads what it is told changed (`replan(ids)`), so a
 * source needs no change feed of its own: the indexer calls `replan` after it re-reads a note.
 */
export interface ReminderSource {
  /** Every reminder in the vault now, and every `@remind(...)` that could not be resolved. */
  all(): MaybePromise<{
    readonly reminders: readonly ScheduledDefinition[];
    readonly unresolved: readonly UnresolvedReminder[];
  }>;
  /** The current definitions of these ids; an id that no longer exists is simply absent. */
  get(ids: readonly string[]): MaybePromise<readonly ScheduledDefinition[]>;
  /** Unresolved tokens now (read on each missed-list request, so always current). */
  unresolved(): MaybePromise<readonly UnresolvedReminder[]>;
}

/** A source over a mutable list, for tests, benchmarks and a companion without a vault adapter. */
export class InMemoryReminderSource implements ReminderSource {
  private readonly byId = new Map<string, ScheduledDefinition>();
  private unresolvedList: UnresolvedReminder[] = [];

  constructor(
    reminders: readonly ScheduledDefinition[] = [],
    unresolved: readonly UnresolvedReminder[] = [],
  ) {
    for (const reminder of reminders) this.byId.set(reminder.id, reminder);
    this.unresolvedList = [...unresolved];
  }

  put(...reminders: ScheduledDefinition[]): void {
    for (const reminder of reminders) this.byId.set(reminder.id, reminder);
  }

  remove(...ids: string[]): void {
    for (const id of ids) this.byId.delete(id);
  }

  setUnresolved(unresolved: readonly UnresolvedReminder[]): void {
    this.unresolvedList = [...unresolved];
  }

  all(): { reminders: ScheduledDefinition[]; unresolved: UnresolvedReminder[] } {
    return { reminders: [...this.byId.values()], unresolved: [...this.unresolvedList] };
  }

  get(ids: readonly string[]): ScheduledDefinition[] {
    const found: ScheduledDefinition[] = [];
    for (const id of ids) {
      const reminder = this.byId.get(id);
      if (reminder) found.push(reminder);
    }
    return found;
  }

  unresolved(): UnresolvedReminder[] {
    return [...this.unresolvedList];
  }
}
