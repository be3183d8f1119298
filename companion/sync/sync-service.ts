import { join } from 'node:path';
import type { Clock } from '../../shared/ports';
import { SYNC_DEFAULT_MAX_FILE_BYTES } from '../../shared/protocol/sync';
import { AuditLog } from '../audit/audit-log';
import type { SqliteDatabase } from '../db/open';
import type { Logger } from '../logging';
import { MAX_SLEEP_MS, nodeTimer } from '../reminders';
import type { TimerHandle, TimerPort } from '../reminders';
import { BlobStore } from './blob-store';
import { SyncCommitter } from './commit';
import type { MassDeleteLimits } from './commit';
import { HistoryPruner } from './history-pruning';
import type { RetentionPolicy } from './history-pruning';
import { SyncJournal } from './journal';
import type { VaultChangeFeed } from '../vault/vault-change';
import { SyncStore } from './sync-store';

/** How often the whole vault is compared with the journal (besides the feed's changes). */
export const RESCAN_EVERY_MS = MAX_SLEEP_MS;

/** Folder of the content-addressed versions inside the data folder. */
export const SYNC_BLOBS_FOLDER = 'sync-blobs';

export interface SyncServiceOptions {
  readonly vault: string;
  readonly dataDir: string;
  /** The companion database (migrated); the service never closes it. */
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Per-file size limit; SYNC_DEFAULT_MAX_FILE_BYTES (200 MB) when absent. */
  readonly maxFileBytes?: number;
  readonly massDelete?: MassDeleteLimits;
  readonly retention?: RetentionPolicy;
  /** The pruning timer; the real one when absent. */
  readonly timer?: TimerPort;
  /** See SyncCommitterOptions.lateWriteGraceMs (production leaves it out). */
  readonly lateWriteGraceMs?: number;
}

/**
 * The companion side of Cairn Sync (DESIGN §9, docs/sync.md), everything in one place: the
 * journal and its store, the blob store, commits and history pruning. `server.ts` makes one,
 * feeds it the vault change feed and passes it to `buildApp` (deps.sync); `close` ends long
 * polls and stops the pruning timer.
 */
export class SyncService {
  readonly store: SyncStore;
  readonly blobs: BlobStore;
  readonly journal: SyncJournal;
  readonly committer: SyncCommitter;
  readonly pruner: HistoryPruner;
  private readonly unsubscribes: Array<() => void> = [];
  private readonly timer: TimerPort;
  private rescanHandle: TimerHandle | undefined;
  private rescanning: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: SyncServiceOptions) {
    this.store = new SyncStore(options.db, () => options.clock.now());
    this.blobs = new BlobStore({
      root: join(options.dataDir, SYNC_BLOBS_FOLDER),
      db: options.db,
      clock: options.clock,
      maxFileBytes: options.maxFileBytes ?? SYNC_DEFAULT_MAX_FILE_BYTES,
    });
    this.journal = new SyncJournal({
      vault: options.vault,
      store: this.store,
      blobs: this.blobs,
      logger: options.logger,
    });
    this.committer = new SyncCommitter({
      vault: options.vault,
      journal: this.journal,
      blobs: this.blobs,
      clock: options.clock,
      logger: options.logger,
      audit: new AuditLog(options.db, options.clock),
      ...(options.massDelete ? { massDelete: options.massDelete } : {}),
      ...(options.lateWriteGraceMs === undefined
        ? {}
        : { lateWriteGraceMs: options.lateWriteGraceMs }),
    });
    this.timer = options.timer ?? nodeTimer;
    this.pruner = new HistoryPruner({
      store: this.store,
      blobs: this.blobs,
      clock: options.clock,
      logger: options.logger,
      timer: options.timer ?? nodeTimer,
      exclusive: (work) => this.journal.exclusive(work),
      ...(options.retention ? { policy: options.retention } : {}),
    });
  }

  /**
   * Journals what changed on disk while the companion was not watching (every file, on the
   * first start), then prunes on its timer. Call once; changes from the feed may already flow.
   */
  async start(): Promise<void> {
    await this.journal.rescan();
    if (this.closed) return;
    this.pruner.start();
    this.armRescan();
  }

  /**
   * Rescans every RESCAN_EVERY_MS: the feed leaves out files the plugin's exclude globs name
   * (they are not indexed), but they still sync; unchanged files cost a stat each.
   */
  private armRescan(): void {
    this.rescanHandle = this.timer.set(() => {
      this.rescanning = this.journal
        .rescan()
        .catch(() => undefined)
        .finally(() => {
          if (!this.closed) this.armRescan();
        });
    }, RESCAN_EVERY_MS);
  }

  /** Journals the feed's changes as device `server` from now on. */
  follow(feed: VaultChangeFeed): void {
    this.unsubscribes.push(this.journal.subscribe(feed));
  }

  /** Ends waiting long polls at once (the app's `preClose`: open requests must not hold it up). */
  endLongPolls(): void {
    this.journal.close();
  }

  /** Stops following the feed and the timer; waits for the change in progress. */
  async close(): Promise<void> {
    this.closed = true;
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    this.journal.close();
    if (this.rescanHandle !== undefined) this.timer.clear(this.rescanHandle);
    await this.rescanning;
    await this.pruner.stop();
    await this.journal.serial.idle();
  }
}
