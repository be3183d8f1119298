/*
 * The Netscape bookmark file every browser exports (Firefox, Chrome, Edge, Safari): a <DL> tree
 * of <DT><H3>folder</H3> and <DT><A HREF=…>title</A>, one tag per line as browsers write it.
 * Read line by line so an error names its line; nothing is imported from a file with one.
 */

export interface Bookmark {
  readonly url: string;
  readonly title: string;
  /** The folders it sits in, outermost first (e.g. ["Bookmarks bar", "Recipes"]). */
  readonly folders: readonly string[];
  /** ADD_DATE as epoch ms, when given. */
  readonly added?: number;
  /** Firefox's TAGS attribute, split at commas. */
  readonly tags: readonly string[];
  /** The <DD> description after it (Firefox), when given. */
  readonly description?: string;
  /** 1-based line of its <A>. */
  readonly line: number;
}

export class ImportParseError extends Error {
  override name = 'ImportParseError';
  readonly code = 'VALIDATION_ERROR';
  constructor(
    readonly file: string,
    readonly line: number,
    problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
  }
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  '#39': "'",
  apos: "'",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+|#39);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#') && lower !== '#39')
      return String.fromCodePoint(Number(lower.slice(1)));
    return ENTITIES[lower] ?? whole;
  });
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  if (match === null) return undefined;
  return decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
}

/** Every bookmark of a Netscape bookmark file, in file order; throws ImportParseError. */
export function parseBookmarks(file: string, text: string): Bookmark[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!/<!DOCTYPE\s+NETSCAPE-Bookmark-file-1>/i.test(lines.slice(0, 5).join('\n'))) {
    throw new ImportParseError(
      file,
      1,
      'not a browser bookmark export (no <!DOCTYPE NETSCAPE-Bookmark-file-1>)',
    );
  }
  const bookmarks: Bookmark[] = [];
  const folders: string[] = [];
  let pendingFolder: string | undefined;
  let depth = 0;
  let last: { index: number } | undefined;
  lines.forEach((raw, index) => {
    const line = index + 1;
    const text = raw.trim();
    const folder = /<DT><H3\b[^>]*>([^]*?)<\/H3>/i.exec(text);
    if (folder) {
      pendingFolder = decodeEntities(folder[1] ?? '').trim();
      return;
    }
    if (/^<DL\b/i.test(text)) {
      depth++;
      // The top <DL> holds the file's bookmarks; each later one is the folder named just before.
      if (depth > 1) folders.push(pendingFolder ?? '');
      pendingFolder = undefined;
      return;
    }
    if (/^<\/DL>/i.test(text)) {
      if (depth === 0) throw new ImportParseError(file, line, '</DL> closes no list');
      if (depth > 1) folders.pop();
      depth--;
      return;
    }
    const link = /<DT><A\b([^>]*)>([^]*?)<\/A>/i.exec(text);
    if (link) {
      const tag = `<A${link[1] ?? ''}>`;
      const url = attribute(tag, 'HREF');
      if (url === undefined || url === '') {
        throw new ImportParseError(file, line, 'bookmark without HREF');
      }
      const added = attribute(tag, 'ADD_DATE');
      const tags = (attribute(tag, 'TAGS') ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      const title = decodeEntities((link[2] ?? '').replace(/<[^>]*>/g, '')).trim();
      if (added !== undefined && !/^\d+$/.test(added)) {
        throw new ImportParseError(file, line, `ADD_DATE "${added}" is not a number of seconds`);
      }
      bookmarks.push({
        url,
        title: title === '' ? url : title,
        folders: [...folders].filter((f) => f !== ''),
        ...(added === undefined ? {} : { added: Number(added) * 1000 }),
        tags,
        line,
      });
      last = { index: bookmarks.length - 1 };
      return;
    }
    if (/^<DT><A\b/i.test(text))
      throw new ImportParseError(file, line, '<A> without </A> on its line');
    const description = /^<DD>([^]*)$/i.exec(text);
    if (description && last !== undefined) {
      const previous = bookmarks[last.index] as Bookmark;
      bookmarks[last.index] = {
        ...previous,
        description: decodeEntities(description[1] ?? '').trim(),
      };
    }
  });
  if (depth !== 0)
    throw new ImportParseError(file, lines.length, `${depth} <DL> list(s) not closed`);
  return bookmarks;
}
