import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildSync } from 'esbuild';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/corpora';
import { tempDir } from '../helpers/app';

/*
 * A process crash (SIGKILL) loses nothing already committed at any `synchronous` level; what
 * this checks is that the companion's own open/transaction helpers leave whole transactions
 * only and that every commit the writer reported survives. Power loss, the case FULL is
 * chosen for, cannot be simulated from a test.
 */

/**
 * A writer process that opens the database through `openDatabase` (WAL, synchronous=FULL),
 * commits numbered rows one transaction each and reports every commit on stdout.
 */
const WRITER_SOURCE = `
import { openDatabase, inTransaction } from './companion/db/open';
const db = openDatabase(process.argv[2], {
  migrations: [{ version: 1, name: 'log', up: 'CREATE TABLE log (n INTEGER PRIMARY KEY, body TEXT NOT NULL)' }],
});
const insert = db.prepare('INSERT INTO log (n, body) VALUES (?, ?)');
for (let n = 1; ; n++) {
  inTransaction(db, () => insert.run(n, 'x'.repeat(2000)));
  process.stdout.write('committed ' + n + '\\n');
}
`;

let writer: string;
beforeAll(() => {
  // Bundled next to node_modules so the child resolves better-sqlite3 like the companion does.
  const outDir = join(repoRoot, 'node_modules/.cache/cairn-tests');
  mkdirSync(outDir, { recursive: true });
  writer = join(outDir, `db-writer-${process.pid}.mjs`);
  buildSync({
    stdin: { contents: WRITER_SOURCE, resolveDir: repoRoot, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: writer,
    logLevel: 'silent',
  });
});

afterAll(() => rmSync(writer, { force: true }));

let dir: { path: string; remove: () => void };
beforeEach(() => {
  dir = tempDir('durability');
});
afterEach(() => dir.remove());

describe('SQLite durability', () => {
  it('keeps every reported commit when the writer is killed with SIGKILL', async () => {
    const file = join(dir.path, 'cairn.db');
    const child = spawn(process.execPath, [writer, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );

    // Kill it mid-stream, after some hundreds of commits.
    const lastReported = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      let last = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) last = Number(line.replace('committed ', ''));
        if (last >= 300) {
          child.kill('SIGKILL');
          resolve(last);
        }
      });
      child.on('exit', () =>
        last >= 300 ? undefined : reject(new Error(`writer died: ${stderr}`)),
      );
    });
    expect(await exited).toBe('SIGKILL');

    const db = new Database(file);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const { count, max } = db
        .prepare('SELECT count(*) AS count, max(n) AS max FROM log')
        .get() as {
        count: number;
        max: number;
      };
      expect(max).toBeGreaterThanOrEqual(lastReported);
      expect(count).toBe(max); // no gaps: every transaction is whole or absent
    } finally {
      db.close();
    }
  });
});
