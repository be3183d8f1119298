import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './open';

/**
 * One connection's statements, each prepared once per SQL text: preparing costs as much as a
 * small query (and its garbage as much again), and the sync routes run a few per request. The
 * SQL texts are constants, so the cache stays as small as the code that uses it.
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Statement<unknown[], unknown>>();

  constructor(private readonly db: SqliteDatabase) {}

  prepare(sql: string): Statement<unknown[], unknown> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
