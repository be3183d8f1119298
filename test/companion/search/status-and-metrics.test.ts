import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { registerIndexMetrics } from '../../../companion/search';
import { MetricsRegistry } from '../../../companion/metrics/registry';
import { StatusResponse } from '../../../shared/protocol/status';
import { Value } from '@sinclair/typebox/value';
import { SAMPLE_VAULT, TEST_TOKEN, authorized, testConfig } from '../helpers/app';
import { HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function appOver(f: IndexerFixture) {
  const metrics = new MetricsRegistry();
  registerIndexMetrics(metrics, f.indexer);
  const app = await buildApp({
    config: testConfig(f.vault, join(f.dir, 'data')),
    db: f.db,
    clock: f.clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    metrics,
    status: { index: f.indexer },
  });
  return app;
}

describe('GET /api/v1/status and /metrics with the indexer', () => {
  it('report real numbers for the sample vault plus a failed file', async () => {
    fixture = await startIndexer({
      source: SAMPLE_VAULT,
      embedder: new HashingEmbedder(),
      files: { 'Broken.pdf': '%PDF-1.4 nothing here' },
    });
    await fixture.indexer.whenEmbedded();
    const app = await appOver(fixture);
    try {
      const status = await app.inject({
        method: 'GET',
        url: '/api/v1/status',
        headers: authorized,
      });
      expect(status.statusCode).toBe(200);
      const body = status.json<StatusResponse>();
      expect(Value.Check(StatusResponse, body)).toBe(true);
      expect(body.index).toMatchObject({
        files: 8,
        pending: 0,
        failed: [{ path: 'Broken.pdf' }],
        embedding: { model: 'test-hashing@1', dims: 64 },
      });
      expect(body.index.failed[0]?.error).toMatch(/PDF/);
      const chunks = body.index.chunks;
      expect(chunks).toBe(fixture.indexer.store.chunkCount());

      const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: authorized });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toContain('cairn_index_files 8\n');
      expect(metrics.body).toContain(`cairn_index_chunks ${chunks}\n`);
      expect(metrics.body).toContain('cairn_index_failed_files 1\n');
      expect(metrics.body).toContain('cairn_index_pending_files 0\n');
      expect(metrics.body).toContain('cairn_index_embeddings_pending 0\n');
    } finally {
      await app.close();
    }
  });
});
