/**
 * The HTTP seam for talking to Ollama from shared code, which has neither `fetch` types nor
 * timers: the caller's adapter (fetch in the plugin, node:http in the companion and tests)
 * applies the timeout and the abort signal. Bodies come back as text chunks so answers can
 * stream; a transport that cannot stream yields the whole body as one chunk.
 */
import type { AbortSignalLike } from './ports';

export interface OllamaHttpRequest {
  url: string;
  /** JSON text; sent with `Content-Type: application/json`. */
  body: string;
  /** More headers, e.g. `Authorization` for an OpenAI-compatible server with a key. */
  headers?: Record<string, string>;
  /** Give up (reject) when the whole exchange takes longer than this. */
  timeoutMs: number;
  signal?: AbortSignalLike;
}

export interface OllamaHttpResponse {
  status: number;
  /** The body as text chunks in arrival order (UTF-8 already decoded). */
  body: AsyncIterable<string>;
}

export interface OllamaHttp {
  /** Resolves with any status; rejects when no response arrived (refused, timeout, abort). */
  post(request: OllamaHttpRequest): Promise<OllamaHttpResponse>;
}

/** Thrown by adapters on timeout, so callers can say "did not answer within …". */
export class OllamaTimeoutError extends Error {
  override readonly name = 'OllamaTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`Ollama did not answer within ${formatSeconds(timeoutMs)}`);
  }
}

export async function readAll(body: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk;
  return text;
}

/** Splits a chunked body into lines (NDJSON), whatever the chunk boundaries. */
export async function* lines(body: AsyncIterable<string>): AsyncGenerator<string> {
  let buffered = '';
  for await (const chunk of body) {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== '') yield line;
      newline = buffered.indexOf('\n');
    }
  }
  if (buffered.trim() !== '') yield buffered.trim();
}

/** Ollama's own error text from a non-200 body (`{ "error": "…" }`), else the start of the body. */
export function ollamaErrorMessage(status: number, text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return `Ollama answered ${status}: ${parsed.error}`;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  const snippet = text.trim().slice(0, 200);
  return snippet === '' ? `Ollama answered ${status}` : `Ollama answered ${status}: ${snippet}`;
}

/** Joins a base URL and an API path without doubling or dropping the slash. */
export function ollamaUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
