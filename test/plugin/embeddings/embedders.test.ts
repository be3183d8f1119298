// @vitest-environment node
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../../plugin/connection/http-transport';
import { CompanionClient } from '../../../plugin/connection/client';
import { CompanionEmbedder } from '../../../plugin/embeddings/companion-embedder';
import { OllamaEmbedder } from '../../../plugin/embeddings/ollama-embedder';
import { selectEmbedder } from '../../../plugin/embeddings/select-embedder';
import { defaultSettings } from '../../../shared/settings/cairn-settings';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import { buildTestApp, TEST_TOKEN } from '../../companion/helpers/app';
import type { TestApp } from '../../companion/helpers/app';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { NodeHttpTransport } from '../../helpers/node-http-transport';
import { FakeEmbedder } from '../search/fake-embedder';

/** HttpTransport over the companion's `app.inject`: the real routes, auth and schemas, no socket. */
class InjectTransport implements HttpTransport {
  constructor(private readonly app: FastifyInstance) {}

  async request(request: HttpRequest): Promise<HttpResponse> {
    const url = new URL(request.url);
    const response = await this.app.inject({
      method: request.method,
      url: url.pathname,
      headers: {
        ...request.headers,
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { payload: request.body }),
    });
    return { status: response.statusCode, text: response.body };
  }
}

const endpoint = { url: 'http://127.0.0.1:8787', token: TEST_TOKEN, offlineMode: true };
const clientOf = (transport: InjectTransport, at = endpoint) =>
  new CompanionClient(transport, () => at);

describe('CompanionEmbedder against the real companion routes', () => {
  let companion: TestApp;
  const model = new FakeEmbedder('use-lite-test', 16);
  beforeAll(async () => {
    companion = await buildTestApp({ deps: { embedder: model } });
  });
  afterAll(async () => companion.close());

  it('learns the model from /v1/models and returns the companion vectors in order', async () => {
    const embedder = await CompanionEmbedder.connect(clientOf(new InjectTransport(companion.app)));
    expect(embedder.model).toEqual({ id: 'companion:use-lite-test', dims: 16 });
    const texts = Array.from({ length: 70 }, (_, i) => `text number ${i}`);
    const vectors = await embedder.embed(texts);
    expect(vectors.length).toBe(70);
    expect([...vectors[69]!]).toEqual([...model.vectorOf('text number 69')]);
  });

  it('a wrong token is a clear error', async () => {
    await expect(
      CompanionEmbedder.connect(
        clientOf(new InjectTransport(companion.app), { ...endpoint, token: 'nope' }),
      ),
    ).rejects.toThrow(/companion answered 401 to GET http:\/\/127\.0\.0\.1:8787\/v1\/models/);
  });

  it('a companion without a model says so', async () => {
    const bare = await buildTestApp();
    try {
      await expect(
        CompanionEmbedder.connect(clientOf(new InjectTransport(bare.app))),
      ).rejects.toThrow(/names no embedding model/);
    } finally {
      await bare.close();
    }
  });
});

describe('OllamaEmbedder against a local fake Ollama', () => {
  let ollama: FakeOllamaServer;
  beforeAll(async () => {
    ollama = await FakeOllamaServer.start({ dims: 12 });
  });
  afterAll(async () => ollama.close());
  afterEach(() => ollama.clearFailures());

  it('probes the size, batches, and returns the server vectors', async () => {
    const embedder = await OllamaEmbedder.connect(
      new NodeHttpTransport(),
      ollama.url,
      'nomic-embed-text',
    );
    expect(embedder.model).toEqual({ id: 'ollama:nomic-embed-text', dims: 12 });
    const texts = Array.from({ length: 40 }, (_, i) => `chunk ${i}`);
    const vectors = await embedder.embed(texts);
    expect(vectors.length).toBe(40);
    expect([...vectors[39]!]).toEqual(
      FakeOllamaServer.vectorFor('chunk 39', 12).map((v) => Math.fround(v)),
    );
  });

  it.each([
    [{ kind: 'status-500' } as const, /Ollama answered 500/],
    [{ kind: 'malformed-json' } as const, /not JSON/],
    [{ kind: 'wrong-shape' } as const, /answered no embeddings for 1 texts/],
    [{ kind: 'wrong-dims', dims: 5 } as const, /not a list of 12 numbers/],
  ])('fails clearly on %o', async (failure, message) => {
    const embedder = await OllamaEmbedder.connect(
      new NodeHttpTransport(),
      ollama.url,
      'nomic-embed-text',
    );
    ollama.failWith('/api/embed', failure);
    await expect(embedder.embed(['x'])).rejects.toThrow(message);
  });

  it('an unknown model, an empty model name and a closed port are clear errors', async () => {
    await expect(
      OllamaEmbedder.connect(new NodeHttpTransport(), ollama.url, 'missing-model'),
    ).rejects.toThrow(/Ollama answered 404/);
    await expect(OllamaEmbedder.connect(new NodeHttpTransport(), ollama.url, '  ')).rejects.toThrow(
      /no embedding model is set/,
    );
    await expect(
      OllamaEmbedder.connect(new NodeHttpTransport(), 'http://127.0.0.1:1', 'm'),
    ).rejects.toThrow(/Ollama unreachable at http:\/\/127\.0\.0\.1:1\/api\/embed/);
  });

  it('selectEmbedder picks Ollama from settings, or explains why there is none', async () => {
    const settings = (change: (s: CairnSettings) => void): CairnSettings => {
      const s = defaultSettings('UTC');
      change(s);
      return s;
    };
    const transport = new NodeHttpTransport();
    const ollamaChoice = await selectEmbedder(
      settings((s) => {
        s.embeddings.provider = 'ollama';
        s.ollama.url = ollama.url;
      }),
      transport,
    );
    expect(ollamaChoice).toMatchObject({ kind: 'active', label: 'ollama:nomic-embed-text' });
    expect(
      await selectEmbedder(
        settings((s) => (s.embeddings.provider = 'none')),
        transport,
      ),
    ).toEqual({
      kind: 'none',
      reason: 'embeddings are off in settings',
    });
    expect(
      await selectEmbedder(
        settings((s) => {
          s.embeddings.provider = 'ollama';
          s.ollama.url = 'https://embeddings.example.com';
        }),
        transport,
      ),
    ).toMatchObject({ kind: 'none', reason: expect.stringMatching(/Offline mode/) });
    expect(
      await selectEmbedder(
        settings((s) => (s.embeddings.provider = 'companion')),
        transport,
      ),
    ).toMatchObject({ kind: 'none', reason: 'Companion URL is empty' });
    expect(
      await selectEmbedder(
        settings((s) => (s.embeddings.provider = 'builtin')),
        transport,
      ),
    ).toMatchObject({
      kind: 'none',
    });
  });
});
