import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CLIENT_TOOL_NAMES,
  CLIENT_TOOLS,
  clientToolJsonSchema,
} from '../../../companion/tools/client-tools';
import { SAMPLE_VAULT, TEST_TOKEN } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * A retried MCP write (same `idempotency_key`, same arguments) writes once and answers the first
 * result again (issue #25: MCP has no per-call header). Over a real socket with the official SDK
 * client; each retry is a new connection, as a client that lost its first one would make.
 */

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

async function call(name: string, args: Record<string, unknown>, token = TEST_TOKEN) {
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const structured = (result: CallToolResult) =>
  result.structuredContent as {
    data?: unknown;
    deduplicated?: boolean;
    error?: { code: string; field?: string };
  };

const read = (path: string) => readFileSync(join(test.vault, path), 'utf8');
const count = (text: string, part: string) => text.split(part).length - 1;

describe('MCP write tools with an idempotency_key', () => {
  it('every write tool takes the key, no read tool does', () => {
    for (const name of CLIENT_TOOL_NAMES) {
      const properties = clientToolJsonSchema(name).properties as Record<string, unknown>;
      expect(Object.hasOwn(properties, 'idempotency_key'), name).toBe(
        CLIENT_TOOLS[name].scope === 'write',
      );
    }
  });

  it('append_to_note retried with the same key appends once', async () => {
    const args = {
      path: 'Garden.md',
      text: 'water the tomatoes (idempotent)',
      idempotency_key: 'append-7f3a',
    };
    const first = await call('append_to_note', args);
    expect(first.isError).toBeFalsy();
    const again = await call('append_to_note', args);
    expect(again.isError).toBeFalsy();
    expect(structured(again).deduplicated).toBe(true);
    expect(structured(again).data).toEqual(structured(first).data);
    expect(count(read('Garden.md'), 'water the tomatoes (idempotent)')).toBe(1);

    // Without a key, the same append is a new write (a user may mean it twice).
    const { idempotency_key: _key, ...unkeyed } = args;
    expect((await call('append_to_note', unkeyed)).isError).toBeFalsy();
    expect(count(read('Garden.md'), 'water the tomatoes (idempotent)')).toBe(2);
  });

  it('concurrent retries with the same key write once', async () => {
    const args = { fact: 'my bike is the blue one', idempotency_key: 'remember-1' };
    const results = await Promise.all([1, 2, 3].map(() => call('remember', args)));
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(results.filter((result) => structured(result).deduplicated === true)).toHaveLength(2);
    expect(count(read('Cairn/Memory.md'), 'my bike is the blue one')).toBe(1);
  });

  it('the same key with other arguments is refused and writes nothing', async () => {
    await call('append_to_note', { path: 'Garden.md', text: 'first text', idempotency_key: 'k-1' });
    const reused = await call('append_to_note', {
      path: 'Garden.md',
      text: 'second text',
      idempotency_key: 'k-1',
    });
    expect(reused.isError).toBe(true);
    expect(structured(reused).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'idempotency_key',
    });
    expect(read('Garden.md')).not.toContain('second text');
  });

  it('a failed call releases its key, so the retry runs', async () => {
    const missing = { path: 'Nowhere.md', text: 'x', idempotency_key: 'k-2' };
    expect((await call('append_to_note', missing)).isError).toBe(true);
    writeFileSync(join(test.vault, 'Nowhere.md'), '# Nowhere\n');
    const retried = await call('append_to_note', missing);
    expect(retried.isError).toBeFalsy();
    expect(structured(retried).deduplicated).toBeUndefined();
  });

  it('keys are per token: another token with the same key is its own call', async () => {
    const other = test.token('script', ['read', 'write']);
    const args = { path: 'Garden.md', text: 'per token line', idempotency_key: 'shared-key' };
    await call('append_to_note', args);
    const second = await call('append_to_note', args, other);
    expect(second.isError).toBeFalsy();
    expect(structured(second).deduplicated).toBeUndefined();
    expect(count(read('Garden.md'), 'per token line')).toBe(2);
  });

  it('a key that is not printable ASCII is refused by the schema', async () => {
    const result = await call('remember', { fact: 'x', idempotency_key: 'has space' });
    expect(result.isError).toBe(true);
    expect(structured(result).error).toMatchObject({ field: 'idempotency_key' });
  });
});
