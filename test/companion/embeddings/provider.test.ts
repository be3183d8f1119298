import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_EMBEDDINGS_CONFIG,
  createEmbedder,
  embeddingsConfigFromEnv,
} from '../../../companion/embeddings/provider';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { buildWorkerForTest } from './worker-build';

describe('embeddingsConfigFromEnv', () => {
  it('defaults to the built-in model', () => {
    expect(embeddingsConfigFromEnv({})).toEqual({
      provider: 'builtin',
      ollamaUrl: 'http://127.0.0.1:11434',
      ollamaModel: 'nomic-embed-text',
    });
    expect(embeddingsConfigFromEnv({ CAIRN_EMBEDDINGS: '  ' })).toEqual(DEFAULT_EMBEDDINGS_CONFIG);
  });

  it('reads the Ollama settings', () => {
    expect(
      embeddingsConfigFromEnv({
        CAIRN_EMBEDDINGS: 'ollama',
        CAIRN_OLLAMA_URL: 'http://gpu-box.lan:11434',
        CAIRN_OLLAMA_EMBED_MODEL: 'mxbai-embed-large',
      }),
    ).toEqual({
      provider: 'ollama',
      ollamaUrl: 'http://gpu-box.lan:11434',
      ollamaModel: 'mxbai-embed-large',
    });
  });

  it.each([
    {
      env: { CAIRN_EMBEDDINGS: 'openai' },
      error: 'CAIRN_EMBEDDINGS must be "builtin", "ollama" or "none", got "openai"',
    },
    {
      env: { CAIRN_OLLAMA_URL: 'localhost:11434' },
      error: 'CAIRN_OLLAMA_URL must be an http(s) URL, got "localhost:11434"',
    },
    {
      env: { CAIRN_OLLAMA_URL: 'ftp://host/' },
      error: 'CAIRN_OLLAMA_URL must be an http(s) URL, got "ftp://host/"',
    },
  ])('names the variable in error: $env', ({ env, error }) => {
    expect(() => embeddingsConfigFromEnv(env)).toThrow(error);
  });

  it('reads the worker count and idle time, flags over variables', () => {
    expect(
      embeddingsConfigFromEnv({ CAIRN_EMBED_WORKERS: '1', CAIRN_EMBED_IDLE_SECONDS: '2.5' }),
    ).toMatchObject({ workers: 1, idleSeconds: 2.5 });
    expect(
      embeddingsConfigFromEnv(
        { CAIRN_EMBED_WORKERS: '1', CAIRN_EMBED_IDLE_SECONDS: '30' },
        { 'embed-workers': '2', 'embed-idle-seconds': '600' },
      ),
    ).toMatchObject({ workers: 2, idleSeconds: 600 });
    expect(embeddingsConfigFromEnv({ CAIRN_EMBED_WORKERS: '' })).not.toHaveProperty('workers');
  });

  it('reads the runtime of the built-in model, flag over variable; absent means auto', () => {
    expect(embeddingsConfigFromEnv({})).not.toHaveProperty('runtime');
    expect(embeddingsConfigFromEnv({ CAIRN_EMBED_RUNTIME: 'wasm' })).toMatchObject({
      runtime: 'wasm',
    });
    expect(embeddingsConfigFromEnv({ CAIRN_EMBED_RUNTIME: ' Native ' })).toMatchObject({
      runtime: 'native',
    });
    expect(
      embeddingsConfigFromEnv({ CAIRN_EMBED_RUNTIME: 'wasm' }, { 'embed-runtime': 'auto' }),
    ).toMatchObject({ runtime: 'auto' });
  });

  it.each([
    {
      env: { CAIRN_EMBED_RUNTIME: 'gpu' },
      flags: {},
      error: 'CAIRN_EMBED_RUNTIME must be "auto", "native", "wasm", got "gpu"',
    },
    {
      env: {},
      flags: { 'embed-runtime': 'onnx' },
      error: '--embed-runtime must be "auto", "native", "wasm", got "onnx"',
    },
    {
      env: { CAIRN_EMBED_WORKERS: '0' },
      flags: {},
      error: 'CAIRN_EMBED_WORKERS must be a whole number from 1 to 16, got "0"',
    },
    {
      env: { CAIRN_EMBED_WORKERS: '2' },
      flags: { 'embed-workers': '1.5' },
      error: '--embed-workers must be a whole number from 1 to 16, got "1.5"',
    },
    {
      env: { CAIRN_EMBED_IDLE_SECONDS: 'soon' },
      flags: {},
      error: 'CAIRN_EMBED_IDLE_SECONDS must be a number from 1 to 604800, got "soon"',
    },
  ])('names the setting in error: $env $flags', ({ env, flags, error }) => {
    expect(() => embeddingsConfigFromEnv(env, flags)).toThrow(error);
  });
});

describe('createEmbedder', () => {
  let ollama: FakeOllamaServer;
  beforeAll(async () => {
    ollama = await FakeOllamaServer.start({ dims: 16 });
  });
  afterAll(() => ollama.close());

  it('starts the Ollama provider when configured', async () => {
    const embedder = await createEmbedder({
      provider: 'ollama',
      ollamaUrl: ollama.url,
      ollamaModel: 'nomic-embed-text',
    });
    expect(embedder.model).toEqual({ id: 'ollama:nomic-embed-text', dims: 16 });
    expect(await embedder.embed(['x'])).toHaveLength(1);
    await embedder.close();
  });

  it('fails clearly when the configured Ollama model is missing', async () => {
    await expect(
      createEmbedder({ provider: 'ollama', ollamaUrl: ollama.url, ollamaModel: 'all-minilm' }),
    ).rejects.toThrow('run `ollama pull all-minilm`');
  });

  it('starts the built-in model in a worker by default', async () => {
    const workerFile = await buildWorkerForTest('companion/embeddings/use-lite.worker.ts');
    // As the systemd unit and `npm start` run it (use-lite-runtime.ts: nativeIdleMemoryProblem).
    const restore = withEnv('MALLOC_MMAP_THRESHOLD_', '131072');
    const embedder = await createEmbedder(undefined, { workerFile }).finally(restore);
    try {
      expect(embedder.model).toEqual({ id: 'use-lite-512@energetic-ai-0.2.0', dims: 512 });
      // onnxruntime-node is a dependency: `auto` finds it.
      expect(embedder.runtime).toBe('native');
      const [vector] = await embedder.embed(['hello']);
      expect(vector).toHaveLength(512);
    } finally {
      await embedder.close();
    }
  });

  it('runs the built-in model on wasm when the config says so', async () => {
    const workerFile = await buildWorkerForTest('companion/embeddings/use-lite.worker.ts');
    const embedder = await createEmbedder(
      { ...DEFAULT_EMBEDDINGS_CONFIG, runtime: 'wasm', workers: 1 },
      { workerFile },
    );
    try {
      expect(embedder.runtime).toBe('wasm');
      expect(embedder.fallbackReason).toBeUndefined();
    } finally {
      await embedder.close();
    }
  });
});

/** Sets an environment variable (workers copy the environment when they start); undoes it. */
function withEnv(name: string, value: string): () => void {
  const before = process.env[name];
  process.env[name] = value;
  return () => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  };
}
