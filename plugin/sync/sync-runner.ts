/**
 * Keeps a device in sync while the app is open (DESIGN §9): a pass at start (pull first), a
 * pass shortly after local edits settle, and a long poll (`GET changes?wait=`) that pulls as soon
 * as the companion has something new. Failures back off and retry (a 429 after its Retry-After); a wrong token or a missing
 * URL stops the runner until it is started again. Every timer goes through the injected
 * `SyncTimers`, so `stop()` releases all of them.
 */
import type { SyncApi } from './sync-client';
import { SyncRequestError } from './sync-client';
import type { SyncEngine } from './sync-engine';

export interface SyncTimers {
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

export interface SyncRunnerOptions {
  /** Quiet time after the last local change before a pass (ms). */
  readonly settleMs?: number;
  /** The long poll's `wait` (seconds, at most 30). */
  readonly pollSeconds?: number;
  /** First retry delay after a failure; doubles up to `maxBackoffMs`. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /** The runner stopped for good (a wrong token, no URL): shown to the user. */
  readonly onStopped?: (error: SyncRequestError) => void;
  /** A pass failed and will be retried. */
  readonly onRetry?: (error: unknown) => void;
}

export class SyncRunner {
  private readonly settleMs: number;
  private readonly pollSeconds: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private running = false;
  private settleTimer: number | null = null;
  private retryTimer: number | null = null;
  private failures = 0;
  private passing = false;
  /** Something changed while a pass ran: run one more. */
  private again = false;
  private polling = false;

  constructor(
    private readonly engine: SyncEngine,
    private readonly api: SyncApi,
    private readonly timers: SyncTimers,
    private readonly options: SyncRunnerOptions = {},
  ) {
    // Obsidian saves an editor's text at most every couple of seconds while one types, and a
    // plugin writing many files fires its events milliseconds apart: 300 ms still makes one
    // pass of either, and an edit reaches the other devices in about half a second (1000 ms
    // put the median over a second: docs/sync.md "Performance").
    this.settleMs = options.settleMs ?? 300;
    this.pollSeconds = Math.min(30, options.pollSeconds ?? 25);
    this.backoffMs = options.backoffMs ?? 5000;
    this.maxBackoffMs = options.maxBackoffMs ?? 5 * 60 * 1000;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** The first pass (pull before anything else), then the long poll. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.failures = 0;
    void this.resume();
  }

  /**
   * Stops passes and the long poll; a long poll already sent cannot be cancelled (requestUrl
   * has no abort) and its answer is ignored.
   */
  stop(): void {
    this.running = false;
    for (const timer of [this.settleTimer, this.retryTimer]) {
      if (timer !== null) this.timers.clearTimeout(timer);
    }
    this.settleTimer = null;
    this.retryTimer = null;
  }

  /** A vault event: hand it to the engine and sync once edits settle. */
  noteChanged(path: string): void {
    this.engine.noteChanged(path);
    this.schedule();
  }

  noteRenamed(from: string, to: string): void {
    this.engine.noteRenamed(from, to);
    this.schedule();
  }

  /**
   * A pass soon, with no event to say what changed: settings files change through the file
   * system adapter, which raises no vault events, so they are found by listing on a timer.
   */
  requestPass(): void {
    this.schedule();
  }

  private async resume(): Promise<void> {
    if (await this.runPass()) await this.poll();
  }

  private schedule(): void {
    if (!this.running) return;
    if (this.settleTimer !== null) this.timers.clearTimeout(this.settleTimer);
    this.settleTimer = this.timers.setTimeout(() => {
      this.settleTimer = null;
      void this.runPass();
    }, this.settleMs);
  }

  /** Runs passes until nothing changed during the last one; false when one failed. */
  private async runPass(): Promise<boolean> {
    if (!this.running) return false;
    if (this.passing) {
      // Changes made during a pass are found by one more pass right after it.
      this.again = true;
      return true;
    }
    this.passing = true;
    try {
      do {
        this.again = false;
        await this.engine.sync();
        this.failures = 0;
      } while (this.again && this.running);
      return true;
    } catch (error) {
      this.failed(error);
      return false;
    } finally {
      this.passing = false;
    }
  }

  /** The long poll: one request in flight at a time while running. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.running && this.retryTimer === null) {
        const since = await this.engine.pollFrom();
        const answer = await this.api.changes(since, {
          wait: this.pollSeconds,
          limit: 1,
          ...(this.engine.wantsSettings ? { settings: true } : {}),
        });
        if (!this.running) return;
        // An empty page that moved on (entries this device does not take, such as settings
        // files it does not sync) is pulled too, so its position moves past them; else the
        // next poll would answer at once, again and again.
        if (answer.changes.length > 0 || answer.next > since) await this.engine.pull();
        this.failures = 0;
      }
    } catch (error) {
      this.failed(error);
    } finally {
      this.polling = false;
    }
  }

  /** Retries (a pass, then the long poll again) after a growing delay, or stops for good. */
  private failed(error: unknown): void {
    if (!this.running) return;
    if (
      error instanceof SyncRequestError &&
      (error.code === 'UNAUTHORIZED' || error.code === 'NOT_CONFIGURED')
    ) {
      this.stop();
      this.options.onStopped?.(error);
      return;
    }
    this.options.onRetry?.(error);
    if (this.retryTimer !== null) return;
    let delay: number;
    if (error instanceof SyncRequestError && error.code === 'RATE_LIMITED') {
      // The companion's rate limit: wait as long as it asked (else the first back-off), and
      // do not grow the back-off: the device is healthy, only too fast.
      delay = Math.min(this.maxBackoffMs, error.retryAfterMs ?? this.backoffMs);
    } else {
      delay = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** this.failures);
      this.failures++;
    }
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      void this.resume();
    }, delay);
  }
}
