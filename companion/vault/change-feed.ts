import { createHash } from 'node:crypto';
import { createReadStream, realpathSync } from 'node:fs';
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { inTransaction } from '../db/open';
import type { SqliteDatabase } from '../db/open';
import type { Logger } from '../logging';
import type { VaultExcludes } from './exclude-settings';
import { FolderWatcher } from './folder-watcher';
import type { FolderChange } from './folder-watcher';
import { vaultFileKind } from './indexable-kind';
import { MAX_BYTES_IN_CHANGE } from './vault-change';
import type {
  VaultChange,
  VaultChangeFeed as VaultChangeFeedPort,
  VaultChangeSubscriber,
  VaultFileKind,
  VaultFileState,
} from './vault-change';
import { symlinkProblem, walkVault } from './vault-walk';

export const DEFAULT_DEBOUNCE_MS = 300;
export const DEFAULT_RESCAN_INTERVAL_MS = 30 * 60_000;
/**
 * Changes a subscriber may have waiting before the feed stops reading files for it: a first
 * scan of 10,000 notes must not pile every note's bytes up in a slow subscriber's queue.
 */
const MAX_WAITING_PER_SUBSCRIBER = 32;
/** …and at most this many bytes of file content waiting for it (one larger file may pass). */
const MAX_WAITING_BYTES_PER_SUBSCRIBER = 96 * 1024 * 1024;
/** Rows of `vault_files` written per transaction (each commit is an fsync). */
const STATE_BATCH_ROWS = 256;

export interface VaultChangeFeedOptions {
  /** The vault folder (its real path is used). */
  readonly vault: string;
  /** Opened and migrated: the feed keeps what it saw in `vault_files`. */
  readonly db: SqliteDatabase;
  readonly logger: Logger;
  /** The vault's live exclude rules (dot-folders, the plugin's globs). */
  readonly excludes: VaultExcludes;
  /** Quiet time after a file's last event before it is read (sync tools write in steps). */
  readonly debounceMs?: number;
  /** Watch the vault's folders for changes, from the first scan on; default true. */
  readonly watch?: boolean;
  /**
   * A full rescan this often catches what the watcher missed (an inotify queue overflow, a
   * network share); unchanged files cost a stat each. Default 30 minutes; 0 turns it off.
   */
  readonly rescanIntervalMs?: number;
}

type Work =
  | { readonly type: 'file'; readonly path: string; readonly only?: Subscription }
  | { readonly type: 'folder'; readonly path: string };

interface Subscription {
  readonly subscriber: VaultChangeSubscriber;
  /** The subscriber's changes run one after another on this chain. */
  chain: Promise<void>;
  waiting: number;
  waitingBytes: number;
  /** Resolves when `waiting` drops below the limit (the feed waits on it). */
  roomWaiters: Array<() => void>;
}

interface KnownFile extends VaultFileState {
  readonly kind: VaultFileKind;
}

/**
 * The one place the companion learns what changed in its vault: a folder watcher, a scan on
 * start, periodic rescans; each changed path is debounced, checked (exclude rules, symlinks
 * leading out), read and hashed, and a file whose bytes did not change is no change. Every
 * subscriber (the search index, reminders, the digest, the sync journal) gets the same events
 * in the same order, each at its own pace.
 *
 * What it last saw is kept in SQLite (`vault_files`), so a restart reads only the files whose
 * time or size moved, and reports those that went while the companion was down as deleted. A
 * subscriber cut off by a crash after the feed recorded a change catches up in `reconcile`,
 * which runs after every full scan.
 *
 * A vanished file counts as deleted only after a watcher event for it, or after a scan that
 * found the vault folder present and readable: a scan that fails (the vault unmounted) reports
 * nothing.
 */
export class VaultChangeFeed implements VaultChangeFeedPort {
  private readonly root: string;
  private readonly debounceMs: number;
  private readonly known = new Map<string, KnownFile>();
  /** Files that may not be read, with why (reported once per reason). */
  private readonly refusedPaths = new Map<string, string>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue = new Map<string, Work>();
  private readonly stateRows = new Map<string, KnownFile | null>();
  private idleWaiters: Array<() => void> = [];
  private watcher: FolderWatcher | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private scanning: Promise<void> | null = null;
  private started = false;
  private closed = false;

  constructor(private readonly options: VaultChangeFeedOptions) {
    this.root = realpathOrSelf(options.vault);
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    const rows = options.db
      .prepare('SELECT path, kind, hash, size, mtime_ms AS mtimeMs FROM vault_files')
      .all() as Array<KnownFile & { path: string }>;
    for (const { path, ...file } of rows) this.known.set(path, file);
  }

  /** The rules the feed applies (shared with whoever edits them at run time). */
  get excludes(): VaultExcludes {
    return this.options.excludes;
  }

  /** Who follows the feed, by name (status, tests). */
  get subscribers(): string[] {
    return [...this.subscriptions].map((subscription) => subscription.subscriber.name);
  }

  /** The files on disk as last seen (not excluded, readable). */
  files(): ReadonlyMap<string, VaultFileState> {
    return this.known;
  }

  subscribe(subscriber: VaultChangeSubscriber): () => void {
    const subscription: Subscription = {
      subscriber,
      chain: Promise.resolve(),
      waiting: 0,
      waitingBytes: 0,
      roomWaiters: [],
    };
    this.subscriptions.add(subscription);
    // Joining after the first scan: catch up with what the feed knows now.
    if (this.started && this.scanning === null) this.reconcile(subscription);
    return () => {
      this.subscriptions.delete(subscription);
      for (const wake of subscription.roomWaiters) wake();
    };
  }

  /**
   * Scans the whole vault in the background, then rescans periodically; `whenIdle()` resolves
   * once the scan is through. Each scan first has every folder watched, so what changes while
   * the scan walks and reads is reported by the watcher.
   */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.startScan();
    const interval = this.options.rescanIntervalMs ?? DEFAULT_RESCAN_INTERVAL_MS;
    if (interval > 0 && this.options.watch !== false) {
      this.rescanTimer = setInterval(() => {
        if (!this.scanning) void this.rescan();
      }, interval);
      this.rescanTimer.unref();
    }
  }

  /**
   * Reads these paths now (no debounce) and resolves once every subscriber has handled what
   * came of them: for code that just wrote a file and wants it indexed and journalled at once.
   */
  refresh(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      const key = `file:${path}`;
      const timer = this.timers.get(key);
      if (timer) clearTimeout(timer);
      this.timers.delete(key);
      this.enqueue({ type: 'file', path });
    }
    void this.drain();
    return this.whenIdle();
  }

  /** Walks the vault again (after the exclude rules changed, or events may have been lost). */
  rescan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.startScan();
    return this.whenIdle();
  }

  /** Paths waiting to be read: debounced, queued, or being read. */
  get pending(): number {
    return this.timers.size + this.queue.size + (this.draining ? 1 : 0);
  }

  /** Whether a scan is running. */
  get isScanning(): boolean {
    return this.scanning !== null;
  }

  /** The absolute path of a vault-relative path, for a subscriber reading a file itself. */
  absolutePath(path: string): string {
    return join(this.root, path);
  }

  /** Resolves when no scan runs, no path waits and every subscriber has handled its changes. */
  async whenIdle(): Promise<void> {
    for (;;) {
      if (!this.ownIdle()) {
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
        continue;
      }
      await Promise.all([...this.subscriptions].map((subscription) => subscription.chain));
      const caughtUp = [...this.subscriptions].every((subscription) => subscription.waiting === 0);
      if (this.ownIdle() && caughtUp) return;
    }
  }

  /**
   * Delivers these paths to one subscriber again, changed or not (a file it could not store
   * and wants to try again); resolves once it has them.
   */
  redeliver(subscriber: VaultChangeSubscriber, paths: readonly string[]): Promise<void> {
    const subscription = [...this.subscriptions].find((entry) => entry.subscriber === subscriber);
    if (subscription === undefined || this.closed) return Promise.resolve();
    for (const path of paths) this.enqueue({ type: 'file', path, only: subscription });
    void this.drain();
    return this.whenIdle();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    this.rescanTimer = null;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.clear();
    await this.watcher?.close();
    this.watcher = null;
    for (const subscription of this.subscriptions) {
      for (const wake of subscription.roomWaiters) wake();
    }
    await this.scanning?.catch(() => undefined);
    await this.draining;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.chain));
    this.flushState();
    this.subscriptions.clear();
    this.settle();
  }

  // ---- scanning and watching ----------------------------------------------------------------

  /** Runs a scan after any running one; only the latest clears `scanning` when it ends. */
  private startScan(): void {
    const previous = this.scanning ?? Promise.resolve();
    const tracked: Promise<void> = previous
      .then(() => this.guardedScan())
      .finally(() => {
        if (this.scanning !== tracked) return;
        this.scanning = null;
        this.settleIfIdle();
      });
    this.scanning = tracked;
  }

  /** A scan that fails (the vault folder vanished, a disk error) is logged, never thrown. */
  private async guardedScan(): Promise<void> {
    try {
      await this.scan();
    } catch (error) {
      this.options.logger.error(
        { err: { message: (error as Error).message } },
        'vault scan failed; nothing is reported deleted until a scan finds the vault again',
      );
    }
  }

  private async scan(): Promise<void> {
    const started = performance.now();
    // Watch first (a walk of the folders only), then look at the files: a change made after a
    // file's look below is reported by the watcher, one made before it is seen by the look.
    await this.watchFolders();
    if (this.closed) return;
    // Throws when the vault folder is gone or unreadable: then nothing counts as deleted.
    const walked = await walkVault(this.root, this.options.excludes, {
      withStats: true,
      allFiles: true,
    });
    if (this.closed) return;
    const seen = new Set(walked.files.map((file) => file.path));
    for (const refused of walked.refused) {
      seen.add(refused.path);
      this.refuse(refused.path, refused.reason);
    }
    for (const path of this.known.keys()) if (!seen.has(path)) this.enqueue({ type: 'file', path });
    let unchanged = 0;
    for (const file of walked.files) {
      if (file.stat && sameTimeAndSize(this.known.get(file.path), file.stat)) unchanged++;
      else this.enqueue({ type: 'file', path: file.path });
    }
    this.options.logger.info(
      { files: walked.files.length, unchanged, pending: this.queue.size },
      'vault scan: checking files',
    );
    // A drain already running (a watcher event) may end before it reached these paths.
    while (!this.closed && (this.queue.size > 0 || this.draining)) await this.drain();
    // Each subscriber compares once it has handled what the scan delivered to it.
    for (const subscription of this.subscriptions) {
      await subscription.chain;
      this.reconcile(subscription);
    }
    while (!this.closed && (this.queue.size > 0 || this.draining)) await this.drain();
    this.options.logger.info(
      { files: this.known.size, ms: Math.round(performance.now() - started) },
      'vault scan done',
    );
  }

  /** Asks a subscriber what it misses and queues those paths for it alone. */
  private reconcile(subscription: Subscription): void {
    const reconcile = subscription.subscriber.reconcile;
    if (!reconcile) return;
    let wanted: Iterable<string>;
    try {
      wanted = reconcile.call(subscription.subscriber, this.known);
    } catch (error) {
      this.options.logger.error(
        { subscriber: subscription.subscriber.name, err: { message: (error as Error).message } },
        'vault feed: a subscriber could not compare its state',
      );
      return;
    }
    let count = 0;
    for (const path of wanted) {
      count++;
      this.enqueue({ type: 'file', path, only: subscription });
    }
    if (count > 0) {
      this.options.logger.info(
        { subscriber: subscription.subscriber.name, files: count },
        'vault feed: catching a subscriber up',
      );
      void this.drain();
    }
  }

  private async watchFolders(): Promise<void> {
    if (this.options.watch === false || this.closed) return;
    this.watcher ??= new FolderWatcher({
      root: this.root,
      exclude: this.options.excludes,
      logger: this.options.logger,
      onChange: (change) => this.onFolderChange(change),
    });
    await this.watcher.sync();
  }

  private onFolderChange(change: FolderChange): void {
    if (change.path === '') {
      // The vault folder itself (no entry named): look at everything in it again.
      if (!this.scanning) void this.rescan();
      return;
    }
    this.debounce({ type: change.type, path: change.path });
  }

  private debounce(work: Work): void {
    if (this.closed) return;
    const key = workKey(work);
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.enqueue(work);
      void this.drain();
    }, this.debounceMs);
    this.timers.set(key, timer);
  }

  private enqueue(work: Work): void {
    if (this.closed) return;
    const key = workKey(work);
    // Re-queued work moves to the back: it changed again, so read it after the others.
    this.queue.delete(key);
    this.queue.set(key, work);
  }

  private drain(): Promise<void> {
    if (this.draining) return this.draining;
    this.draining = (async () => {
      while (!this.closed) {
        const next = this.queue.entries().next();
        if (next.done) break;
        const [key, work] = next.value;
        this.queue.delete(key);
        try {
          if (work.type === 'file') await this.checkFile(work.path, work.only);
          else await this.checkFolder(work.path);
        } catch (error) {
          // A bug or an I/O error on one path: log it (path only) and go on with the rest.
          this.options.logger.error(
            { path: work.path, err: { message: (error as Error).message } },
            'vault feed: checking a file failed',
          );
        }
        if (this.stateRows.size >= STATE_BATCH_ROWS) this.flushState();
        // Let HTTP requests in between files.
        await yieldToEventLoop();
      }
      this.flushState();
    })().finally(() => {
      this.draining = null;
      if (this.queue.size > 0 && !this.closed) {
        void this.drain();
        return;
      }
      // Nothing left to read for now (a debounce may still run): batches flush.
      this.notifySettled();
      this.settleIfIdle();
    });
    return this.draining;
  }

  private async checkFolder(path: string): Promise<void> {
    const stats = await lstat(join(this.root, path)).catch(() => null);
    if (stats === null || !stats.isDirectory()) {
      // Deleted or moved away: everything under it goes (its files' own events may be lost).
      const prefix = `${path}/`;
      for (const known of [...this.known.keys()]) {
        if (known.startsWith(prefix)) await this.remove(known);
      }
      for (const refused of [...this.refusedPaths.keys()]) {
        if (refused.startsWith(prefix)) this.refusedPaths.delete(refused);
      }
      return;
    }
    // A folder that appeared (moved in, or restored): read what is inside.
    const walked = await walkVault(join(this.root, path), this.options.excludes, {
      allFiles: true,
    });
    for (const file of walked.files) this.enqueue({ type: 'file', path: `${path}/${file.path}` });
    for (const refused of walked.refused) this.refuse(`${path}/${refused.path}`, refused.reason);
  }

  /** Looks at one path and reports what changed; `only`: deliver to that subscriber alone. */
  private async checkFile(path: string, only?: Subscription): Promise<void> {
    if (!isVaultRelative(path)) {
      this.options.logger.warn({ path }, 'not a path inside the vault; ignored');
      return;
    }
    const absolute = join(this.root, path);
    const stats = await lstat(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw error;
    });
    if (stats === null || this.options.excludes.excludes(path) || stats.isDirectory()) {
      await this.remove(path, only);
      return;
    }
    if (stats.isSymbolicLink()) {
      const problem = await symlinkProblem(this.root, path, this.options.excludes);
      if (problem !== null) {
        await this.refuseKnown(path, problem, only);
        return;
      }
    } else if (!stats.isFile()) {
      await this.remove(path, only);
      return;
    } else if (path.includes('/') && !(await this.insideVault(absolute))) {
      // A folder on the way is a symlink leading out (the walker never enters one, but a path
      // handed to refresh() or a watcher event could pass through it).
      await this.refuseKnown(path, 'a folder on its path leads outside the vault; not read', only);
      return;
    }
    // For a symlink the target's size and time count.
    const before = stats.isSymbolicLink() ? await stat(absolute) : stats;
    const known = this.known.get(path);
    if (only === undefined && sameTimeAndSize(known, before)) return;
    let read: { hash: string; bytes: Buffer | null };
    try {
      const kind = vaultFileKind(path);
      read = await readAndHash(absolute, before.size, kind !== 'other' && kind !== 'pdf');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        await this.remove(path, only);
        return;
      }
      await this.refuseKnown(
        path,
        `cannot read the file (${code ?? (error as Error).message})`,
        only,
      );
      return;
    }
    const after = await stat(absolute).catch(() => null);
    if (!sameStat(after, before)) {
      // Still being written (a sync tool writing in steps): read it once it is quiet.
      this.debounce({ type: 'file', path });
      return;
    }
    this.refusedPaths.delete(path);
    const file: KnownFile = {
      kind: vaultFileKind(path),
      hash: read.hash,
      size: before.size,
      mtimeMs: Math.round(before.mtimeMs),
    };
    this.remember(path, file);
    const change: VaultChange = { type: 'upsert', path, bytes: read.bytes, ...file };
    // Same bytes as before: only a subscriber catching up needs them.
    if (known?.hash === read.hash) {
      if (only) await this.deliver(change, only);
      return;
    }
    await this.deliver(change);
  }

  private async remove(path: string, only?: Subscription): Promise<void> {
    const known = this.known.get(path);
    const wasRefused = this.refusedPaths.delete(path);
    if (known === undefined && !wasRefused) {
      if (only) await this.deliver({ type: 'delete', path, kind: vaultFileKind(path) }, only);
      return;
    }
    this.forget(path);
    await this.deliver({ type: 'delete', path, kind: known?.kind ?? vaultFileKind(path) });
  }

  /** A file found while walking that may not be read. */
  private refuse(path: string, reason: string): void {
    void this.refuseKnown(path, reason).catch(() => undefined);
  }

  private async refuseKnown(path: string, reason: string, only?: Subscription): Promise<void> {
    const change: VaultChange = { type: 'refused', path, kind: vaultFileKind(path), reason };
    const wasKnown = this.known.has(path);
    if (!wasKnown && this.refusedPaths.get(path) === reason) {
      if (only) await this.deliver(change, only);
      return;
    }
    this.refusedPaths.set(path, reason);
    if (wasKnown) this.forget(path);
    this.options.logger.warn({ path, reason }, 'vault file not read');
    await this.deliver(change);
  }

  private remember(path: string, file: KnownFile): void {
    this.known.set(path, file);
    this.stateRows.set(path, file);
  }

  private forget(path: string): void {
    this.known.delete(path);
    this.stateRows.set(path, null);
  }

  /** Writes what the feed saw since the last flush, one transaction. */
  private flushState(): void {
    if (this.stateRows.size === 0) return;
    const rows = [...this.stateRows];
    this.stateRows.clear();
    const upsert = this.options.db.prepare(
      `INSERT INTO vault_files (path, kind, hash, size, mtime_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, hash = excluded.hash,
         size = excluded.size, mtime_ms = excluded.mtime_ms`,
    );
    const remove = this.options.db.prepare('DELETE FROM vault_files WHERE path = ?');
    try {
      inTransaction(this.options.db, () => {
        for (const [path, file] of rows) {
          if (file === null) remove.run(path);
          else upsert.run(path, file.kind, file.hash, file.size, file.mtimeMs);
        }
      });
    } catch (error) {
      // Not fatal: a restart reads those files again (subscribers treat repeats as no change).
      this.options.logger.error(
        { rows: rows.length, err: { message: (error as Error).message } },
        'vault feed: could not record what it saw; a restart reads those files again',
      );
    }
  }

  // ---- delivery -----------------------------------------------------------------------------

  /** Hands a change to every subscriber that wants its kind (or to `only`), in order. */
  private async deliver(change: VaultChange, only?: Subscription): Promise<void> {
    const targets = only ? [only] : [...this.subscriptions];
    for (const subscription of targets) {
      const kinds = subscription.subscriber.kinds;
      if (kinds && !kinds.includes(change.kind)) continue;
      // Backpressure: a subscriber far behind holds the reading of further files.
      const bytes = change.type === 'upsert' ? (change.bytes?.length ?? 0) : 0;
      while (
        (subscription.waiting >= MAX_WAITING_PER_SUBSCRIBER ||
          (subscription.waitingBytes > 0 &&
            subscription.waitingBytes + bytes > MAX_WAITING_BYTES_PER_SUBSCRIBER)) &&
        !this.closed
      ) {
        if (!this.subscriptions.has(subscription)) break;
        await new Promise<void>((resolve) => subscription.roomWaiters.push(resolve));
      }
      this.run(subscription, () => subscription.subscriber.onChange(change), change.path, bytes);
    }
  }

  private run(
    subscription: Subscription,
    task: () => void | Promise<void>,
    path?: string,
    bytes = 0,
  ): void {
    subscription.waiting++;
    subscription.waitingBytes += bytes;
    subscription.chain = subscription.chain
      .then(task)
      .catch((error: unknown) => {
        this.options.logger.error(
          {
            subscriber: subscription.subscriber.name,
            ...(path === undefined ? {} : { path }),
            err: { message: (error as Error).message },
          },
          'vault feed: a subscriber failed on a change',
        );
      })
      .finally(() => {
        subscription.waiting--;
        subscription.waitingBytes -= bytes;
        const wake = subscription.roomWaiters.shift();
        wake?.();
      });
  }

  private async insideVault(absolute: string): Promise<boolean> {
    const real = await realpath(absolute).catch(() => null);
    return real !== null && real.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep);
  }

  private ownIdle(): boolean {
    return (
      this.closed ||
      (this.timers.size === 0 && this.queue.size === 0 && !this.draining && !this.scanning)
    );
  }

  /** Nothing left to read: subscribers get `settled` (batches flush), then waiters wake. */
  private settleIfIdle(): void {
    if (!this.ownIdle()) return;
    // After a scan the last drain ended while it was still running: tell subscribers again.
    if (!this.draining) this.notifySettled();
    this.settle();
  }

  private notifySettled(): void {
    if (this.closed) return;
    for (const subscription of this.subscriptions) {
      const settled = subscription.subscriber.settled;
      if (settled) this.run(subscription, () => settled.call(subscription.subscriber));
    }
  }

  private settle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function workKey(work: Work): string {
  return work.type === 'file' && work.only
    ? `file:${work.path}@${work.only.subscriber.name}`
    : `${work.type}:${work.path}`;
}

/**
 * Whether a file with this time and size is what the feed saw, so it need not be read: a sync
 * tool that rewrites a file keeping both (rare: it would have to keep the size too) is caught
 * once the time or size changes.
 */
function sameTimeAndSize(
  known: VaultFileState | undefined,
  stats: { mtimeMs: number; size: number },
): boolean {
  return (
    known !== undefined && known.mtimeMs === Math.round(stats.mtimeMs) && known.size === stats.size
  );
}

function sameStat(after: Stats | null, before: Stats): boolean {
  return (
    after !== null &&
    Math.round(after.mtimeMs) === Math.round(before.mtimeMs) &&
    after.size === before.size
  );
}

/** The bytes (when small enough to hand around) and their SHA-256; large files are streamed. */
async function readAndHash(
  absolute: string,
  size: number,
  wantBytes: boolean,
): Promise<{ hash: string; bytes: Buffer | null }> {
  if (wantBytes && size <= MAX_BYTES_IN_CHANGE) {
    const bytes = await readFile(absolute);
    if (bytes.length <= MAX_BYTES_IN_CHANGE) {
      return { hash: createHash('sha256').update(bytes).digest('hex'), bytes };
    }
  }
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(absolute)) hash.update(chunk as Buffer);
  return { hash: hash.digest('hex'), bytes: null };
}

/** A `/`-separated relative path with no `.`/`..`/empty segments: it cannot leave the vault. */
function isVaultRelative(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0'))
    return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
