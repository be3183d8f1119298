/**
 * Embeddings from a local Ollama server (`POST /api/embed`), over plain `fetch`.
 *
 * The vector size depends on the model (nomic-embed-text: 768, mxbai-embed-large: 1024), so it is
 * discovered by `OllamaEmbedder.connect()` from a first, one-word request and enforced on every
 * answer after that: a model swapped behind the same name must not slip vectors of another size
 * into the index. The model id is `ollama:<name>`.
 */
import type { Embedder, EmbeddingModel } from '../../shared/ports';
import { EmbeddingProviderError } from './provider-error';

export const OLLAMA_DEFAULT_URL = 'http://127.0.0.1:11434';
export const OLLAMA_DEFAULT_EMBED_MODEL = 'nomic-embed-text';

export interface OllamaEmbedderOptions {
  /** Base URL of the Ollama server; default {@link OLLAMA_DEFAULT_URL}. */
  baseUrl?: string;
  /** Ollama model name; default {@link OLLAMA_DEFAULT_EMBED_MODEL}. */
  modelName?: string;
  /** Texts per `/api/embed` call; default 32. */
  batchSize?: number;
  /** Per-request timeout; default 60 s (a cold model load can take a while). */
  timeoutMs?: number;
  /** Injected for tests of transport failures; default the global `fetch`. */
  fetch?: typeof fetch;
}

interface ResolvedOptions {
  baseUrl: string;
  modelName: string;
  batchSize: number;
  timeoutMs: number;
  fetch: typeof fetch;
}

export class OllamaEmbedder implements Embedder {
  private constructor(
    readonly model: EmbeddingModel,
    private readonly options: ResolvedOptions,
  ) {}

  /** Asks Ollama for one vector to learn the model's dimension; fails with a clear message if it can't. */
  static async connect(options: OllamaEmbedderOptions = {}): Promise<OllamaEmbedder> {
    const resolved: ResolvedOptions = {
      baseUrl: (options.baseUrl ?? OLLAMA_DEFAULT_URL).replace(/\/+$/, ''),
      modelName: options.modelName ?? OLLAMA_DEFAULT_EMBED_MODEL,
      batchSize: options.batchSize ?? 32,
      timeoutMs: options.timeoutMs ?? 60_000,
      fetch: options.fetch ?? fetch,
    };
    if (!Number.isInteger(resolved.batchSize) || resolved.batchSize < 1) {
      throw new RangeError(
        `Ollama batchSize must be a positive integer, got ${resolved.batchSize}`,
      );
    }
    if (!/^https?:\/\//.test(resolved.baseUrl)) {
      throw new RangeError(
        `Ollama URL must start with http:// or https://, got "${resolved.baseUrl}"`,
      );
    }
    const [probe] = await requestEmbeddings(resolved, ['dimension probe']);
    const dims = probe?.length ?? 0;
    if (dims === 0) {
      throw new EmbeddingProviderError(
        'BAD_RESPONSE',
        `Ollama model "${resolved.modelName}" returned an empty vector: is it an embedding model?`,
      );
    }
    return new OllamaEmbedder({ id: `ollama:${resolved.modelName}`, dims }, resolved);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      const batch = await requestEmbeddings(
        this.options,
        texts.slice(start, start + this.options.batchSize),
      );
      batch.forEach((vector, i) => {
        if (vector.length !== this.model.dims) {
          throw new EmbeddingProviderError(
            'BAD_RESPONSE',
            `Ollama model "${this.options.modelName}" returned ${vector.length} dimensions for ` +
              `input[${start + i}], but ${this.model.dims} before: vectors of different sizes cannot be mixed`,
          );
        }
      });
      vectors.push(...batch);
    }
    return vectors;
  }
}

/** One `/api/embed` call, with every failure turned into an `EmbeddingProviderError`. */
async function requestEmbeddings(
  options: ResolvedOptions,
  input: readonly string[],
): Promise<Float32Array[]> {
  const url = `${options.baseUrl}/api/embed`;
  let response: Response;
  let text: string;
  try {
    response = await options.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: options.modelName, input }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    throw transportError(options, error);
  }
  if (response.status === 404) {
    throw new EmbeddingProviderError(
      'NOT_FOUND',
      `Ollama at ${options.baseUrl} has no model "${options.modelName}": ` +
        `run \`ollama pull ${options.modelName}\` (${ollamaErrorText(text)})`,
    );
  }
  if (!response.ok) {
    throw new EmbeddingProviderError(
      response.status >= 500 ? 'UNAVAILABLE' : 'BAD_RESPONSE',
      `Ollama answered ${response.status} to POST ${url}: ${ollamaErrorText(text)}`,
    );
  }
  return parseEmbeddings(text, input.length, url);
}

function parseEmbeddings(text: string, expected: number, url: string): Float32Array[] {
  const malformed = (what: string) =>
    new EmbeddingProviderError(
      'BAD_RESPONSE',
      `Ollama sent a malformed answer to POST ${url}: ${what}`,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw malformed(`not JSON (${JSON.stringify(text.slice(0, 80))})`);
  }
  const embeddings = (body as { embeddings?: unknown } | null)?.embeddings;
  if (!Array.isArray(embeddings)) throw malformed('no "embeddings" array');
  if (embeddings.length !== expected) {
    throw malformed(`${embeddings.length} embeddings for ${expected} inputs`);
  }
  return embeddings.map((vector: unknown, index) => {
    if (
      !Array.isArray(vector) ||
      !vector.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw malformed(`embeddings[${index}] is not an array of finite numbers`);
    }
    return Float32Array.from(vector as number[]);
  });
}

/** Ollama reports errors as `{ "error": "..." }`; fall back to the raw text. */
function ollamaErrorText(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON: show the text itself
  }
  return text.slice(0, 200) || '(empty body)';
}

function transportError(options: ResolvedOptions, error: unknown): EmbeddingProviderError {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new EmbeddingProviderError(
      'UNAVAILABLE',
      `Ollama at ${options.baseUrl} did not answer within ${options.timeoutMs} ms`,
      { cause: error },
    );
  }
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  const detail =
    typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
  return new EmbeddingProviderError(
    'UNAVAILABLE',
    `Ollama is not reachable at ${options.baseUrl} (${detail}): start it or choose the built-in model`,
    { cause: error },
  );
}
