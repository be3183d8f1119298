import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { SemanticStatus, StatusResponse } from '../../shared/protocol/status';
import type { SearchExclusionRule } from './search-exclusions';
import type { Clock, Embedder } from '../../shared/ports';
import { inTransaction } from '../db/open';
import type { SqliteDatabase } from '../db/open';
import type { Logger } from '../logging';
import type { IndexStatusSource } from '../status/sources';
import { EmbeddingQueue } from './embedding-queue';
import type { EmbeddingQueueOptions } from './embedding-queue';
import { indexableKind } from '../vault/indexable-kind';
import { VaultExcludes } from '../vault/exclude-settings';
import type { VaultChange, VaultChangeFeed } from '../vault/vault-change';
import { storageProblem } from '../http/storage-error';
import { IndexStore } from './index-store';
import type { StoredFileState } from './index-store';
import { SqliteIndexQueries } from './index-queries';
import type { ColumnWeights } from './index-queries';
import { createPdfReader, PdfBusyError } from '../pdf/pdf-reader';
import type { PdfTextReader } from '../pdf/pdf-reader';
import { contentHash, INDEX_FORMAT, readVaultFile } from './read-vault-file';
import type { IndexedFile } from './read-vault-file';
import { symlinkProblem, walkVault } from '../vault/vault-walk';
import type { FileStat } from '../vault/vault-walk';
import { FolderWatcher } from '../vault/folder-watcher';
import type { FolderChange } from '../vault/folder-watcher';

export const DEFAULT_DEBOUNCE_MS = 300;
export const DEFAULT_RESCAN_INTERVAL_MS = 30 * 60_000;
/** At most this many failures are listed in status; the count in metrics is complete. */
export const MAX_LISTED_FAILURES = 100;
/**
 * During a long scan, the embedding queue is woken every this many files written. Only written
 * files count: each pass asks SQLite for the texts without a vector, a query over every chunk,
 * and waking it every 50 files *checked* made a restart at 10k notes run 200 such passes (20 s).
 */
const EMBED_KICK_EVERY = 50;
/**
 * Parsed files are written in groups of up to this many, one transaction per group: each
 * commit costs an fsync (synchronous=FULL), which dominated the initial scan when every file
 * had its own. A group is still all-or-nothing per file.
 */
const WRITE_BATCH_FILES = 32;
/** …and a group waits at most this long, so a slow file (a big PDF) does not hold others back. */
const WRITE_BATCH_MS = 250;

export interface VaultIndexerOptions {
  /** The vault folder (its real path is used). */
  readonly vault: string;
  /** Opened and migrated; the indexer loads sqlite-vec into it. */
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Without one the index is keyword-only. */
  readonly embedder?: Embedder;
  /** Globs excluded on top of the plugin's `search.excludeGlobs` and dot-folders. */
  readonly excludeGlobs?: readonly string[];
  /**
   * The vault's live exclude rules, shared with the reminder source; built from the vault's
   * data.json and `excludeGlobs` when absent.
   */
  readonly excludes?: VaultExcludes;
  /** Quiet time after a file's last event before it is read (sync tools write in steps). */
  readonly debounceMs?: number;
  /** Watch the vault's folders for changes, from the first scan on; default true. */
  readonly watch?: boolean;
  readonly embeddings?: EmbeddingQueueOptions;
  readonly weights?: Partial<ColumnWeights>;
  /**
   * A full rescan this often catches what the watcher missed (an inotify queue overflow, a
   * network share); unchanged files cost a stat each. Default 30 minutes; 0 turns it off.
   */
  readonly rescanIntervalMs?: number;
  /** How PDFs are read; default: a worker thread per PDF with time and memory caps. */
  readonly pdfReader?: PdfTextReader;
  /**
   * First wait before a file the index could not save (a full disk) is tried again; it doubles
   * per failed try up to UNSAVED_RETRY_MAX_MS. Default UNSAVED_RETRY_FIRST_MS.
   */
  readonly unsavedRetryMs?: number;
  /**
   * The configured embedding provider, for status: which one, and why no embedder runs when
   * `embedder` is absent (`none` chosen on purpose, or it failed to start).
   */
  readonly semantic?: {
    readonly provider: SemanticStatus['provider'];
    readonly reason?: string;
    /** What runs the built-in model now (read at status time: workers load on demand). */
    readonly runtime?: () => SemanticStatus['runtime'];
  };
  /** Folders search leaves out (search-exclusions.ts), listed in status with their file counts. */
  readonly searchExclusions?: readonly SearchExclusionRule[];
}

export const UNSAVED_RETRY_FIRST_MS = 5_000;
export const UNSAVED_RETRY_MAX_MS = 5 * 60_000;

type Work =
  | { readonly type: 'file'; readonly path: string }
  | { readonly type: 'folder'; readonly path: string };

/**
 * Keeps the SQLite index in step with the vault: a folder watcher, an initial scan, rescans.
 * Each changed path is debounced, then read, hashed (unchanged content is skipped), parsed,
 * chunked and written in one transaction; a deleted file or folder drops its rows. Chunks
 * without a vector go to the embedding queue. One file's bad content never stops the rest.
 */
export class VaultIndexer implements IndexStatusSource, VaultChangeFeed {
  readonly store: IndexStore;
  readonly queries: SqliteIndexQueries;
  readonly embeddings: EmbeddingQueue | null;
  private readonly root: string;
  private readonly exclude: VaultExcludes;
  private readonly debounceMs: number;
  private readonly readPdfText: PdfTextReader;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue = new Map<string, Work>();
  private readonly listeners = new Set<(change: VaultChange) => void>();
  private idleWaiters: Array<() => void> = [];
  private watcher: FolderWatcher | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  /**
   * Files read but not saved in the index (the database's disk full, or read-only), or not read
   * because every PDF parse slot was taken, with why
   * and how often it failed; each is tried again on a backoff timer until it is saved, so the
   * index heals by itself once space returns. Shown in status as failed and pending.
   */
  private readonly unsaved = new Map<string, { error: string; tries: number }>();
  private readonly unsavedRetries = new Map<string, NodeJS.Timeout>();
  /** Aborted on close: a PDF being read in its worker is abandoned rather than awaited. */
  private readonly stopping = new AbortController();
  private draining: Promise<void> | null = null;
  private scanning: Promise<void> | null = null;
  private closed = false;
  private changedSinceCleanup = false;
  /** Parsed files not written yet (see WRITE_BATCH_FILES), and when the first was added. */
  private writes: IndexedFile[] = [];
  private writesSince = 0;
  /** Files written since the embedding queue was last woken (see EMBED_KICK_EVERY). */
  private writtenSinceKick = 0;
  /**
   * Whether the embedding queue has a reason to look for texts without a vector: true at start
   * (a previous run may have stopped before embedding everything, or the model changed), then
   * set by every write. A scan that finds nothing changed wakes it once, not per drain.
   */
  private embeddingsWanted = true;
  /** Files read and written since start (tests check a restart re-reads nothing). */
  indexedCount = 0;

  constructor(private readonly options: VaultIndexerOptions) {
    this.root = realpathSync(options.vault);
    this.store = new IndexStore(options.db, () => options.clock.now());
    const embedderModel = options.embedder?.model ?? null;
    this.queries = new SqliteIndexQueries(options.db, {
      ...(options.weights ? { weights: options.weights } : {}),
      preferredModel: () => embedderModel,
      stemLanguages: () => this.store.stemLanguages(),
    });
    this.exclude =
      options.excludes ?? VaultExcludes.read(this.root, options.excludeGlobs, options.logger);
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.readPdfText = options.pdfReader ?? createPdfReader();
    this.embeddings = options.embedder
      ? new EmbeddingQueue(this.store, options.embedder, options.logger, options.embeddings)
      : null;
  }

  /**
   * Scans the whole vault in the background; `whenIdle()` resolves once the scan is through.
   * Each scan first has every folder watched (the first one starts the watcher), so what
   * changes while the scan walks and reads is reported by the watcher: nothing falls between
   * the scan's look at a file and the start of watching.
   */
  async start(): Promise<void> {
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
   * Indexes these vault-relative paths now (no debounce) and resolves once the index is idle:
   * for code that just wrote a file (ingest, note creation) and wants it searchable at once.
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

  /** Files waiting to be (re)indexed: debounced, queued, or being read. */
  get pending(): number {
    return this.timers.size + this.queue.size + (this.draining ? 1 : 0);
  }

  /** Resolves when the scan is done and no file event waits (embeddings may still run). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Resolves when files are indexed and every chunk text has a vector (or embedding failed). */
  async whenEmbedded(): Promise<void> {
    await this.whenIdle();
    await this.embeddings?.whenIdle();
  }

  /** Subscribes to index changes; returns the unsubscribe function. */
  onChange(listener: (change: VaultChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The plugin's exclude globs changed (its data.json, see exclude-settings.ts): the rescan
   * drops files now excluded and indexes ones no longer excluded, and its watcher sync
   * watches the folders the old rules skipped and releases the ones excluded now.
   */
  async setPluginExcludeGlobs(globs: readonly string[]): Promise<void> {
    if (this.closed) return;
    this.exclude.setPluginGlobs(globs);
    await this.rescan();
  }

  /** Walks the vault again (e.g. after the watcher may have missed events or folders). */
  rescan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.startScan();
    return this.whenIdle();
  }

  /** Runs a scan after any running one; only the latest clears `scanning` when it ends. */
  private startScan(): void {
    const previous = this.scanning ?? Promise.resolve();
    const tracked: Promise<void> = previous
      .then(() => this.guardedScan())
      .finally(() => {
        if (this.scanning === tracked) this.afterScan();
      });
    this.scanning = tracked;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopping.abort();
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    this.rescanTimer = null;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const timer of this.unsavedRetries.values()) clearTimeout(timer);
    this.unsavedRetries.clear();
    this.queue.clear();
    await this.watcher?.close();
    this.watcher = null;
    await this.scanning?.catch(() => undefined);
    await this.draining;
    await this.embeddings?.close();
    this.listeners.clear();
    this.settle();
  }

  indexStatus(): StatusResponse['index'] {
    if (this.closed) {
      return {
        files: 0,
        chunks: 0,
        pending: 0,
        failed: [],
        embedding: null,
        semantic: this.semanticStatus(),
        excluded: [],
      };
    }
    const semantic = this.semanticStatus();
    return {
      files: this.store.fileCount(),
      chunks: this.store.chunkCount(),
      pending: this.pending + this.unsaved.size + (this.scanning ? 1 : 0),
      failed: [
        ...[...this.unsaved]
          .slice(0, MAX_LISTED_FAILURES)
          .map(([path, { error }]) => ({ path, error })),
        ...this.store.problems(MAX_LISTED_FAILURES),
      ].slice(0, MAX_LISTED_FAILURES),
      // Only once complete: a half-embedded index is reported by `semantic`, not as a model.
      embedding:
        semantic.state === 'ready' && semantic.model !== null && semantic.dims !== null
          ? { model: semantic.model, dims: semantic.dims }
          : null,
      semantic,
      excluded: (this.options.searchExclusions ?? []).map((rule) => ({
        kind: rule.kind,
        folder: rule.folder,
        files: this.queries.filesUnder(rule.folder),
        setting: rule.setting,
      })),
    };
  }

  /**
   * Semantic search progress: distinct chunk texts with a vector of the running model out of
   * all of them. `ready` needs every text embedded and no file waiting to be read (a file not
   * read yet has no texts to count).
   */
  private semanticStatus(): SemanticStatus {
    const configured = this.options.semantic;
    const embedder = this.options.embedder;
    if (embedder === undefined || this.embeddings === null) {
      return {
        state: 'off',
        provider: configured?.provider ?? 'none',
        model: null,
        dims: null,
        embedded: 0,
        total: this.closed ? 0 : this.store.distinctTextCount(),
        reason: configured?.reason ?? 'no embedding model is configured',
      };
    }
    const provider = configured?.provider ?? 'builtin';
    const runtime = configured?.runtime?.();
    const model = {
      model: embedder.model.id,
      dims: embedder.model.dims,
      ...(runtime === undefined ? {} : { runtime }),
    };
    if (this.closed) {
      return { state: 'off', provider, ...model, embedded: 0, total: 0, reason: 'index closed' };
    }
    const total = this.store.distinctTextCount();
    const waiting = Math.min(total, this.embeddings.pending());
    const caughtUp = waiting === 0 && this.pending === 0 && !this.scanning;
    const failed = this.embeddings.lastError;
    return {
      state: caughtUp ? 'ready' : 'embedding',
      provider,
      ...model,
      embedded: total - waiting,
      total,
      reason: caughtUp || failed === null ? null : `embedding failed: ${failed}`,
    };
  }

  // ---- scanning and watching ----------------------------------------------------------------

  /** A scan that fails (the vault folder vanished, a disk error) is logged, never thrown. */
  private async guardedScan(): Promise<void> {
    try {
      await this.scan();
    } catch (error) {
      this.options.logger.error(
        { err: { message: (error as Error).message } },
        'vault scan failed; the index keeps what it has',
      );
    }
  }

  private async scan(): Promise<void> {
    const started = performance.now();
    // Watch first (a walk of the folders only), then look at the files: a change made after a
    // file's look below is reported by the watcher, one made before it is seen by the look.
    await this.watchFolders();
    if (this.closed) return;
    const walked = await walkVault(this.root, this.exclude, { withStats: true });
    if (this.closed) return;
    const stored = this.store.fileStates();
    const seen = new Set(walked.files.map((file) => file.path));
    for (const refused of walked.refused) {
      seen.add(refused.path);
      this.recordRefused(refused.path, refused.reason);
    }
    // Files indexed before that are gone now (deleted while the companion was down), or are
    // excluded since.
    for (const path of stored.keys()) if (!seen.has(path)) this.enqueue({ type: 'file', path });
    // A file whose time and size match the index is not looked at again (indexPath would skip
    // it after the same comparison); every other one is read, hashed and compared.
    let unchanged = 0;
    for (const file of walked.files) {
      if (file.stat && isUnchanged(stored.get(file.path), file.stat)) unchanged++;
      else this.enqueue({ type: 'file', path: file.path });
    }
    this.options.logger.info(
      { files: walked.files.length, unchanged, pending: this.queue.size },
      'vault scan: checking files',
    );
    // A drain already running (a watcher event) may end before it reached these paths.
    while (!this.closed && (this.queue.size > 0 || this.draining)) await this.drain();
    this.options.logger.info(
      {
        files: this.store.fileCount(),
        chunks: this.store.chunkCount(),
        failed: this.store.failedCount(),
        ms: Math.round(performance.now() - started),
      },
      'vault scan done',
    );
  }

  /**
   * Starts the folder watcher on the first scan; on later ones (periodic, exclude rules
   * changed) watches the folders it misses and releases the ones gone or excluded now.
   */
  private async watchFolders(): Promise<void> {
    if (this.options.watch === false || this.closed) return;
    this.watcher ??= new FolderWatcher({
      root: this.root,
      exclude: this.exclude,
      logger: this.options.logger,
      onChange: (change) => this.onFolderChange(change),
    });
    const started = performance.now();
    await this.watcher.sync();
    this.options.logger.debug(
      { folders: this.watcher.watched.length, ms: Math.round(performance.now() - started) },
      'vault folders watched',
    );
  }

  private onFolderChange(change: FolderChange): void {
    if (change.path === '') {
      // The vault folder itself (no entry named): look at everything in it again.
      if (!this.scanning) void this.rescan();
      return;
    }
    if (change.type === 'folder') this.debounce({ type: 'folder', path: change.path });
    else if (indexableKind(change.path) !== null)
      this.debounce({ type: 'file', path: change.path });
  }

  private debounce(work: Work): void {
    if (this.closed) return;
    const key = `${work.type}:${work.path}`;
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
    const key = `${work.type}:${work.path}`;
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
          if (work.type === 'file') await this.indexPath(work.path);
          else await this.indexFolder(work.path);
        } catch (error) {
          // A bug or an I/O error on one path: log it (path only) and go on with the rest.
          this.options.logger.error(
            { path: work.path, err: { message: (error as Error).message } },
            'indexing failed',
          );
        }
        if (
          this.writes.length >= WRITE_BATCH_FILES ||
          (this.writes.length > 0 && performance.now() - this.writesSince > WRITE_BATCH_MS)
        ) {
          this.flushWrites();
        }
        // Long scans feed the embedder as they go rather than only at the end.
        if (this.writtenSinceKick >= EMBED_KICK_EVERY) this.kickEmbeddings();
        // Let HTTP requests in between files.
        await yieldToEventLoop();
      }
      this.flushWrites();
    })().finally(() => {
      this.draining = null;
      if (this.queue.size > 0 && !this.closed) {
        void this.drain();
        return;
      }
      if (!this.scanning) {
        this.cleanUpWhenQuiet();
        this.kickEmbeddings();
      }
      this.settleIfIdle();
    });
    return this.draining;
  }

  /** Records a file the index could not save and schedules its next try (backoff). */
  private rememberUnsaved(path: string, error: unknown): void {
    const tries = (this.unsaved.get(path)?.tries ?? 0) + 1;
    const first = this.options.unsavedRetryMs ?? UNSAVED_RETRY_FIRST_MS;
    const delay = Math.min(first * 2 ** (tries - 1), UNSAVED_RETRY_MAX_MS);
    const storage = storageProblem(error);
    const reason = storage
      ? storage.message.replace(/; nothing was saved\..*$/, '')
      : (error as Error).message.replace(/; try again in \d+ s$/, '');
    const seconds = Math.max(1, Math.round(delay / 1000));
    this.unsaved.set(path, {
      error: `not indexed yet: ${reason}; trying again in ${seconds} s`,
      tries,
    });
    this.options.logger.error(
      { path, tries, err: { message: (error as Error).message } },
      'writing the index failed',
    );
    const existing = this.unsavedRetries.get(path);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.unsavedRetries.delete(path);
      if (this.closed || !this.unsaved.has(path)) return;
      this.enqueue({ type: 'file', path });
      void this.drain();
    }, delay);
    timer.unref();
    this.unsavedRetries.set(path, timer);
  }

  private afterScan(): void {
    this.scanning = null;
    this.cleanUpWhenQuiet();
    this.kickEmbeddings();
    this.settleIfIdle();
  }

  /** Wakes the embedding queue if files were written (or nothing was looked at yet). */
  private kickEmbeddings(): void {
    if (!this.embeddings || !this.embeddingsWanted) return;
    this.embeddingsWanted = false;
    this.writtenSinceKick = 0;
    this.embeddings.kick();
  }

  /**
   * Drops vectors whose text no chunk has any more, once nothing waits: a rename (delete,
   * then add of the same text) arrives as two events close together and keeps its vectors.
   */
  private cleanUpWhenQuiet(): void {
    if (this.closed || !this.changedSinceCleanup || this.timers.size > 0 || this.queue.size > 0)
      return;
    this.changedSinceCleanup = false;
    try {
      const removed = this.store.removeOrphanVectors();
      if (removed > 0) this.options.logger.debug({ removed }, 'dropped vectors of deleted texts');
    } catch (error) {
      this.options.logger.error(
        { err: { message: (error as Error).message } },
        'vector clean-up failed',
      );
    }
  }

  /** Writes the parsed files waiting in `writes`, then tells listeners. */
  private flushWrites(): void {
    const batch = this.writes;
    this.writes = [];
    if (batch.length === 0 || this.closed) return;
    const failed = new Set<string>();
    try {
      inTransaction(this.options.db, () => {
        for (const entry of batch) this.store.replaceFile(entry.file, entry.chunks);
      });
    } catch {
      // One bad row must not cost the group: write them one by one and log the one that fails.
      for (const entry of batch) {
        try {
          this.store.replaceFile(entry.file, entry.chunks);
        } catch (error) {
          failed.add(entry.file.path);
          this.rememberUnsaved(entry.file.path, error);
        }
      }
    }
    for (const { file, chunks } of batch) {
      if (failed.has(file.path)) continue;
      if (this.unsaved.delete(file.path)) {
        this.options.logger.info({ path: file.path }, 'file saved in the index after all');
      }
      this.indexedCount++;
      this.changedSinceCleanup = true;
      this.embeddingsWanted = true;
      this.writtenSinceKick++;
      if (file.error !== undefined) {
        this.options.logger.warn({ path: file.path, reason: file.error }, 'file not indexed');
      } else if (file.warnings.length > 0) {
        // The warnings may quote a tag or field value: status shows them to the user, the log
        // only counts them (no note content in logs).
        this.options.logger.warn(
          { path: file.path, warnings: file.warnings.length },
          'file indexed partly',
        );
      } else {
        this.options.logger.debug({ path: file.path, chunks: chunks.length }, 'file indexed');
      }
      this.emit({ type: 'upsert', path: file.path, kind: file.kind });
    }
  }

  private async indexFolder(path: string): Promise<void> {
    this.flushWrites();
    const absolute = join(this.root, path);
    const stats = await lstat(absolute).catch(() => null);
    if (stats === null || !stats.isDirectory()) {
      // Deleted or moved away: everything under it goes (its files' own unlink events may be lost).
      for (const removed of this.store.removeFolderWithKinds(path)) {
        this.changedSinceCleanup = true;
        this.emit({ type: 'delete', path: removed.path, kind: removed.kind });
      }
      return;
    }
    // A folder that appeared (moved in, or restored): read what is inside.
    const walked = await walkVault(absolute, this.exclude);
    for (const file of walked.files) this.enqueue({ type: 'file', path: `${path}/${file.path}` });
    for (const refused of walked.refused)
      this.recordRefused(`${path}/${refused.path}`, refused.reason);
  }

  private async indexPath(path: string): Promise<void> {
    if (!isVaultRelative(path)) {
      this.options.logger.warn({ path }, 'not a path inside the vault; ignored');
      return;
    }
    const kind = indexableKind(path);
    const absolute = join(this.root, path);
    const stats = await lstat(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw error;
    });
    if (stats === null || kind === null || this.exclude.excludes(path) || stats.isDirectory()) {
      this.remove(path);
      return;
    }
    if (stats.isSymbolicLink()) {
      const problem = await symlinkProblem(this.root, path);
      if (problem !== null) {
        this.recordRefused(path, problem);
        return;
      }
    } else if (!stats.isFile()) {
      this.remove(path);
      return;
    } else if (path.includes('/') && !(await this.insideVault(absolute))) {
      // A folder on the way is a symlink leading out (the walker never enters one, but a path
      // handed to refresh() or a watcher event could pass through it).
      this.recordRefused(path, 'a folder on its path leads outside the vault; not read');
      return;
    }
    // For a symlink the target's size and time count.
    const before = stats.isSymbolicLink() ? await stat(absolute) : stats;
    const stored = this.store.fileState(path);
    const mtimeMs = Math.round(before.mtimeMs);
    if (isUnchanged(stored, before)) return;
    let bytes: Buffer;
    try {
      bytes = await readFile(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        this.remove(path);
        return;
      }
      this.recordRefused(path, `cannot read the file (${code ?? (error as Error).message})`);
      return;
    }
    const after = await stat(absolute).catch(() => null);
    if (after === null || Math.round(after.mtimeMs) !== mtimeMs || after.size !== before.size) {
      // Still being written (a sync tool writing in steps): read it once it is quiet.
      this.debounce({ type: 'file', path });
      return;
    }
    const hash = contentHash(bytes);
    if (stored && stored.contentHash === hash) {
      this.store.touchFile(path, mtimeMs, before.size);
      return;
    }
    let entry: Awaited<ReturnType<typeof readVaultFile>>;
    try {
      entry = await readVaultFile(
        { path, kind, bytes, mtimeMs },
        this.readPdfText,
        this.stopping.signal,
      );
    } catch (error) {
      if (!(error instanceof PdfBusyError)) throw error;
      this.rememberUnsaved(path, error); // every PDF slot taken: try again later
      return;
    }
    if (this.closed) return;
    if (this.writes.length === 0) this.writesSince = performance.now();
    this.writes.push(entry);
  }

  private async insideVault(absolute: string): Promise<boolean> {
    const real = await realpath(absolute).catch(() => null);
    return real !== null && real.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep);
  }

  private remove(path: string): void {
    // Earlier writes first, so a file written then deleted within one group ends deleted.
    this.flushWrites();
    this.unsaved.delete(path); // gone: nothing left to save
    const kind = this.store.removeFile(path);
    if (kind === null) return;
    this.changedSinceCleanup = true;
    this.emit({ type: 'delete', path, kind });
  }

  /** Stores a file that may not be read as failed, so status shows why it is missing. */
  private recordRefused(path: string, reason: string): void {
    const kind = indexableKind(path);
    const stored = this.store.fileState(path);
    const marker = `refused:${reason}`;
    if (stored?.contentHash === marker) return;
    this.flushWrites();
    this.store.replaceFile(
      {
        path,
        kind: kind === 'pdf' ? 'pdf' : 'note',
        title: path.split('/').pop() ?? path,
        tags: [],
        aliases: [],
        mtimeMs: 0,
        size: 0,
        contentHash: marker,
        error: reason,
        warnings: [],
      },
      [],
    );
    this.options.logger.warn({ path, reason }, 'file not indexed');
  }

  private emit(change: VaultChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.options.logger.error(
          { path: change.path, err: { message: (error as Error).message } },
          'index change listener failed',
        );
      }
    }
  }

  private isIdle(): boolean {
    return (
      this.closed ||
      (this.timers.size === 0 && this.queue.size === 0 && !this.draining && !this.scanning)
    );
  }

  private settleIfIdle(): void {
    if (this.isIdle()) this.settle();
  }

  private settle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * Whether a file with this time and size is what the index holds, so it need not be read: a
 * sync tool that rewrites a file keeping both (rare: it would have to keep the size too) is
 * caught only once the time or size changes. Files stored by an older INDEX_FORMAT are read.
 */
function isUnchanged(stored: StoredFileState | undefined, stat: FileStat): boolean {
  return (
    stored !== undefined &&
    stored.mtimeMs === Math.round(stat.mtimeMs) &&
    stored.size === stat.size &&
    stored.contentHash.startsWith(`${INDEX_FORMAT}:`)
  );
}

/** A `/`-separated relative path with no `.`/`..`/empty segments: it cannot leave the vault. */
function isVaultRelative(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0'))
    return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
