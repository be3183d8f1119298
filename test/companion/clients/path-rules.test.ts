import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../companion/auth/token-store';
import { SAMPLE_VAULT, TEST_TOKEN } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { chatEvents } from '../chat/sse-client';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * Per-token path rules (docs/clients.md "Path rules") over the sample vault: a token limited to
 * Travel/ finds, reads and writes nothing outside it, through REST, MCP (official SDK client),
 * REST chat and /v1/chat/completions (official OpenAI client); the owner's token, on the same
 * app, does see the rest (so each check could fail).
 */

let index: IndexerFixture;
let test: ClientTestApp;
let travel: string;
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
  travel = new TokenStore(test.db).create('travel', ['read', 'write'], test.clock.now(), [
    'Travel/',
  ]).token;
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

async function searchPaths(token: string, q: string): Promise<string[]> {
  const response = await test.app.inject({
    method: 'GET',
    url: `/api/v1/search?q=${encodeURIComponent(q)}&limit=50`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as { results: Array<{ citation: { path: string } }> }).results.map(
    (r) => r.citation.path,
  );
}

async function mcp(token: string): Promise<Client> {
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

const QUERIES = ['visa', 'passport', 'garden', 'companion', 'reading', 'tram'];

describe('a token limited to Travel/', () => {
  it('REST search and answers find only notes under Travel/', async () => {
    let outsideForOwner = 0;
    for (const q of QUERIES) {
      const owner = await searchPaths(TEST_TOKEN, q);
      outsideForOwner += owner.filter((path) => !path.startsWith('Travel/')).length;
      const limited = await searchPaths(travel, q);
      expect(
        limited.every((path) => path.startsWith('Travel/')),
        `${q}: ${limited}`,
      ).toBe(true);
      expect(limited).toEqual(owner.filter((path) => path.startsWith('Travel/')));
    }
    expect(outsideForOwner).toBeGreaterThan(3);

    const answer = await test.app.inject({
      method: 'POST',
      url: '/api/v1/answer',
      headers: { authorization: `Bearer ${travel}` },
      payload: { question: 'What is in the garden?' },
    });
    expect(answer.statusCode).toBe(200);
    const cited = (answer.json() as { citations: Array<{ path: string }> }).citations;
    expect(cited.every((c) => c.path.startsWith('Travel/'))).toBe(true);
    const ownerAnswer = await test.app.inject({
      method: 'POST',
      url: '/api/v1/answer',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      payload: { question: 'What is in the garden?' },
    });
    const ownerCited = (ownerAnswer.json() as { citations: Array<{ path: string }> }).citations;
    expect(ownerCited.some((c) => c.path === 'Garden.md')).toBe(true);
  });

  it('POST /api/v1/tokens takes paths; bad ones are 400 naming paths', async () => {
    const made = await test.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      payload: { name: 'work', scopes: ['read'], paths: ['Work/'] },
    });
    expect(made.statusCode).toBe(201);
    expect(made.json()).toMatchObject({ name: 'work', scopes: ['read'], paths: ['Work'] });
    const bad = await test.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      payload: { name: 'bad', scopes: ['read'], paths: ['../Private'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'paths' } });
  });

  it('GET /api/v1/tokens/self says which folders', async () => {
    const self = await test.app.inject({
      method: 'GET',
      url: '/api/v1/tokens/self',
      headers: { authorization: `Bearer ${travel}` },
    });
    expect(self.json()).toEqual({ name: 'travel', scopes: ['read', 'write'], paths: ['Travel'] });
  });

  it('REST writes outside Travel/ are 403 and change nothing; inside they work', async () => {
    const before = vaultFiles();
    const outside = await test.app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: { authorization: `Bearer ${travel}` },
      payload: { title: 'Groceries', body: 'milk', folder: 'Inbox' },
    });
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toMatchObject({ error: { code: 'FORBIDDEN', field: 'folder' } });
    expect(outside.json().error.message).toContain('Travel/');
    expect(vaultFiles()).toEqual(before);

    const inside = await test.app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: { authorization: `Bearer ${travel}` },
      payload: { title: 'Porto', body: 'next year', folder: 'Travel' },
    });
    expect(inside.statusCode).toBe(201);
    expect(inside.json().path).toMatch(/^Travel\/porto\.md$/i);
  });

  it('MCP search, read_note and append_to_note stay inside Travel/', async () => {
    const client = await mcp(travel);
    let searched = 0;
    for (const q of QUERIES) {
      const found = (await client.callTool({
        name: 'search',
        arguments: { query: q, limit: 20 },
      })) as CallToolResult;
      const results = (
        found.structuredContent as { data: { results: Array<{ citation: { path: string } }> } }
      ).data.results;
      searched += results.length;
      for (const hit of results) expect(hit.citation.path.startsWith('Travel/')).toBe(true);
    }
    expect(searched).toBeGreaterThan(0);

    const listed = (await client.callTool({
      name: 'list_reminders',
      arguments: {},
    })) as CallToolResult;
    const reminders = (listed.structuredContent as { data: { reminders: Array<{ path: string }> } })
      .data.reminders;
    expect(reminders.length).toBeGreaterThan(0);
    expect(reminders.every((r) => r.path.startsWith('Travel/'))).toBe(true);
    const bank = (await client.callTool({
      name: 'complete_reminder',
      arguments: { id: '5b0e2c1a-8d3f-4e62-9a71-2f4b6c8d0e13' },
    })) as CallToolResult;
    expect(bank.isError).toBe(true);
    expect(textOf(bank)).toMatch(/^NOT_FOUND/);

    const readInside = (await client.callTool({
      name: 'read_note',
      arguments: { path: 'Travel/Visa rules.md' },
    })) as CallToolResult;
    expect(readInside.isError ?? false).toBe(false);
    expect(textOf(readInside)).toContain('Renew passport');

    const readOutside = (await client.callTool({
      name: 'read_note',
      arguments: { path: 'Garden.md' },
    })) as CallToolResult;
    expect(readOutside.isError).toBe(true);
    expect(textOf(readOutside)).toMatch(/^FORBIDDEN/);
    expect(textOf(readOutside)).not.toContain('compost');

    const garden = readFileSync(join(test.vault, 'Garden.md'), 'utf8');
    const appendOutside = (await client.callTool({
      name: 'append_to_note',
      arguments: { path: 'Garden.md', text: 'plant tulips' },
    })) as CallToolResult;
    expect(appendOutside.isError).toBe(true);
    expect(textOf(appendOutside)).toMatch(/FORBIDDEN|NOT_FOUND/);
    expect(readFileSync(join(test.vault, 'Garden.md'), 'utf8')).toBe(garden);

    const appendInside = (await client.callTool({
      name: 'append_to_note',
      arguments: { path: 'Travel/Lisbon trip.md', text: 'Try the pastéis in Belém.' },
    })) as CallToolResult;
    expect(appendInside.isError ?? false, textOf(appendInside)).toBe(false);
    expect(readFileSync(join(test.vault, 'Travel/Lisbon trip.md'), 'utf8')).toContain(
      'Try the pastéis in Belém.',
    );

    // The owner's MCP client, on the same app, reads Garden.md: the refusal was the rule's.
    const owner = await mcp(TEST_TOKEN);
    const ownerRead = (await owner.callTool({
      name: 'read_note',
      arguments: { path: 'Garden.md' },
    })) as CallToolResult;
    expect(textOf(ownerRead)).toContain('Garden');
  });

  it('REST chat and /v1/chat/completions cite only Travel/', async () => {
    const chat = await test.app.inject({
      method: 'POST',
      url: '/api/v1/chat',
      headers: { authorization: `Bearer ${travel}` },
      payload: { message: 'search for garden' },
    });
    expect(chat.statusCode).toBe(200);
    const events = chatEvents(chat.body) as Array<{
      type: string;
      citations?: Array<{ path: string }>;
    }>;
    const cited = events.flatMap((event) => event.citations ?? []);
    expect(cited.every((c) => c.path.startsWith('Travel/'))).toBe(true);

    const openai = new OpenAI({ baseURL: `${test.url}/v1`, apiKey: travel, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'cairn',
      messages: [{ role: 'user', content: 'search for garden' }],
    });
    const reply = completion.choices[0]?.message.content ?? '';
    expect(reply).not.toContain('Garden.md');
    const ownerAi = new OpenAI({ baseURL: `${test.url}/v1`, apiKey: TEST_TOKEN, maxRetries: 0 });
    const ownerReply =
      (
        await ownerAi.chat.completions.create({
          model: 'cairn',
          messages: [{ role: 'user', content: 'search for garden' }],
        })
      ).choices[0]?.message.content ?? '';
    expect(ownerReply).toContain('Garden');
  });
});
