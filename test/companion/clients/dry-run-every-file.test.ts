import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DryRunResponse, PlannedChange } from '../../../shared/protocol/dry-run';
import { TEMP_FILE_NAME } from '../../../companion/vault/atomic-write';
import { annotatedInvoice } from '../../helpers/pdf-builder';
import { SAMPLE_VAULT, TEST_TOKEN } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * A dry run lists every file its write would change (docs/clients.md "Dry run"): for each writer
 * the dry run's changes are compared with what the same call, made for real right after, wrote
 * on disk: the same paths, the same actions, the same text after (but for the random ids each
 * run draws anew). Imports write many notes; the others one, and must still say exactly it.
 */

const fixture = (name: string) =>
  readFileSync(join(__dirname, '../../fixtures/import', name), 'utf8');

const BOUNDARY = '----cairn-dry-run-boundary';
const auth = { authorization: `Bearer ${TEST_TOKEN}` };

let index: IndexerFixture;
let test: ClientTestApp;
const clients: Client[] = [];

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
  await index.indexer.whenIdle();
});
afterAll(async () => {
  await index?.close();
});
beforeEach(async () => {
  test = await startClientTestApp(index);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await test.close();
});

/**
 * Every file of the vault as text, but chats (a chat turn's own transcript) and Cairn's temp
 * files (a real edit's witness lingers while it watches for late writes).
 */
function vaultFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const inVault = relative(test.vault, path).split('\\').join('/');
      if (inVault.startsWith('Cairn/Chats')) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (!TEMP_FILE_NAME.test(name)) files.set(inVault, readFileSync(path, 'utf8'));
    }
  };
  walk(test.vault);
  return files;
}

/** Random ids each run draws anew: note ids, block ids, memory ids. */
function withoutRandomIds(text: string | null): string | null {
  return (
    text
      ?.replace(/^id: .+$/gm, 'id: …')
      .replace(/\^[a-z]-[a-z0-9]{4}\b/g, '^…')
      .replace(/#\^[a-z]-[a-z0-9]{4}\b/g, '#^…') ?? null
  );
}

/** What a real run wrote: each file whose text changed, as a dry run would say it. */
function changesOnDisk(
  before: Map<string, string>,
  after: Map<string, string>,
): Array<Pick<PlannedChange, 'path' | 'action' | 'after'>> {
  const changes: Array<Pick<PlannedChange, 'path' | 'action' | 'after'>> = [];
  for (const [path, text] of after) {
    const was = before.get(path);
    if (was === text) continue;
    changes.push({ path, action: was === undefined ? 'create' : 'edit', after: text });
  }
  for (const path of before.keys()) {
    if (!after.has(path)) changes.push({ path, action: 'remove', after: null });
  }
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

function comparable(changes: ReadonlyArray<Pick<PlannedChange, 'path' | 'action' | 'after'>>) {
  return [...changes]
    .map(({ path, action, after }) => ({ path, action, after: withoutRandomIds(after) }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Runs `write` as a dry run and checks nothing changed; runs it for real and checks that the
 * dry run's changes are what landed. Returns the dry run's changes.
 */
async function dryRunMatchesRealRun(
  write: (dryRun: boolean) => Promise<DryRunResponse | undefined>,
): Promise<readonly PlannedChange[]> {
  const before = vaultFiles();
  const planned = await write(true);
  expect(planned?.dry_run).toBe(true);
  expect(vaultFiles()).toEqual(before);
  await write(false);
  const landed = changesOnDisk(before, vaultFiles()).map((change) =>
    // A binary file's text is not in a dry run (`after: null`, its size in the diff).
    change.path.endsWith('.pdf') ? { ...change, after: null } : change,
  );
  expect(landed.length).toBeGreaterThan(0);
  expect(comparable(planned!.changes)).toEqual(comparable(landed));
  return planned!.changes;
}

async function route(
  method: 'POST',
  url: string,
  payload: Record<string, unknown>,
  dryRun: boolean,
): Promise<DryRunResponse | undefined> {
  const response = await test.app.inject({
    method,
    url: dryRun ? `${url}?dry_run=true` : url,
    headers: auth,
    payload,
  });
  expect(response.statusCode, response.body).toBe(dryRun ? 200 : 201);
  return dryRun ? (response.json() as DryRunResponse) : undefined;
}

async function mcpTool(
  name: string,
  args: Record<string, unknown>,
  dryRun: boolean,
): Promise<DryRunResponse | undefined> {
  let client = clients[0];
  if (client === undefined) {
    client = new Client({ name: 'cairn-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
      }),
    );
    clients.push(client);
  }
  const result = (await client.callTool({
    name,
    arguments: dryRun ? { ...args, dry_run: true } : args,
  })) as CallToolResult;
  const first = result.content[0];
  expect(result.isError ?? false, first?.type === 'text' ? first.text : '').toBe(false);
  return dryRun ? (result.structuredContent as { data: DryRunResponse }).data : undefined;
}

describe('a dry run lists every file the write changes', () => {
  it('a bookmark import: every note', async () => {
    const changes = await dryRunMatchesRealRun((dryRun) =>
      route(
        'POST',
        '/api/v1/import',
        { kind: 'bookmarks', file: 'bookmarks.html', text: fixture('bookmarks-firefox.html') },
        dryRun,
      ),
    );
    expect(changes).toHaveLength(5);
    expect(changes.every((change) => change.action === 'create')).toBe(true);
    expect(changes.every((change) => change.diff.startsWith('--- /dev/null\n'))).toBe(true);
  });

  it('a Kindle import: a note per book', async () => {
    const changes = await dryRunMatchesRealRun((dryRun) =>
      route(
        'POST',
        '/api/v1/import',
        { kind: 'kindle', file: 'My Clippings.txt', text: fixture('My Clippings.txt') },
        dryRun,
      ),
    );
    expect(changes.length).toBeGreaterThan(1);
    expect(new Set(changes.map((change) => change.path)).size).toBe(changes.length);
  });

  it('a memory made a reminder, by route and by MCP tool: its reminder note', async () => {
    const saved = await test.app.inject({
      method: 'POST',
      url: '/api/v1/memories',
      headers: auth,
      payload: { text: 'My passport expires 2031' },
    });
    const id = (saved.json() as { id: string }).id;
    const byRoute = await dryRunMatchesRealRun((dryRun) =>
      route('POST', `/api/v1/memories/${id}/reminder`, { due: '2026-12-01T09:00' }, dryRun),
    );
    expect(byRoute).toHaveLength(1);
    expect(byRoute[0]!.after).toContain(`[[Cairn/Memory#^${id}]]`);
    const byTool = await dryRunMatchesRealRun((dryRun) =>
      mcpTool(
        'memory_to_reminder',
        { memory: id, due: '2026-12-02T09:00', title: 'Passport again' },
        dryRun,
      ),
    );
    expect(byTool).toHaveLength(1);
  });

  it('remember and append_to_note (MCP): the one file each changes', async () => {
    await dryRunMatchesRealRun((dryRun) =>
      mcpTool('remember', { fact: 'The shed key is under the pot' }, dryRun),
    );
    await dryRunMatchesRealRun((dryRun) =>
      mcpTool('append_to_note', { path: 'Garden.md', text: 'Mulch the roses' }, dryRun),
    );
  });

  it('an upload (ingest): the file, said by its size, and nothing written', async () => {
    const bytes = Buffer.from(annotatedInvoice());
    const body = Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="invoice.pdf"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      bytes,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const changes = await dryRunMatchesRealRun(async (dryRun) => {
      const response = await test.app.inject({
        method: 'POST',
        url: dryRun ? '/api/v1/ingest?dry_run=true' : '/api/v1/ingest',
        headers: { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        payload: body,
      });
      expect(response.statusCode, response.body).toBe(dryRun ? 200 : 201);
      return dryRun ? (response.json() as DryRunResponse) : undefined;
    });
    expect(changes).toHaveLength(1);
    const [upload] = changes;
    expect(upload).toMatchObject({ action: 'create', before: null, after: null });
    expect(upload!.path).toMatch(/\/invoice\.pdf$/);
    expect(upload!.diff).toBe(
      `Binary file b/${upload!.path} (${bytes.length} bytes) would be created\n`,
    );
  });
});
