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
