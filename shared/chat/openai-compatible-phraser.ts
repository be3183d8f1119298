/**
 * Phrases an answer with any OpenAI-compatible server (LM Studio, llama.cpp's llama-server,
 * vLLM, LocalAI, Jan): `POST {baseUrl}/chat/completions` with `stream: true`, which answers in
 * server-sent events, one `data: {…}` line per chunk with the text in `choices[0].delta.content`,
 * ending with `data: [DONE]`. The prompt is the Ollama phraser's: numbered passages, cite them.
 * The base URL includes the API prefix (`http://127.0.0.1:1234/v1`), as these servers document it.
 */
import type { Citation } from '../protocol/citation';
import { lines, ollamaUrl, readAll, type OllamaHttp } from './ollama-http';
import { DEFAULT_PHRASING_TIMEOUT_MS, PHRASING_SYSTEM_PROMPT, userPrompt } from './ollama-phraser';
import type { AbortSignalLike, AnswerPhraser } from './ports';

export interface OpenAiCompatiblePhraserOptions {
  http: OllamaHttp;
  /** e.g. `http://127.0.0.1:1234/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …` when set; most local servers need none. */
  apiKey?: string;
  timeoutMs?: number;
}

export class OpenAiCompatiblePhraser implements AnswerPhraser {
  constructor(private readonly options: OpenAiCompatiblePhraserOptions) {}

  async *phrase(request: {
    question: string;
    passages: Citation[];
    signal?: AbortSignalLike;
  }): AsyncGenerator<string> {
    const key = this.options.apiKey?.trim() ?? '';
    const response = await this.options.http.post({
      url: ollamaUrl(this.options.baseUrl, '/chat/completions'),
      body: JSON.stringify({
        model: this.options.model,
        stream: true,
        temperature: 0.2,
        messages: [
          { role: 'system', content: PHRASING_SYSTEM_PROMPT },
          { role: 'user', content: userPrompt(request.question, request.passages) },
        ],
      }),
      ...(key !== '' ? { headers: { Authorization: `Bearer ${key}` } } : {}),
      timeoutMs: this.options.timeoutMs ?? DEFAULT_PHRASING_TIMEOUT_MS,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    if (response.status !== 200) {
      throw new Error(openAiErrorMessage(response.status, await readAll(response.body)));
    }
    for await (const line of lines(response.body)) {
      // SSE: comments (": keep-alive") and other fields (event:, id:) carry no text.
      if (!line.startsWith('data:')) continue;
      const data = line.slice('data:'.length).trim();
      if (data === '[DONE]') return;
      let chunk: {
        choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[];
        error?: { message?: unknown };
      };
      try {
        chunk = JSON.parse(data) as typeof chunk;
      } catch {
        throw new Error('the model server sent an event that is not JSON');
      }
      if (typeof chunk.error?.message === 'string')
        throw new Error(`the model server: ${chunk.error.message}`);
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content !== '') yield content;
    }
    throw new Error('the model server ended the answer early (no [DONE])');
  }
}

/** The server's `{ "error": { "message" } }` (OpenAI's envelope), else the start of the body. */
export function openAiErrorMessage(status: number, text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
    if (typeof message === 'string') return `The model server answered ${status}: ${message}`;
  } catch {
    // Not JSON: fall through to the raw text.
  }
  const snippet = text.trim().slice(0, 200);
  return snippet === ''
    ? `The model server answered ${status}`
    : `The model server answered ${status}: ${snippet}`;
}
