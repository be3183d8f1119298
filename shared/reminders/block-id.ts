/**
 * Obsidian block ids (`^r-7k2p` at the end of a line): an inline reminder's identity and deep
 * link (`obsidian://open?…#^r-7k2p`). Obsidian allows letters, digits and `-` in a block id; it
 * must be separated from the text before it by whitespace (or start the line) and end the line.
 */

/** A block id at the end of a line; group 1 is the id without `^`. */
const TRAILING_BLOCK_ID = /(?:^|\s)\^([A-Za-z0-9-]+)\s*$/;

export const BLOCK_ID_PREFIX = 'r-';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const ATTEMPTS_PER_LENGTH = 64;

export interface LineBlockId {
  /** Without the caret, e.g. `r-7k2p`. */
  id: string;
  /** Line-relative offset of `^`. */
  from: number;
  /** Line-relative offset just past the id. */
  to: number;
}

/** The block id ending `line`, if any. */
export function findBlockId(line: string): LineBlockId | undefined {
  const match = TRAILING_BLOCK_ID.exec(line);
  if (!match) return undefined;
  const id = match[1]!;
  const from = match.index + match[0].indexOf('^');
  return { id, from, to: from + 1 + id.length };
}

/**
 * Every block id ending a line of `text` (without the caret), to pass to {@link newBlockId} as
 * `taken`: block ids must be unique within a note.
 */
export function findBlockIds(text: string): Set<string> {
  const ids = new Set<string>();
  if (typeof text !== 'string' || !text.includes('^')) return ids;
  for (const line of text.split('\n')) {
    const found = line.includes('^') ? findBlockId(line.replace(/\r$/, '')) : undefined;
    if (found !== undefined) ids.add(found.id);
  }
  return ids;
}

/**
 * A new block id `^r-` + 4 base36 characters, not in `taken` (which may hold ids with or
 * without the caret). `random` returns numbers in [0, 1) like Math.random; it is injected so
 * tests are deterministic. If 4 characters keep colliding the id grows, and a broken `random`
 * (constant, NaN) still ends with a counter, so this always returns.
 */
export function newBlockId(
  random: () => number,
  taken: ReadonlySet<string>,
  /** `r-` for reminders; memories (shared/memory) use `m-`. */
  prefix: string = BLOCK_ID_PREFIX,
): string {
  const isTaken = (id: string) => taken.has(id) || taken.has(id.slice(1));
  for (let length = 4; length <= 8; length++) {
    for (let attempt = 0; attempt < ATTEMPTS_PER_LENGTH; attempt++) {
      let suffix = '';
      for (let index = 0; index < length; index++) suffix += BASE36[randomIndex(random)];
      const id = `^${prefix}${suffix}`;
      if (!isTaken(id)) return id;
    }
  }
  for (let counter = 0; ; counter++) {
    const id = `^${prefix}${counter.toString(36).padStart(4, '0')}`;
    if (!isTaken(id)) return id;
  }
}

function randomIndex(random: () => number): number {
  const value = random();
  if (!Number.isFinite(value)) return 0;
  return Math.min(BASE36.length - 1, Math.max(0, Math.floor(value * BASE36.length)));
}
