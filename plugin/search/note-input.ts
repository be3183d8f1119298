import { parseFrontMatter } from '../../shared/markdown/front-matter';
import { readNoteMeta } from '../../shared/markdown/note-meta';
import type { NoteChunkInput } from '../../shared/search/chunk';

/*
 * Raw Markdown → what the chunker needs (title, aliases, tags, id, type, body and its first
 * line), through shared/markdown so the plugin and the companion read a note alike. Broken front
 * matter is reported and the note is still indexed from its body; files that are not text are
 * refused with a reason.
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

  const parsed = parseFrontMatter(text);
  if (!parsed.ok) {
    problems.push({
      path,
      line: parsed.error.line,
      message: `front matter is not valid YAML (${parsed.error.message}); indexed without it`,
    });
  }
  const frontmatter = known.frontmatter ?? (parsed.ok ? parsed.data : {});
  const { body, bodyStartLine } = parsed;
  const { meta, warnings } = readNoteMeta({ path, data: frontmatter, body });
  for (const warning of warnings) {
    problems.push({ path, message: `${warning.field}: ${warning.message}` });
  }
  const tags = known.tags ?? meta.tags;
  const input: NoteChunkInput = {
    path,
    title: meta.title,
    aliases: meta.aliases,
    tags: [...new Set(tags.map((tag) => tag.replace(/^#/, '')).filter((tag) => tag !== ''))],
    body,
    bodyStartLine,
    ...(meta.id === undefined ? {} : { id: meta.id }),
    ...(meta.type === undefined ? {} : { type: meta.type }),
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
