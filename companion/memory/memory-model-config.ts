import type { MemoryModelOptions } from '../../shared/memory';

/**
 * The OpenAI-compatible server for memory categories and clipped-link summaries
 * (docs/memory-digest-calendar.md), from the environment: `CAIRN_MEMORY_MODEL` (the model id)
 * and `CAIRN_MEMORY_MODEL_URL` (the base URL with its `/v1`, e.g. LM Studio's
 * `http://127.0.0.1:1234/v1`), `CAIRN_MEMORY_MODEL_API_KEY` when the server wants one. Null when
 * no model is named: chat's Ollama model (`CAIRN_OLLAMA_CHAT_MODEL`) is used then, if any.
 * @throws Error naming the variable when the URL is missing or not http(s).
 */
export function memoryModelConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Omit<MemoryModelOptions, 'http'> | null {
  const model = (env.CAIRN_MEMORY_MODEL ?? '').trim();
  if (model === '') return null;
  const baseUrl = (env.CAIRN_MEMORY_MODEL_URL ?? '').trim();
  if (baseUrl === '') {
    throw new Error(
      'CAIRN_MEMORY_MODEL is set but CAIRN_MEMORY_MODEL_URL is not: give the server’s base URL with /v1 (e.g. http://127.0.0.1:1234/v1)',
    );
  }
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new Error(`CAIRN_MEMORY_MODEL_URL must be an http(s) URL, got "${baseUrl}"`);
  }
  const apiKey = (env.CAIRN_MEMORY_MODEL_API_KEY ?? '').trim();
  return { api: 'openai', baseUrl, model, ...(apiKey === '' ? {} : { apiKey }) };
}
