/**
 * Fires reminders while Obsidian is open and no companion is paired (docs/delivery.md): one timer to
 * the next due instant (never longer than an hour, so sleep and clock jumps are caught), a
 * catch-up on start (occurrences younger than the grace window fire once, older one-offs are
 * listed as missed), and a persisted set of what fired so a restart never fires twice.
 *
 * Checked tasks, done/cancelled notes and past one-offs never fire (`nextFire` says so). While a
 * reachable companion is paired it fires there: occurrences that come due are only recorded as
 * seen, so unpairing later does not replay them. A burst of due occurrences of one recurring
 * reminder (a laptop that slept through an hourly rule) fires once, for the latest.
 */
import type { Clock } from '../../shared/ports';
import { nextFire, scheduleStartInstant } from '../../shared/reminders';
import type { VaultReminderEntry } from './vault-reminder-entries';

export interface SchedulerTimers {
  set(callback: () => void, delayMs: number): number;
  clear(handle: number): void;
}

/** Where the fired occurrence keys live between sessions (a file in the plugin's folder). */
export interface FiredReminderStore {
  load(): Promise<readonly string[]>;
  save(keys: readonly string[]): Promise<void>;
}

export interface ReminderNotifier {
  notify(entry: VaultReminderEntry, occurrence: number): void;
}

export interface LocalSchedulerOptions {
  clock: Clock;
  timers: SchedulerTimers;
  store: FiredReminderStore;
  notifier: ReminderNotifier;
  /** True while a companion is paired and reachable: it fires, not the plugin. */
  isPaired: () => boolean;
  /** Occurrences older than this on start are missed, not fired. Default 24 h. */
  graceMs?: number;
  /** Longest sleep between checks. Default 1 h. */
  maxSleepMs?: number;
  onError?: (message: string) => void;
}

export interface MissedReminder {
  entry: VaultReminderEntry;
  occurrence: number;
}

export const DEFAULT_GRACE_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** Missed one-offs are listed for a week past the grace window; fired keys kept a day longer. */
const MISSED_LOOKBACK_MS = 7 * 24 * HOUR_MS;
const FIRED_RETENTION_MS = MISSED_LOOKBACK_MS + DEFAULT_GRACE_MS + 24 * HOUR_MS;

export function firedKey(entry: VaultReminderEntry, occurrence: number): string {
  return `${entry.id}@${occurrence}`;
}

export class LocalReminderScheduler {
  private readonly files = new Map<string, readonly VaultReminderEntry[]>();
  private readonly fired = new Map<string, number>();
  private timer: number | null = null;
  private started = false;
  private stopped = false;
  private readonly graceMs: number;
  private readonly maxSleepMs: number;

  constructor(private readonly options: LocalSchedulerOptions) {
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.maxSleepMs = options.maxSleepMs ?? HOUR_MS;
  }

  /** Loads what fired before, takes the vault's reminders, catches up and arms the timer. */
  async start(files: Iterable<readonly [string, readonly VaultReminderEntry[]]>): Promise<void> {
    let keys: readonly string[] = [];
    try {
      keys = await this.options.store.load();
    } catch (error) {
      this.report(`could not read which reminders already fired: ${messageOf(error)}`);
    }
    if (this.stopped) return;
    for (const key of keys) {
      const at = Number(key.slice(key.lastIndexOf('@') + 1));
      if (typeof key === 'string' && Number.isFinite(at)) this.fired.set(key, at);
    }
    for (const [path, entries] of files) this.files.set(path, entries);
    this.started = true;
    this.tick();
  }

  /** A file's reminders changed (or appeared). */
  setFile(path: string, entries: readonly VaultReminderEntry[]): void {
    if (entries.length === 0) this.files.delete(path);
    else this.files.set(path, entries);
    this.rearm();
  }

  removeFile(path: string): void {
    if (this.files.delete(path)) this.rearm();
  }

  renameFile(oldPath: string, newPath: string): void {
    const entries = this.files.get(oldPath);
    if (entries === undefined) return;
    this.files.delete(oldPath);
    this.files.set(
      newPath,
      entries.map((entry) => ({ ...entry, path: newPath })),
    );
  }

  /** One file's reminders (empty when it has none). */
  entriesOf(path: string): readonly VaultReminderEntry[] {
    return this.files.get(path) ?? [];
  }

  entries(): VaultReminderEntry[] {
    return [...this.files.values()].flat();
  }

  /** Fires what is due now and re-arms; the timer calls this, tests may too. */
  tick(): void {
    if (!this.started || this.stopped) return;
    const now = this.options.clock.now();
    const paired = this.options.isPaired();
    let changed = false;
    for (const entry of this.entries()) {
      const due = this.dueOccurrences(entry, now);
      const unfired = due.filter((at) => !this.fired.has(firedKey(entry, at)));
      if (unfired.length === 0) continue;
      for (const at of unfired) this.fired.set(firedKey(entry, at), at);
      changed = true;
      if (paired) continue;
      const latest = unfired[unfired.length - 1]!;
      try {
        this.options.notifier.notify(entry, latest);
      } catch (error) {
        this.report(`could not show reminder "${entry.title}": ${messageOf(error)}`);
      }
    }
    if (changed) this.persist(now);
    this.arm(now);
  }

  /** One-off reminders that came due while Obsidian was closed, too long ago to fire. */
  missed(): MissedReminder[] {
    const now = this.options.clock.now();
    const missed: MissedReminder[] = [];
    for (const entry of this.entries()) {
      if (entry.schedule.kind !== 'once' || entry.status !== 'active') continue;
      if (entry.taskState === 'checked') continue;
      const at = entry.snoozedUntil ?? safeStart(entry);
      if (at === null || at > now - this.graceMs || at < now - this.graceMs - MISSED_LOOKBACK_MS) {
        continue;
      }
      if (!this.fired.has(firedKey(entry, at))) missed.push({ entry, occurrence: at });
    }
    return missed.sort((a, b) => b.occurrence - a.occurrence);
  }

  /** Upcoming fires after now, soonest first. */
  upcoming(limit = 50): Array<{ entry: VaultReminderEntry; next: number }> {
    const now = this.options.clock.now();
    const upcoming: Array<{ entry: VaultReminderEntry; next: number }> = [];
    for (const entry of this.entries()) {
      const next = safeNextFire(entry, now);
      if (next !== null) upcoming.push({ entry, next });
    }
    upcoming.sort((a, b) => a.next - b.next || a.entry.title.localeCompare(b.entry.title));
    return upcoming.slice(0, limit);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.options.timers.clear(this.timer);
    this.timer = null;
  }

  private dueOccurrences(entry: VaultReminderEntry, now: number): number[] {
    const due: number[] = [];
    let after = now - this.graceMs;
    // A minutely rule in a 24 h window is 1,440 occurrences; the cap bounds a pathological rule.
    for (let guard = 0; guard < 2_000; guard++) {
      const at = safeNextFire(entry, after);
      if (at === null || at > now) break;
      due.push(at);
      after = at;
    }
    return due;
  }

  private rearm(): void {
    if (!this.started || this.stopped) return;
    // A change can make something due right now (a token typed for a minute ago is past, but
    // a snooze may land inside the window), so check before sleeping.
    this.tick();
  }

  private arm(now: number): void {
    if (this.timer !== null) this.options.timers.clear(this.timer);
    let next = now + this.maxSleepMs;
    for (const entry of this.entries()) {
      const at = safeNextFire(entry, now);
      if (at !== null && at < next) next = at;
    }
    this.timer = this.options.timers.set(
      () => {
        this.timer = null;
        this.tick();
      },
      Math.max(0, next - now),
    );
  }

  private persist(now: number): void {
    for (const [key, at] of this.fired) {
      if (at < now - FIRED_RETENTION_MS) this.fired.delete(key);
    }
    this.options.store.save([...this.fired.keys()]).catch((error: unknown) => {
      this.report(`could not record fired reminders: ${messageOf(error)}`);
    });
  }

  private report(message: string): void {
    this.options.onError?.(message);
  }
}

function safeNextFire(entry: VaultReminderEntry, after: number): number | null {
  try {
    return nextFire(
      entry.schedule,
      {
        status: entry.status,
        taskState: entry.taskState,
        ...(entry.snoozedUntil === undefined ? {} : { snoozedUntil: entry.snoozedUntil }),
      },
      after,
    );
  } catch {
    return null;
  }
}

function safeStart(entry: VaultReminderEntry): number | null {
  try {
    return scheduleStartInstant(entry.schedule);
  } catch {
    return null;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
