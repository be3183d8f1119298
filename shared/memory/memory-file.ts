/**
 * `Cairn/Memory.md` (docs/memory-digest-calendar.md): personal facts, one list item per fact, e.g.
 *
 *     - Passport expires 2031-05 (added 2026-11-25) ^m-7k2p
 *
 * The file is the truth and the user may edit it by hand, so reading is forgiving (odd lines
 * become problems naming their line, never errors that hide the rest) and writing touches only
 * the lines it owns: adding appends one line, replacing strikes the old line through and says
 * by what, forgetting removes exactly the one line. Everything else stays byte for byte.
 */
import { locateFrontMatter } from '../markdown/front-matter-fence';
import { findBlockId, findBlockIds, newBlockId } from '../reminders/block-id';
import type { MemoryItem } from '../protocol/memories';
import {
  categoryTag,
  classifyMemoryByRules,
  splitCategoryTag,
  type MemoryCategory,
} from './memory-category';

export const MEMORY_PATH = 'Cairn/Memory.md';
export const MEMORY_BLOCK_PREFIX = 'm-';
/** A fact longer than this is not a fact; it is reported and not consulted. */
export const MEMORY_TEXT_MAX_CHARS = 1000;

export interface Memory {
  /** Block id without the caret, e.g. `m-7k2p`. */
  id: string;
  text: string;
  /** `YYYY-MM-DD` from `(added …)`, or null when the user wrote the line without it. */
  added: string | null;
  /** 1-based file line, counting front matter. */
  line: number;
  /** Its `#memory/<category>` tag, or the rules' guess for a line without one. */
  category: MemoryCategory;
  /** `tag`: written in the file (by Cairn or by hand); `rules`: no tag, guessed when read. */
  categorySource: 'tag' | 'rules';
}

export interface ReplacedMemory extends Memory {
  /** Block id of the fact that replaced it, when the line says. */
  replacedBy: string | null;
}

export type MemoryProblemKind = 'no-block-id' | 'empty' | 'too-long';

export interface MemoryProblem {
  line: number;
  kind: MemoryProblemKind;
  message: string;
}

export interface MemoryFile {
  /** Current facts, in file order. */
  memories: Memory[];
  /** Struck-through facts kept for the record. */
  replaced: ReplacedMemory[];
  problems: MemoryProblem[];
}

const LIST_ITEM = /^\s*[-*+]\s+(?:\[[ xX]\]\s+)?(.*)$/;
const ADDED = /\s*\(added (\d{4}-\d{2}-\d{2})\)\s*$/;
const STRUCK = /^~~([\s\S]*)~~\s*(?:\(replaced (\d{4}-\d{2}-\d{2}) by \^([A-Za-z0-9-]+)\))?\s*$/;

/** Reads the facts of a memory file's text; never throws. */
export function parseMemoryFile(text: string): MemoryFile {
  const result: MemoryFile = { memories: [], replaced: [], problems: [] };
  const lines = text.split('\n');
  const fence = locateFrontMatter(text);
  const first = fence ? fence.bodyStartLine - 1 : 0;
  let inCode = false;
  for (let index = first; index < lines.length; index++) {
    const raw = lines[index]!.replace(/\r$/, '');
    if (/^\s*(```|~~~)/.test(raw)) inCode = !inCode;
    if (inCode) continue;
    const item = LIST_ITEM.exec(raw);
    if (!item) continue;
    const lineNumber = index + 1;
    const problem = (kind: MemoryProblemKind, message: string) =>
      result.problems.push({
        line: lineNumber,
        kind,
        message: `${MEMORY_PATH}:${lineNumber}: ${message}`,
      });
    if (raw.length > MEMORY_TEXT_MAX_CHARS + 40) {
      problem(
        'too-long',
        `the list item is ${raw.length} characters (at most ${MEMORY_TEXT_MAX_CHARS}); it is not used as a memory`,
      );
      continue;
    }
    let body = item[1]!;
    const block = findBlockId(body);
    if (block) body = body.slice(0, block.from);
    const struck = STRUCK.exec(body.trim());
    const fact = parseFact(struck ? struck[1]! : body);
    if (fact.text === '') {
      problem('empty', 'the list item has no text; it is not used as a memory');
      continue;
    }
    if (!block) {
      problem(
        'no-block-id',
        `"${clip(fact.text)}" has no block id (^m-xxxx); it is not used until one is added (or write it again through Cairn)`,
      );
      continue;
    }
    const memory: Memory = {
      id: block.id,
      text: fact.text,
      added: fact.added,
      line: lineNumber,
      category: fact.tagged ?? classifyMemoryByRules(fact.text),
      categorySource: fact.tagged === null ? 'rules' : 'tag',
    };
    if (struck) result.replaced.push({ ...memory, replacedBy: struck[3] ?? null });
    else result.memories.push(memory);
  }
  return result;
}

function parseFact(body: string): {
  text: string;
  added: string | null;
  tagged: MemoryCategory | null;
} {
  const added = ADDED.exec(body);
  const words = (added ? body.slice(0, added.index) : body).replace(/\s+/g, ' ').trim();
  const { text, tagged } = splitCategoryTag(words);
  return { text, added: added ? added[1]! : null, tagged };
}

/** ` #memory/food` for a tagged fact, nothing for one the rules place when read. */
function tagSuffix(memory: Pick<Memory, 'category' | 'categorySource'>): string {
  return memory.categorySource === 'tag' ? ` ${categoryTag(memory.category)}` : '';
}

/** A new memory file holding no facts yet. */
export function emptyMemoryFile(): string {
  return '---\ntype: memory\n---\n# Memory\n\nFacts Cairn remembers about you. Edit freely: one list item per fact.\n\n';
}

export interface AddMemoryResult {
  text: string;
  memory: Memory;
  /** Earlier facts this one replaced (now struck through). */
  replaced: Memory[];
  /** The same fact was already there: nothing written, that one returned. */
  duplicate: boolean;
}

export class MemoryInputError extends Error {
  override readonly name = 'MemoryInputError';
  constructor(
    readonly code: 'VALIDATION_ERROR' | 'NOT_FOUND',
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Normalises a fact as the user said it: one line, trimmed, no trailing period. */
export function cleanFact(text: string): string {
  const clean = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!]+$/, '')
    .trim();
  if (clean === '') throw new MemoryInputError('VALIDATION_ERROR', 'the fact is empty', 'text');
  if (clean.length > MEMORY_TEXT_MAX_CHARS) {
    throw new MemoryInputError(
      'VALIDATION_ERROR',
      `the fact is ${clean.length} characters (at most ${MEMORY_TEXT_MAX_CHARS})`,
      'text',
    );
  }
  if (/\^[A-Za-z0-9-]+$/.test(clean) || clean.includes('~~')) {
    throw new MemoryInputError(
      'VALIDATION_ERROR',
      'the fact may not end in a block id or contain "~~"',
      'text',
    );
  }
  return clean;
}

/**
 * Appends `fact` to the file text (or a new file when `current` is undefined), dated `today`
 * (`YYYY-MM-DD`). A fact already there (same words) is a duplicate: nothing changes. Facts it
 * contradicts (same subject, see {@link sameSubject}) are struck through with
 * `(replaced <today> by ^m-new)`, never deleted.
 */
export function addMemory(
  current: string | undefined,
  fact: string,
  today: string,
  random: () => number,
  /**
   * The tag to write: a category, `null` for none yet (the LLM's answer comes later), or
   * `'rules'` (default) for the rule classifier's. A `#memory/…` tag in `fact` itself wins.
   */
  category: MemoryCategory | null | 'rules' = 'rules',
): AddMemoryResult {
  const split = splitCategoryTag(cleanFact(fact));
  const clean = cleanFact(split.text);
  const chosen = split.tagged ?? (category === 'rules' ? classifyMemoryByRules(clean) : category);
  let text = current ?? emptyMemoryFile();
  const parsed = parseMemoryFile(text);
  const same = parsed.memories.find(
    (memory) => normaliseFact(memory.text) === normaliseFact(clean),
  );
  if (same) return { text, memory: same, replaced: [], duplicate: true };

  const id = newBlockId(random, findBlockIds(text), MEMORY_BLOCK_PREFIX).slice(1);
  const contradicted = parsed.memories.filter((memory) => sameSubject(memory.text, clean));
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split('\n');
  for (const old of contradicted) {
    const index = old.line - 1;
    const cr = lines[index]!.endsWith('\r') ? '\r' : '';
    const raw = lines[index]!.replace(/\r$/, '');
    const item = LIST_ITEM.exec(raw)!;
    const marker = raw.slice(0, raw.length - item[1]!.length);
    const added = old.added ? ` (added ${old.added})` : '';
    lines[index] =
      `${marker}~~${old.text}${tagSuffix(old)}${added}~~ (replaced ${today} by ^${id}) ^${old.id}${cr}`;
  }
  text = lines.join('\n');
  if (text !== '' && !text.endsWith('\n')) text += eol;
  const memory: Memory = {
    id,
    text: clean,
    added: today,
    line: 0,
    category: chosen ?? classifyMemoryByRules(clean),
    categorySource: chosen === null ? 'rules' : 'tag',
  };
  text += `- ${clean}${tagSuffix(memory)} (added ${today}) ^${id}${eol}`;
  memory.line = text.split('\n').length - 1;
  return { text, memory, replaced: contradicted, duplicate: false };
}

/**
 * Tags memory `id` with `category`. With `onlyIfUntagged` (the LLM's late answer) a line that
 * has a tag by now (the user chose one meanwhile) is left alone: `changed` is false then.
 * @throws MemoryInputError NOT_FOUND when no current fact carries that id.
 */
export function setMemoryCategory(
  current: string,
  id: string,
  category: MemoryCategory,
  options: { onlyIfUntagged?: boolean } = {},
): { text: string; memory: Memory; changed: boolean } {
  const found = parseMemoryFile(current).memories.find((memory) => memory.id === id);
  if (!found) throw new MemoryInputError('NOT_FOUND', `no memory ^${id} in ${MEMORY_PATH}`, 'id');
  if (
    (options.onlyIfUntagged === true && found.categorySource === 'tag') ||
    (found.categorySource === 'tag' && found.category === category)
  ) {
    return { text: current, memory: found, changed: false };
  }
  const lines = current.split('\n');
  const index = found.line - 1;
  const cr = lines[index]!.endsWith('\r') ? '\r' : '';
  const raw = lines[index]!.replace(/\r$/, '');
  const item = LIST_ITEM.exec(raw)!;
  const marker = raw.slice(0, raw.length - item[1]!.length);
  const memory: Memory = { ...found, category, categorySource: 'tag' };
  const added = found.added ? ` (added ${found.added})` : '';
  lines[index] = `${marker}${found.text}${tagSuffix(memory)}${added} ^${found.id}${cr}`;
  return { text: lines.join('\n'), memory, changed: true };
}

/**
 * Removes the one line holding memory `id` (current or replaced); everything else is kept.
 * @throws MemoryInputError NOT_FOUND when no line carries that id.
 */
export function removeMemory(current: string, id: string): { text: string; removed: Memory } {
  const parsed = parseMemoryFile(current);
  const found = [...parsed.memories, ...parsed.replaced].find((memory) => memory.id === id);
  if (!found) throw new MemoryInputError('NOT_FOUND', `no memory ^${id} in ${MEMORY_PATH}`, 'id');
  const lines = current.split('\n');
  lines.splice(found.line - 1, 1);
  return { text: lines.join('\n'), removed: found };
}

const STOP_WORDS = new Set(
  'a an the my our i me is are was were am be to of in on at for and or that this it its by with from as'.split(
    ' ',
  ),
);
/** Verbs that split "subject verb value" in short facts ("my dentist is Dr Lee"). */
const LINKING = /\b(?:is|are|was|were|expires?|lives?|works?|costs?|lasts?|starts?|ends?|=)\b/i;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
    .split(/\s+/)
    .filter((word) => word !== '' && !STOP_WORDS.has(word));
}

/** Case, spacing and punctuation folded: two facts equal here are the same fact. */
export function normaliseFact(text: string): string {
  return words(text).join(' ');
}

/**
 * Whether two facts are about the same thing with different values, so the newer replaces the
 * older: their words are equal once numbers and dates are left out ("passport expires 2031" vs
 * "…2032"), or both read "<subject> is/expires/lives … <value>" with the same subject.
 */
export function sameSubject(older: string, newer: string): boolean {
  if (normaliseFact(older) === normaliseFact(newer)) return false;
  const withoutNumbers = (text: string) =>
    words(text)
      .filter((word) => !/\d/.test(word))
      .join(' ');
  const a = withoutNumbers(older);
  if (a !== '' && a === withoutNumbers(newer)) return true;
  const subject = (text: string) => {
    const match = LINKING.exec(text);
    if (!match) return '';
    const before = words(text.slice(0, match.index));
    return before.length === 0 ? '' : `${before.join(' ')} ${match[0].toLowerCase()}`;
  };
  const left = subject(older);
  return left !== '' && left === subject(newer);
}

/** Memories whose words overlap the query's, best first (all of them for an empty query). */
export function recallMemories<M extends Pick<Memory, 'text' | 'line'>>(
  memories: readonly M[],
  query: string,
): M[] {
  if (words(query).length === 0) return [...memories];
  return rankMemories(memories, query).map((entry) => entry.memory);
}

/** Memories sharing words with the query, with how many, best first (none for no words). */
export function rankMemories<M extends Pick<Memory, 'text' | 'line'>>(
  memories: readonly M[],
  query: string,
): Array<{ memory: M; hits: number }> {
  const wanted = new Set(words(query).map(stem));
  if (wanted.size === 0) return [];
  return memories
    .map((memory) => ({
      memory,
      hits: words(memory.text).filter((word) => wanted.has(stem(word))).length,
    }))
    .filter((entry) => entry.hits > 0)
    .sort((a, b) => b.hits - a.hits || a.memory.line - b.memory.line);
}

/**
 * The body of a reminder made from a memory (docs/memory-digest-calendar.md): the memory's
 * words and a link to its line (`[[Cairn/Memory#^m-7k2p]]`), so the reminder leads back to it.
 */
export function memoryLinkBody(memory: { path: string; id: string; text: string }): string {
  const target = memory.path.replace(/\.md$/, '');
  return `From a memory: [[${target}#^${memory.id}]]\n\n> ${memory.text}\n`;
}

/** Crude plural/verb folding, enough for "passports" ~ "passport", "expires" ~ "expire". */
function stem(word: string): string {
  return word.length > 3 ? word.replace(/(?:es|s)$/, '') : word;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** A memory as the API, chat and MCP show it: where it lives, so it can be cited. */
export function toMemoryItem(memory: Memory): MemoryItem {
  return {
    id: memory.id,
    text: memory.text,
    added: memory.added,
    path: MEMORY_PATH,
    line: memory.line,
    category: memory.category,
    category_source: memory.categorySource,
  };
}
