/**
 * What Cairn knows about a note beyond its text: title, tags, aliases and its own keys.
 *
 * `title` is the `title` property, else the first H1 of the body (outside code), else the
 * file name without extension. `tags` merges the `tags`/`tag` properties (a list, or a
 * string of comma- or space-separated tags, `#` optional) with inline `#tags`. `aliases`
 * come from `aliases`/`alias` (a list, or one string = one alias: titles may hold commas).
 * `tag`, `alias` are Obsidian's deprecated spellings, still read. Values of the wrong type
 * are skipped, never thrown on; `readNoteMeta` also returns a warning naming the field so
 * the indexer can report it.
 */
import { proseLines } from './prose-lines';
import { dedupeCaseInsensitive, findInlineTags, isValidTag, normalizeTag } from './tags';

export interface NoteMeta {
  title: string;
  tags: string[];
  aliases: string[];
  id?: string;
  type?: string;
  created?: string;
  updated?: string;
}

export interface NoteMetaInput {
  /** Vault-relative path, `/`-separated. */
  path: string;
  /** Front-matter data as `parseFrontMatter` returns it ({} when there is none). */
  data: Record<string, unknown>;
  body: string;
}

export interface NoteMetaWarning {
  /** The front-matter key, e.g. `tags`. */
  field: string;
  message: string;
}

const STRING_FIELDS = ['id', 'type', 'created', 'updated'] as const;

export function extractNoteMeta(input: NoteMetaInput): NoteMeta {
  return readNoteMeta(input).meta;
}

/** Warnings about front-matter values `extractNoteMeta` had to skip. */
export function noteMetaWarnings(input: NoteMetaInput): NoteMetaWarning[] {
  return readNoteMeta(input).warnings;
}

export function readNoteMeta(input: NoteMetaInput): {
  meta: NoteMeta;
  warnings: NoteMetaWarning[];
} {
  const warnings: NoteMetaWarning[] = [];
  const { data } = input;

  const frontMatterTags: string[] = [];
  for (const field of ['tags', 'tag']) {
    for (const raw of listProperty(data, field, warnings, splitTagString)) {
      const tag = normalizeTag(raw);
      if (isValidTag(tag)) frontMatterTags.push(tag);
      else if (tag !== '') {
        warnings.push({
          field,
          message: `"${raw}" is not a valid tag (letters, digits, _ - / and at least one non-digit)`,
        });
      }
    }
  }
  const aliases: string[] = [];
  for (const field of ['aliases', 'alias']) {
    for (const raw of listProperty(data, field, warnings, (text) => [text])) {
      const alias = raw.trim();
      if (alias !== '' && !aliases.includes(alias)) aliases.push(alias);
    }
  }

  const meta: NoteMeta = {
    title: titleOf(input, warnings),
    tags: dedupeCaseInsensitive([...frontMatterTags, ...findInlineTags(input.body)]),
    aliases,
  };
  for (const field of STRING_FIELDS) {
    const value = stringProperty(data, field, warnings);
    if (value !== undefined) meta[field] = value;
  }
  return { meta, warnings };
}

function titleOf(input: NoteMetaInput, warnings: NoteMetaWarning[]): string {
  const fromProperty = stringProperty(input.data, 'title', warnings);
  // A title is one line wherever it is shown; a block scalar's line breaks become spaces.
  if (fromProperty !== undefined) return fromProperty.replace(/\s+/g, ' ');
  return firstHeading(input.body) ?? fileStem(input.path);
}

/**
 * The text of the first H1 outside code: ATX (`# Title`, optional closing `#`s) or setext
 * (a line of `=` under a paragraph line). Markup is reduced to its text: links to their
 * label, inline code and emphasis markers dropped, `%% comments %%` removed.
 */
export function firstHeading(body: string): string | undefined {
  const rawLines = body.split(/\r?\n/);
  let previous: { index: number; text: string } | null = null;
  for (const line of proseLines(body)) {
    const raw = rawLines[line.index] ?? '';
    const atx = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line.text);
    if (atx !== null) {
      const text = plainHeadingText(/^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(raw)?.[1] ?? '');
      if (text !== '') return text;
    }
    const underlinesPrevious = previous !== null && previous.index === line.index - 1;
    if (underlinesPrevious && /^ {0,3}=+[ \t]*$/.test(line.text) && previous !== null) {
      const text = plainHeadingText(previous.text);
      if (text !== '') return text;
    }
    // A setext underline needs a paragraph line above: not blank, not a heading, list or quote.
    previous = /^\s*$|^ {0,3}(?:#|[-*+>]\s|\d+[.)]\s|=+\s*$)/.test(line.text)
      ? null
      : { index: line.index, text: raw };
  }
  return undefined;
}

/** Longer headings are cut before cleaning: nobody's title is this long, and it bounds regex work. */
const MAX_HEADING_LENGTH = 500;

function plainHeadingText(text: string): string {
  return Array.from(text.slice(0, MAX_HEADING_LENGTH * 2))
    .slice(0, MAX_HEADING_LENGTH)
    .join('')
    .replace(/%%.*?(?:%%|$)/g, '')
    .replace(/!?\[\[([^\]|]*)\|([^\]]*)\]\]/g, '$2')
    .replace(/!?\[\[([^\]]*)\]\]/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(`+)(.+?)\1/g, '$2')
    .replace(/(\*\*|__|~~|==)(.+?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `Folder/Visa rules.md` → `Visa rules`; a name that is only an extension (`.md`) stays whole. */
export function fileStem(path: string): string {
  const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

function splitTagString(text: string): string[] {
  return text.split(/[,\s]+/u).filter((part) => part !== '');
}

function stringProperty(
  data: Record<string, unknown>,
  field: string,
  warnings: NoteMetaWarning[],
): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(data, field)) return undefined;
  const value = data[field];
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }
  // Data parsed elsewhere (a YAML 1.1 reader) may hold Dates for `created: 2026-11-22 10:30`.
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  warnings.push({ field, message: `expected text, found ${describeType(value)}` });
  return undefined;
}

/** Strings of a list-or-string property; numbers count as their text (`tags: [2024, x]`). */
function listProperty(
  data: Record<string, unknown>,
  field: string,
  warnings: NoteMetaWarning[],
  splitString: (text: string) => string[],
): string[] {
  if (!Object.prototype.hasOwnProperty.call(data, field)) return [];
  const value = data[field];
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return splitString(value);
  if (typeof value === 'number' && Number.isFinite(value)) return [String(value)];
  if (!Array.isArray(value)) {
    warnings.push({ field, message: `expected a list or text, found ${describeType(value)}` });
    return [];
  }
  const result: string[] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item === 'string') result.push(item);
    else if (typeof item === 'number' && Number.isFinite(item)) result.push(String(item));
    else if (item !== null) {
      warnings.push({
        field,
        message: `item ${index + 1}: expected text, found ${describeType(item)}`,
      });
    }
  });
  return result;
}

function describeType(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'nothing';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `${value}`;
  return `a ${typeof value}`;
}
