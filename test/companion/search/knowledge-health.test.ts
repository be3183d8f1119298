import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeHealth } from '../../../shared/protocol/knowledge-health';
import { repoRoot } from '../../helpers/corpora';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/*
 * GET /api/v1/health/knowledge over the real indexer: the team-notes fixture vault (every note
 * tagged, meeting notes from 2024-2026) plus notes that need care. The clock reads 2026-11-22.
 */

let index: IndexerFixture;
let app: TestApp;

beforeAll(async () => {
  index = await startIndexer({
    source: join(repoRoot, 'test/fixtures/vaults/team-notes'),
    files: {
      'Inbox/Untitled.md': '---\ntags: [inbox]\n---\n',
      'Inbox/Loose idea.md':
        'A thought with no tags at all, about [[Office move]], [[Hiring plan#Budget|hiring]], [[#Top]] and [[Nowhere]].\n',
      'Archive/Office move.md': '---\ntags: [archive]\n---\n# Office move\n\nOld copy.\n',
      'Broken.md': '---\ntags: [x\n---\nBody still indexed.\n',
      'Binary.md': new Uint8Array([0, 1, 2, 0, 255, 0, 3]),
    },
  });
  await index.indexer.whenIdle();
  app = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});

afterAll(async () => {
  await app?.close();
  await index?.close();
});

describe('GET /api/v1/health/knowledge', () => {
  it('reports coverage, hygiene and staleness, each item naming its note', async () => {
    const response = await app.app.inject({ url: '/api/v1/health/knowledge', headers: authorized });
    expect(response.statusCode).toBe(200);
    const health = response.json<KnowledgeHealth>();
    const paths = (items: Array<{ path: string }>) => items.map((i) => i.path).sort();

    expect(health.coverage.indexed).toBe(10);
    expect(paths(health.coverage.failed)).toEqual(['Binary.md']);
    expect(paths(health.coverage.partial)).toEqual(['Broken.md']);

    expect(paths(health.hygiene.untagged)).toEqual(['Broken.md', 'Inbox/Loose idea.md']);
    expect(health.hygiene.untagged[0]?.reason).toMatch(
      /^no tags, where \d+ of \d+ notes have some$/,
    );
    expect(paths(health.hygiene.duplicate_titles)).toEqual([
      'Archive/Office move.md',
      'Projects/Office move.md',
    ]);
    expect(paths(health.hygiene.empty)).toEqual(['Inbox/Untitled.md']);
    expect(health.hygiene.broken_links.map((i) => [i.path, i.reason])).toEqual([
      ['Inbox/Loose idea.md', 'links to [[Nowhere]], which no file is'],
    ]);
    expect(paths(health.hygiene.orphaned_attachments)).toEqual([]);

    expect(health.staleness.not_updated_in_a_year.map((i) => [i.path, i.reason])).toEqual([
      ['Projects/Office search 2024.md', 'last updated 2024-09-30'],
      ['Meetings/2025-03-04 Infra sync.md', 'last updated 2025-03-06'],
      ['Meetings/2025-06-17 Product review.md', 'last updated 2025-06-17'],
      ['Projects/Office move.md', 'last updated 2025-11-14'],
    ]);
  });
});
