import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SqliteDatabase } from '../../../companion/db/open';
import { PdfBusyError } from '../../../companion/pdf/pdf-reader';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/**
 * A full disk for the database, for real: SQLite may grow no further (max_page_count) and its
 * free pages are used up, so writes fail with SQLITE_FULL. Returns the way to free it again.
 */
function fillDatabase(db: SqliteDatabase): () => void {
  db.exec('CREATE TABLE test_filler (b BLOB)');
  const limit = db.pragma('max_page_count', { simple: true }) as number;
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  const insert = db.prepare('INSERT INTO test_filler VALUES (zeroblob(?))');
  for (const size of [65536, 4096, 256, 16, 1]) {
    try {
      for (;;) insert.run(size);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('SQLITE_FULL');
    }
  }
  return () => {
    db.pragma(`max_page_count = ${limit}`);
    db.exec('DROP TABLE test_filler');
  };
}

const searchable = (f: IndexerFixture, word: string) =>
  f.indexer.queries
    .chunks(f.indexer.queries.keyword(word, {}, 5).map((hit) => hit.chunkId))
    .map((chunk) => chunk.path);

describe('VaultIndexer on a full database disk', () => {
  it('shows a file it could not save in status, and saves it by itself once space returns', async () => {
    fixture = await startIndexer({ files: { 'a.md': '# A\nalpha' }, unsavedRetryMs: 20 });
    await fixture.indexer.whenIdle();
    const free = fillDatabase(fixture.db);

    fixture.write('b.md', `# B\n${'zebracorn '.repeat(2000)}\n`);
    await fixture.indexer.refresh(['b.md']);
    const status = fixture.indexer.indexStatus();
    expect(status.failed).toContainEqual({
      path: 'b.md',
      error: expect.stringMatching(
        /^not indexed yet: the disk holding the companion's database \(in its data folder\) is full; trying again in \d+ s$/,
      ) as unknown,
    });
    expect(status.pending).toBeGreaterThanOrEqual(1);

    free();
    await vi.waitFor(() => expect(fixture!.indexer.indexStatus().failed).toEqual([]), {
      timeout: 5000,
    });
    expect(fixture.indexer.indexStatus().pending).toBe(0);
    expect(new Set(searchable(fixture, 'zebracorn'))).toEqual(new Set(['b.md']));
  });
});

describe('VaultIndexer with every PDF parse slot taken', () => {
  it('lists the PDF as not indexed yet and reads it once a slot is free', async () => {
    let busy = true;
    fixture = await startIndexer({
      unsavedRetryMs: 20,
      pdfReader: () => {
        if (busy) return Promise.reject(new PdfBusyError(30));
        return Promise.resolve({ pages: ['quokka facts'], numPages: 1 });
      },
      files: { 'paper.pdf': '%PDF-1.4 a PDF' },
    });
    await fixture.indexer.whenIdle();
    expect(fixture.indexer.indexStatus().failed).toEqual([
      {
        path: 'paper.pdf',
        error: expect.stringMatching(
          /^not indexed yet: the PDF reader is busy with other files; trying again in \d+ s$/,
        ) as unknown,
      },
    ]);
    busy = false;
    await vi.waitFor(() => expect(fixture!.indexer.indexStatus().failed).toEqual([]), {
      timeout: 5000,
    });
    expect(new Set(searchable(fixture, 'quokka'))).toEqual(new Set(['paper.pdf']));
  });
});
