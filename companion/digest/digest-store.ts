import type { SqliteDatabase } from '../db/open';
import { DIGEST_TABLES_SQL } from '../db/migrations/007-digests';

export interface DigestRecord {
  readonly week: string;
  readonly status: 'written' | 'baseline';
  readonly path: string;
  readonly writtenAt: number;
  readonly announcedAt: number | null;
}

/** Which weeks' digests were written (table `digest_weeks`, migration 007). */
export class DigestStore {
  constructor(private readonly db: SqliteDatabase) {
    // Migration 007 makes the table; the statement is idempotent, so a store opened over a
    // database that has not run the migrations (a bench, a test) works too.
    db.exec(DIGEST_TABLES_SQL);
  }

  get(week: string): DigestRecord | undefined {
    return this.db
      .prepare<[string], DigestRecord>(
        'SELECT week, status, path, written_at AS writtenAt, announced_at AS announcedAt FROM digest_weeks WHERE week = ?',
      )
      .get(week);
  }

  /** Records a written week; a second record of the same week keeps the first. */
  recordWritten(week: string, path: string, at: number): void {
    this.db
      .prepare('INSERT OR IGNORE INTO digest_weeks (week, path, written_at) VALUES (?, ?, ?)')
      .run(week, path, at);
  }

  /** Forgets a week so an on-demand request writes it again (its file was deleted). */
  rewrite(week: string, path: string, at: number): void {
    this.db
      .prepare(
        "INSERT INTO digest_weeks (week, path, written_at) VALUES (?, ?, ?) ON CONFLICT(week) DO UPDATE SET status = 'written', path = excluded.path, written_at = excluded.written_at, announced_at = NULL",
      )
      .run(week, path, at);
  }

  /** Whether any week was ever recorded (false on the first start with digests on). */
  isEmpty(): boolean {
    return this.db.prepare('SELECT 1 FROM digest_weeks LIMIT 1').get() === undefined;
  }

  /** Marks a week due before the first start as not to be written (and not announced). */
  recordBaseline(week: string, path: string, at: number): void {
    this.db
      .prepare(
        "INSERT OR IGNORE INTO digest_weeks (week, status, path, written_at, announced_at) VALUES (?, 'baseline', ?, ?, ?)",
      )
      .run(week, path, at, at);
  }

  markAnnounced(week: string, at: number): void {
    this.db.prepare('UPDATE digest_weeks SET announced_at = ? WHERE week = ?').run(at, week);
  }
}
