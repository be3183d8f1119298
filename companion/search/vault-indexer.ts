import type { DocumentType } from '../../shared/protocol/search';
import type { SemanticStatus, StatusResponse } from '../../shared/protocol/status';
import type { SearchExclusionRule } from './search-exclusions';
import type { Clock, Embedder } from '../../shared/ports';
import { inTransaction } from '../db/open';
import type { SqliteDatabase } from '../db/open';
import type { Logger } from '../logging';
import type { IndexStatusSource } from '../status/sources';
import { EmbeddingQueue } from './embedding-queue';
import type { EmbeddingQueueOptions } from './embedding-queue';
import { VaultExcludes } from '../vault/exclude-settings';
import { vaultFileKind } from '../vault/indexable-kind';
import { VaultChangeFeed } from '../vault/change-feed';
import type { VaultChange, VaultChangeSubscriber, VaultFileState } from '../vault/vault-change';
import { storageProblem } from '../http/storage-error';
import { IndexStore } from './index-store';
import { SqliteIndexQueries } from './index-queries';
import type { ColumnWeights } from './index-queries';
import { createPdfReader, PdfBusyError } from '../pdf/pdf-reader';
import type { PdfTextReader } from '../pdf/pdf-reader';
import { indexedVersionOfHash, readVaultFile, tooLargeToIndex } from './read-vault-file';
import type { IndexedFile } from './read-vault-file';

export { DEFAULT_DEBOUNCE_MS, DEFAULT_RESCAN_INTERVAL_MS } from '../vault/change-feed';
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
  /**
   * The vault change feed the index follows (the one the server shares with reminders and
   * sync). Absent, the indexer makes its own over `vault` and starts it in `start()`.
   */
  readonly feed?: VaultChangeFeed;
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

/**
 * Keeps the SQLite index in step with the vault, as a subscriber of the vault change feed:
 * each changed note or PDF is parsed, chunked and written (in groups, one transaction each);
 * a deleted file drops its rows. Chunks without a vector go to the embedding queue. One
 * file's bad content never stops the rest.
 */
export class VaultIndexer implements IndexStatusSource, VaultChangeSubscriber {
  readonly name = 'search index';
  readonly kinds = ['markdown', 'text', 'pdf'] as const;
  readonly feed: VaultChangeFeed;
  readonly store: IndexStore;
  readonly queries: SqliteIndexQueries;
  readonly embeddings: EmbeddingQueue | null;
  private readonly ownsFeed: boolean;
  private readonly unsubscribe: () => void;
  private readonly readPdfText: PdfTextReader;
  private readonly listeners = new Set<(change: IndexChange) => void>();
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
    this.store = new IndexStore(options.db, () => options.clock.now());
    const embedderModel = options.embedder?.model ?? null;
    this.queries = new SqliteIndexQueries(options.db, {
      ...(options.weights ? { weights: options.weights } : {}),
      preferredModel: () => embedderModel,
      stemLanguages: () => this.store.stemLanguages(),
    });
    this.ownsFeed = options.feed === undefined;
    this.feed =
      options.feed ??
      new VaultChangeFeed({
        vault: options.vault,
        db: options.db,
        logger: options.logger,
        excludes:
          options.excludes ??
          VaultExcludes.read(options.vault, options.excludeGlobs, options.logger),
        ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
        ...(options.watch === undefined ? {} : { watch: options.watch }),
        ...(options.rescanIntervalMs === undefined
          ? {}
          : { rescanIntervalMs: options.rescanIntervalMs }),
      });
    this.readPdfText = options.pdfReader ?? createPdfReader();
    this.embeddings = options.embedder
      ? new EmbeddingQueue(this.store, options.embedder, options.logger, options.embeddings)
      : null;
    this.unsubscribe = this.feed.subscribe(this);
  }

  /** Starts the feed when the indexer owns it (the server starts the shared one). */
  async start(): Promise<void> {
    if (this.ownsFeed) this.feed.start();
  }

  /**
   * Indexes these vault-relative paths now (no debounce) and resolves once they are in the
   * index: for code that just wrote a file (ingest, note creation) and wants it searchable.
   */
  refresh(paths: readonly string[]): Promise<void> {
    return this.feed.refresh(paths);
  }

  /** Files waiting to be (re)indexed: changes the feed has not read or delivered yet. */
  get pending(): number {
    return this.feed.pending + this.writes.length;
  }

  /** Resolves when the scan is done and no file event waits (embeddings may still run). */
  whenIdle(): Promise<void> {
    return this.feed.whenIdle();
  }

  /** Resolves when files are indexed and every chunk text has a vector (or embedding failed). */
  async whenEmbedded(): Promise<void> {
    await this.whenIdle();
    await this.embeddings?.whenIdle();
  }

  /** Subscribes to what the index took in or dropped; returns the unsubscribe function. */
  onIndexed(listener: (change: IndexChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The plugin's exclude globs changed (its data.json, see exclude-settings.ts): the rescan
   * drops files now excluded and indexes ones no longer excluded.
   */
  async setPluginExcludeGlobs(globs: readonly string[]): Promise<void> {
    if (this.closed) return;
    this.feed.excludes.setPluginGlobs(globs);
    await this.rescan();
  }

  /** Walks the vault again (e.g. after the watcher may have missed events or folders). */
  rescan(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.feed.rescan();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.ownsFeed) await this.feed.close();
    else await this.feed.whenIdle().catch(() => undefined);
    this.closed = true;
    this.unsubscribe();
    this.stopping.abort();
    for (const timer of this.unsavedRetries.values()) clearTimeout(timer);
    this.unsavedRetries.clear();
    await this.embeddings?.close();
    this.listeners.clear();
  }

  // ---- the feed's subscriber ----------------------------------------------------------------

  async onChange(change: VaultChange): Promise<void> {
    if (this.closed) return;
    if (change.type === 'delete') {
      this.remove(change.path);
      return;
    }
    if (change.type === 'refused') {
      this.recordRefused(change.path, change.reason);
      return;
    }
    if (change.kind === 'other') return;
    const stored = this.store.fileState(change.path);
    const version = indexedVersionOfHash(change.hash);
    if (stored?.indexedVersion === version) {
      if (stored.mtimeMs !== change.mtimeMs || stored.size !== change.size) {
        this.store.touchFile(change.path, change.mtimeMs, change.size);
      }
      return;
    }
    let entry: IndexedFile;
    try {
      const file = {
        path: change.path,
        kind: change.kind,
        mtimeMs: change.mtimeMs,
        hash: change.hash,
      };
      entry =
        change.bytes !== null
          ? await readVaultFile(
              { ...file, bytes: change.bytes },
              this.readPdfText,
              this.stopping.signal,
            )
          : file.kind === 'pdf'
            ? // PDFs come without their bytes: the reader's child process reads the file.
              await readVaultFile(
                {
                  ...file,
                  kind: 'pdf',
                  file: this.feed.absolutePath(change.path),
                  size: change.size,
                },
                this.readPdfText,
                this.stopping.signal,
              )
            : tooLargeToIndex(change);
    } catch (error) {
      if (!(error instanceof PdfBusyError)) throw error;
      this.rememberUnsaved(change.path, error); // every PDF slot taken: try again later
      return;
    }
    if (this.closed) return;
    if (this.writes.length === 0) this.writesSince = performance.now();
    this.writes.push(entry);
    if (
      this.writes.length >= WRITE_BATCH_FILES ||
      performance.now() - this.writesSince > WRITE_BATCH_MS
    ) {
      this.flushWrites();
    }
    // Long scans feed the embedder as they go rather than only at the end.
    if (this.writtenSinceKick >= EMBED_KICK_EVERY) this.kickEmbeddings();
  }

  /** The feed has nothing more for now: write what waits, wake the embedder, clean up. */
  settled(): void {
    if (this.closed) return;
    this.flushWrites();
    // During a scan the embedder is woken every EMBED_KICK_EVERY files instead.
    if (this.feed.isScanning) return;
    // The first scan is through: files new to the index from now on are changes (the digest).
    this.store.endFirstBuild();
    this.cleanUpWhenQuiet();
    this.kickEmbeddings();
  }

  /**
   * After a scan: files the index holds that are gone from the vault are dropped, and files
   * whose indexed version is not the vault's (a crash between the feed and the index, a new
   * INDEX_FORMAT) are asked for again.
   */
  reconcile(files: ReadonlyMap<string, VaultFileState>): string[] {
    if (this.closed) return [];
    this.flushWrites();
    const wanted: string[] = [];
    const stored = this.store.fileStates();
    for (const [path, state] of stored) {
      if (files.has(path)) continue;
      // Refused files are re-reported by the feed's scan; a gone one is asked for to drop it.
      if (state.indexedVersion.startsWith('refused:')) wanted.push(path);
      else this.remove(path);
    }
    for (const [path, file] of files) {
      if (vaultFileKind(path) === 'other') continue;
      if (stored.get(path)?.indexedVersion !== indexedVersionOfHash(file.hash)) wanted.push(path);
    }
    return wanted;
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
      pending: this.pending + this.unsaved.size + (this.feed.isScanning ? 1 : 0),
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
    const caughtUp = waiting === 0 && this.pending === 0 && !this.feed.isScanning;
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
      void this.feed.redeliver(this, [path]);
    }, delay);
    timer.unref();
    this.unsavedRetries.set(path, timer);
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
    if (this.closed || !this.changedSinceCleanup || this.feed.pending > 0) return;
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
        for (const entry of batch)
          this.store.replaceFile(entry.file, entry.chunks, entry.decisions);
      });
    } catch {
      // One bad row must not cost the group: write them one by one and log the one that fails.
      for (const entry of batch) {
        try {
          this.store.replaceFile(entry.file, entry.chunks, entry.decisions);
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
    const kind = vaultFileKind(path);
    const stored = this.store.fileState(path);
    const marker = `refused:${reason}`;
    if (stored?.indexedVersion === marker) return;
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
        indexedVersion: marker,
        error: reason,
        warnings: [],
      },
      [],
    );
    this.options.logger.warn({ path, reason }, 'file not indexed');
  }

  private emit(change: IndexChange): void {
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
}

/** What the index took in (`upsert`) or dropped (`delete`), after it is written. */
export interface IndexChange {
  readonly type: 'upsert' | 'delete';
  readonly path: string;
  readonly kind: DocumentType;
}
