import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OllamaEmbedder } from '../../../companion/embeddings/ollama';
import { EmbeddingProviderError } from '../../../companion/embeddings/provider-error';
import { FakeOllamaServer, type FakeOllamaFailure } from '../../fakes/ollama-server';

let ollama: FakeOllamaServer;

beforeAll(async () => {
  ollama = await FakeOllamaServer.start({ dims: 12 });
});
afterAll(() => ollama.close());
afterEach(() => ollama.clearFailures());

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OllamaEmbedder', () => {
  it('discovers the dimension, names the model and returns the server vectors in order', async () => {
    const embedder = await OllamaEmbedder.connect({
      baseUrl: ollama.url,
      modelName: 'nomic-embed-text',
    });
    expect(embedder.model).toEqual({ id: 'ollama:nomic-embed-text', dims: 12 });

    const vectors = await embedder.embed(['alpha', 'beta', 'gamma']);
    expect(vectors.map((v) => Array.from(v))).toEqual(
      ['alpha', 'beta', 'gamma'].map((t) =>
        Array.from(Float32Array.from(FakeOllamaServer.vectorFor(t, 12))),
      ),
    );
  });

  it('splits long inputs into batches of batchSize', async () => {
    const embedder = await OllamaEmbedder.connect({ baseUrl: ollama.url, batchSize: 2 });
    const before = ollama.requests.length;
    const vectors = await embedder.embed(['a', 'b', 'c', 'd', 'e']);
    const calls = ollama.requests.slice(before).map((r) => (r.body as { input: string[] }).input);
    expect(calls).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(vectors).toHaveLength(5);
  });

  it('answers an empty list without calling the server', async () => {
    const embedder = await OllamaEmbedder.connect({ baseUrl: ollama.url });
    const before = ollama.requests.length;
    expect(await embedder.embed([])).toEqual([]);
    expect(ollama.requests.length).toBe(before);
  });

  it('says how to start Ollama when nothing listens', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await OllamaEmbedder.connect({ baseUrl: url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingProviderError);
    expect((error as EmbeddingProviderError).code).toBe('UNAVAILABLE');
    expect((error as Error).message).toBe(
      `Ollama is not reachable at ${url} (ECONNREFUSED): start it or choose the built-in model`,
    );
  });

  it('says which model to pull when the server does not have it', async () => {
    const error = await OllamaEmbedder.connect({
      baseUrl: ollama.url,
      modelName: 'mxbai-embed-large',
    }).catch((e: unknown) => e);
    expect((error as EmbeddingProviderError).code).toBe('NOT_FOUND');
    expect((error as Error).message).toContain('run `ollama pull mxbai-embed-large`');
  });

  const failures: { name: string; failure: FakeOllamaFailure; code: string; message: RegExp }[] = [
    {
      name: 'a 500',
      failure: { kind: 'status-500' },
      code: 'UNAVAILABLE',
      message: /answered 500 .*fake internal error/,
    },
    {
      name: 'broken JSON',
      failure: { kind: 'malformed-json' },
      code: 'BAD_RESPONSE',
      message: /malformed .*not JSON/,
    },
    {
      name: 'JSON without embeddings',
      failure: { kind: 'wrong-shape' },
      code: 'BAD_RESPONSE',
      message: /no "embeddings" array/,
    },
    {
      name: 'a slow answer',
      failure: { kind: 'slow', delayMs: 5_000 },
      code: 'UNAVAILABLE',
      message: /did not answer within 200 ms/,
    },
  ];

  it.each(failures)('turns $name into a clear $code error', async ({ failure, code, message }) => {
    const embedder = await OllamaEmbedder.connect({ baseUrl: ollama.url, timeoutMs: 200 });
    ollama.failWith('/api/embed', failure);
    const error = await embedder.embed(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingProviderError);
    expect((error as EmbeddingProviderError).code).toBe(code);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses vectors whose size changed after the first answer', async () => {
    const embedder = await OllamaEmbedder.connect({ baseUrl: ollama.url });
    ollama.failWith('/api/embed', { kind: 'wrong-dims', dims: 5 });
    await expect(embedder.embed(['x'])).rejects.toThrow(
      /returned 5 dimensions for input\[0\], but 12 before/,
    );
  });

  it.each([
    { baseUrl: 'localhost:11434', error: /must start with http/ },
    { baseUrl: 'http://127.0.0.1:1', batchSize: 0, error: /batchSize must be a positive integer/ },
  ])('rejects bad options: $baseUrl', async ({ error, ...options }) => {
    await expect(OllamaEmbedder.connect(options)).rejects.toThrow(error);
  });
});
