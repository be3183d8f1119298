import type { Clock } from '../../shared/ports';

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  constructor(private current: number) {}

  static at(iso: string): ManualClock {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) throw new Error(`ManualClock.at: not an ISO instant: ${iso}`);
    return new ManualClock(ms);
  }

  now(): number {
    return this.current;
  }

  set(iso: string): void {
    this.current = Date.parse(iso);
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/**
 * Timers on a ManualClock: `schedule(ms, fn)` (the shape the tool gate and pending asks take)
 * fires `fn` only when `advance` moves the clock past its time.
 */
export class ManualTimers {
  private readonly pending = new Set<{ at: number; fn: () => void }>();

  constructor(readonly clock: ManualClock) {}

  readonly schedule = (ms: number, fn: () => void): (() => void) => {
    const timer = { at: this.clock.now() + ms, fn };
    this.pending.add(timer);
    return () => this.pending.delete(timer);
  };

  /** Timers not yet fired nor cancelled. */
  get size(): number {
    return this.pending.size;
  }

  advance(ms: number): void {
    this.clock.advance(ms);
    const due = [...this.pending].filter((timer) => timer.at <= this.clock.now());
    for (const timer of due) {
      this.pending.delete(timer);
      timer.fn();
    }
  }
}
