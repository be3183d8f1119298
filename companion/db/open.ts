import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { dirname } from 'node:path';
import { migrate } from './migrate';
import type { Migration } from './migrate';
import { migrations as defaultMigrations } from './migrations/index';

export type { SqliteDatabase };

/** How long a writer waits for another connection's lock before SQLITE_BUSY (ms). */
export const BUSY_TIMEOUT_MS = 5_000;

export interface OpenDatabaseOptions {
  /** Defaults to the companion's own migration list; tests pass their own. */
  readonly migrations?: readonly Migration[];
}

/**
 * Opens (creating if needed) the companion database and brings its schema up to date.
 *
 * - `journal_mode=WAL`: readers (status, search) never block the scheduler's writes.
 * - `synchronous=FULL`: in WAL mode NORMAL may roll back the last commits after a power
 *   loss. The delivery log is the one thing here that cannot be rebuilt from the vault
 *   ("sent to this phone" must not be forgotten, or a reminder fires twice), so every
 *   commit syncs the WAL. The cost is one fsync per transaction, which the indexer keeps
 *   low by writing one transaction per note.
 * - `busy_timeout`: worker threads or a second process wait for the lock instead of failing.
 * - `foreign_keys=ON`: SQLite leaves it off per connection unless asked.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  let db: SqliteDatabase;
  try {
    db = new Database(file);
  } catch (error) {
    throw databaseOpenError(file, error);
  }
  try {
    configureConnection(db);
    migrate(db, options.migrations ?? defaultMigrations);
    return db;
  } catch (error) {
    db.close();
    throw databaseOpenError(file, error);
  }
}

/**
 * SQLite says "disk I/O error" or "unable to open database file" and never which file: at
 * start-up (a local console, so the absolute path may be said) name the file and what to do.
 * The original error stays as `cause`; its `code` is kept so callers still tell errors apart.
 */
export function databaseOpenError(file: string, error: unknown): Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return error as Error;
  let problem: string | undefined;
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) {
    problem = `could not write the companion's database ${file}: its disk may be full or failing (${code}). Free some space in ${dirname(file)} and start again`;
  } else if (code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_READONLY')) {
    problem = `could not open the companion's database ${file} for writing (${code}): the data folder ${dirname(file)} is read-only or not writable. Make it writable, or pass another --data folder`;
  }
  if (problem === undefined) return error as Error;
  return Object.assign(new Error(problem, { cause: error }), { code });
}

/** Pragmas every connection needs (they are per connection, not stored in the file, except WAL). */
export function configureConnection(db: SqliteDatabase): void {
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  // An in-memory database answers "memory"; a file that cannot switch (read-only medium) would
  // silently stay in rollback mode, so say so instead.
  if (mode !== 'wal' && db.name !== ':memory:') {
    throw new Error(`${db.name}: could not switch to WAL journal mode (got "${String(mode)}")`);
  }
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
}

/**
 * Runs `work` in one transaction (BEGIN IMMEDIATE, so a writer takes the lock up front and
 * waits on busy_timeout rather than failing half-way on lock upgrade). Nested calls become
 * savepoints. Throwing rolls everything back and rethrows.
 */
export function inTransaction<T>(db: SqliteDatabase, work: () => T): T {
  return db.transaction(work).immediate();
}
