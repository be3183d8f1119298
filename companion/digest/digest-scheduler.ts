import { formatIsoWeek } from '../../shared/calendar';
import { latestDueWeek, nextDigestSlot } from '../../shared/digest';
import type { DigestSchedule } from '../../shared/digest';
import type { Clock } from '../../shared/ports';
import type { Logger } from '../logging';
import { MAX_SLEEP_MS } from '../reminders/timer';
import type { TimerHandle, TimerPort } from '../reminders/timer';
import type { DigestService } from './digest-service';

/**
 * Writes the weekly digest at its slot (default Monday 08:00 in the user's zone), on the same
 * timer design as the reminder scheduler: it sleeps until the next slot (in steps of at most
 * MAX_SLEEP_MS, re-reading the wall clock), and on start writes the latest digest that is due
 * and was not written (downtime over the slot). The very first start writes nothing from before
 * it (that week is recorded as a baseline). The database record makes it once per week
 * across restarts and kill -9 (see DigestService).
 */
export class DigestScheduler {
  private handle: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      readonly service: DigestService;
      readonly schedule: DigestSchedule;
      readonly zone: string;
      readonly clock: Clock;
      readonly timer: TimerPort;
      readonly logger?: Logger;
    },
  ) {}

  /** Writes a due digest now if there is one, then arms the timer. */
  async start(): Promise<void> {
    this.stopped = false;
    const { clock, schedule, zone, service, logger } = this.options;
    const due = latestDueWeek(clock.now(), schedule, zone);
    if (service.recordBaselineIfFirst(due)) {
      logger?.info(
        { week: formatIsoWeek(due) },
        'digests on: weeks before this first start are not written',
      );
    }
    await this.tick();
    logger?.info({ next: new Date(this.nextSlot()).toISOString() }, 'digest schedule started');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.handle !== undefined) this.options.timer.clear(this.handle);
    this.handle = undefined;
    await this.running;
  }

  /** The next slot (epoch ms), for status and tests. */
  nextSlot(): number {
    return nextDigestSlot(this.options.clock.now(), this.options.schedule, this.options.zone);
  }

  private async tick(): Promise<void> {
    const run = this.writeDue();
    this.running = run;
    await run;
    if (this.stopped) return;
    const delay = Math.max(0, Math.min(MAX_SLEEP_MS, this.nextSlot() - this.options.clock.now()));
    this.handle = this.options.timer.set(() => {
      this.handle = undefined;
      void this.tick();
    }, delay);
  }

  private async writeDue(): Promise<void> {
    const { clock, schedule, zone, service, logger } = this.options;
    const week = latestDueWeek(clock.now(), schedule, zone);
    try {
      await service.writeScheduled(week);
    } catch (error) {
      // A digest folder that is a file, a read-only vault: said in the log, retried next wake.
      logger?.error(
        { err: { message: (error as Error).message } },
        'the weekly digest was not written',
      );
    }
  }
}
