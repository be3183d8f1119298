import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerResponse } from '../../../shared/protocol/search';
import { repoRoot } from '../../helpers/corpora';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/*
 * Citation dates over the real indexer (front-matter `updated`, else `created`, else mtime) and
 * the answer's notes about them, on the team-notes fixture vault (meeting notes from 2024-2026).
 * The test app's clock reads 2026-11-22.
 */

let index: IndexerFixture;
let app: TestApp;

beforeAll(async () => {
  index = await startIndexer({
    source: join(repoRoot, 'test/fixtures/vaults/team-notes'),
    files: { 'Undated.md': '# Undated\n\nThe kettle descaling happens every 6 weeks.\n' },
  });
  await index.indexer.whenIdle();
  app = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});

afterAll(async () => {
  await app?.close();
  await index?.close();
});

async function answer(question: string): Promise<AnswerResponse> {
  const response = await app.app.inject({
    method: 'POST',
    url: '/api/v1/answer',
    headers: authorized,
    payload: { question },
  });
  expect(response.statusCode).toBe(200);
  return response.json<AnswerResponse>();
}

describe('citation dates', () => {
  it('dates each citation by updated, else created, else the file time', async () => {
    const body = await answer('When is the new price sheet due for Sales?');
    const pricing = body.citations.find((c) => c.path === 'Meetings/2026-01-20 Pricing call.md');
    expect(pricing).toMatchObject({ date: '2026-02-02', date_source: 'updated' });
    const hiring = (await answer('How many engineers do we hire?')).citations.find(
      (c) => c.path === 'Projects/Hiring plan.md',
    );
    expect(hiring).toMatchObject({ date: '2025-12-02', date_source: 'created' });
    const kettle = (await answer('How often is the kettle descaled?')).citations[0];
    expect(kettle?.date_source).toBe('modified');
  });

  it('warns when the newest source is over a year old', async () => {
    const body = await answer('What did Tomás measure for the nightly backup?');
    expect(body.citations[0]?.path).toBe('Meetings/2025-03-04 Infra sync.md');
    expect(body.notes).toContain(
      'The newest of these sources (Infra sync, 4 March 2025) is from 2025-03-06, over a year ago: check it still holds.',
    );
    expect(body.answer).toMatch(/_\(The newest of these sources .* over a year ago/);
  });

  it('shows two notes that disagree, newest first', async () => {
    const body = await answer('What does the Rosenthaler Straße lease cost a month?');
    const paths = body.citations.map((c) => c.path);
    expect(paths).toEqual(
      expect.arrayContaining(['Projects/Office move.md', 'Projects/Office search 2024.md']),
    );
    const note = body.notes?.find((n) => n.startsWith('Your notes disagree'));
    expect(note).toMatch(
      /€6,800.*Office move.*2025-11-14.*but.*€6,200.*Office search 2024.*2024-09-30/,
    );
  });
});
