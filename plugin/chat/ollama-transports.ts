/**
 * OllamaHttp (shared/chat/ollama-http.ts) for the plugin, two ways:
 * - `fetchOllamaHttp`: `fetch`, streaming the answer as it is generated (the same code as the
 *   companion's, shared/chat/fetch-ollama-http.ts). Ollama accepts the desktop app's origin by
 *   default (`app://`), so this is the one for phrasing on desktop.
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
import { fetchOllamaHttp as fetchOllamaHttpWith } from '../../shared/chat/fetch-ollama-http';
import type { FetchLike } from '../../shared/chat/fetch-ollama-http';
import type { HttpTransport } from '../connection/http-transport';

export type { FetchLike };

/** The shared fetch-based OllamaHttp on the window's timers. */
export function fetchOllamaHttp(fetchFn: FetchLike): OllamaHttp {
  return fetchOllamaHttpWith(fetchFn, {
    setTimeout: (callback, ms) => window.setTimeout(callback, ms),
    clearTimeout: (handle) => window.clearTimeout(handle as number),
  });
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
          transport.request({
            url: request.url,
            method: 'POST',
            body: request.body,
            ...(request.headers ? { headers: request.headers } : {}),
          }),
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
