/**
 * The chat's memory tools (docs/memory-digest-calendar.md): `remember`, `forget`, `recall`, and the memory citations
 * an answer leads with. Kept apart from chat-engine.ts so the engine only dispatches to them.
 */
import { MEMORY_CATEGORY_LABELS } from '../memory/memory-category';
import { normaliseFact, rankMemories, recallMemories } from '../memory/memory-file';
import type { NoteCitation } from '../protocol/citation';
import type { MemoryCreated, MemoryItem } from '../protocol/memories';
import { ChatPortError, type MemoryStore } from './ports';
import type { ForgetArgs, RecallArgs, RememberArgs } from './tool-schemas';

/** An answer cites at most this many memories ahead of the vault's passages. */
export const ANSWER_MEMORY_LIMIT = 3;

export interface RememberedData {
  memory: MemoryCreated;
  undo: { kind: 'forget_memory'; id: string; path: string };
}
export interface ForgottenData {
  memory: MemoryItem;
  undo: { kind: 'remember_memory'; text: string; path: string };
}
export interface RecalledData {
  query: string;
  memories: MemoryItem[];
}

export async function rememberFact(
  store: MemoryStore,
  args: RememberArgs,
): Promise<{ text: string; data: RememberedData; citations: NoteCitation[] }> {
  const memory = await store.remember(args.text);
  const replaced =
    memory.replaced.length === 0
      ? ''
      : ` It replaces what I had before (${memory.replaced.map((id) => `^${id}`).join(', ')}, struck through in ${memory.path}).`;
  const text = memory.deduplicated
    ? `I already remember that: "${memory.text}" [1].`
    : `I'll remember that: "${memory.text}" [1].${replaced}`;
  return {
    text,
    data: { memory, undo: { kind: 'forget_memory', id: memory.id, path: memory.path } },
    citations: [memoryCitation(memory)],
  };
}

export async function forgetFact(
  store: MemoryStore,
  args: ForgetArgs,
): Promise<{ text: string; data: ForgottenData }> {
  const target = resolveMemory(await store.list(), args.memory);
  const memory = await store.forget(target.id);
  return {
    text: `Forgotten: "${memory.text}" (removed from ${memory.path}).`,
    data: { memory, undo: { kind: 'remember_memory', text: memory.text, path: memory.path } },
  };
}

export async function recallFacts(
  store: MemoryStore,
  args: RecallArgs,
): Promise<{ text: string; data: RecalledData; citations: NoteCitation[] }> {
  const query = args.query ?? '';
  const inCategory = (await store.list()).filter(
    (memory) => args.category === undefined || memory.category === args.category,
  );
  const memories = recallMemories(inCategory, query);
  const data = { query, memories };
  const under =
    args.category === undefined ? '' : ` under ${MEMORY_CATEGORY_LABELS[args.category]}`;
  if (memories.length === 0) {
    const about = query === '' ? '' : ` about "${query}"`;
    return { text: `I don't remember anything${about}${under} yet.`, data, citations: [] };
  }
  const lines = memories.map((memory, index) => `- ${memory.text} [${index + 1}]`);
  return {
    text: `Here is what I remember${query === '' ? '' : ` about ${query}`}${under}:\n${lines.join('\n')}`,
    data,
    citations: memories.map((memory) => memoryCitation(memory)),
  };
}

/** Memories relevant to a question, as citations to lead an answer with (best first). */
export async function memoriesForAnswer(
  store: MemoryStore,
  question: string,
): Promise<MemoryItem[]> {
  return recallMemories(await store.list(), question).slice(0, ANSWER_MEMORY_LIMIT);
}

/** A memory cited like any note line: its file and its one line. */
export function memoryCitation(memory: MemoryItem): NoteCitation {
  return {
    type: 'note',
    path: memory.path,
    title: 'Memory',
    lines: [memory.line, memory.line],
    excerpt: memory.text,
    // The user's own statement about themselves: nothing in the vault outranks it.
    score: 1,
  };
}

/**
 * The memory a "forget …" names: its id (`m-7k2p`), the same words, or the one fact sharing
 * the most words with them. Several equally good matches are a CONFLICT naming them.
 */
export function resolveMemory(memories: readonly MemoryItem[], words: string): MemoryItem {
  const id = /^\^?(m-[A-Za-z0-9-]+)$/.exec(words.trim());
  if (id) {
    const byId = memories.find((memory) => memory.id === id[1]);
    if (byId) return byId;
    throw new ChatPortError('NOT_FOUND', `no memory ^${id[1]}`, 'memory');
  }
  const same = memories.find((memory) => normaliseFact(memory.text) === normaliseFact(words));
  if (same) return same;
  const matches = recallMemories(memories, words);
  if (matches.length === 0) {
    throw new ChatPortError('NOT_FOUND', `I don't remember anything about "${words}"`, 'memory');
  }
  if (matches.length > 1) {
    const listed = matches
      .slice(0, 5)
      .map((memory) => `"${memory.text}" (${memory.id})`)
      .join(', ');
    throw new ChatPortError(
      'CONFLICT',
      `"${words}" matches several memories: ${listed}; say which (by its words or id)`,
      'memory',
    );
  }
  return matches[0]!;
}

/**
 * The memory a "remind me about …" names: its id, the same words, or the one fact sharing the
 * most words with them ("the pizza place" → "Great pizza at Mario's on Main St"). Unlike
 * `resolveMemory`, a fact that shares strictly more words than any other wins; a tie at the top
 * is a CONFLICT naming them, no shared word a NOT_FOUND.
 */
export function pickMemory(memories: readonly MemoryItem[], words: string): MemoryItem {
  const id = /^\^?(m-[A-Za-z0-9-]+)$/i.exec(words.trim());
  if (id) {
    const wanted = id[1]!.toLowerCase();
    const byId = memories.find((memory) => memory.id.toLowerCase() === wanted);
    if (byId) return byId;
    throw new ChatPortError('NOT_FOUND', `no memory ^${id[1]}`, 'memory');
  }
  const same = memories.find((memory) => normaliseFact(memory.text) === normaliseFact(words));
  if (same) return same;
  const ranked = rankMemories(memories, words);
  const [best, second] = ranked;
  if (best === undefined) {
    throw new ChatPortError('NOT_FOUND', `I don't remember anything about "${words}"`, 'memory');
  }
  if (second !== undefined && second.hits === best.hits) {
    const listed = ranked
      .filter((entry) => entry.hits === best.hits)
      .slice(0, 5)
      .map((entry) => `"${entry.memory.text}" (${entry.memory.id})`)
      .join(', ');
    throw new ChatPortError(
      'CONFLICT',
      `"${words}" matches several memories: ${listed}; say which (by its id)`,
      'memory',
    );
  }
  return best.memory;
}
