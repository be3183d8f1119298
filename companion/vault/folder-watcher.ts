import { watch as watchFolder } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logging';
import { walkFolders } from './vault-walk';

/*
 * Reports changes in the vault by watching its folders, not its files: one `fs.watch` (one
 * inotify watch on Linux) per folder that is not excluded, and the kernel reports every change
 * to the files in it. chokidar 4, used before, watched every file besides (plus an fs.Stats
 * kept per file): 10,000 notes took 10,000+ inotify watches — more than the default
 * `fs.inotify.max_user_watches` of 8,192 on many distributions, so watching failed with ENOSPC
 * at that size — and ~10,000 watcher objects held on the heap for as long as the companion ran.
 *
 * A folder created (or moved in) is watched as soon as it is reported, with every folder under
 * it, and reported as a 'folder' change so its files are read; a folder deleted or moved away
 * is released with everything under it, and reported the same way. What a watcher cannot
 * report (the watch limit reached, an event queue overflow, a network share) is found by the
 * indexer's periodic rescan, which calls `sync()` to watch what is missing.
 */

/**
 * What changed, vault-relative and `/`-separated. 'file': an entry that is not a folder was
 * created, changed, replaced or deleted (or a path that is gone now and was no watched folder).
 * 'folder': a folder appeared or disappeared; what is under it changed without own events.
 */
export interface FolderChange {
  readonly type: 'file' | 'folder';
  readonly path: string;
}

export interface FolderWatcherOptions {
  /** The vault folder, a real path. */
  readonly root: string;
  /** The indexer's rules: an excluded folder is never watched, an excluded path never reported. */
  readonly exclude: { excludes(relative: string): boolean };
  readonly logger: Logger;
  readonly onChange: (change: FolderChange) => void;
}

export class FolderWatcher {
  private readonly folders = new Map<string, FSWatcher>();
  /** Folder checks and syncs, one at a time in event order: each may add or release watchers. */
  private work: Promise<void> = Promise.resolve();
  private closed = false;
  /** Whether this walk already logged that the watch limit is reached (one line, not 1,000). */
  private limitLogged = false;

  constructor(private readonly options: FolderWatcherOptions) {}

  /** The folders watched now, vault-relative (`''` is the vault itself). */
  get watched(): string[] {
    return [...this.folders.keys()];
  }

  /**
   * Watches every folder of the vault not watched yet, and releases those that are gone or
   * excluded now: the start, and a repair after the exclude rules changed or events were lost.
   * Each folder is watched before it is listed, so nothing created meanwhile goes unreported.
   */
  sync(): Promise<void> {
    return this.serially(async () => {
      this.limitLogged = false;
      const seen = new Set<string>();
      await walkFolders(this.options.root, this.options.exclude, (folder) => {
        seen.add(folder);
        this.watch(folder);
      });
      for (const folder of [...this.folders.keys()]) if (!seen.has(folder)) this.release(folder);
    });
  }

  /** Stops every watcher; events still being checked are dropped. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const folder of [...this.folders.keys()]) this.release(folder);
    await this.work;
  }

  private serially(task: () => Promise<void>): Promise<void> {
    const run = this.work.then(() => (this.closed ? undefined : task()));
    this.work = run.catch((error: unknown) => {
      this.options.logger.error(
        { err: { message: (error as Error).message } },
        'vault watcher: checking a change failed; the periodic rescan will find it',
      );
    });
    return run;
  }

  private watch(folder: string): void {
    if (this.closed || this.folders.has(folder)) return;
    let watcher: FSWatcher;
    try {
      // Not persistent: watching alone does not keep the process alive (the server does).
      watcher = watchFolder(join(this.options.root, folder), { persistent: false }, (event, name) =>
        this.onEvent(folder, event, name),
      );
    } catch (error) {
      this.cannotWatch(folder, error as NodeJS.ErrnoException);
      return;
    }
    watcher.on('error', (error: NodeJS.ErrnoException) => {
      // The folder became unreadable or vanished under it; its parent reports a vanished one.
      this.options.logger.warn(
        { path: folder, err: { message: error.message, code: error.code } },
        'vault watcher error; the folder is no longer watched',
      );
      this.release(folder);
    });
    this.folders.set(folder, watcher);
  }

  private cannotWatch(folder: string, error: NodeJS.ErrnoException): void {
    // Deleted since it was listed: its parent's watcher reports that.
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return;
    if (error.code === 'ENOSPC') {
      if (this.limitLogged) return;
      this.limitLogged = true;
      this.options.logger.warn(
        {
          path: folder,
          watched: this.folders.size,
          err: { message: error.message, code: 'ENOSPC' },
        },
        'vault watcher: the system limit of watched folders is reached (raise ' +
          'fs.inotify.max_user_watches); changes in folders not watched are found by the ' +
          'periodic rescan',
      );
      return;
    }
    this.options.logger.warn(
      { path: folder, err: { message: error.message, code: error.code } },
      'vault watcher: cannot watch a folder; the periodic rescan covers it',
    );
  }

  /** Stops watching `folder` and every folder under it. */
  private release(folder: string): void {
    const prefix = folder === '' ? '' : `${folder}/`;
    for (const [path, watcher] of [...this.folders]) {
      if (path !== folder && !path.startsWith(prefix)) continue;
      watcher.close();
      this.folders.delete(path);
    }
  }

  private onEvent(folder: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (typeof name !== 'string' || name === '') {
      // No name (the kernel did not say which entry): read the whole folder again.
      this.options.onChange({ type: 'folder', path: folder });
      return;
    }
    const path = folder === '' ? name : `${folder}/${name}`;
    if (this.options.exclude.excludes(path)) return;
    if (event === 'change') {
      // A file's content or times; a watched folder's own times say nothing.
      if (!this.folders.has(path)) this.options.onChange({ type: 'file', path });
      return;
    }
    // 'rename': an entry appeared, disappeared or was replaced; only a look tells which.
    void this.serially(() => this.check(path)).catch(() => undefined);
  }

  private async check(path: string): Promise<void> {
    const stats = await lstat(join(this.options.root, path)).catch(() => null);
    if (this.closed) return;
    // A watcher already there watches the old folder (an inode), wherever it went: a folder
    // moved out keeps reporting under its old path until released.
    const wasFolder = this.folders.has(path);
    if (wasFolder) this.release(path);
    if (stats?.isDirectory()) {
      await walkFolders(
        this.options.root,
        this.options.exclude,
        (folder) => this.watch(folder),
        path,
      );
      this.options.onChange({ type: 'folder', path });
      return;
    }
    this.options.onChange({ type: wasFolder ? 'folder' : 'file', path });
  }
}
