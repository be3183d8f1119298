/**
 * A clipped link's summary (docs/memory-digest-calendar.md, saved links) from the configured
 * model (Ollama or an OpenAI-compatible server): two or three sentences from the page's own
 * text, written on top of the clipped note after it is saved. Throws `MemoryModelError` with
 * the reason when there is none; the note then stays without a summary and says why.
 */
import { chatOnce, MemoryModelError } from './memory-model';
import type { MemoryModelOptions } from './memory-model';

export const DEFAULT_LINK_SUMMARY_TIMEOUT_MS = 60_000;
/** The page text the model reads at most: the start of a long page says what it is about. */
export const LINK_SUMMARY_INPUT_CHARS = 12_000;
/** A summary longer than this is cut: it sits on top of the note, not instead of it. */
export const LINK_SUMMARY_MAX_CHARS = 1_000;

const SYSTEM_PROMPT =
  'Summarise the web page below in two or three plain sentences: what it is and what it says. Use only the page text; no lists, no headings, no links.';

export async function summarizeLinkWithModel(
  options: MemoryModelOptions,
  page: { title: string; text: string },
): Promise<string> {
  const reply = await chatOnce(
    options,
    [
      { role: 'system', content: SYSTEM_PROMPT },
      {
        role: 'user',
        content: `Title: ${page.title}\n\n${page.text.slice(0, LINK_SUMMARY_INPUT_CHARS)}`,
      },
    ],
    { timeoutMs: DEFAULT_LINK_SUMMARY_TIMEOUT_MS },
  );
  const summary = reply.content.replace(/\s+/g, ' ').trim();
  if (summary === '') throw new MemoryModelError('the model sent no summary');
  return summary.length > LINK_SUMMARY_MAX_CHARS
    ? `${summary.slice(0, LINK_SUMMARY_MAX_CHARS - 1)}…`
    : summary;
}
