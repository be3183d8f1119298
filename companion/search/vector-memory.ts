import type { SqliteDatabase } from '../db/open';
import { VectorMatrix } from '../../shared/search/vector-matrix';

/*
 * The vectors of each embedding model, held in memory (VectorMatrix) next to the database that
 * stores them, so a query reads no vector from SQLite. One instance per database connection:
 * the index store tells it about every vector it writes or deletes (same connection, so always
 * in step), and a model's matrix is loaded from SQLite the first time it is queried, so a
 * restart pays nothing until the first vector search. A commit from another connection
 * (`PRAGMA data_version` moves) drops what is loaded; it is read again on the next query.
 */

const byDatabase = new WeakMap<SqliteDatabase, VectorMemory>();

export class VectorMemory {
  private readonly matrices = new Map<number, VectorMatrix>();
  private dataVersion: number;

  private constructor(private readonly db: SqliteDatabase) {
    this.dataVersion = this.readDataVersion();
  }

  /** The instance shared by everything that uses this connection. */
  static of(db: SqliteDatabase): VectorMemory {
    let memory = byDatabase.get(db);
    if (!memory) {
      memory = new VectorMemory(db);
      byDatabase.set(db, memory);
    }
    return memory;
  }

  /** The model's vectors, loaded from `table` (its vec0 table) on first use. */
  matrix(modelRowId: number, dims: number, table: string): VectorMatrix {
    const version = this.readDataVersion();
    if (version !== this.dataVersion) {
      this.matrices.clear();
      this.dataVersion = version;
    }
    let matrix = this.matrices.get(modelRowId);
    if (matrix && matrix.dims === dims) return matrix;
    matrix = this.load(modelRowId, dims, table);
    this.matrices.set(modelRowId, matrix);
    return matrix;
  }

  /** Whether this model's vectors are in memory now (tests and metrics). */
  isLoaded(modelRowId: number): boolean {
    return this.matrices.has(modelRowId);
  }

  /** Vectors just committed for a model; ignored until the model is loaded. */
  added(modelRowId: number, items: ReadonlyArray<{ id: number; vector: Float32Array }>): void {
    const matrix = this.matrices.get(modelRowId);
    if (!matrix) return;
    for (const item of items) matrix.set(item.id, item.vector);
  }

  removed(modelRowId: number, ids: readonly number[]): void {
    const matrix = this.matrices.get(modelRowId);
    if (!matrix) return;
    for (const id of ids) matrix.delete(id);
  }

  /** The model and its vectors are gone (a model change, or a re-pull with other dims). */
  dropped(modelRowId: number): void {
    this.matrices.delete(modelRowId);
  }

  private load(modelRowId: number, dims: number, table: string): VectorMatrix {
    const expected =
      this.db
        .prepare<[number], { n: number }>(
          'SELECT count(*) AS n FROM index_vectors WHERE model_id = ?',
        )
        .get(modelRowId)?.n ?? 0;
    return (
      readVectorStorage(this.db, table, dims, expected) ?? readVectorRows(this.db, table, dims)
    );
  }

  private readDataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }
}

/** The blob's float32 values (copied when the blob is not 4-byte aligned in its buffer). */
export function floatsOf(blob: Buffer): Float32Array {
  return blob.byteOffset % 4 === 0
    ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4)
    : new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/**
 * The vectors of a vec0 table read through vec0 itself: one lookup per row (~40 µs a row here,
 * 1.6 s at 40k rows on the loaded bench machine). Always right; the fallback.
 */
export function readVectorRows(db: SqliteDatabase, table: string, dims: number): VectorMatrix {
  const matrix = new VectorMatrix(dims);
  const rows = db
    .prepare<[], [number, Buffer]>(`SELECT rowid, embedding FROM ${table}`)
    .raw()
    .iterate();
  for (const [id, blob] of rows) {
    if (blob.byteLength !== dims * 4) {
      throw new Error(
        `${table}: row ${id} holds ${blob.byteLength / 4} dimensions, expected ${dims}`,
      );
    }
    matrix.set(id, floatsOf(blob));
  }
  return matrix;
}

/**
 * The same vectors read from vec0's storage tables directly (sqlite-vec 0.1.x: `<t>_chunks`
 * holds per chunk of rows a validity bitmap and the rowids as int64, `<t>_vector_chunks00` the
 * float32 vectors of that chunk): one read per ~1,000 vectors, 4–5× faster than the row-by-row
 * scan. Anything unexpected in that layout (another sqlite-vec version) answers null, and the
 * caller reads through vec0 instead; the row count must match `index_vectors` too.
 */
export function readVectorStorage(
  db: SqliteDatabase,
  table: string,
  dims: number,
  expected: number,
): VectorMatrix | null {
  const matrix = new VectorMatrix(dims, expected);
  try {
    const chunks = db
      .prepare<[], [number, Buffer, Buffer, Buffer]>(
        `SELECT c.size, c.validity, c.rowids, v.vectors FROM "${table}_chunks" c
         JOIN "${table}_vector_chunks00" v ON v.rowid = c.chunk_id`,
      )
      .raw()
      .iterate();
    for (const [size, validity, rowids, vectors] of chunks) {
      if (
        !Number.isInteger(size) ||
        validity.byteLength * 8 < size ||
        rowids.byteLength !== size * 8 ||
        vectors.byteLength !== size * dims * 4
      ) {
        return null;
      }
      const floats = floatsOf(vectors);
      for (let i = 0; i < size; i++) {
        if ((validity[i >>> 3]! & (1 << (i & 7))) === 0) continue;
        matrix.set(Number(rowids.readBigInt64LE(i * 8)), floats.subarray(i * dims, (i + 1) * dims));
      }
    }
  } catch {
    return null; // no such tables or columns: not the layout this reads
  }
  return matrix.size === expected ? matrix : null;
}
