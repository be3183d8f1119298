/*
 * The knowledge health report (GET /api/v1/health/knowledge) of a real vault, computed by the
 * real indexer over a temp copy of it: what scripts/screenshot-plugin.mjs renders for the
 * docs, so the screenshots show a real vault's report, never a made-up one.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KnowledgeHealth } from '../../shared/protocol/knowledge-health';
import { openDatabase } from '../../companion/db/open';
import { createLogger } from '../../companion/logging';
import { VaultIndexer } from '../../companion/search/vault-indexer';

/** Indexes a copy of `vault` (the original is only read) and reports as of `now`. */
export async function knowledgeHealthOf(vault: string, now: number): Promise<KnowledgeHealth> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-health-'));
  try {
    const copy = join(dir, 'vault');
    cpSync(vault, copy, { recursive: true });
    const db = openDatabase(join(dir, 'cairn.db'));
    const indexer = new VaultIndexer({
      vault: copy,
      db,
      clock: { now: () => now },
      logger: createLogger('silent'),
      debounceMs: 50,
      watch: false,
    });
    try {
      await indexer.start();
      await indexer.whenIdle();
      return indexer.queries.knowledgeHealth(now);
    } finally {
      await indexer.close();
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
