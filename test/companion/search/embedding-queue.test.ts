import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../companion/db/open';
import { EmbeddingQueue } from '../../../companion/search/embedding-queue';
import { IndexStore, vectorTable } from '../../../companion/search/index-store';
import { createLogger } from '../../../companion/logging';
import type { Embedder, EmbeddingModel } from '../../../shared/ports';
import { tempDir } from '../helpers/app';

/** Answers each text with [its length, 1, 0, …] and remembers every call's texts. */
class LengthEmbedder implements Embedder {
  readonly model: EmbeddingModel = { id: 'test-length@1', dims: 4 };
  readonly calls: string[][] = [];

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return Promise.resolve(texts.map((text) => Float32Array.of(text.length, 1, 0, 0)));
  }
}

const opened: Array<{ db: SqliteDatabase; remove: () => void }> = [];
afterEach(() => {
  for (const { db, remove } of opened.splice(0)) {
    db.close();
    remove();
  }
});

/** A real index with one note whose chunks have the given texts (title "T", no headings). */
function storeWithChunks(texts: readonly string[]): { db: SqliteDatabase; store: IndexStore } {
  const dir = tempDir('embedding-queue');
  const db = openDatabase(join(dir.path, 'cairn.db'));
  opened.push({ db, remove: () => dir.remove() });
  const store = new IndexStore(db, () => 0);
  store.replaceFile(
    {
      path: 'Note.md',
      kind: 'note',
      title: 'T',
      tags: [],
      aliases: [],
      mtimeMs: 0,
      size: 1,
      indexedVersion: 'content',
      warnings: [],
    },
    texts.map((text, i) => ({ chunkKey: `c${i}`, headingPath: [], text, textHash: `h${i}` })),
  );
  return { db, store };
}

/** The first component of the vector stored for each text hash. */
function storedLengths(db: SqliteDatabase, modelId: string): Map<string, number> {
  const model = db
    .prepare<[string], { id: number }>('SELECT id FROM index_embedding_models WHERE model = ?')
    .get(modelId);
  if (!model) throw new Error(`no model row for ${modelId}`);
  const rows = db
    .prepare<[number], { textHash: string; embedding: Buffer }>(
      `SELECT v.text_hash AS textHash, t.embedding AS embedding
       FROM index_vectors v JOIN ${vectorTable(model.id)} t ON t.rowid = v.id
       WHERE v.model_id = ?`,
    )
    .all(model.id);
  return new Map(
    rows.map(({ textHash, embedding }) => [
      textHash,
      new Float32Array(embedding.buffer, embedding.byteOffset, embedding.byteLength / 4)[0] ?? NaN,
    ]),
  );
}

describe('EmbeddingQueue batch formation', () => {
  it('hands the embedder texts shortest first, and stores each vector under its own text', async () => {
    const texts = [
      'a long text '.repeat(9),
      'mid size text',
      'x',
      'a'.repeat(40),
      'yy',
      'z'.repeat(7),
    ];
    const { db, store } = storeWithChunks(texts);
    const embedder = new LengthEmbedder();
    const queue = new EmbeddingQueue(store, embedder, createLogger('silent'), { batchSize: 4 });
    queue.kick();
    await queue.whenIdle();
    await queue.close();

    expect(embedder.calls.map((call) => call.length)).toEqual([4, 2]);
    for (const call of embedder.calls) {
      const lengths = call.map((text) => text.length);
      expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    }
    // Every chunk's vector is the one computed for its own text ("T\n" + text), whatever the
    // order the embedder saw them in.
    const stored = storedLengths(db, embedder.model.id);
    expect(stored.size).toBe(texts.length);
    texts.forEach((text, i) => expect(stored.get(`h${i}`)).toBe(`T\n${text}`.length));
  });
});
