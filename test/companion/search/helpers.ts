import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Embedder, EmbeddingModel } from '../../../shared/ports';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { VaultIndexer } from '../../../companion/search';
import type { VaultIndexerOptions } from '../../../companion/search';
import { ManualClock } from '../../fakes/clock';
import { repoRoot } from '../../helpers/corpora';
import { tempDir } from '../helpers/app';

export const FIXTURE_VAULTS = join(repoRoot, 'test/fixtures/vaults');

/**
 * A deterministic embedder for indexer logic: each word adds 1 to a dimension chosen by its
 * hash, then the vector is normalised. Texts sharing words come out similar, and it counts
 * the texts it was asked to embed.
 */
export class HashingEmbedder implements Embedder {
  calls = 0;
  texts = 0;
  failNext = 0;

  constructor(readonly model: EmbeddingModel = { id: 'test-hashing@1', dims: 64 }) {}

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    if (this.failNext > 0) {
      this.failNext--;
      return Promise.reject(new Error('embedder unavailable (test)'));
    }
    this.texts += texts.length;
    return Promise.resolve(texts.map((text) => hashVector(text, this.model.dims)));
  }
}

export function hashVector(text: string, dims: number): Float32Array {
  const vector = new Float32Array(dims);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    vector[(h >>> 0) % dims]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

export interface IndexerFixture {
  readonly vault: string;
  readonly dbFile: string;
  readonly dir: string;
  readonly clock: ManualClock;
  db: SqliteDatabase;
  indexer: VaultIndexer;
  /** Closes the indexer and database and opens both again over the same files. */
  restart(options?: Partial<VaultIndexerOptions>): Promise<VaultIndexer>;
  write(path: string, content: string | Uint8Array): void;
  close(): Promise<void>;
}

/** A temp vault (a copy of `source`, or empty) with a real SQLite index over it, started. */
export async function startIndexer(
  options: {
    source?: string;
    files?: Record<string, string | Uint8Array>;
  } & Partial<VaultIndexerOptions> = {},
): Promise<IndexerFixture> {
  const dir = tempDir('index');
  const vault = join(dir.path, 'vault');
  mkdirSync(vault, { recursive: true });
  if (options.source) cpSync(options.source, vault, { recursive: true });
  const write = (path: string, content: string | Uint8Array) => {
    const file = join(vault, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  };
  for (const [path, content] of Object.entries(options.files ?? {})) write(path, content);
  const dbFile = join(dir.path, 'cairn.db');
  const clock = ManualClock.at('2026-11-22T10:00:00Z');
  const { source: _source, files: _files, ...indexerOptions } = options;
  const create = async (overrides: Partial<VaultIndexerOptions> = {}) => {
    const db = openDatabase(dbFile);
    const indexer = new VaultIndexer({
      vault,
      db,
      clock,
      logger: createLogger('silent'),
      debounceMs: 50,
      watch: false,
      ...indexerOptions,
      ...overrides,
    });
    await indexer.start();
    return { db, indexer };
  };
  const first = await create();
  const fixture: IndexerFixture = {
    vault,
    dbFile,
    dir: dir.path,
    clock,
    db: first.db,
    indexer: first.indexer,
    write,
    async restart(overrides) {
      await fixture.indexer.close();
      fixture.db.close();
      const next = await create(overrides);
      fixture.db = next.db;
      fixture.indexer = next.indexer;
      return next.indexer;
    },
    async close() {
      await fixture.indexer.close();
      fixture.db.close();
      dir.remove();
    },
  };
  return fixture;
}
