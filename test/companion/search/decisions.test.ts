import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionsResponse } from '../../../shared/protocol/decisions';
import type { AnswerResponse } from '../../../shared/protocol/search';
import { repoRoot } from '../../helpers/corpora';
import { TEST_TOKEN, authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { startClientTestApp } from '../clients/helpers';
import type { ClientTestApp } from '../clients/helpers';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

/*
 * Decisions extracted on indexing, over the real indexer and SQLite: the team-notes meeting
 * notes (written for these tests) and real ADRs (public domain, test/fixtures/decisions/adr),
 * listed by GET /api/v1/decisions and answered by /api/v1/answer and MCP `ask`.
 */

let index: IndexerFixture;
let app: TestApp;
let clients: ClientTestApp;
let source: string;

beforeAll(async () => {
  source = mkdtempSync(join(tmpdir(), 'cairn-decisions-'));
  cpSync(join(repoRoot, 'test/fixtures/vaults/team-notes'), source, { recursive: true });
  cpSync(join(repoRoot, 'test/fixtures/decisions/adr'), join(source, 'ADR'), { recursive: true });
  index = await startIndexer({ source });
  await index.indexer.whenIdle();
  app = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
  clients = await startClientTestApp(index);
});

afterAll(async () => {
  await clients?.close();
  await app?.close();
  await index?.close();
  rmSync(source, { recursive: true, force: true });
});

async function decisions(query: string): Promise<DecisionsResponse['decisions']> {
  const response = await app.app.inject({ url: `/api/v1/decisions?${query}`, headers: authorized });
  expect(response.statusCode).toBe(200);
  return response.json<DecisionsResponse>().decisions;
}

describe('GET /api/v1/decisions', () => {
  it('finds a meeting decision with what it rejected, its date and where it is written', async () => {
    const [backup] = await decisions('q=backups&limit=3');
    expect(backup).toMatchObject({
      text: 'move the nightly backups to restic on the Hetzner storage box.',
      rejected: ['Borg'],
      date: '2025-03-04',
      kind: 'line',
      citation: {
        type: 'note',
        path: 'Meetings/2025-03-04 Infra sync.md',
        heading: 'Database',
        lines: [13, 14],
      },
    });
  });

  it('finds a real ADR with its status, date and rejected alternatives', async () => {
    const [pooling] = await decisions('q=connection%20pooler');
    expect(pooling).toMatchObject({
      text: 'We will use PGBouncer as our connection pooler to reduce total connections.',
      rejected: ['AWS RDS Proxy', 'Reducing Transactions'],
      status: 'accepted',
      kind: 'adr',
      citation: { path: 'ADR/0009-database-connection-pooling.md' },
    });
    const [auth] = await decisions('q=authentication');
    expect(auth).toMatchObject({ date: '2021-07-30', status: 'Accepted' });
  });

  it('lists all, newest first, without q; refuses a bad limit', async () => {
    const all = await decisions('limit=100');
    expect(all.length).toBe(9);
    const dates = all.map((d) => d.date ?? '');
    expect(dates).toEqual([...dates].sort().reverse());
    const bad = await app.app.inject({ url: '/api/v1/decisions?limit=0', headers: authorized });
    expect(bad.statusCode).toBe(400);
  });
});

describe('"what did we decide about X?"', () => {
  it('is answered from the decisions, each cited', async () => {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/answer',
      headers: authorized,
      payload: { question: 'What did we decide about the phone number step?' },
    });
    const body = response.json<AnswerResponse>();
    expect(body.answer).toMatch(
      /^Decisions in your notes:\n- “We decided to drop the mandatory phone number step instead of making it optional, since 38% of users left at that step\.” \(rejected: making it optional; a guided tour\) \(Product review, 17 June 2025, 2025-06-17\) \[1\]/,
    );
    expect(body.citations[0]).toMatchObject({
      path: 'Meetings/2025-06-17 Product review.md',
      lines: [11, 12],
    });
  });

  it('is answered through MCP ask too', async () => {
    const client = new Client({ name: 'cairn-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${clients.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'ask',
        arguments: { question: 'what did we decide about the license?' },
      })) as CallToolResult;
      const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      expect(text).toMatch(/We will use a CC 1\.0 Universal public domain license/);
      expect(text).toContain('ADR/0005-license.md');
    } finally {
      await client.close();
    }
  });
});
