import type { OllamaModel } from './openai-turn';

/**
 * `CAIRN_OLLAMA_VISION_MODEL` (e.g. `llava`): the Ollama model that answers images sent to
 * `/v1/chat/completions`; unset = images get a 422. The server is `CAIRN_OLLAMA_URL`, as for
 * the chat and embedding models.
 */
export function visionConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): OllamaModel | null {
  const model = (env.CAIRN_OLLAMA_VISION_MODEL ?? '').trim();
  if (model === '') return null;
  const baseUrl = (env.CAIRN_OLLAMA_URL ?? '').trim() || 'http://127.0.0.1:11434';
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new Error(`CAIRN_OLLAMA_URL must be an http(s) URL, got "${baseUrl}"`);
  }
  return { baseUrl, model };
}
