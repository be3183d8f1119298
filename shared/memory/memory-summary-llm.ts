/**
 * A few sentences about a week's memories from the configured Ollama chat model, for the weekly
 * digest's "Memories" section (docs/memory-digest-calendar.md). Non-streaming `/api/chat`; any
 * failure throws, and the digest is written without the summary.
 */
import { ollamaErrorMessage, ollamaUrl, readAll } from '../chat/ollama-http';
import { MEMORY_CATEGORY_LABELS } from './memory-category';
import type { MemoryCategory } from './memory-category';
import type { MemoryCategoryModelOptions } from './memory-category-llm';

export const DEFAULT_SUMMARY_TIMEOUT_MS = 60_000;

export async function summarizeMemoriesWithModel(
  options: MemoryCategoryModelOptions,
  groups: ReadonlyArray<{ category: MemoryCategory; memories: ReadonlyArray<{ text: string }> }>,
): Promise<string> {
  const listed = groups
    .map(
      (group) =>
        `${MEMORY_CATEGORY_LABELS[group.category]}:\n${group.memories.map((m) => `- ${m.text}`).join('\n')}`,
    )
    .join('\n\n');
  const response = await options.http.post({
    url: ollamaUrl(options.baseUrl, '/api/chat'),
    body: JSON.stringify({
      model: options.model,
      stream: false,
      messages: [
        {
          role: 'system',
          content:
            'Summarise in two or three plain sentences what the user saved to remember this week. Use only the items given; no lists, no headings.',
        },
        { role: 'user', content: listed },
      ],
      options: { temperature: 0 },
    }),
    timeoutMs: options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
  });
  const body = await readAll(response.body);
  if (response.status !== 200) throw new Error(ollamaErrorMessage(response.status, body));
  const content = (JSON.parse(body) as { message?: { content?: unknown } }).message?.content;
  if (typeof content !== 'string' || content.trim() === '') {
    throw new Error('the model sent no summary');
  }
  return content.trim().slice(0, 1_000);
}
