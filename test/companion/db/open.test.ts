import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MigrationError, assertMigrationList, migrate } from '../../../companion/db/migrate';
import type { Migration } from '../../../companion/db/migrate';
import { migrations } from '../../../companion/db/migrations/index';
import { inTransaction, openDatabase } from '../../../companion/db/open';
import { SettingsStore } from '../../../companion/db/settings';
import { ManualClock } from '../../fakes/clock';
import { tempDir } from '../helpers/app';

let dir: { path: string; remove: () => void };
let file: string;
beforeEach(() => {
  dir = tempDir('db');
  file = join(dir.path, 'cairn.db');
});
afterEach(() => dir.remove());

const notes: Migration = {
  version: 1,
  name: 'notes',
  up: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL) STRICT;',
};
const tags: Migration = {
  version: 2,
  name: 'tags',
  up: (db) => {
    db.exec('CREATE TABLE tags (note_id INTEGER NOT NULL REFERENCES notes(id), tag TEXT NOT NULL)');
  },
};

describe('openDatabase', () => {
  it('sets WAL, synchronous=FULL, a busy timeout and foreign keys', () => {
    const db = openDatabase(file);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
      expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(1000);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it('applies the companion migrations once; reopening changes nothing', () => {
    const first = openDatabase(file);
    expect(first.pragma('user_version', { simple: true })).toBe(migrations.length);
    new SettingsStore(first, ManualClock.at('2026-11-22T10:00:00Z')).set('vault_path', '/v');
    first.close();

    const second = openDatabase(file);
    try {
      expect(second.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(new SettingsStore(second, new ManualClock(0)).get('vault_path')).toBe('/v');
      expect(second.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      second.close();
    }
  });

  it('the shipped migration list is numbered 1..n without gaps', () => {
    expect(() => assertMigrationList(migrations)).not.toThrow();
  });
});

describe('migrate', () => {
  it('runs only the new steps when a migration is added later', () => {
    const db = new Database(file);
    try {
      expect(migrate(db, [notes])).toEqual([1]);
      expect(migrate(db, [notes])).toEqual([]);
      expect(migrate(db, [notes, tags])).toEqual([2]);
      expect(db.pragma('user_version', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });

  it('rolls a failing step back whole, version included, and names it', () => {
    const broken: Migration = {
      version: 2,
      name: 'half-done',
      up: 'CREATE TABLE half (x INTEGER); INSERT INTO no_such_table VALUES (1);',
    };
    const db = new Database(file);
    try {
      migrate(db, [notes]);
      expect(() => migrate(db, [notes, broken])).toThrow(
        /migration 2 \("half-done"\) failed: no such table: no_such_table/,
      );
      expect(db.pragma('user_version', { simple: true })).toBe(1);
      const half = db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get();
      expect(half).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('refuses a database written by a newer companion', () => {
    const db = new Database(file);
    try {
      migrate(db, [notes, tags]);
      expect(() => migrate(db, [notes])).toThrow(MigrationError);
      expect(() => migrate(db, [notes])).toThrow(
        /schema version 2 is newer than this companion knows \(1\)/,
      );
    } finally {
      db.close();
    }
  });

  it.each([
    ['a gap', [notes, { ...tags, version: 3 }], /entry 2 \("tags"\) has version 3/],
    ['a duplicate', [notes, { ...tags, version: 1 }], /entry 2 \("tags"\) has version 1/],
    ['not starting at 1', [{ ...notes, version: 0 }], /entry 1 \("notes"\) has version 0/],
  ])('rejects a list with %s', (_case, list, message) => {
    expect(() => assertMigrationList(list)).toThrow(message);
  });
});

describe('inTransaction', () => {
  it('commits on success and rolls back on a throw', () => {
    const db = openDatabase(file, { migrations: [notes] });
    try {
      inTransaction(db, () => db.prepare('INSERT INTO notes (title) VALUES (?)').run('kept'));
      expect(() =>
        inTransaction(db, () => {
          db.prepare('INSERT INTO notes (title) VALUES (?)').run('lost');
          throw new Error('stop');
        }),
      ).toThrow('stop');
      const titles = db.prepare('SELECT title FROM notes').all();
      expect(titles).toEqual([{ title: 'kept' }]);
    } finally {
      db.close();
    }
  });
});
