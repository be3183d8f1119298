import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fetchOllamaHttp,
  transportOllamaHttp,
  type FetchLike,
} from '../../../plugin/chat/ollama-transports';
import { OllamaTimeoutError, readAll } from '../../../shared/chat/ollama-http';
import { OllamaPhraser } from '../../../shared/chat/ollama-phraser';
import { OllamaRouter } from '../../../shared/chat/ollama-router';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { NodeHttpTransport } from '../../helpers/node-http-transport';

const context = { now: Date.parse('2026-11-22T10:30:00+01:00'), zone: 'Europe/Berlin' };
const passages = [
  {
    type: 'note' as const,
    path: 'Visa.md',
    title: 'Visa',
    lines: [1, 1] as [number, number],
    excerpt: 'The fee is $50.',
    score: 1,
  },
];

async function drain(stream: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of stream) pieces.push(piece);
  return pieces;
}

describe('transportOllamaHttp (requestUrl: no streaming)', () => {
  let ollama: FakeOllamaServer;
  beforeEach(async () => {
    ollama = await FakeOllamaServer.start();
  });
  afterEach(async () => {
    await ollama.close();
  });

  it('routes with tool calling and phrases in one piece over a real local server', async () => {
    const http = transportOllamaHttp(new NodeHttpTransport());
    ollama.chatReply = {
      content: 'The fee is $50 [1].',
      toolCalls: [{ function: { name: 'answer', arguments: { question: 'visa fee' } } }],
    };
    const router = new OllamaRouter({ http, baseUrl: ollama.url, model: 'llama3.2' });
    expect(await router.route('how much is the visa', context)).toMatchObject({
      via: 'llm',
      call: { name: 'answer', args: { question: 'visa fee' } },
    });
    const phraser = new OllamaPhraser({ http, baseUrl: ollama.url, model: 'llama3.2' });
    const pieces = await drain(phraser.phrase({ question: 'visa fee', passages }));
    expect(pieces.join('')).toBe('The fee is $50 [1].');
  });

  it('rejects with OllamaTimeoutError when the transport does not answer in time', async () => {
    const http = transportOllamaHttp({ request: () => new Promise(() => {}) });
    await expect(http.post({ url: 'http://x', body: '{}', timeoutMs: 30 })).rejects.toBeInstanceOf(
      OllamaTimeoutError,
    );
  });
});

/** A fetch whose body is the given byte chunks, delivered one by one. */
function streamingFetch(chunks: Uint8Array[], status = 200): FetchLike {
  return async (_url, init) => {
    let index = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (init.signal.aborted) return controller.error(new Error('aborted'));
        const chunk = chunks[index++];
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
    });
    return { status, body, text: async () => '' };
  };
}

describe('fetchOllamaHttp (streaming)', () => {
  it('streams NDJSON split anywhere, UTF-8 split inside a character included', async () => {
    const ndjson =
      '{"message":{"content":"Gebühr "}}\n{"message":{"content":"50 € [1]"}}\n{"done":true}\n';
    const bytes = new TextEncoder().encode(ndjson);
    // Cut every 7 bytes: lines, JSON and the two-byte "ü" and three-byte "€" all get split.
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) =>
      bytes.slice(i * 7, i * 7 + 7),
    );
    const http = fetchOllamaHttp(streamingFetch(chunks));
    const phraser = new OllamaPhraser({ http, baseUrl: 'http://127.0.0.1:11434', model: 'm' });
    expect(await drain(phraser.phrase({ question: 'q', passages }))).toEqual([
      'Gebühr ',
      '50 € [1]',
    ]);
  });

  it('passes the status and body of an error through', async () => {
    const body = new TextEncoder().encode('{"error":"model \\"m\\" not found"}');
    const http = fetchOllamaHttp(streamingFetch([body], 404));
    const response = await http.post({ url: 'http://x', body: '{}', timeoutMs: 1_000 });
    expect(response.status).toBe(404);
    expect(await readAll(response.body)).toBe('{"error":"model \\"m\\" not found"}');
  });

  it('times out a request that never answers, and a stream that stalls', async () => {
    const never: FetchLike = (_url, init) =>
      new Promise((_, reject) =>
        init.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    await expect(
      fetchOllamaHttp(never).post({ url: 'http://x', body: '{}', timeoutMs: 30 }),
    ).rejects.toBeInstanceOf(OllamaTimeoutError);

    const stalls: FetchLike = async (_url, init) => ({
      status: 200,
      text: async () => '',
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"message":{"content":"Hi"}}\n'));
          init.signal.addEventListener('abort', () => controller.error(new Error('aborted')));
        },
      }),
    });
    const response = await fetchOllamaHttp(stalls).post({
      url: 'http://x',
      body: '{}',
      timeoutMs: 50,
    });
    await expect(readAll(response.body)).rejects.toBeInstanceOf(OllamaTimeoutError);
  });

  it('sends nothing live for a turn stopped before the request', async () => {
    let sentAborted: boolean | undefined;
    const records: FetchLike = (_url, init) => {
      sentAborted = init.signal.aborted;
      return Promise.reject(new Error('aborted'));
    };
    const controller = new AbortController();
    controller.abort();
    await expect(
      fetchOllamaHttp(records).post({
        url: 'http://x',
        body: '{}',
        timeoutMs: 1_000,
        signal: controller.signal,
      }),
    ).rejects.toThrow('aborted');
    expect(sentAborted).toBe(true);
  });

  it('stops when the caller aborts', async () => {
    const never: FetchLike = (_url, init) =>
      new Promise((_, reject) =>
        init.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    const controller = new AbortController();
    const pending = fetchOllamaHttp(never).post({
      url: 'http://x',
      body: '{}',
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toThrow('aborted');
  });
});
