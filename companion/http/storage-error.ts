/*
 * A full or read-only disk, said as such. The operating system reports ENOSPC/EDQUOT/EROFS with
 * the absolute file path and SQLite reports SQLITE_FULL/SQLITE_READONLY; neither tells a user
 * which of Cairn's two places (the vault, the companion's data folder) needs attention, and
 * the path must not leave the server. Routes answer 507 with one of these codes and a hint.
 */

export type StorageErrorCode = 'STORAGE_FULL' | 'STORAGE_READ_ONLY';

export interface StorageProblem {
  readonly code: StorageErrorCode;
  /** What is full or read-only, where, and what to do; no absolute paths. */
  readonly message: string;
}

/** The companion's two places on disk, to say which one an error is about. */
export interface StoragePlaces {
  readonly vault: string;
  readonly dataDir: string;
}

const FULL_ERRNO = new Set(['ENOSPC', 'EDQUOT']);
const READ_ONLY_ERRNO = new Set(['EROFS']);

/** The storage problem `error` is, or null when it is something else. */
export function storageProblem(error: unknown, places?: StoragePlaces): StorageProblem | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, path } = error as { code?: unknown; path?: unknown };
  if (typeof code !== 'string') return null;
  const isSqlite = code.startsWith('SQLITE_');
  const where = isSqlite
    ? "the companion's database (in its data folder)"
    : placeName(typeof path === 'string' ? path : undefined, places);
  if (FULL_ERRNO.has(code) || code === 'SQLITE_FULL') {
    return {
      code: 'STORAGE_FULL',
      message: `the disk holding ${where} is full; nothing was saved. Free some space there and try again`,
    };
  }
  if (READ_ONLY_ERRNO.has(code) || code.startsWith('SQLITE_READONLY')) {
    return {
      code: 'STORAGE_READ_ONLY',
      message: `${where} is on a read-only disk or is not writable; nothing was saved. Make it writable and try again`,
    };
  }
  return null;
}

function placeName(path: string | undefined, places: StoragePlaces | undefined): string {
  if (path !== undefined && places !== undefined) {
    if (isInside(path, places.vault)) return 'the vault';
    if (isInside(path, places.dataDir)) return "the companion's data folder";
  }
  return 'the file Cairn was writing';
}

function isInside(path: string, folder: string): boolean {
  const root = folder.replace(/[\\/]+$/, '');
  return path === root || path.startsWith(`${root}/`) || path.startsWith(`${root}\\`);
}

/**
 * What to print when the companion cannot start because a disk refused a write: Node's ENOSPC
 * from a `write` carries no path, and SQLite's errors none at all. The console is local, so the
 * absolute folder is said. Null when `error` is not a storage problem.
 */
export function startStorageMessage(error: unknown, places: StoragePlaces): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  // The database's own errors already name its file (companion/db/open.ts).
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return null;
  const problem = storageProblem(error, places);
  if (problem === null) return null;
  const path = (error as { path?: unknown }).path;
  const where =
    typeof path === 'string'
      ? path
      : `the data folder ${places.dataDir} (or the vault ${places.vault})`;
  return problem.code === 'STORAGE_FULL'
    ? `cannot start: the disk holding ${where} is full. Free some space there and start again`
    : `cannot start: ${where} is on a read-only disk or is not writable. Make it writable, or pass another --data folder`;
}
