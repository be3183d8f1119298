/**
 * One non-streaming chat request to the configured LLM for the memory features (categories,
 * link summaries): Ollama's `POST /api/chat`, or an OpenAI-compatible server's
 * `POST {baseUrl}/chat/completions` (LM Studio, llama-server, vLLM; the base URL includes `/v1`).
 * Both answer the text and the tool calls in their own envelope; this reads either into one
 * shape. Every failure throws `MemoryModelError` with a reason a person can read.
 */
import { openAiErrorMessage } from '../chat/openai-compatible-phraser';
import {
  OllamaTimeoutError,
  ollamaErrorMessage,
  ollamaUrl,
  readAll,
  type OllamaHttp,
} from '../chat/ollama-http';

export interface MemoryModelOptions {
  http: OllamaHttp;
  baseUrl: string;
  model: string;
  /** `ollama` (default) or `openai` for an OpenAI-compatible server. */
  api?: 'ollama' | 'openai';
  /** OpenAI-compatible only: sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  timeoutMs?: number;
}

export class MemoryModelError extends Error {
  override readonly name = 'MemoryModelError';
}

export interface ModelReply {
  content: string;
  toolCalls: Array<{ name: unknown; arguments: unknown }>;
}

export async function chatOnce(
  options: MemoryModelOptions,
  messages: ReadonlyArray<{ role: 'system' | 'user'; content: string }>,
  request: { tools?: unknown[]; timeoutMs: number },
): Promise<ModelReply> {
  const openai = options.api === 'openai';
  const key = options.apiKey?.trim() ?? '';
  const server = openai ? 'the model server' : 'Ollama';
  let status: number;
  let body: string;
  try {
    const response = await options.http.post({
      url: ollamaUrl(options.baseUrl, openai ? '/chat/completions' : '/api/chat'),
      body: JSON.stringify(
        openai
          ? {
              model: options.model,
              stream: false,
              temperature: 0,
              messages,
              ...(request.tools ? { tools: request.tools } : {}),
            }
          : {
              model: options.model,
              stream: false,
              messages,
              ...(request.tools ? { tools: request.tools } : {}),
              options: { temperature: 0 },
            },
      ),
      ...(openai && key !== '' ? { headers: { Authorization: `Bearer ${key}` } } : {}),
      timeoutMs: options.timeoutMs ?? request.timeoutMs,
    });
    status = response.status;
    body = await readAll(response.body);
  } catch (error) {
    if (error instanceof OllamaTimeoutError) throw new MemoryModelError(error.message);
    const detail = error instanceof Error ? error.message : String(error);
    throw new MemoryModelError(`${server} is not reachable (${detail})`);
  }
  if (status !== 200) {
    throw new MemoryModelError(
      openai ? openAiErrorMessage(status, body) : ollamaErrorMessage(status, body),
    );
  }
  let reply: unknown;
  try {
    reply = JSON.parse(body);
  } catch {
    throw new MemoryModelError(`${server}'s reply was not JSON`);
  }
  type Message = {
    content?: unknown;
    tool_calls?: Array<{ function?: { name?: unknown; arguments?: unknown } }>;
  };
  const message: Message | undefined = openai
    ? (reply as { choices?: Array<{ message?: Message }> } | null)?.choices?.[0]?.message
    : (reply as { message?: Message } | null)?.message;
  const calls = Array.isArray(message?.tool_calls) ? message.tool_calls : [];
  return {
    content: typeof message?.content === 'string' ? message.content : '',
    toolCalls: calls.map((call) => ({
      name: call?.function?.name,
      arguments: call?.function?.arguments,
    })),
  };
}
