/**
 * At most `limit` tasks run at once; the rest wait in arrival order. Keeps a burst of reminders
 * (a morning with fifty due at 09:00) from opening fifty sockets to one push service at once.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new Error(`concurrency limit must be a positive integer (got ${limit})`);
    }
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` never dips and lets a newcomer jump the queue.
      if (next) next();
      else this.running -= 1;
    }
  }
}
