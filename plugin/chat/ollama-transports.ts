/**
 * OllamaHttp (shared/chat/ollama-http.ts) for the plugin, two ways:
 * - `fetchOllamaHttp`: `fetch`, streaming the answer as it is generated. Ollama accepts the
 *   desktop app's origin by default (`app://`), so this is the one for phrasing on desktop.
 * - `transportOllamaHttp`: the plugin's HttpTransport (Obsidian's `requestUrl`: no CORS, works
 *   on mobile) which cannot stream, so the whole body arrives as one chunk.
 * Both apply the request's timeout and abort signal, and reject with OllamaTimeoutError on
 * timeout so the chat can say "did not answer within …".
 */
import {
  OllamaTimeoutError,
  type OllamaHttp,
  type OllamaHttpRequest,
  type OllamaHttpResponse,
} from '../../shared/chat/ollama-http';
import type { HttpTransport } from '../connection/http-transport';

/** The part of `fetch` used here, so tests can hand in their own. */
export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number; body: ReadableStream<Uint8Array> | null; text(): Promise<string> }>;

export function fetchOllamaHttp(fetchFn: FetchLike): OllamaHttp {
  return {
    async post(request: OllamaHttpRequest): Promise<OllamaHttpResponse> {
      const controller = new AbortController();
      let timedOut = false;
      const timer = window.setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, request.timeoutMs);
      const onAbort = () => controller.abort();
      // A turn stopped before the request went out must not send it at all.
      if (request.signal?.aborted) controller.abort();
      request.signal?.addEventListener('abort', onAbort);
      const release = () => {
        window.clearTimeout(timer);
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
          headers: { 'Content-Type': 'application/json' },
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
        }
      }
      return { status: response.status, body: chunks() };
    },
  };
}

export function transportOllamaHttp(transport: HttpTransport): OllamaHttp {
  return {
    async post(request: OllamaHttpRequest): Promise<OllamaHttpResponse> {
      let timer: number | undefined;
      let onAbort: (() => void) | undefined;
      const stop = new Promise<never>((_, reject) => {
        timer = window.setTimeout(
          () => reject(new OllamaTimeoutError(request.timeoutMs)),
          request.timeoutMs,
        );
        onAbort = () => reject(new Error('aborted'));
        request.signal?.addEventListener('abort', onAbort);
      });
      try {
        const response = await Promise.race([
          transport.request({ url: request.url, method: 'POST', body: request.body }),
          stop,
        ]);
        return { status: response.status, body: once(response.text) };
      } finally {
        window.clearTimeout(timer);
        if (onAbort) request.signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}
