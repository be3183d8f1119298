import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  readVectorRows,
  readVectorStorage,
  VectorMemory,
} from '../../../companion/search/vector-memory';
import { vectorTable } from '../../../companion/search/index-store';
import { openDatabase } from '../../../companion/db/open';
import { SqliteIndexQueries } from '../../../companion/search';
import { HashingEmbedder, hashVector, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** sqlite-vec's exact KNN over the stored vectors: the reference the in-memory search must match. */
function exactChunkPaths(f: IndexerFixture, query: Float32Array, k: number): string[] {
  const model = f.indexer.store.models().at(-1)!;
  const rows = f.db
    .prepare<[Buffer, number], { path: string }>(
      `SELECT fi.path AS path FROM (SELECT rowid, distance FROM ${vectorTable(model.id)}
         WHERE embedding MATCH ? AND k = ?) n
       JOIN index_vectors v ON v.id = n.rowid JOIN index_chunks c ON c.text_hash = v.text_hash
       JOIN index_files fi ON fi.id = c.file_id ORDER BY n.distance, c.id`,
    )
    .all(Buffer.from(query.buffer, query.byteOffset, query.byteLength), k);
  return rows.map((row) => row.path);
}

function vectorPaths(f: IndexerFixture, query: Float32Array, k: number): string[] {
  const hits = f.indexer.queries.vector(query, {}, k);
  return f.indexer.queries.chunks(hits.map((hit) => hit.chunkId)).map((chunk) => chunk.path);
}

const NOTES: Record<string, string> = {
  'Birds/Heron.md': 'grey heron wading in the shallow river',
  'Birds/Egret.md': 'white egret standing in the marsh',
  'Trips/Lisbon.md': 'trams and tiles in lisbon',
  'Trips/Porto.md': 'port wine cellars along the river',
};

describe('in-memory vectors stay in step with the index', () => {
  it('warmVectors loads the queryable model ahead of the first query, and is a no-op without vectors', async () => {
    fixture = await startIndexer({ files: NOTES });
    fixture.indexer.queries.warmVectors();
    expect(fixture.indexer.store.models()).toEqual([]);
    await fixture.close();

    fixture = await startIndexer({ files: NOTES, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    const model = fixture.indexer.store.models()[0]!;
    expect(VectorMemory.of(fixture.db).isLoaded(model.id)).toBe(false);
    fixture.indexer.queries.warmVectors();
    expect(VectorMemory.of(fixture.db).isLoaded(model.id)).toBe(true);
    const query = hashVector('heron river wading', 64);
    expect(vectorPaths(fixture, query, 4)).toEqual(exactChunkPaths(fixture, query, 4));
  });

  it('adds the vectors of a new note, drops those of a deleted one, and matches the exact KNN', async () => {
    fixture = await startIndexer({ files: NOTES, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    const query = hashVector('heron river wading', 64);
    // The first query loads the model's vectors.
    expect(vectorPaths(fixture, query, 4)).toEqual(exactChunkPaths(fixture, query, 4));
    const model = fixture.indexer.store.models()[0]!;
    const memory = VectorMemory.of(fixture.db);
    expect(memory.isLoaded(model.id)).toBe(true);

    fixture.write('Birds/Stork.md', 'stork nesting on a chimney by the river heron');
    rmSync(join(fixture.vault, 'Birds/Egret.md'));
    await fixture.indexer.refresh(['Birds/Stork.md', 'Birds/Egret.md']);
    await fixture.indexer.whenEmbedded();
    await fixture.indexer.rescan(); // idle again: orphan vectors are cleaned up
    const matrix = memory.matrix(model.id, model.dims, vectorTable(model.id));
    expect(matrix.size).toBe(fixture.indexer.store.vectorCount(model.id));
    const paths = vectorPaths(fixture, query, 10);
    expect(paths).toContain('Birds/Stork.md');
    expect(paths).not.toContain('Birds/Egret.md');
    expect(paths).toEqual(exactChunkPaths(fixture, query, 10));
  });

  it('an edited note answers with its new text, never the old one', async () => {
    fixture = await startIndexer({ files: NOTES, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    const old = hashVector('Lisbon trams and tiles in lisbon', 64);
    expect(fixture.indexer.queries.vector(old, {}, 1)[0]!.score).toBeGreaterThan(0.99);
    fixture.write('Trips/Lisbon.md', 'pastries and coffee by the sea');
    await fixture.indexer.refresh(['Trips/Lisbon.md']);
    await fixture.indexer.whenEmbedded();
    const [best] = fixture.indexer.queries.vector(
      hashVector('Lisbon pastries and coffee by the sea', 64),
      {},
      1,
    );
    expect(fixture.indexer.queries.chunks([best!.chunkId])[0]?.text).toContain('pastries');
    expect(best!.score).toBeGreaterThan(0.99);
    expect(fixture.indexer.queries.vector(old, {}, 1)[0]!.score).toBeLessThan(0.9);
  });

  it('a model change answers from the new model once it is queryable', async () => {
    fixture = await startIndexer({ files: NOTES, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    expect(fixture.indexer.queries.vector(hashVector('heron', 64), {}, 2)).toHaveLength(2);
    const second = new HashingEmbedder({ id: 'test-hashing@2', dims: 32 });
    const indexer = await fixture.restart({ embedder: second });
    await indexer.whenEmbedded();
    const query = hashVector('Heron grey heron wading in the shallow river', 32);
    const [best] = indexer.queries.vector(query, {}, 1);
    expect(indexer.queries.chunks([best!.chunkId])[0]?.path).toBe('Birds/Heron.md');
    expect(best!.score).toBeGreaterThan(0.99);
    expect(() => indexer.queries.vector(hashVector('heron', 64), {}, 1)).toThrow(/32/);
  });

  it('reads the vectors again after another connection commits', async () => {
    fixture = await startIndexer({ files: NOTES, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    const query = hashVector('heron', 64);
    expect(fixture.indexer.queries.vector(query, {}, 10)).toHaveLength(4);
    const model = fixture.indexer.store.models()[0]!;
    const memory = VectorMemory.of(fixture.db);
    const matrixOf = () => memory.matrix(model.id, model.dims, vectorTable(model.id));
    const before = matrixOf();
    expect(matrixOf()).toBe(before); // nothing changed: the loaded copy is kept
    // Another process drops a vector's row: this connection's copy is read again, and a text
    // without its row is never answered.
    const other = openDatabase(fixture.dbFile);
    try {
      other.exec('DELETE FROM index_vectors WHERE id = (SELECT min(id) FROM index_vectors)');
    } finally {
      other.close();
    }
    expect(matrixOf()).not.toBe(before);
    expect(fixture.indexer.queries.vector(query, {}, 10)).toHaveLength(3);
  });

  it("reads sqlite-vec's storage tables exactly as its own row scan, deleted rows included", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`N${i}.md`] = `note number ${i} about topic ${i % 7}`;
    fixture = await startIndexer({ files, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    for (const i of [0, 3, 17, 29]) rmSync(join(fixture.vault, `N${i}.md`));
    await fixture.indexer.rescan();
    const model = fixture.indexer.store.models()[0]!;
    const table = vectorTable(model.id);
    const count = fixture.indexer.store.vectorCount(model.id);
    expect(count).toBe(26);
    const fast = readVectorStorage(fixture.db, table, model.dims, count);
    const slow = readVectorRows(fixture.db, table, model.dims);
    expect(fast?.size).toBe(26);
    expect(slow.size).toBe(26);
    const query = hashVector('note number 5 about topic 5', model.dims);
    expect(fast!.nearest(query, 26)).toEqual(slow.nearest(query, 26));
    // A count that does not match (rows missing from the layout read) is refused.
    expect(readVectorStorage(fixture.db, table, model.dims, count + 1)).toBeNull();
    expect(readVectorStorage(fixture.db, 'index_vec_999', model.dims, count)).toBeNull();
  });

  it('a broad filter (nearest overall, then filtered) answers as the exact per-filter search', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 24; i++) {
      const folder = i % 3 === 0 ? 'Rare' : 'Bulk';
      const tags = i % 4 === 0 ? 'tags: [bird]\n' : '';
      files[`${folder}/N${i}.md`] = `---\n${tags}---\nheron ${i} egret ${i % 5} river ${i % 7}\n`;
    }
    fixture = await startIndexer({ files, embedder: new HashingEmbedder() });
    await fixture.indexer.whenEmbedded();
    const exact = fixture.indexer.queries; // every filter here lets through < 2,000 chunks
    const broad = new SqliteIndexQueries(fixture.db, { filterExactMax: 1 });
    const query = hashVector('heron 3 egret 3 river 3', 64);
    for (const filters of [{ folder: 'Rare' }, { tag: 'bird' }, { type: 'note' as const }]) {
      const want = exact.vector(query, filters, 5);
      expect(want.length).toBeGreaterThan(0);
      expect(broad.vector(query, filters, 5)).toEqual(want);
    }
  });
});
