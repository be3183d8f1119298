import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../companion/db/open';
import type { SqliteDatabase } from '../../companion/db/open';
import { VaultIndexer } from '../../companion/search';
import type { VaultIndexerOptions } from '../../companion/search';
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
