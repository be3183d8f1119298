/**
 * Phrases an answer with Ollama from the retrieved passages only (docs/search.md: an LLM may phrase a
 * summary, still citing). `/api/chat` streams NDJSON; each line's `message.content` is yielded
 * as it arrives. The passages are numbered `[1]…[n]` in the prompt and the model is told to cite
 * them that way; the engine then checks every marker (citation-markers.ts).
 *
 * With images (base64, Ollama's `messages[].images`) the model is a vision model and the question
 * is about the images: the passages, if any, are context it may cite, not the only source.
 */
import type { Citation } from '../protocol/citation';
import { lines, ollamaErrorMessage, ollamaUrl, readAll, type OllamaHttp } from './ollama-http';
import type { AbortSignalLike, AnswerPhraser } from './ports';

/** A whole phrased answer may take this long on a laptop CPU. */
export const DEFAULT_PHRASING_TIMEOUT_MS = 120_000;

export interface OllamaPhraserOptions {
  http: OllamaHttp;
  baseUrl: string;
  model: string;
  timeoutMs?: number;
}

/** How any phrasing model is told to answer: from the numbered passages only, citing them. */
export const PHRASING_SYSTEM_PROMPT = [
  "Answer the question using only the numbered passages from the user's notes.",
  'After each sentence, cite the passages it relies on as [1], [2].',
  'If the passages do not contain the answer, say that the notes do not say.',
  'Be brief. Do not add facts that are not in the passages.',
].join('\n');

const VISION_PROMPT = [
  "Answer the user's question about the attached images.",
  "Numbered passages from the user's notes may follow; where one helps, cite it as [1], [2].",
  'Do not cite passages you did not use. Be brief.',
].join('\n');

export class OllamaPhraser implements AnswerPhraser {
  constructor(private readonly options: OllamaPhraserOptions) {}

  async *phrase(request: {
    question: string;
    passages: Citation[];
    /** Base64 images (no `data:` prefix), for a vision model. */
    images?: readonly string[];
    signal?: AbortSignalLike;
  }): AsyncGenerator<string> {
    const images = request.images ?? [];
    const vision = images.length > 0;
    const content =
      vision && request.passages.length === 0
        ? request.question
        : userPrompt(request.question, request.passages);
    const response = await this.options.http.post({
      url: ollamaUrl(this.options.baseUrl, '/api/chat'),
      body: JSON.stringify({
        model: this.options.model,
        stream: true,
        messages: [
          { role: 'system', content: vision ? VISION_PROMPT : PHRASING_SYSTEM_PROMPT },
          vision ? { role: 'user', content, images } : { role: 'user', content },
        ],
        options: { temperature: 0.2 },
      }),
      timeoutMs: this.options.timeoutMs ?? DEFAULT_PHRASING_TIMEOUT_MS,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    if (response.status !== 200) {
      throw new Error(ollamaErrorMessage(response.status, await readAll(response.body)));
    }
    for await (const line of lines(response.body)) {
      let chunk: { message?: { content?: unknown }; error?: unknown; done?: unknown };
      try {
        chunk = JSON.parse(line) as typeof chunk;
      } catch {
        throw new Error('Ollama sent a line that is not JSON');
      }
      if (typeof chunk.error === 'string') throw new Error(`Ollama: ${chunk.error}`);
      const content = chunk.message?.content;
      if (typeof content === 'string' && content !== '') yield content;
      if (chunk.done === true) return;
    }
    throw new Error('Ollama ended the answer early');
  }
}

/** The passages as the model sees them: number, where from, and the quoted text. */
export function userPrompt(question: string, passages: Citation[]): string {
  const numbered = passages.map((passage, index) => {
    const where =
      passage.type === 'pdf'
        ? `${passage.path}, page ${passage.page}`
        : passage.heading
          ? `${passage.path} > ${passage.heading}`
          : passage.path;
    return `[${index + 1}] ${passage.title} (${where})\n${passage.excerpt}`;
  });
  return `Passages:\n\n${numbered.join('\n\n')}\n\nQuestion: ${question}`;
}
