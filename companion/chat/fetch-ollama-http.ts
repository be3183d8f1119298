/**
 * OllamaHttp (shared/chat/ollama-http.ts) for the companion over Node's `fetch`, streaming the
 * body as Ollama generates it. The whole exchange, body included, is bounded by the request's
 * timeout (rejecting with OllamaTimeoutError) and ends at once when the caller's signal aborts
 * (the chat client went away).
 */
import {
  OllamaTimeoutError,
  type OllamaHttp,
  type OllamaHttpRequest,
  type OllamaHttpResponse,
} from '../../shared/chat/ollama-http';

export function fetchOllamaHttp(fetchFn: typeof fetch = fetch): OllamaHttp {
  return {
    async post(request: OllamaHttpRequest): Promise<OllamaHttpResponse> {
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, request.timeoutMs);
      const onAbort = () => controller.abort();
      if (request.signal?.aborted) controller.abort();
      request.signal?.addEventListener('abort', onAbort);
      const release = () => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: unknown): never => {
        release();
        if (timedOut) throw new OllamaTimeoutError(request.timeoutMs);
        throw error;
      };
      let response: Response;
      try {
        response = await fetchFn(request.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: request.body,
          signal: controller.signal,
        });
      } catch (error) {
        return fail(error);
      }
      async function* chunks(): AsyncGenerator<string> {
        try {
          if (response.body === null) return;
          const decoder = new TextDecoder();
          for await (const bytes of response.body) {
            const text = decoder.decode(bytes, { stream: true });
            if (text !== '') yield text;
          }
          const rest = decoder.decode();
          if (rest !== '') yield rest;
        } catch (error) {
          fail(error);
        } finally {
          release();
          // A consumer that stops early must not leave the socket open.
          controller.abort();
        }
      }
      return { status: response.status, body: chunks() };
    },
  };
}
