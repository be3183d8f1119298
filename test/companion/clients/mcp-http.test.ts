import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WriteMemory } from '../../../companion/idempotency/write-memory';
import { CLIENT_TOOL_NAMES } from '../../../companion/tools/client-tools';
import { TokenStore } from '../../../companion/auth/token-store';
import { SAMPLE_VAULT, TEST_TOKEN } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * MCP over Streamable HTTP at /mcp, reached by the official SDK client over a real socket.
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

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

async function auditEntries(): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${test.url}/api/v1/audit?limit=50`, {
    headers: { Authorization: `Bearer ${TEST_TOKEN}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { entries: Array<Record<string, unknown>> }).entries;
}

describe('MCP over HTTP', () => {
  it('lists every tool of docs/clients.md with the shared JSON schemas', async () => {
    const client = await connect(TEST_TOKEN);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...CLIENT_TOOL_NAMES].sort());
    const search = tools.find((tool) => tool.name === 'search');
    expect(search?.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['query', 'limit', 'folder', 'tag', 'type']),
    );
  });

  it('search answers with text, sources and structured citations', async () => {
    const client = await connect(TEST_TOKEN);
    const result = (await client.callTool({
      name: 'search',
      arguments: { query: 'visa fee' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(
      /\[1\]: Travel\/Visa rules\.md#Key points, (?:lines \d+–\d+|line \d+)/,
    );
    const citations = (result.structuredContent as { citations: Array<{ path: string }> })
      .citations;
    expect(citations[0]?.path).toBe('Travel/Visa rules.md');
  });

  it('ask quotes the vault and cites it', async () => {
    const client = await connect(TEST_TOKEN);
    const result = (await client.callTool({
      name: 'ask',
      arguments: { question: 'How much is the visa fee?' },
    })) as CallToolResult;
    expect(text(result)).toContain('€90');
    expect(text(result)).toContain('Travel/Visa rules.md');
    // The answer's audit: its quotes, each backed by the passage it cites.
    const audit = (
      result.structuredContent as {
        data: { audit: { claims: Array<{ supported: boolean; citations: number[] }> } };
      }
    ).data.audit;
    expect(audit.claims.length).toBeGreaterThan(0);
    expect(audit.claims.every((claim) => claim.supported && claim.citations.length > 0)).toBe(true);
  });

  it('read_note returns numbered lines and refuses paths outside the vault', async () => {
    const client = await connect(TEST_TOKEN);
    const read = (await client.callTool({
      name: 'read_note',
      arguments: { path: 'Travel/Visa rules.md', from_line: 10, to_line: 11 },
    })) as CallToolResult;
    expect(text(read)).toMatch(/^10: ## Key points\n11: - valid 90 days/);
    const outside = (await client.callTool({
      name: 'read_note',
      arguments: { path: '../secret.md' },
    })) as CallToolResult;
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/^VALIDATION_ERROR: .*\(field: path\)/);
  });

  it('read_note says a folder named like a note is a folder, without the absolute path', async () => {
    mkdirSync(join(test.vault, 'Archive.md'));
    const client = await connect(TEST_TOKEN);
    const read = (await client.callTool({
      name: 'read_note',
      arguments: { path: 'Archive.md' },
    })) as CallToolResult;
    expect(read.isError).toBe(true);
    expect(text(read)).toBe('VALIDATION_ERROR: "Archive.md" is a folder, not a note (field: path)');
    expect(text(read)).not.toContain(test.vault);
  });

  it('creates a reminder and a note, deduplicates a repeat, and audits each call', async () => {
    const client = await connect(TEST_TOKEN);
    const args = { title: 'Call the bank', due: '2026-11-23T09:00' };
    const first = (await client.callTool({
      name: 'create_reminder',
      arguments: args,
    })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    const path = (first.structuredContent as { data: { reminder: { path: string } } }).data.reminder
      .path;
    expect(existsSync(join(test.vault, path))).toBe(true);
    const again = (await client.callTool({
      name: 'create_reminder',
      arguments: args,
    })) as CallToolResult;
    expect((again.structuredContent as { deduplicated?: boolean }).deduplicated).toBe(true);

    const note = (await client.callTool({
      name: 'create_note',
      arguments: { title: 'MCP idea', body: 'Use the SDK.' },
    })) as CallToolResult;
    expect(note.isError).toBeFalsy();

    const entries = await auditEntries();
    expect(
      entries.slice(0, 3).map((entry) => [entry.action, entry.client, entry.outcome, entry.token]),
    ).toEqual([
      ['create_note', 'mcp', 'ok', 'owner'],
      ['create_reminder', 'mcp', 'deduplicated', 'owner'],
      ['create_reminder', 'mcp', 'ok', 'owner'],
    ]);
    expect(entries[2]?.path).toBe(path);
    expect(JSON.stringify(entries)).not.toContain('Use the SDK');
  });

  it('refuses a write tool to a read-only token, writes nothing and audits the refusal', async () => {
    const reader = test.token('reader', ['read']);
    const client = await connect(reader);
    const before = readdirSync(join(test.vault, 'Cairn/Reminders')).length;
    const result = (await client.callTool({
      name: 'create_reminder',
      arguments: { title: 'Nope', due: '2026-11-23T09:00' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'FORBIDDEN: create_reminder needs the write scope, which this token does not have',
    );
    expect(readdirSync(join(test.vault, 'Cairn/Reminders')).length).toBe(before);
    const [entry] = await auditEntries();
    expect(entry).toMatchObject({
      action: 'create_reminder',
      token: 'reader',
      outcome: 'refused',
      error_code: 'FORBIDDEN',
    });
    // Reading is allowed.
    const search = (await client.callTool({
      name: 'search',
      arguments: { query: 'garden' },
    })) as CallToolResult;
    expect(search.isError).toBeFalsy();
  });

  it('answers an unknown tool and bad arguments with error results naming the problem', async () => {
    const client = await connect(TEST_TOKEN);
    const unknown = (await client.callTool({
      name: 'delete_vault',
      arguments: {},
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/^VALIDATION_ERROR: unknown tool "delete_vault"/);
    const bad = (await client.callTool({
      name: 'snooze_reminder',
      arguments: { id: 'r-1', minutes: 'soon' },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/\(field: minutes\)$/);
  });

  it("search's own request errors reach the client once mapped, code, message and field intact", async () => {
    const client = await connect(TEST_TOKEN);
    // The schema accepts both dates; the search finds from after to (companion/search).
    const backwards = (await client.callTool({
      name: 'search',
      arguments: { query: 'garden', from: '2026-11-20', to: '2026-11-10' },
    })) as CallToolResult;
    expect(backwards.isError).toBe(true);
    expect(text(backwards)).toBe(
      'VALIDATION_ERROR: from (2026-11-20) is after to (2026-11-10) (field: from)',
    );
    expect(backwards.structuredContent).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'from (2026-11-20) is after to (2026-11-10)',
        field: 'from',
      },
    });
  });

  it("remember, recall and forget run the chat engine's memory tools over Cairn/Memory.md", async () => {
    const client = await connect(TEST_TOKEN);
    const saved = (await client.callTool({
      name: 'remember',
      arguments: { fact: 'My passport expires 2031-05' },
    })) as CallToolResult;
    expect(saved.isError, text(saved)).toBeFalsy();
    const memoryFile = readFileSync(join(test.vault, 'Cairn/Memory.md'), 'utf8');
    const line = memoryFile.split('\n').find((candidate) => candidate.includes('passport'));
    expect(line).toMatch(
      /^- My passport expires 2031-05 #memory\/uncategorized \(added \d{4}-\d{2}-\d{2}\) \^m-[a-z0-9]{4}$/,
    );

    const recalled = (await client.callTool({
      name: 'recall',
      arguments: { query: 'passport' },
    })) as CallToolResult;
    expect(text(recalled)).toContain('My passport expires 2031-05');
    const citations = (recalled.structuredContent as { citations: Array<{ path: string }> })
      .citations;
    expect(citations.map((citation) => citation.path)).toContain('Cairn/Memory.md');

    const blockId = /\^(m-[a-z0-9]{4})$/.exec(line!)![1]!;
    const forgotten = (await client.callTool({
      name: 'forget',
      arguments: { memory: blockId },
    })) as CallToolResult;
    expect(forgotten.isError, text(forgotten)).toBeFalsy();
    expect(readFileSync(join(test.vault, 'Cairn/Memory.md'), 'utf8')).not.toContain('passport');
  });

  it('recall takes a category: only the facts filed under it, and a bad one is refused', async () => {
    const client = await connect(TEST_TOKEN);
    for (const fact of [
      'Great pizza at Mario’s',
      'Need to watch Inception',
      'Pizza party was fun #memory/people',
    ]) {
      const saved = (await client.callTool({
        name: 'remember',
        arguments: { fact },
      })) as CallToolResult;
      expect(saved.isError, text(saved)).toBeFalsy();
    }
    const food = (await client.callTool({
      name: 'recall',
      arguments: { query: 'pizza', category: 'food' },
    })) as CallToolResult;
    expect(text(food)).toContain('Great pizza at Mario’s');
    expect(text(food)).toContain('under Food');
    expect(text(food)).not.toContain('Pizza party');
    const movies = (await client.callTool({
      name: 'recall',
      arguments: { category: 'movies' },
    })) as CallToolResult;
    expect(text(movies)).toContain('Need to watch Inception');
    expect(text(movies)).not.toContain('pizza');
    const bad = (await client.callTool({
      name: 'recall',
      arguments: { category: 'music' },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('category');
  });

  it('read_note and append_to_note refuse a symlink into .obsidian/ and leave its target alone', async () => {
    const settings = join(test.vault, '.obsidian/plugins/cairn/data.json');
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(settings, '{"companionToken":"tok-secret"}');
    symlinkSync('../.obsidian/plugins/cairn/data.json', join(test.vault, 'Projects/settings.md'));
    const client = await connect(TEST_TOKEN);
    for (const call of [
      { name: 'read_note', arguments: { path: 'Projects/settings.md' } },
      { name: 'append_to_note', arguments: { path: 'Projects/settings.md', text: 'x' } },
    ]) {
      const result = (await client.callTool(call)) as CallToolResult;
      expect(result.isError, call.name).toBe(true);
      expect(text(result)).not.toContain('tok-secret');
    }
    expect(readFileSync(settings, 'utf8')).toBe('{"companionToken":"tok-secret"}');
  });

  it('create_note and create_reminder write nothing when their record cannot be stored', async () => {
    const client = await connect(TEST_TOKEN);
    const files = () => ({
      notes: existsSync(join(test.vault, 'Cairn/Notes'))
        ? readdirSync(join(test.vault, 'Cairn/Notes'))
        : [],
      reminders: readdirSync(join(test.vault, 'Cairn/Reminders')),
    });
    const before = files();
    // The companion's database disk is full: every record of a write fails.
    const remember = vi.spyOn(WriteMemory.prototype, 'remember').mockImplementation(() => {
      throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    });
    try {
      for (const call of [
        { name: 'create_note', arguments: { title: 'Full disk', body: 'text' } },
        { name: 'create_reminder', arguments: { title: 'Full disk', due: '2026-11-23T09:00' } },
      ]) {
        const result = (await client.callTool(call)) as CallToolResult;
        expect(result.isError, call.name).toBe(true);
        expect(text(result)).toMatch(/STORAGE_FULL/);
      }
      expect(files()).toEqual(before);
    } finally {
      remember.mockRestore();
    }
    // Once space returns, a retry writes each once.
    for (let i = 0; i < 2; i++) {
      await client.callTool({
        name: 'create_note',
        arguments: { title: 'Full disk', body: 'text' },
      });
    }
    expect(files().notes.filter((name) => !before.notes.includes(name))).toHaveLength(1);
  });

  it('a token revoked mid-session fails its next request', async () => {
    const token = test.token('laptop', ['read', 'write']);
    const client = await connect(token);
    await client.callTool({ name: 'search', arguments: { query: 'garden' } });
    new TokenStore(test.db).revoke('laptop');
    await expect(
      client.callTool({ name: 'search', arguments: { query: 'garden' } }),
    ).rejects.toThrow(/401|invalid token/);
  });

  it('needs the bearer token', async () => {
    await expect(connect('not-a-valid-token-0000000000000000')).rejects.toThrow(
      /401|invalid token/,
    );
  });
});
