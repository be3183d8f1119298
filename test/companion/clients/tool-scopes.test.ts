import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_TOOLS, CLIENT_TOOL_NAMES } from '../../../companion/tools/client-tools';
import type { ClientToolName } from '../../../companion/tools/client-tools';
import { routeMessage } from '../../../shared/chat/intent-router';
import { TOOLS, TOOL_NAMES } from '../../../shared/chat/tool-schemas';
import type { ToolName } from '../../../shared/chat/tool-schemas';
import { SAMPLE_VAULT, TEST_TOKEN } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { chatEvents } from '../chat/sse-client';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * Scopes come from one table (TOOLS in shared/chat/tool-schemas.ts): every chat tool and every
 * client tool, called with a read-only token through REST chat, MCP and /v1/chat/completions,
 * is refused exactly when the table says `write`, and the vault is left as it was.
 */

/** A chat message the built-in rules route to each tool (checked below, so none is missing). */
const INTENTS: Record<ToolName, string> = {
  search: 'search for visa fee',
  answer: 'How much is the visa fee?',
  create_note: 'note: buy more seeds for the garden',
  append_to_note: 'add to Garden.md: compost the leaves',
  create_reminder: 'remind me tomorrow at 9 to water the plants',
  create_task: 'every friday at 5pm tell me what I wrote about the house',
  list_reminders: "what's due this week?",
  snooze_reminder: 'snooze renew passport for 1 hour',
  complete_reminder: 'mark renew passport as done',
  remember: 'remember that my passport expires 2031',
  forget: 'forget that my passport expires 2031',
  recall: 'what do you remember about my passport?',
  memory_to_reminder: 'remind me about my passport tomorrow at 9',
};

/** Valid arguments for every client tool. */
const CLIENT_ARGS: Record<ClientToolName, Record<string, unknown>> = {
  search: { query: 'visa fee' },
  ask: { question: 'How much is the visa fee?' },
  read_note: { path: 'Travel/Visa rules.md' },
  list_reminders: {},
  create_reminder: { title: 'Call the bank', due: '2026-11-23T09:00' },
  create_task: { name: 'House', schedule: '0 17 * * FRI', action: 'ask', question: 'House?' },
  complete_reminder: { id: 'r-q0d4' },
  snooze_reminder: { id: 'r-q0d4', minutes: 30 },
  create_note: { title: 'Seeds', body: 'buy more' },
  append_to_note: { path: 'Garden.md', text: 'compost the leaves' },
  remember: { fact: 'My bike is blue' },
  recall: { query: 'passport' },
  forget: { memory: 'my passport expires 2031' },
  memory_to_reminder: { memory: 'my passport expires 2031', due: '2026-11-23T09:00' },
};

let index: IndexerFixture;
let test: ClientTestApp;
let reader: string;
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
  reader = test.token('reader', ['read']);
  // A fact for `forget` to find, written with the owner's token.
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

/** Every file of the vault and its text, but chat transcripts (Cairn/Chats/), which any turn keeps. */
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

describe('one scope table for every tool and client', () => {
  it('every chat intent routes to its tool, and every client tool takes its scope from TOOLS', () => {
    const context = { now: Date.parse('2026-11-22T10:00:00Z'), zone: 'Europe/Berlin' };
    for (const tool of TOOL_NAMES) {
      const routed = routeMessage(INTENTS[tool], context);
      expect(routed.kind === 'tool' ? routed.call.name : routed, INTENTS[tool]).toBe(tool);
    }
    for (const name of CLIENT_TOOL_NAMES) {
      const definition: { scope: string; chatTool?: ToolName } = CLIENT_TOOLS[name];
      if (definition.chatTool !== undefined) {
        expect(definition.scope, name).toBe(TOOLS[definition.chatTool].scope);
      }
    }
    expect(TOOLS.forget.scope).toBe('write');
  });

  it('REST chat with a read token refuses exactly the write tools and changes nothing', async () => {
    const before = vaultFiles();
    for (const tool of TOOL_NAMES) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/v1/chat',
        headers: { authorization: `Bearer ${reader}` },
        payload: { message: INTENTS[tool] },
      });
      expect(response.statusCode).toBe(200);
      const called = chatEvents(response.body).find((event) => event.type === 'tool') as
        { name: string; result: { success: boolean; error?: { code: string } } } | undefined;
      expect(called?.name, tool).toBe(tool);
      const refused = called?.result.error?.code === 'FORBIDDEN';
      expect(refused, `${tool} refused`).toBe(TOOLS[tool].scope === 'write');
    }
    expect(vaultFiles()).toEqual(before);
  });

  it('/v1/chat/completions with a read token refuses exactly the write tools and changes nothing', async () => {
    const before = vaultFiles();
    const openai = new OpenAI({ baseURL: `${test.url}/v1`, apiKey: reader, maxRetries: 0 });
    for (const tool of TOOL_NAMES) {
      const completion = await openai.chat.completions.create({
        model: 'cairn',
        messages: [{ role: 'user', content: INTENTS[tool] }],
      });
      const reply = completion.choices[0]?.message.content ?? '';
      expect(reply.includes('needs the write scope'), `${tool}: ${reply}`).toBe(
        TOOLS[tool].scope === 'write',
      );
    }
    expect(vaultFiles()).toEqual(before);
  });

  it('MCP with a read token refuses exactly the write tools and changes nothing', async () => {
    const before = vaultFiles();
    const client = new Client({ name: 'cairn-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${reader}` } },
      }),
    );
    clients.push(client);
    for (const name of CLIENT_TOOL_NAMES) {
      const result = (await client.callTool({
        name,
        arguments: CLIENT_ARGS[name],
      })) as CallToolResult;
      const first = result.content[0];
      const text = first?.type === 'text' ? first.text : '';
      expect(text.startsWith('FORBIDDEN'), `${name}: ${text}`).toBe(
        CLIENT_TOOLS[name].scope === 'write',
      );
    }
    expect(vaultFiles()).toEqual(before);
  });
});
