import type { Database as SqliteDatabase } from 'better-sqlite3';

/**
 * One schema step. `version` numbers start at 1 and have no gaps; the database remembers the
 * last one applied in `PRAGMA user_version`. A migration is never edited once released: a
 * change to the schema is a new migration.
 */
export interface Migration {
  readonly version: number;
  /** Short description, shown in errors and logs. */
  readonly name: string;
  /** SQL script, or a function for steps that need to read data first. */
  readonly up: string | ((db: SqliteDatabase) => void);
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Checks that versions run 1, 2, 3, … with no gap and no duplicate. */
export function assertMigrationList(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationError(
        `migration list: entry ${index + 1} ("${migration.name}") has version ${migration.version}; ` +
          `versions must be 1, 2, 3, … in order with no gaps`,
      );
    }
  });
}

/**
 * Applies every migration newer than the database's `user_version`, each in its own
 * transaction together with the version bump, so a crash leaves the schema at a whole step.
 * Running it again is a no-op. Returns the versions applied.
 */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[]): number[] {
  assertMigrationList(migrations);
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length;
  if (current > latest) {
    throw new MigrationError(
      `${db.name}: schema version ${current} is newer than this companion knows (${latest}); ` +
        `it was written by a newer cairn-companion. Upgrade, or start with a fresh --data directory.`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations.slice(current)) {
    const step = db.transaction(() => {
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      // PRAGMA takes no bound parameters; the version is a checked integer.
      db.pragma(`user_version = ${migration.version}`);
    });
    try {
      step.immediate();
    } catch (error) {
      throw new MigrationError(
        `${db.name}: migration ${migration.version} ("${migration.name}") failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    applied.push(migration.version);
  }
  return applied;
}
