import type { UnsupportedClaimPolicy } from '../../shared/protocol/answer-audit';
import type { Passage } from './extractive-answer';

/*
 * Optional phrasing of an answer by a local LLM (docs/search.md: "an LLM may phrase a summary on top
 * when configured, still citing"). The model sees only the retrieved passages, numbered like the
 * citations, and must keep the `[n]` markers. A reply that cites nothing, or cites a number that
 * is not a passage, is refused: an uncited claim is worse than no summary.
 *
 * Environment (read by `summarizerConfigFromEnv`):
 *   CAIRN_OLLAMA_CHAT_MODEL  an Ollama chat model (e.g. llama3.2); unset = no summaries.
 *   CAIRN_OLLAMA_URL         the Ollama server, shared with the embedding provider.
 *   CAIRN_UNSUPPORTED_CLAIMS `mark` (default) or `remove`: what becomes of a phrased claim its
 *                            passages do not support (shared/search/claim-check.ts).
 */

export const DEFAULT_SUMMARY_TIMEOUT_MS = 60_000;

export interface Summarizer {
  /** A short answer to `question` from `passages` only, citing them as `[1]`, `[2]`, … */
  summarize(question: string, passages: readonly Passage[]): Promise<string>;
  /** What becomes of unsupported claims unless a request says; default `mark`. */
  readonly unsupportedClaims?: UnsupportedClaimPolicy;
}

export class SummaryError extends Error {
  override name = 'SummaryError';
}

export interface SummarizerConfig {
  baseUrl: string;
  model: string;
  timeoutMs?: number;
  unsupportedClaims?: UnsupportedClaimPolicy;
}

/** The summarizer the environment asks for, or null when no chat model is configured. */
export function summarizerConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): SummarizerConfig | null {
  const model = (env.CAIRN_OLLAMA_CHAT_MODEL ?? '').trim();
  if (model === '') return null;
  const baseUrl = (env.CAIRN_OLLAMA_URL ?? '').trim() || 'http://127.0.0.1:11434';
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new Error(`CAIRN_OLLAMA_URL must be an http(s) URL, got "${baseUrl}"`);
  }
  const policy = (env.CAIRN_UNSUPPORTED_CLAIMS ?? '').trim() || 'mark';
  if (policy !== 'mark' && policy !== 'remove') {
    throw new Error(`CAIRN_UNSUPPORTED_CLAIMS must be "mark" or "remove", got "${policy}"`);
  }
  return { baseUrl, model, unsupportedClaims: policy };
}

const SYSTEM_PROMPT = [
  'You answer questions about the user’s notes using ONLY the numbered passages given.',
  'Write two to four plain sentences. End every sentence with the marker of the passage it',
  'comes from, like [1] or [2][3]. Do not add facts that are not in the passages. If the',
  'passages do not answer the question, say that the notes do not answer it.',
].join(' ');

export class OllamaSummarizer implements Summarizer {
  private readonly baseUrl: string;
  readonly unsupportedClaims: UnsupportedClaimPolicy;

  constructor(
    private readonly config: SummarizerConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    this.unsupportedClaims = config.unsupportedClaims ?? 'mark';
  }

  async summarize(question: string, passages: readonly Passage[]): Promise<string> {
    const context = passages
      .map((passage, i) => `[${i + 1}] (${passage.citation.title}) ${passage.text}`)
      .join('\n');
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: this.config.model,
          stream: false,
          options: { temperature: 0 },
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: `Passages:\n${context}\n\nQuestion: ${question}` },
          ],
        }),
        signal: AbortSignal.timeout(this.config.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS),
      });
    } catch (error) {
      throw new SummaryError(
        `Ollama at ${this.baseUrl} is unreachable (${(error as Error).message})`,
      );
    }
    if (!response.ok) {
      throw new SummaryError(
        `Ollama answered HTTP ${response.status} for model "${this.config.model}"`,
      );
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new SummaryError('Ollama sent a reply that is not JSON');
    }
    const content = (body as { message?: { content?: unknown } } | null)?.message?.content;
    if (typeof content !== 'string' || content.trim() === '') {
      throw new SummaryError('Ollama’s reply holds no answer text');
    }
    return checkCitations(content.trim(), passages.length);
  }
}

/** The summary if every `[n]` names a passage and there is at least one; otherwise an error. */
export function checkCitations(summary: string, passageCount: number): string {
  const markers = [...summary.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
  if (markers.length === 0) throw new SummaryError('the summary cites no passage');
  const wrong = markers.find((n) => n < 1 || n > passageCount);
  if (wrong !== undefined) {
    throw new SummaryError(`the summary cites [${wrong}], but there are ${passageCount} passages`);
  }
  return summary;
}
