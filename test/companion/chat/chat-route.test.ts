import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import type { OllamaHttp, OllamaHttpRequest } from '../../../shared/chat/ollama-http';
import { ChatEvent } from '../../../shared/protocol/chat';
import { fetchOllamaHttp } from '../../../companion/chat/fetch-ollama-http';
import type { ChatAppOptions } from '../../../companion/chat/register-chat';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { HashingEmbedder, startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { SAMPLE_VAULT, authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { chatEvents, openChat, parseSse, tokenText } from './sse-client';

/*
 * POST /api/v1/chat over real HTTP (127.0.0.1:0, read with fetch) on the real indexer and SQLite
 * index of a copy of the sample vault; Ollama is the fake server. Validation errors use inject.
 */

let index: IndexerFixture;
let ollama: FakeOllamaServer;
const embedder = new HashingEmbedder();
const opened: TestApp[] = [];

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT, embedder });
  await index.indexer.whenEmbedded();
  ollama = await FakeOllamaServer.start();
});

afterEach(async () => {
  ollama.clearFailures();
  ollama.chatReply = { content: 'Hello from the fake Ollama.' };
  for (const app of opened.splice(0)) {
    // Cleanup, not a check of shutdown (the tests that check close() call it themselves): a
    // socket the test's fetch opened and never sent a request on holds close() until Node's
    // headersTimeout drops it (60 s, checked every 30 s), so the sockets go with the app.
    const closing = app.close();
    app.app.server.closeAllConnections();
    await closing;
  }
});

afterAll(async () => {
  await ollama?.close();
  await index?.close();
});

interface Served {
  test: TestApp;
  url: string;
  logs: () => Array<{ level: number; msg?: string }>;
}

async function serve(chat: ChatAppOptions = {}, withIndex = true, keep = false): Promise<Served> {
  const lines: string[] = [];
  const logTo = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const test = await buildTestApp({
    logTo,
    deps: {
      ...(withIndex
        ? { search: { index: () => index.indexer.queries, embedder: () => embedder } }
        : {}),
      chat,
    },
  });
  if (!keep) opened.push(test);
  const url = await test.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    test,
    url,
    logs: () => lines.map((line) => JSON.parse(line) as { level: number; msg?: string }),
  };
}

const withOllama = (route = true): ChatAppOptions => ({
  ollama: { baseUrl: ollama.url, model: 'llama3.2', route },
});
/** The model's tool call for "answer", as the fake's reply carries it (routing, then phrasing). */
const answerCall = (question: string) => [
  { function: { name: 'answer', arguments: { question } } },
];

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 10) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('POST /api/v1/chat streaming', () => {
  // One app for the turns that need no special configuration (building one costs ~0.2 s).
  let plain: Served;
  beforeAll(async () => {
    plain = await serve({}, true, true);
  });
  afterAll(async () => {
    await plain?.test.close();
  });

  it('answers a question with quotes, a tool event, citations and done, as text/event-stream', async () => {
    const { url } = plain;
    const chat = await openChat(
      url,
      { message: 'How much is the visa fee?' },
      {
        headers: { origin: 'app://obsidian.md' },
      },
    );
    expect(chat.response.status).toBe(200);
    expect(chat.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(chat.response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(chat.response.headers.get('access-control-allow-origin')).toBe('app://obsidian.md');
    expect(chat.response.headers.get('x-content-type-options')).toBe('nosniff');

    const events = chatEvents(await chat.read());
    expect(events.every((event) => Value.Check(ChatEvent, event))).toBe(true);
    expect(events.map((event) => event.type)).toEqual(['token', 'tool', 'citations', 'done']);
    expect(tokenText(events)).toMatch(/fee is €90.*\[1\]/);
    const tool = events[1];
    expect(tool).toMatchObject({ type: 'tool', name: 'answer', result: { success: true } });
    const citations = events[2];
    if (citations?.type !== 'citations') throw new Error('no citations event');
    expect(citations.citations[0]).toMatchObject({
      type: 'note',
      path: 'Travel/Visa rules.md',
      id: '0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10',
      heading: 'Key points',
    });
  });

  it('sends no CORS header to an origin that is not Obsidian', async () => {
    const { url } = plain;
    const chat = await openChat(
      url,
      { message: 'hello' },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(chat.response.headers.get('access-control-allow-origin')).toBeNull();
    await chat.read();
  });

  it('runs a search and cites every result', async () => {
    const { url } = plain;
    const events = chatEvents(
      await (await openChat(url, { message: 'find notes about passport' })).read(),
    );
    const tool = events.find((event) => event.type === 'tool');
    expect(tool).toMatchObject({ name: 'search', args: { query: 'passport' } });
    const citations = events.find((event) => event.type === 'citations');
    if (citations?.type !== 'citations') throw new Error('no citations event');
    expect(citations.citations.map((c) => c.path)).toContain('Travel/Visa rules.md');
    expect(events.at(-1)?.type).toBe('done');
  });

  it('answers small talk without a tool or a search', async () => {
    const { url } = plain;
    const events = chatEvents(await (await openChat(url, { message: 'hello' })).read());
    expect(events.map((event) => event.type)).toEqual(['token', 'done']);
    expect(tokenText(events).length).toBeGreaterThan(0);
  });

  it('says nothing was found instead of quoting a bad match', async () => {
    const { url } = plain;
    const events = chatEvents(
      await (
        await openChat(url, { message: 'What is the boiling point of mercury in kelvin?' })
      ).read(),
    );
    expect(events.some((event) => event.type === 'citations')).toBe(false);
    expect(events.at(-1)?.type).toBe('done');
  });

  it('sends heartbeat comment lines while a turn is quiet', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 300 });
    const { url } = await serve({ ...withOllama(false), heartbeatMs: 40 });
    const text = await (await openChat(url, { message: 'How much is the visa fee?' })).read();
    const frames = parseSse(text);
    expect(frames.some((frame) => frame.comments.includes('keep-alive'))).toBe(true);
    expect(chatEvents(text).at(-1)?.type).toBe('done');
  });
});

describe('Ollama phrasing', () => {
  it('streams the model’s phrasing with its markers checked, citing the passages', async () => {
    ollama.chatReply = {
      content: 'The standard visa fee is €90 [1].',
      toolCalls: answerCall('How much is the visa fee?'),
    };
    const { url } = await serve(withOllama());
    const events = chatEvents(
      await (await openChat(url, { message: 'How much is the visa fee?' })).read(),
    );
    expect(tokenText(events)).toBe('The standard visa fee is €90 [1].');
    expect(events.find((event) => event.type === 'citations')).toBeDefined();
    expect(events.at(-1)?.type).toBe('done');
    const sent = ollama.requests.at(-1);
    expect(sent?.path).toBe('/api/chat');
    expect(JSON.stringify(sent?.body)).toContain('Visa');
  });

  it('lets the model pick the tool, its arguments checked', async () => {
    ollama.chatReply = {
      content: '',
      toolCalls: [{ function: { name: 'search', arguments: { query: 'passport' } } }],
    };
    const { url } = await serve(withOllama());
    const events = chatEvents(
      await (await openChat(url, { message: 'anything on passports?' })).read(),
    );
    expect(events.find((event) => event.type === 'tool')).toMatchObject({
      name: 'search',
      args: { query: 'passport' },
    });
    const routed = ollama.requests.find((r) => JSON.stringify(r.body).includes('"tools"'));
    expect(routed?.path).toBe('/api/chat');
  });

  it('routes by the rules with a visible note when the model picks no tool', async () => {
    ollama.chatReply = { content: 'I think you should search.' };
    const { url } = await serve(withOllama());
    const events = chatEvents(
      await (await openChat(url, { message: 'find notes about passport' })).read(),
    );
    expect(tokenText(events)).toMatch(/^_\(the model chose no tool; used the built-in rules\.\)_/);
    expect(events.find((event) => event.type === 'tool')).toMatchObject({ name: 'search' });
  });

  it('falls back to the quotes with a visible note when the model sends malformed lines', async () => {
    ollama.failWith('/api/chat', { kind: 'malformed-json' });
    const { url } = await serve(withOllama());
    const events = chatEvents(
      await (await openChat(url, { message: 'How much is the visa fee?' })).read(),
    );
    const text = tokenText(events);
    expect(text).toMatch(
      /The model could not phrase an answer: Ollama sent a line that is not JSON/,
    );
    expect(text).toMatch(/fee is €90/);
    expect(events.at(-1)?.type).toBe('done');
  });

  it('falls back to the quotes with a visible note when Ollama is down', async () => {
    const down = await FakeOllamaServer.start();
    const downUrl = down.url;
    await down.close();
    const { url } = await serve({ ollama: { baseUrl: downUrl, model: 'llama3.2' } });
    const events = chatEvents(
      await (await openChat(url, { message: 'How much is the visa fee?' })).read(),
    );
    const text = tokenText(events);
    expect(text).toMatch(/The model could not phrase an answer: fetch failed/);
    expect(text).toMatch(/fee is €90/);
    expect(events.at(-1)?.type).toBe('done');
  });
});

describe('stream lifetime', () => {
  /** Fetch-backed OllamaHttp that remembers the signals the engine handed it. */
  function recordingHttp(): { http: OllamaHttp; requests: OllamaHttpRequest[] } {
    const requests: OllamaHttpRequest[] = [];
    const inner = fetchOllamaHttp();
    return {
      requests,
      http: {
        post: (request) => {
          requests.push(request);
          return inner.post(request);
        },
      },
    };
  }

  it('aborts the turn when the client disconnects, without an error log', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 10_000 });
    const recording = recordingHttp();
    const served = await serve({
      ...withOllama(false),
      ollamaHttp: recording.http,
      maxStreamsPerClient: 1,
    });
    const client = new AbortController();
    const chat = await openChat(
      served.url,
      { message: 'How much is the visa fee?' },
      { signal: client.signal },
    );
    expect(chat.response.status).toBe(200);
    await until(() => recording.requests.length === 1, 'the phrasing request');
    client.abort();
    await until(() => recording.requests[0]?.signal?.aborted === true, 'the engine to be aborted');
    await until(
      () => served.logs().some((line) => line.msg === 'chat client disconnected; turn aborted'),
      'the disconnect log',
    );
    // The stream slot is free again: the one-stream limit lets the next turn in.
    const next = await openChat(served.url, { message: 'hello' });
    expect(next.response.status).toBe(200);
    await next.read();
    expect(served.logs().filter((line) => line.level >= 50)).toEqual([]);
  });

  it('ends an open stream with an error event on shutdown, and close does not wait for it', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 10_000 });
    const served = await serve(withOllama(false));
    const chat = await openChat(served.url, { message: 'How much is the visa fee?' });
    await until(() => ollama.requests.some((r) => r.path === '/api/chat'), 'the phrasing request');
    const started = Date.now();
    await served.test.app.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    const events = chatEvents(await chat.read());
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE' } });
  });

  it('refuses a second concurrent stream from one client with 429 before streaming', async () => {
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 10_000 });
    const served = await serve({ ...withOllama(false), maxStreamsPerClient: 1 });
    const client = new AbortController();
    const first = await openChat(
      served.url,
      { message: 'How much is the visa fee?' },
      { signal: client.signal },
    );
    expect(first.response.status).toBe(200);
    const second = await openChat(served.url, { message: 'hello' });
    expect(second.response.status).toBe(429);
    expect(second.response.headers.get('content-type')).toMatch(/application\/json/);
    expect(JSON.parse(await second.read())).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    client.abort();
  });
});

describe('POST /api/v1/chat refusals before the stream', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildTestApp({
      deps: {
        search: { index: () => index.indexer.queries },
        rateLimits: { chat: { perToken: 1000, perAddress: 1000 } },
      },
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (payload: unknown, headers: Record<string, string> = authorized) =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/chat',
      headers,
      payload: payload as Record<string, unknown>,
    });

  it.each([
    ['no message', {}, 'message'],
    ['an empty message', { message: '' }, 'message'],
    ['a blank message', { message: '   \n\t' }, 'message'],
    ['a message over 8000 characters', { message: 'x'.repeat(8001) }, 'message'],
    ['an object as message', { message: { text: 'hi' } }, 'message'],
    ['a control character', { message: 'hi\u0007there' }, 'message'],
    ['an empty conversation', { message: 'hi', conversation: '' }, 'conversation'],
    ['an unknown property', { message: 'hi', summarize: true }, 'summarize'],
  ])('answers 400 naming the field for %s', async (_label, payload, field) => {
    const response = await post(payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  it('answers 413 for a body over 1 MiB, before streaming', async () => {
    const response = await post({ message: 'x'.repeat(1024 * 1024 + 10) });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 400 for malformed JSON', async () => {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/chat',
      headers: { ...authorized, 'content-type': 'application/json' },
      payload: '{"message": "hi"',
    });
    expect(response.statusCode).toBe(400);
  });

  it('requires the token', async () => {
    const response = await post({ message: 'hello' }, {});
    expect(response.statusCode).toBe(401);
  });

  it('limits turns per client with 429 once the window is used up', async () => {
    const limited = await buildTestApp({
      deps: {
        search: { index: () => index.indexer.queries },
        rateLimits: { chat: { perToken: 2, perAddress: 2 } },
      },
    });
    try {
      const send = () =>
        limited.app.inject({
          method: 'POST',
          url: '/api/v1/chat',
          headers: authorized,
          payload: { message: 'hello' },
        });
      expect((await send()).statusCode).toBe(200);
      expect((await send()).statusCode).toBe(200);
      const third = await send();
      expect(third.statusCode).toBe(429);
      expect(third.json().error.code).toBe('RATE_LIMITED');
      expect(third.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });

  it('answers 503 before streaming when there is no index', async () => {
    const noIndex = await buildTestApp();
    try {
      const response = await noIndex.app.inject({
        method: 'POST',
        url: '/api/v1/chat',
        headers: authorized,
        payload: { message: 'hello' },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe('UNAVAILABLE');
    } finally {
      await noIndex.close();
    }
  });

  it('streams a whole turn through inject too (small talk)', async () => {
    const response = await post({ message: 'hello' });
    expect(response.statusCode).toBe(200);
    expect(chatEvents(response.body).map((event) => event.type)).toEqual(['token', 'done']);
  });
});
