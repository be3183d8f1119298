import * as sqliteVec from 'sqlite-vec';
import type { SqliteDatabase } from '../db/open';

/**
 * Loads sqlite-vec into this connection unless it already is (extensions are per connection).
 * Migrations run before this, so the `vec0` tables are created at run time by the index store.
 */
export function loadVectorExtension(db: SqliteDatabase): void {
  try {
    db.prepare('SELECT vec_version()').get();
    return;
  } catch {
    // Not loaded yet.
  }
  sqliteVec.load(db);
}
