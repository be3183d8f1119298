import { parse as parseYaml } from 'yaml';
import type { NoteChunkInput } from '../../shared/search/chunk';

/*
 * Raw Markdown → what the chunker needs (title, aliases, tags, id, type, body and its first
 * line). Broken front matter is reported and the note is still indexed from its body; files
 * that are not text are refused with a reason. shared/markdown will own front-matter parsing;
 * until it lands this reads only the few keys search needs.
 */

/** Larger notes are indexed up to here (a 5 MB log must not stall the indexer); the rest is reported. */
export const MAX_INDEXED_CHARS = 1_000_000;

export interface NoteProblem {
  path: string;
  /** 1-based file line, when the problem has one. */
  line?: number;
  message: string;
}

export type NoteInputResult =
  | { ok: true; input: NoteChunkInput; problems: NoteProblem[] }
  | { ok: false; problem: NoteProblem };

/** Metadata Obsidian's cache already parsed; when given it wins over our own reading. */
export interface KnownNoteMeta {
  frontmatter?: Record<string, unknown>;
  tags?: readonly string[];
}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
const INLINE_TAG = /(?:^|[\s(])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu;
const FENCE = /^(```|~~~)[\s\S]*?^\1/gm;

export function noteInputFromMarkdown(
  path: string,
  content: string,
  known: KnownNoteMeta = {},
): NoteInputResult {
  if (looksBinary(content)) {
    return {
      ok: false,
      problem: { path, message: 'not indexed: the file is not text (binary content)' },
    };
  }
  const problems: NoteProblem[] = [];
  let text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  if (text.length > MAX_INDEXED_CHARS) {
    problems.push({
      path,
      message: `only the first ${MAX_INDEXED_CHARS.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters are indexed`,
    });
    text = text.slice(0, MAX_INDEXED_CHARS);
  }

  let frontmatter: Record<string, unknown> = known.frontmatter ?? {};
  let body = text;
  let bodyStartLine = 1;
  const match = FRONT_MATTER.exec(text);
  if (match) {
    body = text.slice(match[0].length);
    bodyStartLine = 1 + countLines(match[0]);
    if (known.frontmatter === undefined) {
      try {
        const parsed: unknown = parseYaml(match[1] ?? '');
        if (parsed !== null && parsed !== undefined) {
          if (typeof parsed === 'object' && !Array.isArray(parsed)) {
            frontmatter = parsed as Record<string, unknown>;
          } else {
            problems.push({
              path,
              line: 1,
              message: 'front matter is not a key: value map; ignored',
            });
          }
        }
      } catch (error) {
        const line = yamlErrorLine(error);
        problems.push({
          path,
          ...(line === undefined ? {} : { line: line + 1 }),
          message: `front matter is not valid YAML (${firstLine(error)}); indexed without it`,
        });
      }
    }
  }

  const fileTitle = baseName(path);
  const title = stringKey(frontmatter.title) ?? firstH1(body) ?? fileTitle;
  const aliases = stringList(frontmatter.aliases ?? frontmatter.alias);
  const tags = known.tags ?? [
    ...stringList(frontmatter.tags ?? frontmatter.tag),
    ...inlineTags(body),
  ];
  const id = stringKey(frontmatter.id);
  const type = stringKey(frontmatter.type);
  const input: NoteChunkInput = {
    path,
    title,
    aliases,
    tags: [...new Set(tags.map((tag) => tag.replace(/^#/, '')).filter((tag) => tag !== ''))],
    body,
    bodyStartLine,
    ...(id === undefined ? {} : { id }),
    ...(type === undefined ? {} : { type }),
  };
  return { ok: true, input, problems };
}

/** NUL bytes never occur in a text note; many replacement characters mean a mis-decoded binary. */
export function looksBinary(content: string): boolean {
  const sample = content.slice(0, 8192);
  if (sample.includes('\u0000')) return true;
  let replaced = 0;
  for (const char of sample) if (char === '\uFFFD') replaced++;
  return sample.length > 0 && replaced / sample.length > 0.05;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

function firstH1(body: string): string | undefined {
  const match = /^#[ \t]+(.+?)[ \t#]*$/m.exec(body.replace(FENCE, ''));
  return match?.[1]?.trim() || undefined;
}

function inlineTags(body: string): string[] {
  const tags: string[] = [];
  for (const match of body.replace(FENCE, '').matchAll(INLINE_TAG))
    if (match[1]) tags.push(match[1]);
  return tags;
}

function stringKey(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[,\s]+/).filter((item) => item !== '');
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const text = stringKey(item);
    return text === undefined ? [] : [text];
  });
}

function countLines(text: string): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

function yamlErrorLine(error: unknown): number | undefined {
  const linePos = (error as { linePos?: Array<{ line: number }> }).linePos;
  return linePos?.[0]?.line;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
