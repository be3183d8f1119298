import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ChatEvent } from '../../../shared/protocol/chat';
import type {
  ToolAsk,
  ToolListResponse,
  ToolRunsResponse,
  ToolServerList,
} from '../../../shared/protocol/tools';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { createToolServer } from '../../fakes/mcp-tool-server.mjs';
import type { RecordedCall } from '../../fakes/mcp-tool-server.mjs';
import { HashingEmbedder, startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { SAMPLE_VAULT, TEST_TOKEN, authorized, buildTestApp, tempDir } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import type { AppDeps } from '../../../companion/app';
import { chatEvents, openChat, tokenText } from '../chat/sse-client';

/*
 * docs/tools.md end to end: the companion over real HTTP, the chat routed by the fake Ollama's
 * tool calling, against a real MCP server written with the official SDK and started here (over
 * stdio as a child process, and over Streamable HTTP in this process). The companion connects
 * with the SDK's Client. Every path of the gate: allow, ask (allowed, for the conversation,
 * denied, expired), deny, offline mode, a server that dies mid-call, 10 MB, no answer at all.
 */

const SERVER_SCRIPT = fileURLToPath(new URL('../../fakes/mcp-tool-server.mjs', import.meta.url));

let index: IndexerFixture;
let ollama: FakeOllamaServer;
const embedder = new HashingEmbedder();
const opened: TestApp[] = [];
const scratch = tempDir('mcp-calls');

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT, embedder });
  await index.indexer.whenEmbedded();
  ollama = await FakeOllamaServer.start();
});

afterEach(async () => {
  ollama.chatReply = { content: 'Hello from the fake Ollama.' };
  for (const app of opened.splice(0)) await app.close();
});

afterAll(async () => {
  await ollama?.close();
  await index?.close();
  scratch.remove();
});

interface Served {
  test: TestApp;
  url: string;
}

let offline = false;

async function serve(
  tools: AppDeps['tools'] = {},
  options: { ollama?: boolean } = {},
): Promise<Served> {
  const test = await buildTestApp({
    deps: {
      search: { index: () => index.indexer.queries, embedder: () => embedder },
      chat:
        options.ollama === false
          ? {}
          : { ollama: { baseUrl: ollama.url, model: 'llama3.2', route: true } },
      tools: { offline: () => offline, timeoutMs: 3_000, ...tools },
    },
  });
  opened.push(test);
  const url = await test.app.listen({ port: 0, host: '127.0.0.1' });
  return { test, url };
}

async function api<T>(
  served: Served,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const response = await served.test.app.inject({
    method: method as 'GET',
    url: path,
    headers: authorized,
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  return { status: response.statusCode, json: (response.body === '' ? {} : response.json()) as T };
}

/** Adds the test server over stdio; its calls are appended to a file this test reads. */
async function addStdioServer(
  served: Served,
  extra: Record<string, unknown> = {},
): Promise<() => RecordedCall[]> {
  const callsFile = join(scratch.path, `calls-${Date.now()}-${Math.random()}.jsonl`);
  const added = await api(served, 'POST', '/api/v1/tools/servers', {
    name: 'dict',
    command: process.execPath,
    args: [SERVER_SCRIPT, '--stdio', callsFile],
    ...extra,
  });
  expect(added.status, JSON.stringify(added.json)).toBe(201);
  return () =>
    existsSync(callsFile)
      ? readFileSync(callsFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as RecordedCall)
      : [];
}

function modelCalls(name: string, args: Record<string, unknown>, content = ''): void {
  ollama.chatReply = { content, toolCalls: [{ function: { name, arguments: args } }] };
}

async function chat(served: Served, message: string, conversation?: string): Promise<ChatEvent[]> {
  const stream = await openChat(served.url, {
    message,
    ...(conversation === undefined ? {} : { conversation }),
  });
  expect(stream.response.status).toBe(200);
  return chatEvents(await stream.read());
}

/** Starts a chat and waits for its ask to be listed; answers what the stream said. */
async function chatWithAsk(
  served: Served,
  message: string,
  decide: (ask: ToolAsk) => Promise<void>,
  conversation?: string,
): Promise<{ events: ChatEvent[]; ask: ToolAsk }> {
  const stream = await openChat(served.url, {
    message,
    ...(conversation === undefined ? {} : { conversation }),
  });
  const reading = stream.read();
  let ask: ToolAsk | undefined;
  for (let attempt = 0; attempt < 200 && ask === undefined; attempt++) {
    const listed = await api<{ asks: ToolAsk[] }>(served, 'GET', '/api/v1/tools/asks');
    ask = listed.json.asks[0];
    if (ask === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (ask === undefined) throw new Error('no ask appeared');
  await decide(ask);
  return { events: chatEvents(await reading), ask };
}

const toolEvent = (events: ChatEvent[]) =>
  events.find((event): event is Extract<ChatEvent, { type: 'tool' }> => event.type === 'tool');

async function runs(served: Served) {
  return (await api<ToolRunsResponse>(served, 'GET', '/api/v1/tools/runs?limit=20')).json.runs;
}

describe('the tool registry', () => {
  it("lists the server's tools beside Cairn's own, asking by default, and offers them to the model", async () => {
    const served = await serve();
    await addStdioServer(served);
    const { json } = await api<ToolListResponse>(served, 'GET', '/api/v1/tools');
    const byName = new Map(json.tools.map((tool) => [tool.name, tool]));
    expect(byName.get('create_note')).toMatchObject({
      source: 'cairn',
      danger: 'medium',
      permission: 'allow',
      enabled: true,
      requires_network: false,
    });
    expect(byName.get('search')).toMatchObject({ source: 'cairn', danger: 'low' });
    expect(byName.get('dict__lookup')).toMatchObject({
      source: 'dict',
      danger: 'low',
      permission: 'ask',
      requires_network: false,
      always_asks: false,
    });
    expect(byName.get('dict__write_file')).toMatchObject({ danger: 'high', always_asks: false });
    await api(served, 'PATCH', '/api/v1/tools/dict__write_file', { permission: 'allow' });
    const after = await api<ToolListResponse>(served, 'GET', '/api/v1/tools');
    expect(after.json.tools.find((tool) => tool.name === 'dict__write_file')).toMatchObject({
      permission: 'allow',
      always_asks: true,
    });

    modelCalls('search', { query: 'visa' });
    await chat(served, 'find my visa notes');
    const routing = ollama.requests.filter((request) => request.path === '/api/chat').at(-1);
    const offered = (routing?.body as { tools: Array<{ function: { name: string } }> }).tools.map(
      (tool) => tool.function.name,
    );
    expect(offered).toContain('search');
    expect(offered).toContain('dict__lookup');
    // A tool whose schema does not compile is listed but never offered.
    expect(byName.has('dict__broken_schema')).toBe(true);
    expect(offered).not.toContain('dict__broken_schema');
  });

  it('refuses bad server configs with the field, and keeps none of them', async () => {
    const served = await serve();
    const missing = await api<{ error: { code: string; message: string; field: string } }>(
      served,
      'POST',
      '/api/v1/tools/servers',
      { name: 'ghost', command: 'cairn-no-such-command-7f3a' },
    );
    expect(missing.status).toBe(422);
    expect(missing.json.error).toMatchObject({ code: 'UNPROCESSABLE', field: 'command' });
    expect(missing.json.error.message).toContain('the command was not found');

    for (const url of ['ftp://example.org/mcp', 'file:///etc/passwd', 'not a url']) {
      const bad = await api<{ error: { code: string; field: string } }>(
        served,
        'POST',
        '/api/v1/tools/servers',
        { name: 'bad', url },
      );
      expect(bad.status, url).toBe(400);
      expect(bad.json.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'url' });
    }
    const both = await api<{ error: { field: string } }>(served, 'POST', '/api/v1/tools/servers', {
      name: 'both',
      command: 'node',
      url: 'http://127.0.0.1:1/mcp',
    });
    expect(both.status).toBe(400);
    const badName = await api(served, 'POST', '/api/v1/tools/servers', {
      name: 'has space',
      command: 'node',
    });
    expect(badName.status).toBe(400);
    const listed = await api<ToolServerList>(served, 'GET', '/api/v1/tools/servers');
    expect(listed.json.servers).toEqual([]);
    const patch = await api(served, 'PATCH', '/api/v1/tools/nope', { enabled: false });
    expect(patch.status).toBe(404);
    const empty = await api(served, 'PATCH', '/api/v1/tools/search', {});
    expect(empty.status).toBe(400);
  });

  it('needs the admin scope for the registry and write for answering asks', async () => {
    const served = await serve();
    const reader = await served.test.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: authorized,
      payload: { name: 'reader', scopes: ['read'] },
    });
    const token = (reader.json() as { token: string }).token;
    const headers = { authorization: `Bearer ${token}` };
    for (const [method, url] of [
      ['GET', '/api/v1/tools'],
      ['GET', '/api/v1/tools/servers'],
      ['GET', '/api/v1/tools/runs'],
    ] as const) {
      const response = await served.test.app.inject({ method, url, headers });
      expect(response.statusCode, url).toBe(403);
    }
    const asks = await served.test.app.inject({
      method: 'GET',
      url: '/api/v1/tools/asks',
      headers,
    });
    expect(asks.statusCode).toBe(200);
    const answer = await served.test.app.inject({
      method: 'POST',
      url: '/api/v1/tools/asks/ask-x',
      headers,
      payload: { decision: 'deny' },
    });
    expect(answer.statusCode).toBe(403);
  });
});

describe('the chat with an MCP server (stdio)', () => {
  it('allow: runs the tool, shows its answer and logs the run without content', async () => {
    const served = await serve();
    const calls = await addStdioServer(served);
    await api(served, 'PATCH', '/api/v1/tools/dict__lookup', { permission: 'allow' });
    modelCalls('dict__lookup', { word: 'cairn' });
    const events = await chat(served, 'what does cairn mean?');
    expect(toolEvent(events)).toMatchObject({
      name: 'dict__lookup',
      source: 'dict',
      args: { word: 'cairn' },
      result: { success: true },
    });
    expect(tokenText(events)).toContain('cairn: a word the test server knows.');
    expect(events.at(-1)?.type).toBe('done');
    expect(calls()).toEqual([{ name: 'lookup', args: { word: 'cairn' } }]);
    const [run] = await runs(served);
    expect(run).toMatchObject({
      tool: 'dict__lookup',
      source: 'dict',
      token: 'owner',
      client: 'chat',
      outcome: 'ok',
      reason: null,
    });
    expect(typeof run?.duration_ms).toBe('number');
    expect(JSON.stringify(run)).not.toContain('a word the test server knows');
  });

  it("a token limited to folders neither sees nor answers the owner's ask", async () => {
    const served = await serve();
    const calls = await addStdioServer(served);
    const made = await api<{ token: string }>(served, 'POST', '/api/v1/tokens', {
      name: 'travel',
      scopes: ['read', 'write'],
      paths: ['Travel/'],
    });
    const limited = { authorization: `Bearer ${made.json.token}` };
    modelCalls('dict__lookup', { word: 'tarn' }, 'I will look "tarn" up in your dictionary.');
    const { events } = await chatWithAsk(served, 'what is a tarn?', async (pending) => {
      const listed = await served.test.app.inject({
        method: 'GET',
        url: '/api/v1/tools/asks',
        headers: limited,
      });
      expect(listed.json()).toEqual({ asks: [] });
      const answered = await served.test.app.inject({
        method: 'POST',
        url: `/api/v1/tools/asks/${pending.id}`,
        headers: limited,
        payload: { decision: 'allow_once' },
      });
      expect(answered.statusCode).toBe(404);
      expect(calls()).toEqual([]);
      const owner = await api(served, 'POST', `/api/v1/tools/asks/${pending.id}`, {
        decision: 'allow_once',
      });
      expect(owner.status).toBe(200);
    });
    expect(toolEvent(events)?.result.success).toBe(true);
  });

  it('ask, allowed once: the chat waits, shows the exact call and why, then runs it', async () => {
    const served = await serve();
    const calls = await addStdioServer(served);
    modelCalls('dict__lookup', { word: 'tarn' }, 'I will look "tarn" up in your dictionary.');
    const { events, ask } = await chatWithAsk(served, 'what is a tarn?', async (pending) => {
      expect(calls()).toEqual([]);
      const answered = await api(served, 'POST', `/api/v1/tools/asks/${pending.id}`, {
        decision: 'allow_once',
      });
      expect(answered.status).toBe(200);
    });
    expect(ask).toMatchObject({
      tool: 'dict__lookup',
      source: 'dict',
      danger: 'low',
      args: { word: 'tarn' },
      reason: 'I will look "tarn" up in your dictionary.',
    });
    const order = events.map((event) => event.type);
    expect(order.indexOf('ask')).toBeLessThan(order.indexOf('tool'));
    expect(events.find((event) => event.type === 'ask')).toMatchObject({ ask: { id: ask.id } });
    expect(toolEvent(events)?.result.success).toBe(true);
    expect(calls()).toHaveLength(1);
    // Once: the next call asks again.
    const again = await chatWithAsk(served, 'what is a tarn?', async (pending) => {
      await api(served, 'POST', `/api/v1/tools/asks/${pending.id}`, { decision: 'allow_once' });
    });
    expect(toolEvent(again.events)?.result.success).toBe(true);
  });

  it('ask, allowed for this conversation: later turns of it do not ask', async () => {
    const served = await serve();
    const calls = await addStdioServer(served);
    modelCalls('dict__lookup', { word: 'scree' });
    const first = await chatWithAsk(served, 'what is scree?', async (pending) => {
      await api(served, 'POST', `/api/v1/tools/asks/${pending.id}`, {
        decision: 'allow_conversation',
      });
    });
    const done = first.events.at(-1);
    expect(done?.type).toBe('done');
    const conversation = done?.type === 'done' ? done.conversation : undefined;
    expect(conversation).toBeDefined();
    const second = await chat(served, 'and scree again?', conversation);
    expect(second.some((event) => event.type === 'ask')).toBe(false);
    expect(toolEvent(second)?.result.success).toBe(true);
    expect(calls()).toHaveLength(2);
  });

  it('ask, denied: nothing reaches the server and the chat says why', async () => {
    const served = await serve();
    const calls = await addStdioServer(served);
    modelCalls('dict__write_file', { name: 'x.txt', text: 'secret' }, 'Saving that for you.');
    const { events, ask } = await chatWithAsk(served, 'save x', async (pending) => {
      await api(served, 'POST', `/api/v1/tools/asks/${pending.id}`, { decision: 'deny' });
    });
    expect(ask.danger).toBe('high');
    expect(toolEvent(events)?.result).toMatchObject({
      success: false,
      error: { code: 'FORBIDDEN', reason: 'ask_denied' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { reason: 'ask_denied' } });
    expect(calls()).toEqual([]);
    const answeredTwice = await api(served, 'POST', `/api/v1/tools/asks/${ask.id}`, {
      decision: 'allow_once',
    });
    expect(answeredTwice.status).toBe(404);
    expect((await runs(served))[0]).toMatchObject({ outcome: 'refused', reason: 'ask_denied' });
  });

  it('ask, unanswered: expires and is refused', async () => {
    const served = await serve({ askTimeoutMs: 300 });
    const calls = await addStdioServer(served);
    modelCalls('dict__lookup', { word: 'fell' });
    const events = await chat(served, 'what is a fell?');
    expect(events.some((event) => event.type === 'ask')).toBe(true);
    expect(toolEvent(events)?.result).toMatchObject({ error: { reason: 'ask_expired' } });
    expect(calls()).toEqual([]);
  });

  it('deny: a denied server tool is not offered; a denied Cairn tool is refused by the rules too', async () => {
    const served = await serve();
    const calls = await addStdioServer(served);
    await api(served, 'PATCH', '/api/v1/tools/dict__lookup', { permission: 'deny' });
    modelCalls('dict__lookup', { word: 'ghyll' });
    const events = await chat(served, 'what is a ghyll?');
    expect(toolEvent(events)?.name).not.toBe('dict__lookup');
    expect(calls()).toEqual([]);

    const rulesOnly = await serve({}, { ollama: false });
    await api(rulesOnly, 'PATCH', '/api/v1/tools/create_note', { permission: 'deny' });
    const refused = await chat(rulesOnly, 'note: buy rope');
    expect(toolEvent(refused)).toMatchObject({
      name: 'create_note',
      source: 'cairn',
      result: { success: false, error: { code: 'FORBIDDEN', reason: 'permission_denied' } },
    });
    expect(toolEvent(refused)?.result).toMatchObject({
      error: {
        message:
          'create_note is not permitted (permission: deny); change that in the Cairn plugin’s settings under “Tools the chat may use”, or in the phone page’s tool list',
      },
    });
    await api(rulesOnly, 'PATCH', '/api/v1/tools/create_note', {
      permission: 'allow',
      enabled: false,
    });
    const disabled = await chat(rulesOnly, 'note: buy rope');
    expect(toolEvent(disabled)?.result).toMatchObject({ error: { reason: 'tool_disabled' } });
    // A Cairn tool set to ask asks, with no LLM at all.
    await api(rulesOnly, 'PATCH', '/api/v1/tools/create_note', {
      permission: 'ask',
      enabled: true,
    });
    const asked = await chatWithAsk(rulesOnly, 'note: buy rope', async (pending) => {
      expect(pending).toMatchObject({ tool: 'create_note', reason: 'You asked: “note: buy rope”' });
      await api(rulesOnly, 'POST', `/api/v1/tools/asks/${pending.id}`, { decision: 'allow_once' });
    });
    expect(toolEvent(asked.events)?.result.success).toBe(true);
  });

  it('offline mode refuses a networked server tool and runs the local ones', async () => {
    const served = await serve();
    const calls = await addStdioServer(served, { requires_network: true });
    await api(served, 'PATCH', '/api/v1/tools/dict__lookup', { permission: 'allow' });
    modelCalls('dict__lookup', { word: 'beck' });
    offline = true;
    try {
      const events = await chat(served, 'what is a beck?');
      expect(toolEvent(events)?.result).toMatchObject({
        success: false,
        error: { code: 'UNAVAILABLE', reason: 'offline_mode' },
      });
      expect(calls()).toEqual([]);
    } finally {
      offline = false;
    }
    const online = await chat(served, 'what is a beck?');
    expect(toolEvent(online)?.result.success).toBe(true);
  });

  it('a server that dies mid-call: the chat ends with a clear error, the server shows down, then comes back', async () => {
    const served = await serve();
    await addStdioServer(served);
    await api(served, 'PATCH', '/api/v1/tools/dict__crash', { permission: 'allow' });
    modelCalls('dict__crash', {});
    const events = await chat(served, 'crash it');
    expect(toolEvent(events)?.result).toMatchObject({
      success: false,
      error: { code: 'UNAVAILABLE', reason: 'server_down' },
    });
    expect(events.at(-1)?.type).toBe('error');
    const down = await api<ToolServerList>(served, 'GET', '/api/v1/tools/servers');
    expect(down.json.servers[0]).toMatchObject({ name: 'dict', state: 'down' });
    expect(down.json.servers[0]?.error).toMatch(/disconnected/);
    // The chat keeps working meanwhile, on Cairn's own tools.
    modelCalls('search', { query: 'visa' });
    const still = await chat(served, 'find visa');
    expect(toolEvent(still)?.result.success).toBe(true);
    // Retried (1 s after the first failure): up again with its tools.
    let state = 'down';
    for (let attempt = 0; attempt < 100 && state !== 'up'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const listed = await api<ToolServerList>(served, 'GET', '/api/v1/tools/servers');
      state = listed.json.servers[0]?.state ?? 'gone';
    }
    expect(state).toBe('up');
  });

  it('a tool answering 10 MB, or never: refused with a reason, the chat keeps working', async () => {
    const served = await serve({ timeoutMs: 20_000 });
    await addStdioServer(served);
    await api(served, 'PATCH', '/api/v1/tools/dict__huge', { permission: 'allow' });
    modelCalls('dict__huge', {});
    const huge = await chat(served, 'give me everything');
    expect(toolEvent(huge)?.result).toMatchObject({
      success: false,
      error: { code: 'UNAVAILABLE', reason: 'output_too_large' },
    });
    const impatient = await serve({ timeoutMs: 500 });
    await addStdioServer(impatient);
    await api(impatient, 'PATCH', '/api/v1/tools/dict__never', { permission: 'allow' });
    modelCalls('dict__never', {});
    const never = await chat(impatient, 'wait forever');
    expect(toolEvent(never)?.result).toMatchObject({ error: { reason: 'timeout' } });
    modelCalls('dict__lookup', { word: 'ok' });
    await api(served, 'PATCH', '/api/v1/tools/dict__lookup', { permission: 'allow' });
    const after = await chat(served, 'still there?');
    expect(toolEvent(after)?.result.success).toBe(true);
    expect((await runs(served)).map((run) => run.reason)).toContain('output_too_large');
    expect((await runs(impatient)).map((run) => run.reason)).toContain('timeout');
  });

  it('a tool whose schema does not compile is refused with invalid_arguments', async () => {
    const served = await serve();
    await addStdioServer(served);
    await api(served, 'PATCH', '/api/v1/tools/dict__broken_schema', { permission: 'allow' });
    // The model was not offered it; a model that calls it anyway falls back to the rules.
    modelCalls('dict__broken_schema', { x: 1 });
    const events = await chat(served, 'use the broken one');
    expect(toolEvent(events)?.name).not.toBe('dict__broken_schema');
    expect(tokenText(events)).toContain('unknown tool');
  });
});

describe('the chat with an MCP server over Streamable HTTP', () => {
  let http: HttpServer;
  const calls: RecordedCall[] = [];
  let mcpUrl = '';

  beforeAll(async () => {
    http = createServer((request, response) => {
      if (request.headers.authorization !== 'Bearer s3cret') {
        response.writeHead(401).end('no');
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const { server } = createToolServer({ calls, onCrash: () => new Promise(() => undefined) });
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        response.on('close', () => {
          void transport.close();
          void server.close();
        });
        const raw = Buffer.concat(chunks).toString('utf8');
        void server
          .connect(transport)
          .then(() =>
            transport.handleRequest(request, response, raw === '' ? undefined : JSON.parse(raw)),
          );
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    mcpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it('connects with headers, never shows their values, and runs an allowed tool', async () => {
    const served = await serve();
    const refused = await api<{ error: { message: string } }>(
      served,
      'POST',
      '/api/v1/tools/servers',
      { name: 'remote', url: mcpUrl },
    );
    expect(refused.status).toBe(422);
    const added = await api<Record<string, unknown>>(served, 'POST', '/api/v1/tools/servers', {
      name: 'remote',
      url: mcpUrl,
      headers: { Authorization: 'Bearer s3cret' },
    });
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({
      name: 'remote',
      state: 'up',
      header_names: ['Authorization'],
      requires_network: false,
    });
    const listed = await api<ToolServerList>(served, 'GET', '/api/v1/tools/servers');
    expect(JSON.stringify(listed.json)).not.toContain('s3cret');
    await api(served, 'PATCH', '/api/v1/tools/remote__lookup', { permission: 'allow' });
    modelCalls('remote__lookup', { word: 'howe' });
    const events = await chat(served, 'what is a howe?');
    expect(toolEvent(events)).toMatchObject({ source: 'remote', result: { success: true } });
    expect(calls.at(-1)).toEqual({ name: 'lookup', args: { word: 'howe' } });
    // Arguments that break the server's schema never reach it.
    modelCalls('remote__lookup', { word: '' });
    const bad = await chat(served, 'look up nothing');
    expect(toolEvent(bad)?.result).toMatchObject({ error: { reason: 'invalid_arguments' } });
    expect(calls.at(-1)).toEqual({ name: 'lookup', args: { word: 'howe' } });
    const removed = await api(served, 'DELETE', '/api/v1/tools/servers?name=remote');
    expect(removed.status).toBe(204);
    const gone = await api<ToolListResponse>(served, 'GET', '/api/v1/tools');
    expect(gone.json.tools.some((tool) => tool.source === 'remote')).toBe(false);
  });
});

void TEST_TOKEN;
