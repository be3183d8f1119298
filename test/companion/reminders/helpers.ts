import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import type {
  DeliveryOutcome,
  ReminderDeliverer,
  ReminderDelivery,
} from '../../../companion/push/delivery-port';
import type { ReminderDefinition } from '../../../companion/reminders/reminder-definition';
import { InMemoryReminderSource } from '../../../companion/reminders/reminder-source';
import { ReminderScheduler } from '../../../companion/reminders/scheduler';
import type { TimerHandle, TimerPort } from '../../../companion/reminders/timer';
import { ManualClock } from '../../fakes/clock';

export const HOUR = 3_600_000;
export const MINUTE = 60_000;

/** A timer driven by a ManualClock: nothing fires until the test moves time. */
export class ManualTimer implements TimerPort {
  private readonly pending = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;
  /** Every delay asked for, to check the scheduler sleeps instead of polling. */
  readonly delays: number[] = [];

  constructor(private readonly clock: ManualClock) {}

  set(callback: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.delays.push(delayMs);
    this.pending.set(id, { at: this.clock.now() + delayMs, callback });
    return id as unknown as TimerHandle;
  }

  clear(handle: TimerHandle): void {
    this.pending.delete(handle as unknown as number);
  }

  get armed(): number {
    return this.pending.size;
  }

  /** When the earliest pending timer fires, or undefined. */
  get nextAt(): number | undefined {
    let earliest: number | undefined;
    for (const { at } of this.pending.values()) {
      if (earliest === undefined || at < earliest) earliest = at;
    }
    return earliest;
  }

  /** Moves the clock to `target`, firing every timer due on the way, each at its own time. */
  async advanceTo(target: number, idle: () => Promise<void>): Promise<void> {
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.pending) {
        if (entry[1].at <= target && (next === undefined || entry[1].at < next[1].at)) next = entry;
      }
      if (!next) break;
      this.pending.delete(next[0]);
      if (next[1].at > this.clock.now()) this.clock.advance(next[1].at - this.clock.now());
      next[1].callback();
      await idle();
    }
    if (target > this.clock.now()) this.clock.advance(target - this.clock.now());
    await idle();
  }
}

export interface RecordedDelivery {
  readonly device: string;
  readonly reminderId: string;
  readonly occurrence: string;
  /** Clock time when it was handed over. */
  readonly at: number;
  readonly delivery: ReminderDelivery;
}

/** A deliverer implementing the scheduler's port that records, answering `sent` unless told otherwise. */
export class RecordingDeliverer implements ReminderDeliverer {
  readonly sent: RecordedDelivery[] = [];
  respond: (delivery: ReminderDelivery, attempt: number) => DeliveryOutcome = () => ({
    kind: 'sent',
  });
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly clock: ManualClock,
    public devices: string[] = ['phone', 'tablet'],
  ) {}

  subscriptions(): { id: string }[] {
    return this.devices.map((id) => ({ id }));
  }

  async deliver(delivery: ReminderDelivery): Promise<DeliveryOutcome> {
    const key = `${delivery.payload.reminder_id}|${delivery.payload.occurrence}|${delivery.subscriptionId}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    this.sent.push({
      device: delivery.subscriptionId,
      reminderId: delivery.payload.reminder_id,
      occurrence: delivery.payload.occurrence,
      at: this.clock.now(),
      delivery,
    });
    return this.respond(delivery, attempt);
  }

  /** `reminderId@occurrence→device` lines, for compact assertions. */
  lines(): string[] {
    return this.sent.map((s) => `${s.reminderId}@${s.occurrence}→${s.device}`);
  }
}

export function once(
  id: string,
  atIso: string,
  extra: Partial<ReminderDefinition> = {},
  zone = 'Europe/Berlin',
): ReminderDefinition {
  const at = Date.parse(atIso);
  if (Number.isNaN(at)) throw new Error(`once(): bad instant ${atIso}`);
  return {
    id,
    title: `Title ${id}`,
    path: `Reminders/${id}.md`,
    schedule: { kind: 'once', at, zone },
    status: 'active',
    taskChecked: false,
    deepLink: `obsidian://open?vault=V&file=Reminders%2F${id}.md`,
    ...extra,
  };
}

export function recurring(
  id: string,
  rrule: string,
  start: string,
  zone: string,
  extra: Partial<ReminderDefinition> = {},
): ReminderDefinition {
  return {
    id,
    title: `Title ${id}`,
    path: `Reminders/${id}.md`,
    schedule: { kind: 'recurring', rrule, start, zone },
    status: 'active',
    taskChecked: false,
    deepLink: `obsidian://open?vault=V&file=Reminders%2F${id}.md`,
    ...extra,
  };
}

/**
 * A temp folder in RAM when the machine has one: the database is real SQLite with the
 * companion's pragmas, but an fsync there costs 0.1 ms instead of ~5 ms, which is what keeps
 * tests that fire thousands of deliveries fast. The durability test uses the real disk.
 */
function ramTempDir(prefix: string): { path: string; remove: () => void } {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const path = mkdtempSync(join(base, `cairn-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A scheduler over a real SQLite file in a temp folder, with manual time; restartable. */
export class Harness {
  readonly dir = ramTempDir('scheduler');
  readonly file = join(this.dir.path, 'cairn.db');
  readonly clock: ManualClock;
  readonly timer: ManualTimer;
  readonly source: InMemoryReminderSource;
  readonly deliverer: RecordingDeliverer;
  db: SqliteDatabase | undefined;
  scheduler: ReminderScheduler | undefined;
  /** Backoff jitter: pinned, so retry times are exact. */
  random: () => number = () => 0.5;

  constructor(
    startIso: string,
    reminders: ReminderDefinition[] = [],
    readonly graceMs = 24 * HOUR,
  ) {
    this.clock = ManualClock.at(startIso);
    this.timer = new ManualTimer(this.clock);
    this.source = new InMemoryReminderSource(reminders);
    this.deliverer = new RecordingDeliverer(this.clock);
  }

  get running(): ReminderScheduler {
    if (!this.scheduler) throw new Error('harness: not started');
    return this.scheduler;
  }

  async start(): Promise<ReminderScheduler> {
    this.db = openDatabase(this.file);
    this.scheduler = new ReminderScheduler({
      db: this.db,
      clock: this.clock,
      timer: this.timer,
      source: this.source,
      deliverer: this.deliverer,
      graceMs: this.graceMs,
      random: this.random,
    });
    await this.scheduler.start();
    return this.scheduler;
  }

  async stop(): Promise<void> {
    await this.scheduler?.stop();
    this.db?.close();
    this.scheduler = undefined;
    this.db = undefined;
  }

  async advanceTo(iso: string): Promise<void> {
    const target = Date.parse(iso);
    if (Number.isNaN(target)) throw new Error(`advanceTo(): bad instant ${iso}`);
    await this.timer.advanceTo(target, () => this.scheduler?.whenIdle() ?? Promise.resolve());
  }

  async advanceBy(ms: number): Promise<void> {
    await this.timer.advanceTo(
      this.clock.now() + ms,
      () => this.scheduler?.whenIdle() ?? Promise.resolve(),
    );
  }

  /** While stopped: time passes with nothing running. */
  jumpTo(iso: string): void {
    this.clock.set(iso);
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.dir.remove();
  }
}
