import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingProviderError } from '../../../companion/embeddings/provider-error';
import { UseLiteEmbedder } from '../../../companion/embeddings/use-lite';
import { registerErrorHandling } from '../../../companion/http/error-handler';
import {
  MAX_EMBEDDING_INPUTS,
  MAX_EMBEDDING_INPUT_CHARS,
  registerEmbeddingRoutes,
} from '../../../companion/clients/embeddings-routes';
import { registerModelsRoute } from '../../../companion/clients/models-routes';
import type { Embedder } from '../../../shared/ports';
import { ManualClock } from '../../fakes/clock';

/** Vectors that encode their text's length, so answers can be checked exactly. */
class LengthEmbedder implements Embedder {
  readonly model = { id: 'length-3', dims: 3 };
  failWith: Error | undefined;
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.failWith) throw this.failWith;
    return texts.map((text) => Float32Array.from([text.length, 0.5, -1]));
  }
}

async function appWith(embedder: Embedder): Promise<FastifyInstance> {
  // The same Ajv settings and error handling as companion/app.ts.
  const app = Fastify({
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array' } },
  });
  registerErrorHandling(app);
  registerEmbeddingRoutes(app, { embedder });
  registerModelsRoute(app, { embedder, clock: ManualClock.at('2026-11-22T10:00:00Z') });
  await app.ready();
  return app;
}

describe('embedding routes (OpenAI format)', () => {
  const embedder = new LengthEmbedder();
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await appWith(embedder);
  });
  afterAll(() => app.close());

  const post = (payload: unknown) =>
    app.inject({ method: 'POST', url: '/v1/embeddings', payload: payload as object });

  it('lists the chat model and the served embedding model', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/models' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      object: 'list',
      data: [
        {
          id: 'cairn',
          object: 'model',
          created: Date.parse('2026-11-22T10:00:00Z') / 1000,
          owned_by: 'cairn',
        },
        {
          id: 'length-3',
          object: 'model',
          created: Date.parse('2026-11-22T10:00:00Z') / 1000,
          owned_by: 'cairn',
          dims: 3,
        },
      ],
    });
  });

  it('embeds a list of inputs, in order, with usage', async () => {
    const response = await post({ model: 'length-3', input: ['abcd', ''] });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [4, 0.5, -1] },
        { object: 'embedding', index: 1, embedding: [0, 0.5, -1] },
      ],
      model: 'length-3',
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
  });

  it('embeds a single string input', async () => {
    const response = await post({ model: 'length-3', input: 'hello' });
    expect(response.json().data).toEqual([
      { object: 'embedding', index: 0, embedding: [5, 0.5, -1] },
    ]);
  });

  it('answers base64 as little-endian float32 bytes', async () => {
    const response = await post({ model: 'length-3', input: 'ab', encoding_format: 'base64' });
    const bytes = Buffer.from(response.json().data[0].embedding as string, 'base64');
    expect([0, 4, 8].map((offset) => bytes.readFloatLE(offset))).toEqual([2, 0.5, -1]);
  });

  const tooMany = Array.from({ length: MAX_EMBEDDING_INPUTS + 1 }, () => 'x');
  const tooLong = 'y'.repeat(MAX_EMBEDDING_INPUT_CHARS + 1);
  it.each([
    {
      name: 'too many inputs',
      body: { model: 'length-3', input: tooMany },
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      field: 'input',
    },
    {
      name: 'one input too long',
      body: { model: 'length-3', input: ['ok', tooLong] },
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'input[1]',
    },
    {
      name: 'a single string too long',
      body: { model: 'length-3', input: tooLong },
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'input',
    },
    {
      name: 'an unknown model',
      body: { model: 'text-embedding-3-small', input: 'x' },
      status: 404,
      code: 'NOT_FOUND',
      field: 'model',
    },
    {
      name: 'a missing input',
      body: { model: 'length-3' },
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'input',
    },
    {
      name: 'an empty input list',
      body: { model: 'length-3', input: [] },
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'input',
    },
    {
      name: 'a number among the inputs',
      body: { model: 'length-3', input: ['a', 3] },
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'input',
    },
    {
      name: 'another dimension',
      body: { model: 'length-3', input: 'x', dimensions: 256 },
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'dimensions',
    },
    {
      name: 'an unknown property',
      body: { model: 'length-3', input: 'x', temperature: 1 },
      status: 400,
      code: 'VALIDATION_ERROR',
      field: 'temperature',
    },
  ])('refuses $name with $status and the error envelope', async ({ body, status, code, field }) => {
    const response = await post(body);
    expect(response.statusCode).toBe(status);
    const error = response.json().error;
    expect(error).toMatchObject({ code });
    expect(error.field ?? '').toContain(field);
    expect(typeof error.message).toBe('string');
  });

  it('answers 503 when the provider is down, with its message', async () => {
    embedder.failWith = new EmbeddingProviderError(
      'UNAVAILABLE',
      'Ollama is not reachable at http://127.0.0.1:9',
    );
    try {
      const response = await post({ model: 'length-3', input: 'x' });
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toEqual({
        code: 'UNAVAILABLE',
        message: 'embedding model unavailable: Ollama is not reachable at http://127.0.0.1:9',
      });
    } finally {
      embedder.failWith = undefined;
    }
  });
});

describe('embedding routes with the real built-in model', () => {
  let app: FastifyInstance;
  let model: UseLiteEmbedder;
  beforeAll(async () => {
    model = await UseLiteEmbedder.load();
    app = await appWith(model);
  });
  afterAll(async () => {
    await app.close();
    model.dispose();
  });

  it('serves 512 floats per input under the model id', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/embeddings',
      payload: { model: 'use-lite-512@energetic-ai-0.2.0', input: ['a note', 'another note'] },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.model).toBe('use-lite-512@energetic-ai-0.2.0');
    expect(body.data.map((d: { embedding: number[] }) => d.embedding.length)).toEqual([512, 512]);
  });
});
