import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { VaultIndexer } from '../../../companion/search';
import { repoRoot } from '../../helpers/corpora';
import { tempDir } from '../helpers/app';

const FILES = 300;
let dir: { path: string; remove: () => void };
let script: string;

beforeAll(async () => {
  dir = tempDir('index-crash');
  const vault = join(dir.path, 'vault');
  for (let i = 0; i < FILES; i++) {
    const folder = join(vault, `F${i % 7}`);
    mkdirSync(folder, { recursive: true });
    const sections = Array.from(
      { length: 6 },
      (_, s) => `## Part ${s}\n${`Note ${i} section ${s} words about crash safety. `.repeat(30)}\n`,
    );
    writeFileSync(join(folder, `Note ${i}.md`), `---\ntags: [n${i}]\n---\n${sections.join('\n')}`);
  }
  // The child runs the real indexer from a bundle (inside the repository, so packages resolve).
  const cache = join(repoRoot, 'node_modules', '.cache', 'cairn-test-workers');
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, 'crash-'));
  const entry = join(outdir, 'entry.ts');
  writeFileSync(
    entry,
    `import { openDatabase } from '${join(repoRoot, 'companion/db/open')}';
     import { createLogger } from '${join(repoRoot, 'companion/logging')}';
     import { VaultIndexer } from '${join(repoRoot, 'companion/indexer')}';
     const [vault, dbFile] = process.argv.slice(2);
     const indexer = new VaultIndexer({ vault, db: openDatabase(dbFile), clock: { now: () => Date.now() },
       logger: createLogger('silent'), watch: false });
     indexer.onChange(() => process.stdout.write('.'));
     await indexer.start();`,
  );
  script = join(outdir, 'entry.mjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
    banner: {
      js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);",
    },
  });
}, 60_000);

afterAll(() => dir?.remove());

function consistency(db: SqliteDatabase) {
  const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    files: one('SELECT count(*) AS n FROM index_files'),
    filesWithoutChunks: one(
      'SELECT count(*) AS n FROM index_files f WHERE NOT EXISTS (SELECT 1 FROM index_chunks c WHERE c.file_id = f.id)',
    ),
    chunks: one('SELECT count(*) AS n FROM index_chunks'),
    ftsRows: one('SELECT count(*) AS n FROM index_chunks_fts'),
    tagRows: one('SELECT count(*) AS n FROM index_file_tags'),
  };
}

describe('kill -9 in the middle of the initial scan', () => {
  it('leaves only whole files, and the next start finishes without redoing them', async () => {
    const vault = join(dir.path, 'vault');
    const dbFile = join(dir.path, 'cairn.db');
    const child = spawn(process.execPath, [script, vault, dbFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    await new Promise<void>((resolve, reject) => {
      let upserts = 0;
      child.stdout.on('data', (data: Buffer) => {
        upserts += data.length;
        if (upserts >= 40) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', (code) =>
        reject(new Error(`child exited ${code} before the kill: ${stderr}`)),
      );
    });
    await new Promise((resolve) => child.once('exit', resolve));

    const db = openDatabase(dbFile);
    try {
      const after = consistency(db);
      expect(after.files).toBeGreaterThanOrEqual(40);
      expect(after.files).toBeLessThan(FILES);
      expect(after.filesWithoutChunks).toBe(0);
      expect(after.ftsRows).toBe(after.chunks);
      expect(after.tagRows).toBe(after.files);

      const indexer = new VaultIndexer({
        vault,
        db,
        clock: { now: () => Date.now() },
        logger: createLogger('silent'),
        watch: false,
      });
      await indexer.start();
      await indexer.whenIdle();
      expect(indexer.indexedCount).toBe(FILES - after.files);
      const final = consistency(db);
      expect(final).toMatchObject({ files: FILES, filesWithoutChunks: 0, tagRows: FILES });
      expect(final.ftsRows).toBe(final.chunks);
      expect(indexer.queries.keyword('crash safety', { tag: 'n299' }, 50)).toHaveLength(
        final.chunks / FILES,
      );
      await indexer.close();
    } finally {
      db.close();
    }
  }, 60_000);
});
