import { ImportParseError } from './bookmarks';

/*
 * Kindle's `My Clippings.txt`: entries separated by a line of ten `=`, each a title line
 * ("Title (Author)"), a meta line ("- Your Highlight on page 12 | Location 170-172 | Added on
 * Sunday, 3 March 2024 10:15:32"), an empty line and the text. Kindle writes a BOM at the start
 * of the file and often before each title; lines end in CRLF.
 */

export interface Clipping {
  readonly kind: 'highlight' | 'note' | 'bookmark';
  readonly page?: string;
  readonly location?: string;
  /** The "Added on …" text as Kindle wrote it. */
  readonly added?: string;
  readonly text: string;
  /** 1-based line of its title line. */
  readonly line: number;
}

export interface KindleBook {
  readonly title: string;
  readonly author?: string;
  readonly clippings: readonly Clipping[];
}

const SEPARATOR = '==========';

/** The books of a clippings file, in first-seen order; throws ImportParseError naming the line. */
export function parseKindleClippings(file: string, text: string): KindleBook[] {
  const lines = text.split(/\r?\n/).map((line) => line.replace(/^\uFEFF/, ''));
  const books = new Map<string, { title: string; author?: string; clippings: Clipping[] }>();
  let start = 0;
  for (let index = 0; index <= lines.length; index++) {
    const atEnd = index === lines.length;
    if (!atEnd && lines[index]?.trim() !== SEPARATOR) continue;
    const entry = lines.slice(start, index);
    const first = start + 1;
    start = index + 1;
    if (entry.every((line) => line.trim() === '')) continue;
    if (atEnd) throw new ImportParseError(file, first, `entry not ended by a ${SEPARATOR} line`);
    const header = (entry[0] ?? '').trim();
    const meta = (entry[1] ?? '').trim();
    const kind = /^-\s*(?:Your|La tua|Ihre|Votre|Tu)?\s*(Highlight|Note|Bookmark)\b/i.exec(meta);
    if (header === '' || kind === null) {
      throw new ImportParseError(
        file,
        first + 1,
        `expected "- Your Highlight/Note/Bookmark …" after the title, found ${JSON.stringify(meta.slice(0, 60))}`,
      );
    }
    const byAuthor = /^(.*?)\s*\(([^()]*)\)\s*$/.exec(header);
    const title = (byAuthor?.[1] ?? header).trim();
    const author = byAuthor?.[2]?.trim();
    const page = /\bpage\s+([\w-]+)/i.exec(meta)?.[1];
    const location = /\b(?:Location|Loc\.)\s+([\d-]+)/i.exec(meta)?.[1];
    const added = /\|\s*Added on\s+(.+)$/i.exec(meta)?.[1]?.trim();
    const body = entry.slice(2).join('\n').trim();
    const key = `${title}\u0000${author ?? ''}`;
    const book = books.get(key) ?? {
      title,
      ...(author === undefined || author === '' ? {} : { author }),
      clippings: [],
    };
    book.clippings.push({
      kind: (kind[1] ?? 'highlight').toLowerCase() as Clipping['kind'],
      ...(page === undefined ? {} : { page }),
      ...(location === undefined ? {} : { location }),
      ...(added === undefined ? {} : { added }),
      text: body,
      line: first,
    });
    books.set(key, book);
  }
  return [...books.values()];
}
