import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerResponse, SearchResponse } from '../../../shared/protocol/search';
import type { Embedder } from '../../../shared/ports';
import { HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { SNAPSHOT_TTL_MS } from '../../../companion/search/result-snapshots';

/*
 * Paging over one stable ranking (also while the vault changes between pages), and Cairn's own
 * chat transcripts kept out of answers: the route logic over the real indexer and SQLite.
 */

let fixture: IndexerFixture | undefined;
let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  await fixture?.close();
  app = undefined;
  fixture = undefined;
});

/** 70 notes about sync settings, worded differently so the scores spread. */
function syncNotes(): Record<string, string> {
  const files: Record<string, string> = {};
  const extras = ['devices', 'conflicts', 'history', 'vaults', 'plugins', 'themes', 'folders'];
  for (let i = 0; i < 70; i++) {
    const extra = extras[i % extras.length]!;
    const repeats = ' sync'.repeat(1 + (i % 5));
    files[`Notes/Sync ${String(i).padStart(2, '0')}.md`] =
      `# Sync note ${i}\n\nThe sync settings for ${extra}.${repeats} Settings page ${i}.\n`;
  }
  return files;
}

async function indexedApp(files: Record<string, string>, embedder?: Embedder): Promise<TestApp> {
  fixture = await startIndexer({ files, ...(embedder ? { embedder } : {}) });
  await fixture.indexer.whenEmbedded();
  const f = fixture;
  return buildTestApp({
    deps: {
      search: {
        index: () => f.indexer.queries,
        ...(embedder ? { embedder: () => embedder } : {}),
      },
    },
  });
}

async function page(query: string, limit: number, cursor?: string | null) {
  const url =
    `/api/v1/search?q=${encodeURIComponent(query)}&limit=${limit}` +
    (cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');
  return app!.app.inject({ url, headers: authorized });
}

/** Every page of `query`, `limit` results each, as result keys (path + lines). */
async function allPages(query: string, limit: number): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | null | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const response = await page(query, limit, cursor);
    expect(response.statusCode).toBe(200);
    const body = response.json<SearchResponse>();
    keys.push(...body.results.map(keyOf));
    cursor = body.next_cursor;
    if (cursor === null) return keys;
  }
  throw new Error('paging never ended');
}

function keyOf(result: SearchResponse['results'][number]): string {
  const citation = result.citation;
  return `${citation.path}#${citation.type === 'note' ? citation.lines.join('-') : citation.page}`;
}

describe('search paging', () => {
  it('pages of 10 concatenate to one long page: no repeats, no gaps', async () => {
    app = await indexedApp(syncNotes(), new HashingEmbedder());
    const pagedBy10 = await allPages('sync settings', 10);
    const pagedBy7 = await allPages('sync settings', 7);
    expect(pagedBy10.length).toBeGreaterThan(40);
    expect(new Set(pagedBy10).size).toBe(pagedBy10.length);
    expect(pagedBy7).toEqual(pagedBy10);
    const one = (await page('sync settings', 40)).json<SearchResponse>();
    expect(one.results.map(keyOf)).toEqual(pagedBy10.slice(0, 40));
  });

  it('keeps its ranking when the vault changes between pages', async () => {
    app = await indexedApp(syncNotes(), new HashingEmbedder());
    const before = await allPages('sync settings', 10);
    const first = (await page('sync settings', 10)).json<SearchResponse>();
    // A note that would rank first, and one of the listed notes deleted.
    fixture!.write(
      'Notes/Best.md',
      '# Sync settings\n\nsync settings sync settings sync settings\n',
    );
    const { rmSync } = await import('node:fs');
    rmSync(`${fixture!.vault}/Notes/Sync 00.md`);
    await fixture!.indexer.refresh(['Notes/Best.md', 'Notes/Sync 00.md']);
    await fixture!.indexer.whenEmbedded();
    const rest: string[] = [];
    let cursor = first.next_cursor;
    while (cursor !== null) {
      const body = (await page('sync settings', 10, cursor)).json<SearchResponse>();
      rest.push(...body.results.map(keyOf));
      cursor = body.next_cursor;
    }
    expect([...first.results.map(keyOf), ...rest]).toEqual(before);
    // A new search sees the change.
    const fresh = (await page('sync settings', 10)).json<SearchResponse>();
    expect(fresh.results[0]?.citation.path).toBe('Notes/Best.md');
  });

  it('answers 410 CURSOR_EXPIRED once the snapshot is gone', async () => {
    app = await indexedApp(syncNotes());
    const first = (await page('sync settings', 10)).json<SearchResponse>();
    app.clock.advance(SNAPSHOT_TTL_MS + 1);
    const response = await page('sync settings', 10, first.next_cursor);
    expect(response.statusCode).toBe(410);
    expect(response.json()).toMatchObject({
      error: { code: 'CURSOR_EXPIRED', field: 'cursor' },
    });
  });
});

describe("Cairn's own chats are not sources", () => {
  const files = {
    'Travel/Visa.md': '# Visa\n\nThe Schengen visa fee is €90 for adults.\n',
    'Cairn/Chats/2026-11-24 visa.md':
      '---\ntype: chat\n---\n**You:** What is the Schengen visa fee for adults?\n\n' +
      '**Cairn:** “The Schengen visa fee is €90 for adults.” [1]\n',
    'Cairn/Digests/2026-W48.md':
      '---\ntype: digest\nweek: 2026-W48\n---\n# Week 48\n\n- Changed: [[Visa]] (Schengen visa fee)\n',
  };

  it('answers from the note, never quoting an earlier chat or a digest', async () => {
    app = await indexedApp(files);
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/answer',
      headers: authorized,
      payload: { question: 'What is the Schengen visa fee for adults?' },
    });
    const body = response.json<AnswerResponse>();
    expect(body.citations.length).toBeGreaterThan(0);
    expect(body.citations.map((c) => c.path)).toEqual(body.citations.map(() => 'Travel/Visa.md'));
    const search = (await page('Schengen visa fee', 10)).json<SearchResponse>();
    expect(search.results.map((r) => r.citation.path)).toEqual(['Travel/Visa.md']);
  });

  it('searches chats when the setting includes them, or when asked for their folder', async () => {
    fixture = await startIndexer({ files });
    await fixture.indexer.whenIdle();
    const f = fixture;
    app = await buildTestApp({
      deps: { search: { index: () => f.indexer.queries, excludeFolders: [] } },
    });
    const all = (await page('Schengen visa fee', 10)).json<SearchResponse>();
    expect(all.results.map((r) => r.citation.path).sort()).toEqual([
      'Cairn/Chats/2026-11-24 visa.md',
      'Cairn/Digests/2026-W48.md',
      'Travel/Visa.md',
    ]);
    await app.close();
    app = await buildTestApp({ deps: { search: { index: () => f.indexer.queries } } });
    const response = await app.app.inject({
      url: `/api/v1/search?q=visa&folder=${encodeURIComponent('Cairn/Chats')}`,
      headers: authorized,
    });
    expect(response.json<SearchResponse>().results.map((r) => r.citation.path)).toEqual([
      'Cairn/Chats/2026-11-24 visa.md',
    ]);
  });
});
