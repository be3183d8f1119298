/**
 * The shared fetch-based OllamaHttp (shared/chat/fetch-ollama-http.ts) on Node's fetch and
 * timers.
 */
import { fetchOllamaHttp as fetchOllamaHttpWith } from '../../shared/chat/fetch-ollama-http';
import type { FetchLike } from '../../shared/chat/fetch-ollama-http';
import type { OllamaHttp } from '../../shared/chat/ollama-http';

export function fetchOllamaHttp(fetchFn: FetchLike = fetch): OllamaHttp {
  return fetchOllamaHttpWith(fetchFn, {
    setTimeout: (callback, ms) => setTimeout(callback, ms),
    clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  });
}
