import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_TOOLS, CLIENT_TOOL_NAMES } from '../../../companion/tools/client-tools';
import type { ClientToolName } from '../../../companion/tools/client-tools';
import type { DryRunResponse } from '../../../shared/protocol/dry-run';
import { SAMPLE_VAULT, TEST_TOKEN } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * `dry_run: true` (docs/clients.md "Dry run") on every write tool through MCP (the official SDK
 * client) and on the write routes: the answer is the change as a unified diff, and the vault,
 * the reminders and the memories are exactly as before.
 */

const WRITE_ARGS: Partial<Record<ClientToolName, Record<string, unknown>>> = {
  create_note: { title: 'Seeds', body: 'buy more' },
  append_to_note: { path: 'Garden.md', text: 'compost the leaves' },
  create_reminder: { title: 'Call the bank', due: '2026-11-23T09:00' },
  create_task: { name: 'House', schedule: '0 17 * * FRI', action: 'ask', question: 'House?' },
  complete_reminder: { id: 'r-q0d4' },
  snooze_reminder: { id: 'r-q0d4', minutes: 30 },
  remember: { fact: 'My bike is blue' },
  forget: { memory: 'my passport expires 2031' },
  memory_to_reminder: { memory: 'my passport', due: '2026-12-01T09:00' },
};

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
  const saved = await test.app.inject({
    method: 'POST',
    url: '/api/v1/memories',
    headers: { authorization: `Bearer ${TEST_TOKEN}` },
    payload: { text: 'My passport expires 2031' },
  });
  expect(saved.statusCode).toBe(201);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await test.close();
});

function vaultFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const inVault = relative(test.vault, path);
      if (inVault.startsWith('Cairn/Chats')) continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.set(inVault, readFileSync(path, 'utf8'));
    }
  };
  walk(test.vault);
  return files;
}

async function state(): Promise<{
  files: Map<string, string>;
  reminders: string;
  memories: string;
}> {
  const get = async (url: string) =>
    (
      await test.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      })
    ).body;
  return {
    files: vaultFiles(),
    reminders: await get('/api/v1/reminders?limit=200'),
    memories: await get('/api/v1/memories'),
  };
}

describe('dry_run on every write tool (MCP)', () => {
  it('answers the diff of each write tool and writes nothing', async () => {
    const client = new Client({ name: 'cairn-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
      }),
    );
    clients.push(client);
    const writeTools = CLIENT_TOOL_NAMES.filter((name) => CLIENT_TOOLS[name].scope === 'write');
    expect(writeTools.sort()).toEqual(Object.keys(WRITE_ARGS).sort());
    const before = await state();
    const planned = new Map<string, DryRunResponse>();
    for (const name of writeTools) {
      if (name === 'create_task') continue; // below: this app has no task service
      const result = (await client.callTool({
        name,
        arguments: { ...WRITE_ARGS[name], dry_run: true },
      })) as CallToolResult;
      const first = result.content[0];
      expect(result.isError ?? false, `${name}: ${first?.type === 'text' ? first.text : ''}`).toBe(
        false,
      );
      const data = (result.structuredContent as { data: DryRunResponse }).data;
      expect(data.dry_run, name).toBe(true);
      expect(data.changes.length, name).toBeGreaterThan(0);
      planned.set(name, data);
    }
    const task = (await client.callTool({
      name: 'create_task',
      arguments: { ...WRITE_ARGS.create_task, dry_run: true },
    })) as CallToolResult;
    expect(task.isError).toBe(true);
    expect(await state()).toEqual(before);

    const snoozed = planned.get('snooze_reminder')?.changes[0];
    expect(snoozed).toMatchObject({ path: 'Travel/Visa rules.md', action: 'schedule' });
    expect(snoozed?.diff).toContain('snooze r-q0d4 until 2027-01-10T09:30');

    const append = planned.get('append_to_note')?.changes[0];
    expect(append).toMatchObject({ path: 'Garden.md', action: 'edit' });
    expect(append?.before).toBe(before.files.get('Garden.md'));
    expect(append?.after).toContain('compost the leaves');
    expect(append?.diff).toMatch(
      /^--- a\/Garden\.md\n\+\+\+ b\/Garden\.md\n@@ -\d+,\d+ \+\d+,\d+ @@/,
    );
    expect(append?.diff).toContain('\n+compost the leaves');

    const note = planned.get('create_note')?.changes[0];
    expect(note).toMatchObject({ action: 'create', before: null });
    expect(note?.diff).toMatch(/^--- \/dev\/null\n\+\+\+ b\//);
    expect(note?.after).toContain('buy more');

    const done = planned.get('complete_reminder')?.changes[0];
    expect(done?.path).toBe('Travel/Visa rules.md');
    expect(done?.diff).toContain('-- [ ] Renew passport');
    expect(done?.diff).toContain('+- [x] Renew passport');

    const linked = planned.get('memory_to_reminder')?.changes[0];
    expect(linked?.action).toBe('create');
    expect(linked?.after).toContain('My passport expires 2031');

    const remembered = planned.get('remember')?.changes[0];
    expect(remembered?.path).toBe('Cairn/Memory.md');
    expect(remembered?.diff).toContain('My bike is blue');

    // Without dry_run the same call writes: the dry run's `after` is what lands.
    const real = (await client.callTool({
      name: 'append_to_note',
      arguments: WRITE_ARGS.append_to_note,
    })) as CallToolResult;
    expect(real.isError ?? false).toBe(false);
    expect(readFileSync(join(test.vault, 'Garden.md'), 'utf8')).toBe(append?.after);
  });
});

describe('dry_run on the write routes', () => {
  const auth = { authorization: `Bearer ${TEST_TOKEN}` };

  it('POST /api/v1/notes?dry_run=true and a body dry_run answer the new file; nothing is written', async () => {
    const before = await state();
    for (const request of [
      { url: '/api/v1/notes?dry_run=true', payload: { title: 'Seeds', body: 'buy more' } },
      { url: '/api/v1/notes', payload: { title: 'Seeds', body: 'buy more', dry_run: true } },
    ]) {
      const response = await test.app.inject({ method: 'POST', headers: auth, ...request });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json() as DryRunResponse;
      expect(body.dry_run).toBe(true);
      expect(body.changes[0]).toMatchObject({ action: 'create', before: null });
      expect(body.changes[0]?.diff).toContain('+buy more');
    }
    expect(await state()).toEqual(before);
  });

  it('reminder create, snooze and done and memory create stop before writing', async () => {
    const before = await state();
    const calls = [
      { url: '/api/v1/reminders', payload: { title: 'Call the bank', due: '2026-11-23T09:00' } },
      { url: '/api/v1/reminders/r-q0d4/snooze', payload: { minutes: 30 } },
      { url: '/api/v1/reminders/r-q0d4/done', payload: {} },
      { url: '/api/v1/memories', payload: { text: 'My bike is blue' } },
    ];
    for (const call of calls) {
      const response = await test.app.inject({
        method: 'POST',
        headers: auth,
        url: `${call.url}?dry_run=true`,
        payload: call.payload,
      });
      expect(response.statusCode, `${call.url}: ${response.body}`).toBe(200);
      expect(
        (response.json() as DryRunResponse).changes?.length,
        `${call.url}: ${response.body}`,
      ).toBe(1);
    }
    expect(await state()).toEqual(before);
  });

  it('a write route without a vault effect refuses dry_run rather than ignore it', async () => {
    const response = await test.app.inject({
      method: 'POST',
      headers: auth,
      url: '/api/v1/tokens?dry_run=true',
      payload: { name: 'phone', scopes: ['read'] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', field: 'dry_run' },
    });
  });

  it('a dry run outside the token path rules is refused like the write', async () => {
    const { TokenStore } = await import('../../../companion/auth/token-store');
    const travel = new TokenStore(test.db).create('travel', ['read', 'write'], 0, ['Travel']).token;
    const response = await test.app.inject({
      method: 'POST',
      headers: { authorization: `Bearer ${travel}` },
      url: '/api/v1/notes?dry_run=true',
      payload: { title: 'Seeds', body: 'buy more', folder: 'Garden' },
    });
    expect(response.statusCode).toBe(403);
  });
});
