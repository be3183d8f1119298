import { chunkNote } from '../../shared/search/chunk';
import type { NoteChunk } from '../../shared/search/chunk';
import { textHash } from '../../shared/search/hash';
import type { Embedder } from '../../shared/ports';
import { noteInputFromMarkdown } from './note-input';
import type { KnownNoteMeta, NoteProblem } from './note-input';
import type { TimeSlicer } from './time-slicer';
import type { SearchEngine, VectorLookup } from './search-engine';
import type { SearchStore, StoredFile } from './search-store';

/*
 * Keeps the search engine in step with the vault (docs/principles.md, docs/search.md, Omnisearch's design): restore
 * from the store (the engine's index snapshot, checked note by note against the stored files;
 * only notes that differ are re-tokenised), diff path → (mtime, size) against the vault, then
 * follow vault events through a debounced dirty set. Work runs in slices of at most `sliceMs`
 * with a UI turn between them; every file is persisted as it is done, so a stop anywhere
 * resumes from the next diff. Embedding runs after indexing, in batches, and only for text
 * hashes with no stored vector. The snapshot is rewritten once indexing settles: at the end
 * of the start-up pass, then `snapshotDelayMs` after later changes.
 */

/** Which paths are never indexed (shared ExcludeRules, plus the plugin's own in search-service). */
export interface PathExclusions {
  excludes(path: string): boolean;
}

export interface VaultFileStat {
  path: string;
  mtime: number;
  size: number;
}

/** What the indexer reads from the vault (the Obsidian adapter implements it). */
export interface VaultSource {
  /** Every Markdown file in the vault. */
  list(): VaultFileStat[];
  /** The file's current stat, or null when it no longer exists. */
  stat(path: string): VaultFileStat | null;
  read(path: string): Promise<string>;
  /** Front matter and tags Obsidian already parsed, when available. */
  meta?(path: string): KnownNoteMeta | undefined;
}

export type IndexPhase = 'loading' | 'indexing' | 'embedding' | 'idle';

export interface IndexProgress {
  phase: IndexPhase;
  /** Files (or chunks while embedding) done in this pass, and the pass's total. */
  done: number;
  total: number;
}

export interface DeviceIndexerOptions {
  source: VaultSource;
  store: SearchStore;
  engine: SearchEngine;
  /** The engine's embedder; null = keyword only. */
  embedder: Embedder | null;
  scheduler: TimeSlicer;
  exclude: PathExclusions;
  /** Longest stretch of work before yielding to the UI (default 25 ms). */
  sliceMs?: number;
  /** Quiet time after a vault event before re-indexing (default 500 ms). */
  debounceMs?: number;
  /** Quiet time after indexing before the index snapshot is rewritten (default 60 s). */
  snapshotDelayMs?: number;
  /** Chunks per embedding request (default 32). */
  embedBatch?: number;
  /** After an embedding failure, wait this long before trying again (default 60 s). */
  embedRetryMs?: number;
  onProgress?: (progress: IndexProgress) => void;
  onProblem?: (problem: NoteProblem) => void;
}

type QueuedWork = 'upsert' | 'delete';

/** Stored files per IndexedDB read while restoring. */
const RESTORE_BATCH = 250;
/** Stored vectors per IndexedDB read while restoring (2 KB each at 512 dimensions). */
const RESTORE_VECTOR_BATCH = 2000;

export class DeviceIndexer {
  private readonly sliceMs: number;
  private readonly debounceMs: number;
  private readonly embedBatch: number;
  private readonly embedRetryMs: number;
  private readonly snapshotDelayMs: number;
  /** What the store holds per path (without chunks), to diff against the vault. */
  private readonly known = new Map<string, Omit<StoredFile, 'chunks'>>();
  private readonly queue = new Map<string, QueuedWork>();
  private readonly dirty = new Map<string, QueuedWork>();
  /** Notes with chunks that still need a vector. */
  private readonly toEmbed = new Set<string>();
  private cancelDebounce: (() => void) | undefined;
  private cancelRetry: (() => void) | undefined;
  private cancelSnapshot: (() => void) | undefined;
  private snapshotWanted = false;
  private pumping: Promise<void> | undefined;
  private embedBlocked = false;
  private stopped = false;
  private progress: IndexProgress = { phase: 'loading', done: 0, total: 0 };
  private isReady = false;
  private isRestored = false;

  constructor(private readonly options: DeviceIndexerOptions) {
    this.sliceMs = options.sliceMs ?? 25;
    this.debounceMs = options.debounceMs ?? 500;
    this.embedBatch = options.embedBatch ?? 32;
    this.embedRetryMs = options.embedRetryMs ?? 60_000;
    this.snapshotDelayMs = options.snapshotDelayMs ?? 60_000;
  }

  /**
   * True once the persisted index is searchable (before the diff has caught up; with a
   * snapshot, before the restore has read every stored file: searches confirm what they find).
   */
  get ready(): boolean {
    return this.isReady;
  }

  /**
   * True once every stored note is in the engine with its vectors: what needs whole notes
   * rather than search hits (the related-notes view) waits for this.
   */
  get restored(): boolean {
    return this.isRestored;
  }

  get state(): IndexProgress {
    return { ...this.progress };
  }

  /**
   * Restores the index from the store, then indexes what changed since. Resolves when both
   * passes and the embedding of new text are done (or the indexer was stopped).
   */
  async start(): Promise<void> {
    await this.restore();
    if (this.stopped) return;
    this.diffAgainstVault();
    // The first pass ends with a snapshot; later changes write one after snapshotDelayMs.
    this.snapshotWanted = true;
    await this.pump();
    this.snapshotWanted = false;
  }

  fileChanged(path: string): void {
    this.markDirty(path, 'upsert');
  }

  fileDeleted(path: string): void {
    this.markDirty(path, 'delete');
  }

  fileRenamed(oldPath: string, newPath: string): void {
    this.markDirty(oldPath, 'delete');
    this.markDirty(newPath, 'upsert');
  }

  /** Resolves when nothing is queued or running (events still inside the debounce wait). */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  stop(): void {
    this.stopped = true;
    this.options.engine.confirmUnconfirmedWith(null);
    this.cancelDebounce?.();
    this.cancelRetry?.();
    this.cancelSnapshot?.();
  }

  private async restore(): Promise<void> {
    const { store, engine, embedder, exclude, scheduler } = this.options;
    this.report({ phase: 'loading', done: 0, total: 0 });
    const total = await store.countFiles();
    const snapshotVectors = await this.loadSnapshot(total);
    const fromSnapshot = snapshotVectors !== false;
    // With the snapshot's vectors, only notes it did not cover need vector records (looked up
    // per batch); without them, every vector is read, in range batches.
    let vectors: Map<string, Float32Array> | undefined;
    const lookup = (hash: string) => vectors?.get(hash);
    if (fromSnapshot) {
      // Searchable now: a search's candidates among the snapshot's notes are read and adopted
      // on the spot (a few records), while the loop below reads all of them (seconds at 10k).
      engine.confirmUnconfirmedWith((paths) => this.confirmFromStore(paths, lookup));
      this.isReady = true;
      this.report({ phase: 'loading', done: 0, total });
    }
    if (embedder && typeof snapshotVectors === 'function') {
      await this.loadSnapshotVectors(snapshotVectors);
    }
    if (embedder && !engine.vectorsFromSnapshot) {
      vectors = await this.readVectors(embedder.model.id);
    }
    if (this.stopped) return;
    const used = new Set<string>();
    let done = 0;
    let after: string | undefined;
    let sliceStart = scheduler.now();
    // Batches keep each IndexedDB read (and its structured-clone cost) within a UI slice.
    for (;;) {
      const files = await store.filesAfter(after, RESTORE_BATCH);
      if (this.stopped) return;
      if (files.length === 0) break;
      after = files[files.length - 1]!.path;
      const kept: StoredFile[] = [];
      for (const file of files) {
        done++;
        if (exclude.excludes(file.path)) {
          await store.deleteFile(file.path);
          continue;
        }
        kept.push(file);
        this.known.set(file.path, {
          path: file.path,
          mtime: file.mtime,
          size: file.size,
          contentHash: file.contentHash,
        });
        this.adoptStored(file, lookup);
        for (const chunk of file.chunks) used.add(chunk.textHash);
        if (scheduler.now() - sliceStart >= this.sliceMs) {
          this.report({ phase: 'loading', done, total });
          await scheduler.yieldToUi();
          if (this.stopped) return;
          sliceStart = scheduler.now();
        }
      }
      if (embedder)
        await this.restoreMissingVectors(embedder.model.id, kept, vectors === undefined);
      if (this.stopped) return;
    }
    engine.finishRestore();
    engine.confirmUnconfirmedWith(null);
    this.isReady = true;
    this.isRestored = true;
    // Vectors of another model or of text no note has any more. With no provider, keep them:
    // switching back to it should not cost a full re-embedding.
    if (embedder) await store.pruneVectors(embedder.model.id, used);
  }

  /**
   * Puts a stored file's chunks in the engine: adopted from the snapshot when it indexed the
   * same version, re-tokenised otherwise. A note already in it (confirmed by a search, or
   * indexed from the vault since) keeps its chunks and only gets the vectors it lacks.
   */
  private adoptStored(file: StoredFile, vectors: VectorLookup): void {
    const { engine } = this.options;
    if (engine.hasNote(file.path)) engine.setVectors(file.path, vectors);
    else if (!engine.adoptNote(file.path, file.contentHash, file.chunks, vectors)) {
      engine.upsertNote(file.path, file.chunks, vectors);
    }
  }

  /** The engine's confirmer while restoring: reads these snapshot notes' files and adopts them. */
  private async confirmFromStore(paths: readonly string[], vectors: VectorLookup): Promise<void> {
    const { store, exclude } = this.options;
    const files = await store.getFiles(paths.filter((path) => !exclude.excludes(path)));
    // Stopped, or restored meanwhile (then adoptStored finds them present and adds nothing).
    if (this.stopped) return;
    for (const file of files) this.adoptStored(file, vectors);
  }

  /** Gives restored notes the stored vectors they lack; what is still missing gets embedded. */
  private async restoreMissingVectors(
    model: string,
    files: readonly StoredFile[],
    readStore: boolean,
  ): Promise<void> {
    const { engine, store } = this.options;
    const missing = files.flatMap((file) =>
      engine.chunksWithoutVectors(file.path).map((chunk) => chunk.textHash),
    );
    if (missing.length > 0 && readStore) {
      const found = await store.vectorsFor(model, missing);
      for (const file of files) engine.setVectors(file.path, (hash) => found.get(hash));
    }
    for (const file of files) {
      if (engine.chunksWithoutVectors(file.path).length > 0) this.toEmbed.add(file.path);
    }
  }

  /** Every stored vector of `model`, read in batches with a UI turn between them. */
  private async readVectors(model: string): Promise<Map<string, Float32Array>> {
    const { store, scheduler } = this.options;
    const vectors = new Map<string, Float32Array>();
    let after: string | undefined;
    for (;;) {
      const rows = await store.vectorsAfter(model, after, RESTORE_VECTOR_BATCH);
      if (rows.length === 0 || this.stopped) return vectors;
      for (const [hash, vector] of rows) vectors.set(hash, vector);
      after = rows[rows.length - 1]![0];
      await scheduler.yieldToUi();
    }
  }

  /**
   * Loads the engine's snapshot but its vectors; when there is none or it is unusable, the
   * restore re-tokenises. Returns false when nothing was loaded, else the reader of its vectors
   * (undefined when it has none): keyword search can start before those ~80 MB are read.
   */
  private async loadSnapshot(
    storedFiles: number,
  ): Promise<false | undefined | (() => Promise<unknown>)> {
    const { store, engine, scheduler } = this.options;
    let reason: string;
    try {
      const { snapshot, readVectors } = await store.readSnapshotDeferringVectors(() =>
        scheduler.yieldToUi(),
      );
      if (snapshot !== undefined) {
        const steps = engine.loadSnapshotInSteps(snapshot);
        while (!steps.next().done) await scheduler.yieldToUi();
        return readVectors;
      }
      reason = 'there is none yet';
    } catch (error) {
      reason = errorMessage(error);
      await store.deleteSnapshot().catch(() => undefined);
    }
    if (storedFiles > 0) {
      this.options.onProblem?.({
        path: '',
        message: `search index snapshot not used (${reason}): re-indexing ${storedFiles} stored files`,
      });
    }
    return false;
  }

  /** The snapshot's vectors into the engine; unusable ones are read from the vector records. */
  private async loadSnapshotVectors(readVectors: () => Promise<unknown>): Promise<void> {
    const { engine, scheduler } = this.options;
    try {
      const steps = engine.loadSnapshotVectorsInSteps(await readVectors());
      while (!steps.next().done) await scheduler.yieldToUi();
    } catch (error) {
      this.options.onProblem?.({
        path: '',
        message: `search index snapshot vectors not used (${errorMessage(error)}): reading the stored vectors`,
      });
    }
  }

  /**
   * Compacts the engine's index and persists it, in slices. Runs inside the pump, so no
   * indexing changes the engine meanwhile (searches may run: they read the old arrays).
   */
  private async writeSnapshot(): Promise<void> {
    const { engine, store, scheduler } = this.options;
    this.snapshotWanted = false;
    await scheduler.yieldToUi();
    if (this.stopped) return;
    const steps = engine.takeSnapshot((path) => this.known.get(path)?.contentHash);
    let sliceStart = scheduler.now();
    try {
      for (;;) {
        const step = steps.next();
        if (step.done) {
          // Writing clones the snapshot's arrays: a fresh slice for it.
          await scheduler.yieldToUi();
          if (this.stopped) return;
          await store.putSnapshot(step.value, () => scheduler.yieldToUi());
          return;
        }
        // The steps after compaction take ~20 ms each at 10k notes: with half a slice gone,
        // another could push this one to twice the budget (measured: 20 + 21 ms in one).
        if (scheduler.now() - sliceStart >= this.sliceMs / 2) {
          await scheduler.yieldToUi();
          if (this.stopped) return;
          sliceStart = scheduler.now();
        }
      }
    } catch (error) {
      // Closing mid-write closes the store under it: not a failure to report.
      if (this.stopped) return;
      this.options.onProblem?.({
        path: '',
        message: `search index snapshot not saved: ${errorMessage(error)}; the next start re-indexes what changed`,
      });
    } finally {
      steps.return(undefined as never);
    }
  }

  private scheduleSnapshot(): void {
    if (this.cancelSnapshot || this.stopped) return;
    this.cancelSnapshot = this.options.scheduler.after(this.snapshotDelayMs, () => {
      this.cancelSnapshot = undefined;
      this.snapshotWanted = true;
      void this.pump();
    });
  }

  private diffAgainstVault(): void {
    const { source, exclude } = this.options;
    const present = new Set<string>();
    for (const file of source.list()) {
      if (exclude.excludes(file.path)) continue;
      present.add(file.path);
      const known = this.known.get(file.path);
      if (!known || known.mtime !== file.mtime || known.size !== file.size)
        this.queue.set(file.path, 'upsert');
    }
    for (const path of this.known.keys()) if (!present.has(path)) this.queue.set(path, 'delete');
  }

  private markDirty(path: string, work: QueuedWork): void {
    if (this.stopped) return;
    this.dirty.set(path, work);
    this.cancelDebounce?.();
    this.cancelDebounce = this.options.scheduler.after(this.debounceMs, () => {
      this.cancelDebounce = undefined;
      for (const [dirtyPath, dirtyWork] of this.dirty) this.queue.set(dirtyPath, dirtyWork);
      this.dirty.clear();
      void this.pump();
    });
  }

  /** One drain of the queue, then embedding; concurrent callers share the running drain. */
  private pump(): Promise<void> {
    if (this.pumping) return this.pumping;
    const pumping = (async () => {
      try {
        for (;;) {
          while (!this.stopped && (this.queue.size > 0 || this.canEmbed())) {
            if (this.queue.size > 0) await this.drainQueue();
            else await this.embedPending();
            // Each stage ends mid-slice; the next starts on a fresh one.
            await this.options.scheduler.yieldToUi();
          }
          if (this.stopped || !this.options.engine.changedSinceSnapshot) break;
          if (!this.snapshotWanted) {
            this.scheduleSnapshot();
            break;
          }
          await this.writeSnapshot();
          // Events that arrived meanwhile were queued for this pump.
        }
      } finally {
        if (!this.stopped) this.report({ phase: 'idle', done: 0, total: 0 });
      }
    })();
    // Cleared once settled, not inside the body: a pass with nothing to await finishes before
    // the assignment below, and clearing there left a settled promise that swallowed every
    // later pump (and made idle() spin).
    this.pumping = pumping;
    void pumping.finally(() => {
      if (this.pumping === pumping) this.pumping = undefined;
    });
    return pumping;
  }

  private async drainQueue(): Promise<void> {
    const { scheduler } = this.options;
    let done = 0;
    let total = this.queue.size;
    this.report({ phase: 'indexing', done, total });
    let sliceStart = scheduler.now();
    while (!this.stopped && this.queue.size > 0) {
      const [path, work] = this.queue.entries().next().value as [string, QueuedWork];
      this.queue.delete(path);
      try {
        if (work === 'delete') await this.removeFile(path);
        else await this.indexFile(path);
      } catch (error) {
        this.options.onProblem?.({ path, message: `not indexed: ${errorMessage(error)}` });
      }
      done++;
      total = Math.max(total, done + this.queue.size);
      if (scheduler.now() - sliceStart >= this.sliceMs) {
        this.report({ phase: 'indexing', done, total });
        await scheduler.yieldToUi();
        sliceStart = scheduler.now();
      }
    }
  }

  private async removeFile(path: string): Promise<void> {
    this.options.engine.removeNote(path);
    this.known.delete(path);
    this.toEmbed.delete(path);
    await this.options.store.deleteFile(path);
  }

  private async indexFile(path: string): Promise<void> {
    const { source, store, engine, embedder, exclude } = this.options;
    const stat = source.stat(path);
    if (!stat || exclude.excludes(path)) return this.removeFile(path);
    const content = await source.read(path);
    const contentHash = textHash(content);
    const known = this.known.get(path);
    if (known && known.contentHash === contentHash && engine.hasNote(path)) {
      // Touched but unchanged (sync tools do this): remember the new mtime, nothing else.
      const file = { ...known, mtime: stat.mtime, size: stat.size };
      this.known.set(path, file);
      const stored = await store.getFile(path);
      if (stored) await store.putFile({ ...stored, mtime: stat.mtime, size: stat.size });
      return;
    }
    const parsed = noteInputFromMarkdown(path, content, source.meta?.(path));
    let chunks: NoteChunk[] = [];
    if (parsed.ok) {
      for (const problem of parsed.problems) this.options.onProblem?.(problem);
      chunks = chunkNote(parsed.input);
    } else this.options.onProblem?.(parsed.problem);
    const vectors = embedder
      ? await store.vectorsFor(
          embedder.model.id,
          chunks.map((chunk) => chunk.textHash),
        )
      : new Map<string, Float32Array>();
    engine.upsertNote(path, chunks, (hash) => vectors.get(hash));
    if (embedder && engine.chunksWithoutVectors(path).length > 0) this.toEmbed.add(path);
    else this.toEmbed.delete(path);
    const file: StoredFile = { path, mtime: stat.mtime, size: stat.size, contentHash, chunks };
    // Stored even when nothing was indexable, so an unreadable file is not retried every start.
    await store.putFile(file);
    this.known.set(path, { path, mtime: stat.mtime, size: stat.size, contentHash });
  }

  private canEmbed(): boolean {
    return this.options.embedder !== null && !this.embedBlocked && this.toEmbed.size > 0;
  }

  private async embedPending(): Promise<void> {
    const { engine, store, scheduler } = this.options;
    const embedder = this.options.embedder!;
    const total = [...this.toEmbed].reduce(
      (sum, path) => sum + engine.chunksWithoutVectors(path).length,
      0,
    );
    let done = 0;
    this.report({ phase: 'embedding', done, total });
    while (!this.stopped && this.queue.size === 0 && this.toEmbed.size > 0) {
      const batch = new Map<string, string>();
      const paths: string[] = [];
      for (const path of this.toEmbed) {
        paths.push(path);
        for (const chunk of engine.chunksWithoutVectors(path))
          batch.set(chunk.textHash, embeddingInput(chunk));
        if (batch.size >= this.embedBatch) break;
      }
      const hashes = [...batch.keys()];
      if (hashes.length === 0) {
        for (const path of paths) this.toEmbed.delete(path);
        continue;
      }
      let vectors: Float32Array[];
      try {
        vectors = await embedder.embed([...batch.values()]);
        if (
          vectors.length !== hashes.length ||
          vectors.some((v) => v.length !== embedder.model.dims)
        ) {
          throw new Error(
            `${embedder.model.id} answered ${vectors.length} vectors for ${hashes.length} texts, or vectors not of ${embedder.model.dims} dims`,
          );
        }
      } catch (error) {
        this.options.onProblem?.({
          path: paths[0] ?? '',
          message: `embedding paused: ${errorMessage(error)}; keyword search still works`,
        });
        this.embedBlocked = true;
        this.cancelRetry = scheduler.after(this.embedRetryMs, () => {
          this.embedBlocked = false;
          void this.pump();
        });
        return;
      }
      const byHash = new Map(hashes.map((hash, i) => [hash, vectors[i]!]));
      await store.putVectors(embedder.model.id, byHash);
      for (const path of paths) {
        engine.setVectors(path, (hash) => byHash.get(hash));
        if (engine.chunksWithoutVectors(path).length === 0) this.toEmbed.delete(path);
      }
      done += hashes.length;
      this.report({ phase: 'embedding', done, total: Math.max(total, done) });
      await scheduler.yieldToUi();
    }
  }

  private report(progress: IndexProgress): void {
    this.progress = progress;
    this.options.onProgress?.({ ...progress });
  }
}

/** Title and heading path give a chunk its context; the same fields feed its textHash. */
export function embeddingInput(chunk: NoteChunk): string {
  return `${[chunk.title, ...chunk.headingPath].join(' › ')}\n\n${chunk.text}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
