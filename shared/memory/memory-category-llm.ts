/**
 * A memory's category from the configured model (Ollama, or an OpenAI-compatible server), by
 * its native tool calling (`tools`, non-streaming; memory-model.ts), as the chat's router asks for tools
 * (shared/chat/ollama-router.ts). The model must call `set_memory_category` once with one of
 * the 11 slugs; anything else (server down, timeout, HTTP error, no call, an unknown category)
 * is a failure with its reason, and the caller falls back to the rules.
 */
import { chatOnce, MemoryModelError } from './memory-model';
import type { MemoryModelOptions } from './memory-model';
import { MEMORY_CATEGORIES, MEMORY_CATEGORY_LABELS, parseMemoryCategory } from './memory-category';
import type { MemoryCategory } from './memory-category';

export const DEFAULT_CATEGORY_TIMEOUT_MS = 20_000;
export const CATEGORY_TOOL_NAME = 'set_memory_category';

/** The model to ask: Ollama, or an OpenAI-compatible server (`api: 'openai'`). */
export type MemoryCategoryModelOptions = MemoryModelOptions;

export type CategoryAnswer = { ok: true; category: MemoryCategory } | { ok: false; reason: string };

/** The one tool offered to the model. */
export function categoryToolSpec(): Record<string, unknown> {
  return {
    type: 'function',
    function: {
      name: CATEGORY_TOOL_NAME,
      description: 'File one remembered item under exactly one category.',
      parameters: {
        type: 'object',
        properties: {
          category: {
            type: 'string',
            enum: [...MEMORY_CATEGORIES],
            description: MEMORY_CATEGORIES.map((c) => `${c} (${MEMORY_CATEGORY_LABELS[c]})`).join(
              ', ',
            ),
          },
        },
        required: ['category'],
      },
    },
  };
}

const SYSTEM_PROMPT = [
  'You file one item a user asked a note-taking app to remember under one category.',
  'websites: a link or site. food: restaurants, dishes, recipes. movies: films and series to watch.',
  'books: things to read. ideas: plans and ideas. places: places to go or been to.',
  'products: things to buy or owned. people: facts about a person. learnings: something learned.',
  'quotes: a quotation. uncategorized: none of these.',
  `Call ${CATEGORY_TOOL_NAME} once.`,
].join('\n');

export async function classifyMemoryWithModel(
  options: MemoryCategoryModelOptions,
  text: string,
): Promise<CategoryAnswer> {
  let reply;
  try {
    reply = await chatOnce(
      options,
      [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: text },
      ],
      { tools: [categoryToolSpec()], timeoutMs: DEFAULT_CATEGORY_TIMEOUT_MS },
    );
  } catch (error) {
    if (error instanceof MemoryModelError) return { ok: false, reason: error.message };
    throw error;
  }
  const calls = reply.toolCalls;
  if (calls.length !== 1) {
    return { ok: false, reason: 'the model did not call set_memory_category once' };
  }
  const fn = calls[0]!;
  if (fn.name !== CATEGORY_TOOL_NAME) {
    return { ok: false, reason: `the model called ${String(fn.name)}, not ${CATEGORY_TOOL_NAME}` };
  }
  // Ollama sends arguments as an object; OpenAI-compatible servers send a JSON string.
  let args: unknown = fn.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return { ok: false, reason: 'the tool arguments were not JSON' };
    }
  }
  const given = (args as { category?: unknown } | null)?.category;
  const category = typeof given === 'string' ? parseMemoryCategory(given) : undefined;
  if (category === undefined) {
    return { ok: false, reason: `the model chose an unknown category (${String(given)})` };
  }
  return { ok: true, category };
}
