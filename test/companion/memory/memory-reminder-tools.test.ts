import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../../shared/protocol/chat';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { SAMPLE_VAULT, TEST_TOKEN, authorized } from '../helpers/app';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { chatEvents } from '../chat/sse-client';
import { startClientTestApp } from '../clients/helpers';
import type { ClientTestApp } from '../clients/helpers';

/*
 * A memory into a reminder from chat (the rules, and the fake Ollama's tool call) and from MCP
 * (the official SDK client over a real socket): the reminder note links the memory's line, as
 * POST /api/v1/memories/:id/reminder does (docs/memory-digest-calendar.md).
 */

let index: IndexerFixture;
let ollama: FakeOllamaServer;
let test: ClientTestApp;
const clients: Client[] = [];

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
  await index.indexer.whenIdle();
  ollama = await FakeOllamaServer.start();
});
afterAll(async () => {
  await index?.close();
  await ollama?.close();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await test.close();
});

async function remember(text: string): Promise<{ id: string }> {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/v1/memories',
    headers: authorized,
    payload: { text },
  });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: string };
}

async function chat(message: string): Promise<ChatEvent[]> {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/v1/chat',
    headers: authorized,
    payload: { message },
  });
  expect(response.statusCode).toBe(200);
  return chatEvents(response.body);
}
const textOf = (events: ChatEvent[]) =>
  events.map((event) => (event.type === 'token' ? event.text : '')).join('');
const toolOf = (events: ChatEvent[]) => events.find((event) => event.type === 'tool');

const reminderNotes = () =>
  existsSync(join(test.vault, 'Reminders')) ? readdirSync(join(test.vault, 'Reminders')) : [];
const read = (path: string) => readFileSync(join(test.vault, path), 'utf8');

async function mcpCall(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${test.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
    }),
  );
  clients.push(client);
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('chat: "remind me about …" a remembered thing (rules, no LLM)', () => {
  beforeEach(async () => {
    test = await startClientTestApp(index);
  });

  it('links the reminder note to the memory it names, in the user’s words', async () => {
    const pizza = await remember('Great pizza at Mario’s on Main St');
    await remember('Need to watch Inception');
    const events = await chat('remind me about the pizza place on Friday at 6pm');
    const tool = toolOf(events);
    expect(tool).toMatchObject({ name: 'memory_to_reminder', result: { success: true } });
    const data = (tool as { result: { data: { reminder: { path: string; title: string } } } })
      .result.data;
    expect(data.reminder).toMatchObject({ title: 'The pizza place' });
    expect(data).toMatchObject({ memory: { id: pizza.id } });
    expect(textOf(events)).toContain(`It links the memory "Great pizza at Mario’s on Main St"`);
    const note = read(data.reminder.path);
    expect(note).toContain(`From a memory: [[Cairn/Memory#^${pizza.id}]]`);
    expect(note).toContain('> Great pizza at Mario’s on Main St');
    expect(note).toMatch(/due: ["']?2026-11-27T18:00/);
    // The memory's citation comes with the answer.
    const citations = events.find((event) => event.type === 'citations');
    expect(citations).toMatchObject({ citations: [{ path: 'Cairn/Memory.md' }] });
  });

  it('with nothing remembered about it, writes the plain reminder it always did', async () => {
    await remember('Need to watch Inception');
    const events = await chat('remind me about the dentist tomorrow at 9');
    expect(toolOf(events)).toMatchObject({ result: { success: true } });
    const data = (toolOf(events) as { result: { data: { reminder: { path: string } } } }).result
      .data;
    expect(data).not.toHaveProperty('memory');
    expect(read(data.reminder.path)).not.toContain('From a memory');
    expect(textOf(events)).not.toContain('It links the memory');
  });

  it('two memories equally close: a CONFLICT naming both, no reminder written', async () => {
    await remember('Pizza at Mario’s');
    await remember('Pizza at Luigi’s');
    const before = reminderNotes();
    const events = await chat('remind me about pizza on Friday at 6pm');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'CONFLICT' } });
    expect(JSON.stringify(events.at(-1))).toContain('Luigi');
    expect(reminderNotes()).toEqual(before);
  });
});

describe('chat: the model calls memory_to_reminder (fake Ollama tool calling)', () => {
  beforeEach(async () => {
    test = await startClientTestApp(index, {
      chat: { ollama: { baseUrl: ollama.url, model: 'llama3.2', route: true } },
    });
  });

  it('runs the model’s call through the gate and links the memory it named by id', async () => {
    const movie = await remember('Need to watch Inception');
    ollama.chatReply = {
      content: '',
      toolCalls: [
        {
          function: {
            name: 'memory_to_reminder',
            arguments: { memory: movie.id, due: '2026-11-28T20:00', title: 'Movie night' },
          },
        },
      ],
    };
    const events = await chat('put the Inception thing on Saturday evening at 8');
    expect(toolOf(events)).toMatchObject({ name: 'memory_to_reminder', result: { success: true } });
    // The router's request (not the category's) offered the model the tool.
    const routed = ollama.requests.find((request) =>
      JSON.stringify(request.body).includes('put the Inception thing'),
    );
    expect(JSON.stringify(routed?.body)).toContain('"name":"memory_to_reminder"');
    const data = (toolOf(events) as { result: { data: { reminder: { path: string } } } }).result
      .data;
    const note = read(data.reminder.path);
    expect(note).toContain('title: Movie night');
    expect(note).toContain(`[[Cairn/Memory#^${movie.id}]]`);
  });
});

describe('MCP memory_to_reminder (official SDK client)', () => {
  beforeEach(async () => {
    test = await startClientTestApp(index);
  });

  it('writes a linked reminder once, even when retried with the same idempotency_key', async () => {
    const pizza = await remember('Great pizza at Mario’s on Main St');
    const args = {
      memory: 'pizza at Mario’s',
      due: '2026-11-27T18:00',
      timezone: 'Europe/Berlin',
      idempotency_key: 'pizza-friday-1',
    };
    const first = await mcpCall('memory_to_reminder', args);
    expect(first.isError).toBeFalsy();
    const data = (
      first.structuredContent as { data: { reminder: { path: string; title: string } } }
    ).data;
    expect(data.reminder.title).toBe('Great pizza at Mario’s on Main St');
    expect(read(data.reminder.path)).toContain(`[[Cairn/Memory#^${pizza.id}]]`);
    const notes = reminderNotes();
    const again = await mcpCall('memory_to_reminder', args);
    expect(again.structuredContent).toMatchObject({
      data: { reminder: { path: data.reminder.path } },
    });
    expect(reminderNotes()).toEqual(notes);
  });

  it('an unknown memory is a NOT_FOUND naming `memory` (no plain reminder over MCP)', async () => {
    const before = reminderNotes();
    const result = await mcpCall('memory_to_reminder', {
      memory: 'the dentist',
      due: '2026-11-27T18:00',
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'NOT_FOUND', field: 'memory' },
    });
    expect(reminderNotes()).toEqual(before);
  });
});
