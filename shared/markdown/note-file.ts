/**
 * Whole note files as Cairn writes them (docs/vault-format.md, "Note created by Cairn"), and appending
 * to a note's body without touching its front matter.
 */
import { BOM, detectLineEnding, locateFrontMatter, withLineEnding } from './front-matter-fence';
import { stringifyNoteFile } from './front-matter';
import { isValidTag, normalizeTag } from './tags';
import { FrontMatterValueError } from './yaml-values';

export interface NewNote {
  id: string;
  title: string;
  tags: readonly string[];
  /** ISO 8601 with offset, e.g. `2026-11-22T10:30:00+01:00`. */
  created: string;
  /** Defaults to `created`. */
  updated?: string;
  /** Where the note came from: `chat`, `command`, `api`, … Left out when undefined. */
  source?: string;
  body: string;
  /** More keys after `source`, in order; they may not repeat the keys above. */
  extra?: ReadonlyArray<readonly [string, unknown]>;
}

const OWN_KEYS = new Set(['id', 'title', 'tags', 'created', 'updated', 'source']);
const ISO_WITH_OFFSET =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * `---`, id, title, tags as `[a, b]`, created, updated, source, extra keys, `---`, body.
 * Throws FrontMatterValueError naming the field for a value that does not belong in a note
 * (a title with a line break, a tag Obsidian would not read, a date without offset, …).
 */
export function buildNoteFile(note: NewNote): string {
  const id = requireLine('id', note.id);
  const title = requireLine('title', note.title);
  const tags = note.tags.map((raw, index) => {
    const tag = normalizeTag(raw);
    if (!isValidTag(tag)) {
      throw new FrontMatterValueError(
        'tags',
        `tags[${index}] ${JSON.stringify(raw)} is not a tag (letters, digits, _ - / and at least one non-digit)`,
      );
    }
    return tag;
  });
  const created = requireTimestamp('created', note.created);
  const updated = note.updated === undefined ? created : requireTimestamp('updated', note.updated);
  const fields: Array<readonly [string, unknown]> = [
    ['id', id],
    ['title', title],
    ['tags', tags],
    ['created', created],
    ['updated', updated],
  ];
  if (note.source !== undefined) fields.push(['source', requireLine('source', note.source)]);
  for (const [key, value] of note.extra ?? []) {
    if (OWN_KEYS.has(key)) {
      throw new FrontMatterValueError(
        key,
        `extra key "${key}" would repeat one of the note's own keys`,
      );
    }
    fields.push([key, value]);
  }
  const body = note.body === '' || note.body.endsWith('\n') ? note.body : `${note.body}\n`;
  return stringifyNoteFile(fields, body);
}

function requireLine(field: string, value: string): string {
  if (typeof value !== 'string') {
    throw new FrontMatterValueError(field, `${field} must be text`);
  }
  const trimmed = value.trim();
  if (trimmed === '') throw new FrontMatterValueError(field, `${field} is empty`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\u2028\u2029]/.test(trimmed)) {
    throw new FrontMatterValueError(field, `${field} must be one line without control characters`);
  }
  return trimmed;
}

function requireTimestamp(field: string, value: string): string {
  if (
    typeof value !== 'string' ||
    !ISO_WITH_OFFSET.test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    throw new FrontMatterValueError(
      field,
      `${field} ${JSON.stringify(value)} is not an ISO 8601 date-time with offset (2026-11-22T10:30:00+01:00)`,
    );
  }
  return value;
}

const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/**
 * `text` with `addition` appended as its own block: one blank line before it (none when the
 * note ends in a list and the addition continues it), a line break after it, line endings
 * matching the file's. Front matter and every existing byte are left as they are; only
 * missing line breaks at the end are added. Leading and trailing blank lines of `addition`
 * are dropped; an addition with no text returns `text` unchanged. Where `---` lines of the
 * addition could create front matter (a file that opens a fence and never closes it, or an
 * empty file), they are written as `***`, the same horizontal rule.
 */
export function appendToNoteBody(text: string, addition: string): string {
  const fence = locateFrontMatter(text);
  const bodyStart = fence?.bodyStart ?? 0;
  const body = text.slice(bodyStart);
  const eol = fence?.eol ?? detectLineEnding(text);
  const block = addition
    .replace(/\r\n?/g, '\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  if (block === '') return text;
  // In a file without front matter, `---` lines of the addition could close a fence the file
  // opens and never closes, or (appended to an empty file) open and close one: either would
  // turn body text into front matter. `***` renders as the same horizontal rule.
  const couldMakeFrontMatter =
    fence === null && (/^\uFEFF?---[ \t]*\r?\n/.test(text) || text.replace(BOM, '') === '');
  const safeBlock = couldMakeFrontMatter ? block.replace(/^---[ \t]*$/gm, '***') : block;

  let separator: string;
  if (body.trim() === '') {
    separator = text === '' || text === BOM || text.endsWith('\n') ? '' : eol;
  } else {
    const { contentEnd, lineBreaks } = trailingBlankLines(body);
    const lastLine = body.slice(body.lastIndexOf('\n', contentEnd - 1) + 1, contentEnd);
    const firstLine = safeBlock.slice(0, (safeBlock.indexOf('\n') + 1 || safeBlock.length + 1) - 1);
    const wanted = lineBreaks <= 1 && LIST_ITEM.test(lastLine) && LIST_ITEM.test(firstLine) ? 1 : 2;
    separator = eol.repeat(Math.max(0, wanted - lineBreaks));
  }
  return text + separator + withLineEnding(safeBlock, eol) + eol;
}

/** Where the last non-blank text of `body` ends, and how many line breaks follow it. */
function trailingBlankLines(body: string): { contentEnd: number; lineBreaks: number } {
  let index = body.length;
  let lineBreaks = 0;
  while (index > 0) {
    const character = body[index - 1];
    if (character === '\n') lineBreaks += 1;
    else if (character !== '\r' && character !== ' ' && character !== '\t') break;
    index -= 1;
  }
  return { contentEnd: index, lineBreaks };
}
