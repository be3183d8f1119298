import type { TimeSlicer } from '../../../plugin/search/time-slicer';
import type { VaultFileStat, VaultSource } from '../../../plugin/search/device-indexer';

/**
 * Virtual time for the indexer: `now()` moves only when a test (or the fake vault's reads)
 * advances it; `yieldToUi` records each UI turn; timers fire on `advance`.
 */
export class ManualTimeSlicer implements TimeSlicer {
  time = 0;
  /** Virtual time at each UI turn. */
  readonly yields: number[] = [];
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;

  now(): number {
    return this.time;
  }

  yieldToUi(): Promise<void> {
    this.yields.push(this.time);
    return new Promise((resolve) => setTimeout(resolve, 0));
  }

  after(ms: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return () => {
      this.timers = this.timers.filter((timer) => timer.id !== id);
    };
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward, firing timers that fall due. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((timer) => timer.at <= this.time);
    this.timers = this.timers.filter((timer) => timer.at > this.time);
    for (const timer of due) timer.fn();
  }
}

/** An in-memory vault: files with mtimes; each read can cost virtual time. */
export class FakeVault implements VaultSource {
  readonly files = new Map<string, { content: string; mtime: number }>();
  readonly reads: string[] = [];
  /** Virtual milliseconds each read costs (to exercise slicing). */
  readCostMs = 0;
  failReads = new Set<string>();
  private clock = 1_000;

  constructor(
    private readonly scheduler?: ManualTimeSlicer,
    initial: Record<string, string> = {},
  ) {
    for (const [path, content] of Object.entries(initial)) this.write(path, content);
  }

  write(path: string, content: string): void {
    this.files.set(path, { content, mtime: ++this.clock });
  }

  delete(path: string): void {
    this.files.delete(path);
  }

  rename(from: string, to: string): void {
    const file = this.files.get(from);
    if (!file) throw new Error(`no ${from}`);
    this.files.delete(from);
    this.files.set(to, file);
  }

  list(): VaultFileStat[] {
    return [...this.files.keys()].map((path) => this.stat(path)!);
  }

  stat(path: string): VaultFileStat | null {
    const file = this.files.get(path);
    return file ? { path, mtime: file.mtime, size: file.content.length } : null;
  }

  async read(path: string): Promise<string> {
    this.reads.push(path);
    if (this.scheduler) this.scheduler.time += this.readCostMs;
    if (this.failReads.has(path)) throw new Error(`EIO: cannot read ${path}`);
    const file = this.files.get(path);
    if (!file) throw new Error(`ENOENT: ${path}`);
    return file.content;
  }
}
