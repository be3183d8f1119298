/**
 * OllamaHttp (ollama-http.ts) over a `fetch`, streaming the body as Ollama generates it: the
 * companion hands in Node's fetch and timers, the plugin the window's (Obsidian wants timers
 * on the window the code runs in). The whole exchange, body included, is bounded by the
 * request's timeout (rejecting with OllamaTimeoutError) and ends at once when the caller's
 * signal aborts (the chat client went away, the user pressed stop).
 */
import { OllamaTimeoutError, type OllamaHttp, type OllamaHttpRequest } from './ollama-http';
import type { OllamaHttpResponse } from './ollama-http';

/** The part of `fetch` used here. */
export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number; body: ReadableStream<Uint8Array> | null; text(): Promise<string> }>;

/** Where timers come from (shared code never reaches for the global ones). */
export interface TimerFunctions {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export function fetchOllamaHttp(fetchFn: FetchLike, timers: TimerFunctions): OllamaHttp {
  return {
    async post(request: OllamaHttpRequest): Promise<OllamaHttpResponse> {
      const controller = new AbortController();
      let timedOut = false;
      const timer = timers.setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, request.timeoutMs);
      const onAbort = () => controller.abort();
      // A turn stopped before the request went out must not send it at all.
      if (request.signal?.aborted) controller.abort();
      request.signal?.addEventListener('abort', onAbort);
      const release = () => {
        timers.clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: unknown): never => {
        release();
        if (timedOut) throw new OllamaTimeoutError(request.timeoutMs);
        throw error;
      };
      let response: Awaited<ReturnType<FetchLike>>;
      try {
        response = await fetchFn(request.url, {
          method: 'POST',
          headers: { ...request.headers, 'Content-Type': 'application/json' },
          body: request.body,
          signal: controller.signal,
        });
      } catch (error) {
        return fail(error);
      }
      async function* chunks(): AsyncGenerator<string> {
        try {
          if (response.body === null) {
            yield await response.text();
            return;
          }
          // A reader rather than `for await`: not every WebView's streams are async-iterable.
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            const text = decoder.decode(value, { stream: true });
            if (text !== '') yield text;
          }
          const rest = decoder.decode();
          if (rest !== '') yield rest;
        } catch (error) {
          fail(error);
        } finally {
          release();
          // A consumer that stops early must not leave the connection open.
          controller.abort();
        }
      }
      return { status: response.status, body: chunks() };
    },
  };
}
