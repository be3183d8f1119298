import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { SAMPLE_VAULT, TEST_TOKEN } from '../helpers/app';
import { HashingEmbedder, startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { startClientTestApp } from './helpers';
import type { ClientTestApp } from './helpers';

/*
 * POST /v1/chat/completions and the /v1 routes beside it, called by the official `openai`
 * package over a real socket; Ollama (phrasing, vision) is the fake Ollama server.
 */

let index: IndexerFixture;
let ollama: FakeOllamaServer;
let test: ClientTestApp | undefined;

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
  await index.indexer.whenIdle();
  ollama = await FakeOllamaServer.start({ models: ['llama3.2', 'llava'] });
});
afterAll(async () => {
  await index?.close();
  await ollama?.close();
});
beforeEach(() => {
  ollama.requests.length = 0;
});
afterEach(async () => {
  await test?.close();
  test = undefined;
});

function openai(app: ClientTestApp, token = TEST_TOKEN): OpenAI {
  return new OpenAI({ baseURL: `${app.url}/v1`, apiKey: token, maxRetries: 0 });
}

async function audit(app: ClientTestApp): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${app.url}/api/v1/audit`, {
    headers: { Authorization: `Bearer ${TEST_TOKEN}` },
  });
  return ((await response.json()) as { entries: Array<Record<string, unknown>> }).entries;
}

type WithCairn = { cairn?: { citations: Array<{ path: string; lines?: number[] }> } };

describe('/v1/chat/completions, extractive', () => {
  beforeEach(async () => {
    test = await startClientTestApp(index);
  });

  it('answers a vault question with numbered sources and cairn.citations', async () => {
    const completion = await openai(test!).chat.completions.create({
      model: 'cairn',
      messages: [{ role: 'user', content: 'How much is the visa fee?' }],
    });
    const message = completion.choices[0]!.message;
    expect(completion.object).toBe('chat.completion');
    expect(message.content).toContain('€90');
    expect(message.content).toMatch(
      /\n\nSources:\n\[1\]: Travel\/Visa rules\.md#Key points, (?:lines \d+–\d+|line \d+)/,
    );
    const citations = (message as unknown as WithCairn).cairn!.citations;
    expect(citations[0]!.path).toBe('Travel/Visa rules.md');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('streams chat.completion.chunk events ending with the citations and [DONE]', async () => {
    const stream = await openai(test!).chat.completions.create({
      model: 'cairn',
      stream: true,
      messages: [{ role: 'user', content: 'How much is the visa fee?' }],
    });
    let content = '';
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      content += chunk.choices[0]?.delta.content ?? '';
    }
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(content).toContain('€90');
    expect(content).toContain('[1]: Travel/Visa rules.md#Key points');
    const last = chunks.at(-1)!;
    expect(last.choices[0]!.finish_reason).toBe('stop');
    expect((last as unknown as WithCairn).cairn!.citations[0]!.path).toBe('Travel/Visa rules.md');
  });

  it('runs an instruction as a tool with a write token, and audits it as openai', async () => {
    const writer = test!.token('assistant', ['read', 'write']);
    const completion = await openai(test!, writer).chat.completions.create({
      model: 'cairn',
      messages: [{ role: 'user', content: 'remind me tomorrow at 9 to call the bank' }],
    });
    expect(completion.choices[0]!.message.content).toMatch(/call the bank/i);
    const [entry] = await audit(test!);
    expect(entry).toMatchObject({
      action: 'create_reminder',
      client: 'openai',
      token: 'assistant',
      outcome: 'ok',
    });
    expect(existsSync(join(test!.vault, entry!.path as string))).toBe(true);
  });

  it('says which scope is missing instead of writing with a read-only token', async () => {
    const reader = test!.token('reader', ['read']);
    const before = readdirSync(join(test!.vault, 'Cairn/Reminders'));
    const completion = await openai(test!, reader).chat.completions.create({
      model: 'cairn',
      messages: [{ role: 'user', content: 'remind me tomorrow at 9 to call the bank' }],
    });
    expect(completion.choices[0]!.message.content).toContain('needs the write scope');
    expect(readdirSync(join(test!.vault, 'Cairn/Reminders'))).toEqual(before);
    const [entry] = await audit(test!);
    expect(entry).toMatchObject({
      action: 'create_reminder',
      client: 'openai',
      outcome: 'refused',
    });
  });

  it('refuses a 10 MB message with an OpenAI error object (413), writing nothing', async () => {
    const error = await openai(test!)
      .chat.completions.create({
        model: 'cairn',
        messages: [{ role: 'user', content: `note: ${'x'.repeat(10 * 1024 * 1024)}` }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(413);
    expect(apiError.code).toBe('payload_too_large');
    expect(apiError.param).toBe('messages[0].content');
    expect(apiError.type).toBe('invalid_request_error');
  });

  it('answers an image without a vision model with a 422 naming the part', async () => {
    const error = await openai(test!)
      .chat.completions.create({
        model: 'cairn',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
      })
      .catch((caught: unknown) => caught);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(422);
    expect(apiError.message).toMatch(/CAIRN_OLLAMA_VISION_MODEL/);
    expect(apiError.param).toBe('messages[0].content[1]');
  });

  it('refuses an unknown model and a wrong token in OpenAI format', async () => {
    const unknown = (await openai(test!)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(unknown.status).toBe(404);
    expect(unknown.param).toBe('model');
    const wrong = await openai(test!, 'wrong-token-000000000000000000000000')
      .chat.completions.create({ model: 'cairn', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((wrong as InstanceType<typeof OpenAI.APIError>).type).toBe('authentication_error');
  });
});

describe('/v1/chat/completions routing', () => {
  beforeEach(async () => {
    // No index: anything that reaches retrieval answers 503, so a 200 proves it did not.
    test = await startClientTestApp(index, { search: { index: () => undefined } });
  });

  it('answers small talk and questions about the conversation without retrieval', async () => {
    const client = openai(test!);
    const hello = await client.chat.completions.create({
      model: 'cairn',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(hello.choices[0]!.message.content).not.toBe('');
    const recap = await client.chat.completions.create({
      model: 'cairn',
      messages: [
        { role: 'user', content: 'How much is the visa fee?' },
        { role: 'assistant', content: 'It is €90.' },
        { role: 'user', content: 'What did I just ask?' },
      ],
    });
    expect(recap.choices[0]!.message.content).toContain('1. How much is the visa fee?');
    const vault = (await client.chat.completions
      .create({
        model: 'cairn',
        messages: [{ role: 'user', content: 'How much is the visa fee?' }],
      })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(vault.status).toBe(503);
    // Streaming, the answer has started (role chunk), so the failure comes as an error event.
    const stream = await client.chat.completions.create({
      model: 'cairn',
      stream: true,
      messages: [{ role: 'user', content: 'What is the visa fee?' }],
    });
    const consume = async () => {
      for await (const chunk of stream) void chunk;
    };
    await expect(consume()).rejects.toThrow(/index/i);
  });
});

describe('/v1/chat/completions with Ollama', () => {
  beforeEach(async () => {
    test = await startClientTestApp(index, {
      chat: { ollama: { baseUrl: ollama.url, model: 'llama3.2', route: false } },
      vision: { baseUrl: ollama.url, model: 'llava' },
    });
  });

  it('marks a phrased claim its passage does not back, and audits the answer when asked', async () => {
    ollama.chatReply = { content: 'The standard fee is €90 [1]. Children pay €60 [1].' };
    const request = {
      model: 'cairn',
      messages: [{ role: 'user' as const, content: 'How much is the visa fee?' }],
    };
    const plain = await openai(test!).chat.completions.create(request);
    expect(plain.choices[0]!.message.content).toMatch(
      /^The standard fee is €90 \[1\]\. Children pay €60 \[1\]\. ⚠ _\(unsupported: “60” is not in passage 1\)_/,
    );
    type Audited = { cairn: { audit?: { claims: Array<{ text: string; supported: boolean }> } } };
    expect((plain.choices[0]!.message as unknown as Audited).cairn.audit).toBeUndefined();

    const audited = await openai(test!).chat.completions.create({
      ...request,
      audit: true,
    } as typeof request);
    const claims = (audited.choices[0]!.message as unknown as Audited).cairn.audit?.claims;
    expect(claims?.map((c) => [c.text, c.supported])).toEqual([
      ['The standard fee is €90.', true],
      ['Children pay €60.', false],
    ]);

    const stream = await openai(test!).chat.completions.create({
      ...request,
      audit: true,
      stream: true,
    } as typeof request & { stream: true });
    let last: unknown;
    for await (const chunk of stream) last = chunk;
    expect((last as Audited).cairn.audit?.claims).toHaveLength(2);
  });

  it('phrases the answer with the chat model, still citing', async () => {
    ollama.chatReply = { content: 'The standard fee is €90 [1].' };
    const completion = await openai(test!).chat.completions.create({
      model: 'cairn',
      messages: [{ role: 'user', content: 'How much is the visa fee?' }],
    });
    expect(completion.choices[0]!.message.content).toMatch(
      /^The standard fee is €90 \[1\]\.[\s\S]*\[1\]: Travel\/Visa rules\.md/,
    );
  });

  it('sends image parts to the vision model', async () => {
    ollama.chatReply = { content: 'A red cairn on a hill.' };
    const completion = await openai(test!).chat.completions.create({
      model: 'cairn',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('A red cairn on a hill.');
    const sent = ollama.requests.find((request) => request.path === '/api/chat')!.body as {
      model: string;
      messages: Array<{ images?: string[] }>;
    };
    expect(sent.model).toBe('llava');
    expect(sent.messages[0]!.images).toEqual(['iVBORw0KGgo=']);
  });
});

describe('/v1/embeddings and /v1/models through the openai client', () => {
  beforeEach(async () => {
    test = await startClientTestApp(index, {
      embedder: new HashingEmbedder({ id: 'test-hashing@1', dims: 64 }),
      search: { index: () => index.indexer.queries, embedder: () => undefined },
    });
  });

  it('lists cairn beside the embedding model and embeds', async () => {
    const client = openai(test!);
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(['cairn', 'test-hashing@1']);
    const embedded = await client.embeddings.create({
      model: 'test-hashing@1',
      input: ['visa fee'],
    });
    expect(embedded.data[0]!.embedding).toHaveLength(64);
  });
});
