/**
 * What the launch scan of the vault's reminders found, per file, kept between sessions so a
 * launch reads only the files that changed since (the first launch, and any launch after the
 * zone or the enabled syntaxes changed, reads them all). A file is known unchanged when its
 * modification time and size are the ones recorded; files without reminders are recorded by
 * those two numbers alone.
 *
 * Stored as `{ v, key, files: { path: [mtime, size, entries?, problems?] } }`; anything else
 * (an older version, another settings key, a damaged file) reads as empty, never as an error.
 */
import type { VaultReminderEntry } from './vault-reminder-entries';

const VERSION = 1;

export interface ScanRecord {
  mtime: number;
  size: number;
  entries: readonly VaultReminderEntry[];
  problems: readonly string[];
}

type StoredRecord = [number, number] | [number, number, VaultReminderEntry[], string[]];

export class ReminderScanState {
  private readonly files = new Map<string, ScanRecord>();

  /** `key` says how files were read (zone, syntaxes): a state of another key is not reused. */
  constructor(readonly key: string) {}

  static parse(stored: unknown, key: string): ReminderScanState {
    const state = new ReminderScanState(key);
    if (typeof stored !== 'object' || stored === null) return state;
    const { v, key: storedKey, files } = stored as Record<string, unknown>;
    if (v !== VERSION || storedKey !== key || typeof files !== 'object' || files === null) {
      return state;
    }
    for (const [path, record] of Object.entries(files)) {
      if (!Array.isArray(record)) continue;
      const [mtime, size, entries = [], problems = []] = record as unknown[];
      if (typeof mtime !== 'number' || typeof size !== 'number') continue;
      if (!Array.isArray(entries) || !Array.isArray(problems)) continue;
      state.files.set(path, {
        mtime,
        size,
        entries: entries as VaultReminderEntry[],
        problems: problems.filter((problem): problem is string => typeof problem === 'string'),
      });
    }
    return state;
  }

  /** The record of `path` when the file is as recorded, else undefined (read it again). */
  unchanged(path: string, mtime: number, size: number): ScanRecord | undefined {
    const record = this.files.get(path);
    return record !== undefined && record.mtime === mtime && record.size === size
      ? record
      : undefined;
  }

  set(path: string, record: ScanRecord): void {
    this.files.set(path, record);
  }

  delete(path: string): void {
    this.files.delete(path);
  }

  rename(oldPath: string, newPath: string): void {
    const record = this.files.get(oldPath);
    if (record === undefined) return;
    this.files.delete(oldPath);
    this.files.set(newPath, {
      ...record,
      entries: record.entries.map((entry) => ({ ...entry, path: newPath })),
    });
  }

  /** Drops the records of files not in `present` (deleted while Obsidian was closed). */
  keepOnly(present: ReadonlySet<string>): void {
    for (const path of [...this.files.keys()]) if (!present.has(path)) this.files.delete(path);
  }

  toJSON(): unknown {
    const files: Record<string, StoredRecord> = {};
    for (const [path, record] of this.files) {
      files[path] =
        record.entries.length === 0 && record.problems.length === 0
          ? [record.mtime, record.size]
          : [record.mtime, record.size, [...record.entries], [...record.problems]];
    }
    return { v: VERSION, key: this.key, files };
  }
}
