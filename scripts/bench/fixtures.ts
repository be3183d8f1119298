import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder, EmbeddingModel } from '../../shared/ports';
import { openDatabase } from '../../companion/db/open';
import type { SqliteDatabase } from '../../companion/db/open';
import { VaultIndexer } from '../../companion/indexer';
import type { VaultIndexerOptions } from '../../companion/indexer';
import { createLogger } from '../../companion/logging';
import { generateVault } from './generate-vault';
import type { GeneratedVault } from './generate-vault';

/** A temp folder removed by `remove()`. */
export function scratch(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `cairn-bench-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A copy of a corpus vault (the indexer only reads, but benches that edit must not touch it). */
export function copyVault(source: string, into: string): string {
  const vault = join(into, 'vault');
  cpSync(source, vault, { recursive: true });
  return vault;
}

export function generatedVault(
  into: string,
  notes: number,
): { vault: string; info: GeneratedVault } {
  const vault = join(into, 'vault');
  return { vault, info: generateVault(vault, notes) };
}

/**
 * A deterministic bag-of-words embedder (512 dims like USE-lite) for benches that measure the
 * index's own work at a scale USE-lite cannot embed in a bench run (10k notes ≈ 30 min here).
 * It counts the texts it embeds, which is what the restart bench checks.
 */
export class HashEmbedder implements Embedder {
  texts = 0;
  constructor(readonly model: EmbeddingModel = { id: 'bench-hash@1', dims: 512 }) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.texts += texts.length;
    return texts.map((text) => hashVector(text, this.model.dims));
  }
}

export function hashVector(text: string, dims: number): Float32Array {
  const vector = new Float32Array(dims);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    vector[(h >>> 0) % dims]! += 1;
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) vector[i]! /= norm;
  return vector;
}

export interface OpenIndex {
  db: SqliteDatabase;
  indexer: VaultIndexer;
  close(): Promise<void>;
}

/** Opens the database and starts an indexer over `vault` (no watcher unless asked). */
export async function openIndex(
  vault: string,
  dbFile: string,
  options: Partial<VaultIndexerOptions> = {},
): Promise<OpenIndex> {
  const db = openDatabase(dbFile);
  const indexer = new VaultIndexer({
    vault,
    db,
    clock: { now: () => Date.now() },
    logger: createLogger('silent'),
    watch: false,
    ...options,
  });
  await indexer.start();
  return {
    db,
    indexer,
    close: async () => {
      await indexer.close();
      db.close();
    },
  };
}
