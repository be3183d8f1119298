import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/ports';
import type { Logger } from '../logging';
import type { TimerHandle, TimerPort } from '../reminders/timer';
import type { BlobStore } from './blob-store';
import { isMarkdown } from './syncable-path';
import type { SyncStore } from './sync-store';

/*
 * History pruning (DESIGN §9): every Markdown version is kept 30 days, then one a day (the
 * day's last) for a year; other files' versions and deleted files 90 days. Never pruned: a
 * file's current version, and any version a paired device may still hold as its base
 * (`SyncStore.heldBases`), so a device back after months still merges. Journal rows stay (the
 * changes feed pages through them); only the bytes go, and `history` lists held bytes only.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPolicy {
  /** Every Markdown version this long. */
  readonly everyVersionMs: number;
  /** Then the last version of each UTC day this long. */
  readonly dailyMs: number;
  /** Other files' versions, and deleted files, this long. */
  readonly otherMs: number;
  /** Uploaded bytes no commit used (a device that crashed between upload and commit). */
  readonly unusedUploadMs: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = {
  everyVersionMs: 30 * DAY_MS,
  dailyMs: 365 * DAY_MS,
  otherMs: 90 * DAY_MS,
  unusedUploadMs: 7 * DAY_MS,
};

/** Pruning runs this often (and once at start). */
export const PRUNE_EVERY_MS = 6 * 60 * 60 * 1000;

interface VersionRow {
  seq: number;
  file_id: string;
  path: string;
  hash: string;
  time: number;
}

export class HistoryPruner {
  private handle: TimerHandle | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly options: {
      readonly store: SyncStore;
      readonly blobs: BlobStore;
      readonly clock: Clock;
      readonly logger: Logger;
      readonly timer: TimerPort;
      readonly policy?: RetentionPolicy;
      /** Keeps the pruner off the journal while a commit runs (the journal's `exclusive`). */
      readonly exclusive: <T>(work: () => Promise<T>) => Promise<T>;
    },
  ) {}

  /** Prunes now, then every PRUNE_EVERY_MS until `stop`. */
  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.running = this.prune()
        .catch((error: unknown) => {
          this.options.logger.warn(
            { err: { message: (error as Error).message } },
            'sync: history pruning failed; it runs again later',
          );
        })
        .finally(() => {
          if (!this.stopped) this.handle = this.options.timer.set(tick, PRUNE_EVERY_MS);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.handle !== undefined) this.options.timer.clear(this.handle);
    await this.running;
  }

  /** Removes the bytes of every version the policy no longer keeps; returns how many. */
  prune(): Promise<{ removed: number }> {
    return this.options.exclusive(async () => {
      const keep = this.versionsToKeep();
      const now = this.options.clock.now();
      const policy = this.options.policy ?? DEFAULT_RETENTION;
      const blobs = this.options.store.db
        .prepare('SELECT hash, stored_at FROM sync_blobs')
        .all() as Array<{ hash: string; stored_at: number }>;
      const journalled = new Set(
        (
          this.options.store.db.prepare('SELECT DISTINCT hash FROM sync_journal').all() as Array<{
            hash: string;
          }>
        ).map((row) => row.hash),
      );
      let removed = 0;
      for (const blob of blobs) {
        if (keep.has(blob.hash)) continue;
        // Bytes no journal entry names yet: an upload waiting for its commit, for a while.
        if (!journalled.has(blob.hash) && now - blob.stored_at < policy.unusedUploadMs) continue;
        await this.options.blobs.remove(blob.hash);
        removed++;
      }
      await this.removeStalePartials(now - policy.unusedUploadMs);
      if (removed > 0) this.options.logger.info({ removed }, 'sync: old versions pruned');
      return { removed };
    });
  }

  private versionsToKeep(): Set<string> {
    const store = this.options.store;
    const policy = this.options.policy ?? DEFAULT_RETENTION;
    const now = this.options.clock.now();
    const keep = store.heldBases();
    // Current versions: live files always; deleted files while in the trash.
    const files = store.db
      .prepare(
        `SELECT f.hash, f.deleted, j.time FROM sync_files f JOIN sync_journal j ON j.seq = f.seq`,
      )
      .all() as Array<{ hash: string; deleted: number; time: number }>;
    for (const file of files) {
      if (file.deleted === 0 || now - file.time <= policy.otherMs) keep.add(file.hash);
    }
    const versions = store.db
      .prepare(
        `SELECT seq, file_id, path, hash, time FROM sync_journal WHERE op != 'delete' ORDER BY seq`,
      )
      .all() as VersionRow[];
    /** The last version of each (file, UTC day), for the daily tier. */
    const lastOfDay = new Map<string, string>();
    for (const version of versions) {
      lastOfDay.set(`${version.file_id}@${Math.floor(version.time / DAY_MS)}`, version.hash);
    }
    for (const version of versions) {
      const age = now - version.time;
      if (isMarkdown(version.path)) {
        if (age <= policy.everyVersionMs) keep.add(version.hash);
        else if (
          age <= policy.dailyMs &&
          lastOfDay.get(`${version.file_id}@${Math.floor(version.time / DAY_MS)}`) === version.hash
        ) {
          keep.add(version.hash);
        }
      } else if (age <= policy.otherMs) {
        keep.add(version.hash);
      }
    }
    return keep;
  }

  private async removeStalePartials(before: number): Promise<void> {
    const folder = join(this.options.blobs.root, 'partial');
    let names: string[];
    try {
      names = await readdir(folder);
    } catch {
      return;
    }
    for (const name of names) {
      try {
        if ((await stat(join(folder, name))).mtimeMs < before) await rm(join(folder, name));
      } catch {
        // Gone meanwhile.
      }
    }
  }
}
