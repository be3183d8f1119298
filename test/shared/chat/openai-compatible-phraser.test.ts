import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { fetchOllamaHttp } from '../../../shared/chat/fetch-ollama-http';
import { PHRASING_SYSTEM_PROMPT } from '../../../shared/chat/ollama-phraser';
import { OpenAiCompatiblePhraser } from '../../../shared/chat/openai-compatible-phraser';
import type { Citation } from '../../../shared/protocol/citation';
import { FakeOpenAiCompatibleServer } from '../../fakes/openai-compatible-server';

const http = fetchOllamaHttp(fetch as never, {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
});

const passage: Citation = {
  type: 'note',
  path: 'Travel/Visa.md',
  title: 'Visa',
  excerpt: 'The visa fee is 80 euros.',
  score: 0.9,
  heading: 'Fees',
  lines: [3, 3],
};

let server: FakeOpenAiCompatibleServer;

beforeAll(async () => {
  server = await FakeOpenAiCompatibleServer.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => {
  server.requests.length = 0;
  server.apiKey = null;
  server.holdAfterFirstChunk = false;
});

async function collect(phraser: OpenAiCompatiblePhraser): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of phraser.phrase({
    question: 'What is the visa fee?',
    passages: [passage],
  }))
    pieces.push(piece);
  return pieces;
}

describe('the fake OpenAI-compatible server', () => {
  it('speaks the wire format the official OpenAI SDK reads, streamed and whole', async () => {
    const client = new OpenAI({ baseURL: server.url, apiKey: 'unused' });
    const stream = await client.chat.completions.create({
      model: 'qwen2.5-7b-instruct',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('The visa fee is 80 euros [1].');
    const whole = await client.chat.completions.create({
      model: 'qwen2.5-7b-instruct',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(whole.choices[0]?.message.content).toBe('The visa fee is 80 euros [1].');
    expect((await client.models.list()).data.map((model) => model.id)).toEqual([
      'qwen2.5-7b-instruct',
    ]);
  });
});

describe('OpenAiCompatiblePhraser', () => {
  it('streams the answer piece by piece from /chat/completions, with the numbered passages', async () => {
    const phraser = new OpenAiCompatiblePhraser({
      http,
      baseUrl: `${server.url}/`,
      model: 'qwen2.5-7b-instruct',
    });
    server.holdAfterFirstChunk = true;
    const pieces = phraser.phrase({ question: 'What is the visa fee?', passages: [passage] });
    // The first words arrive while the server still holds the rest of the answer.
    const first = await pieces.next();
    expect(first.value).toBe('The visa fee ');
    server.release();
    const rest: string[] = [];
    for await (const piece of pieces) rest.push(piece);
    expect(rest).toEqual(['is 80 euros ', '[1].']);

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.authorization).toBeUndefined();
    const body = request?.body as {
      stream: boolean;
      messages: { role: string; content: string }[];
    };
    expect(body.stream).toBe(true);
    expect(body.messages[0]).toEqual({ role: 'system', content: PHRASING_SYSTEM_PROMPT });
    expect(body.messages[1]?.content).toContain(
      '[1] Visa (Travel/Visa.md > Fees)\nThe visa fee is 80 euros.',
    );
  });

  it('sends the key as a bearer token, and reports the server’s own error', async () => {
    server.apiKey = 'sk-local-123';
    const withKey = new OpenAiCompatiblePhraser({
      http,
      baseUrl: server.url,
      model: 'qwen2.5-7b-instruct',
      apiKey: 'sk-local-123',
    });
    expect((await collect(withKey)).join('')).toBe('The visa fee is 80 euros [1].');
    expect(server.requests[0]?.authorization).toBe('Bearer sk-local-123');

    const withoutKey = new OpenAiCompatiblePhraser({
      http,
      baseUrl: server.url,
      model: 'qwen2.5-7b-instruct',
    });
    await expect(collect(withoutKey)).rejects.toThrow(
      'The model server answered 401: Incorrect API key provided.',
    );
    server.apiKey = null;
    const unknown = new OpenAiCompatiblePhraser({ http, baseUrl: server.url, model: 'gpt-9' });
    await expect(collect(unknown)).rejects.toThrow(
      'The model server answered 404: The model `gpt-9` does not exist.',
    );
  });

  it('stops when the caller aborts, mid-answer', async () => {
    const phraser = new OpenAiCompatiblePhraser({
      http,
      baseUrl: server.url,
      model: 'qwen2.5-7b-instruct',
    });
    server.holdAfterFirstChunk = true;
    const controller = new AbortController();
    const pieces = phraser.phrase({
      question: 'What is the visa fee?',
      passages: [passage],
      signal: controller.signal,
    });
    expect((await pieces.next()).value).toBe('The visa fee ');
    controller.abort();
    await expect(pieces.next()).rejects.toThrow();
    server.release();
  });
});
