/**
 * Chooses the companion's embedding provider (docs/search.md).
 *
 * Environment variables (read by `embeddingsConfigFromEnv`):
 *
 *   CAIRN_EMBEDDINGS          `builtin` (default): USE-lite, 512 dims, shipped in node_modules,
 *                             run in a worker thread; no download, no other server.
 *                             `ollama`: a local Ollama server's embedding model.
 *                             `none`: no embedding model; search and answers run on keywords
 *                             only, on purpose (status says `semantic.state: "off"`).
 *   CAIRN_OLLAMA_URL          Ollama's base URL; default http://127.0.0.1:11434.
 *   CAIRN_OLLAMA_EMBED_MODEL  Ollama model name; default nomic-embed-text (`ollama pull` it first).
 *   CAIRN_EMBED_WORKERS       (`--embed-workers`) built-in model: worker threads, each with its own
 *                             copy of the model (~150 MB); default one per core, at most two.
 *   CAIRN_EMBED_IDLE_SECONDS  (`--embed-idle-seconds`) built-in model: the workers exit after this
 *                             long without work and start again on demand; default 60.
 *   CAIRN_EMBED_RUNTIME       (`--embed-runtime`) built-in model: `auto` (default) runs it on
 *                             onnxruntime-node's native kernels when they load, else on wasm
 *                             (and logs why); `native` fails instead of falling back; `wasm`
 *                             never loads the native runtime. Same vectors either way
 *                             (use-lite-runtime.ts).
 *
 * Every vector the index stores records `embedder.model` (id + dims): switching provider or
 * model changes the id, which is the cue to re-embed rather than mix vectors.
 */
import type { Embedder } from '../../shared/ports';
import { OLLAMA_DEFAULT_EMBED_MODEL, OLLAMA_DEFAULT_URL, OllamaEmbedder } from './ollama';
import {
  EMBED_RUNTIME_CHOICES,
  type EmbedRuntime,
  type EmbedRuntimeChoice,
  type UseLiteWorkerOptions,
} from './use-lite-runtime';
import { DEFAULT_IDLE_TIMEOUT_MS, WorkerEmbedder } from './worker-embedder';

export type EmbeddingsProviderName = 'builtin' | 'ollama' | 'none';

export interface EmbeddingsConfig {
  provider: EmbeddingsProviderName;
  ollamaUrl: string;
  ollamaModel: string;
  /** Built-in model: worker threads; absent = one per core, at most two. */
  workers?: number;
  /** Built-in model: quiet seconds before the workers exit; absent = 60. */
  idleSeconds?: number;
  /** Built-in model: what runs it; absent = `auto`. */
  runtime?: EmbedRuntimeChoice;
}

/** The command-line flags that override the embedding variables (flags win, as elsewhere). */
export interface EmbeddingsFlags {
  readonly 'embed-workers'?: string | boolean | undefined;
  readonly 'embed-idle-seconds'?: string | boolean | undefined;
  readonly 'embed-runtime'?: string | boolean | undefined;
}

/** More workers than this buys nothing on any machine we know and costs ~150 MB each. */
export const MAX_EMBED_WORKERS = 16;

/** An embedder the owner must close on shutdown (the worker thread; a no-op for Ollama). */
export interface ClosableEmbedder extends Embedder {
  close(): Promise<void>;
  /** Worker threads holding a loaded model now (the built-in model; absent for Ollama). */
  readonly runningWorkers?: number;
  /** What runs the built-in model (absent for Ollama; undefined until a worker has loaded). */
  readonly runtime?: EmbedRuntime | undefined;
  /** Why the built-in model runs on wasm although `auto` wanted native; undefined otherwise. */
  readonly fallbackReason?: string | undefined;
}

export const DEFAULT_EMBEDDINGS_CONFIG: Readonly<EmbeddingsConfig> = Object.freeze({
  provider: 'builtin',
  ollamaUrl: OLLAMA_DEFAULT_URL,
  ollamaModel: OLLAMA_DEFAULT_EMBED_MODEL,
});

/** Reads the variables above; an invalid value is an error naming the variable. */
export function embeddingsConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  flags: EmbeddingsFlags = {},
): EmbeddingsConfig {
  const provider = (env.CAIRN_EMBEDDINGS ?? '').trim() || DEFAULT_EMBEDDINGS_CONFIG.provider;
  if (provider !== 'builtin' && provider !== 'ollama' && provider !== 'none') {
    throw new Error(`CAIRN_EMBEDDINGS must be "builtin", "ollama" or "none", got "${provider}"`);
  }
  const ollamaUrl = (env.CAIRN_OLLAMA_URL ?? '').trim() || DEFAULT_EMBEDDINGS_CONFIG.ollamaUrl;
  if (!URL.canParse(ollamaUrl) || !/^https?:$/.test(new URL(ollamaUrl).protocol)) {
    throw new Error(`CAIRN_OLLAMA_URL must be an http(s) URL, got "${ollamaUrl}"`);
  }
  const ollamaModel =
    (env.CAIRN_OLLAMA_EMBED_MODEL ?? '').trim() || DEFAULT_EMBEDDINGS_CONFIG.ollamaModel;
  const workers = positiveNumber(
    flags['embed-workers'],
    env.CAIRN_EMBED_WORKERS,
    ['--embed-workers', 'CAIRN_EMBED_WORKERS'],
    { integer: true, max: MAX_EMBED_WORKERS },
  );
  const idleSeconds = positiveNumber(
    flags['embed-idle-seconds'],
    env.CAIRN_EMBED_IDLE_SECONDS,
    ['--embed-idle-seconds', 'CAIRN_EMBED_IDLE_SECONDS'],
    { integer: false, max: 7 * 24 * 3600 },
  );
  const runtime = runtimeChoice(flags['embed-runtime'], env.CAIRN_EMBED_RUNTIME);
  return {
    provider,
    ollamaUrl,
    ollamaModel,
    ...(workers === undefined ? {} : { workers }),
    ...(idleSeconds === undefined ? {} : { idleSeconds }),
    ...(runtime === undefined ? {} : { runtime }),
  };
}

/** `--embed-runtime`, else CAIRN_EMBED_RUNTIME; undefined when neither is set (auto). */
function runtimeChoice(
  flag: string | boolean | undefined,
  variable: string | undefined,
): EmbedRuntimeChoice | undefined {
  const fromFlag = typeof flag === 'string';
  const raw = (fromFlag ? flag : (variable ?? '')).trim();
  if (raw === '') return undefined;
  const choice = EMBED_RUNTIME_CHOICES.find((known) => known === raw.toLowerCase());
  if (choice === undefined) {
    throw new Error(
      `${fromFlag ? '--embed-runtime' : 'CAIRN_EMBED_RUNTIME'} must be ` +
        `${EMBED_RUNTIME_CHOICES.map((known) => `"${known}"`).join(', ')}, got "${raw}"`,
    );
  }
  return choice;
}

/** A flag's value, else the variable's; undefined when neither is set. Errors name the source. */
function positiveNumber(
  flag: string | boolean | undefined,
  variable: string | undefined,
  [flagName, variableName]: [string, string],
  { integer, max }: { integer: boolean; max: number },
): number | undefined {
  const fromFlag = typeof flag === 'string';
  const raw = (fromFlag ? flag : (variable ?? '')).trim();
  if (raw === '') return undefined;
  const value = Number(raw);
  const valid = /^\d+(\.\d+)?$/.test(raw) && value >= 1 && value <= max;
  if (!valid || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'a whole number' : 'a number';
    throw new Error(
      `${fromFlag ? flagName : variableName} must be ${kind} from 1 to ${max}, got "${raw}"`,
    );
  }
  return value;
}

export interface CreateEmbedderOptions {
  /** The built USE-lite worker; default: next to the running bundle (dist/companion/). */
  workerFile?: URL | string;
}

/**
 * Starts the configured provider. Fails (rather than silently falling back) when Ollama is chosen
 * but unreachable or lacks the model: the error says what to do, and the caller decides whether
 * to run keyword-only.
 */
export async function createEmbedder(
  config: EmbeddingsConfig = DEFAULT_EMBEDDINGS_CONFIG,
  options: CreateEmbedderOptions = {},
): Promise<ClosableEmbedder> {
  if (config.provider === 'none') {
    throw new Error('CAIRN_EMBEDDINGS is "none": no embedding model is started');
  }
  if (config.provider === 'ollama') {
    const ollama = await OllamaEmbedder.connect({
      baseUrl: config.ollamaUrl,
      modelName: config.ollamaModel,
    });
    return { model: ollama.model, embed: (texts) => ollama.embed(texts), close: async () => {} };
  }
  return WorkerEmbedder.start({
    ...(options.workerFile === undefined ? {} : { workerFile: options.workerFile }),
    ...(config.workers === undefined ? {} : { workers: config.workers }),
    // Search queries while indexing get a worker of their own instead of waiting for a batch.
    queryWorker: true,
    // Child processes: the native runtime idles small however the companion was started, and a
    // parked worker gives all its memory back (embedding-worker-host.ts).
    host: 'process',
    workerData: { runtime: config.runtime ?? 'auto' } satisfies UseLiteWorkerOptions,
    idleTimeoutMs:
      config.idleSeconds === undefined ? DEFAULT_IDLE_TIMEOUT_MS : config.idleSeconds * 1000,
  });
}
