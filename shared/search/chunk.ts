import { resolveChunkOptions } from './chunk-options';
import type { ChunkOptions } from './chunk-options';
import { textHash } from './hash';
import { normaliseNewlines, scanBlocks } from './markdown-blocks';
import type { Block } from './markdown-blocks';
import { BLOCK_LEVELS, LineIndex, packWithOverlap, splitRange, trimRange } from './text-ranges';
import type { SplitLevel, TextRange, UnitRange } from './text-ranges';

/**
 * A parsed note as the chunker needs it. Structural on purpose: whoever parses front matter
 * (shared/markdown in practice) passes the body that follows it and the file line it starts on.
 */
export interface NoteChunkInput {
  /** Vault-relative path. */
  path: string;
  title: string;
  aliases: readonly string[];
  tags: readonly string[];
  /** Front-matter `id`, when present. */
  id?: string;
  /** Front-matter `type` (`reminder` for reminder notes). */
  type?: string;
  /** The Markdown after the front matter; `\r\n` and `\r` line ends are accepted. */
  body: string;
  /** 1-based file line of the body's first line (1 without front matter). */
  bodyStartLine: number;
}

export interface NoteChunk {
  /**
   * Stable across edits elsewhere in the note: the path, the heading path (each heading
   * URI-encoded, joined by `/`), and the chunk's ordinal among chunks under that same heading
   * path. Editing one section leaves the ids of the other sections' chunks unchanged.
   */
  chunkId: string;
  path: string;
  noteId?: string;
  type?: string;
  title: string;
  aliases: readonly string[];
  tags: readonly string[];
  /** Headings from the outermost to the one the chunk starts under; empty before the first heading. */
  headingPath: string[];
  /** The last element of `headingPath`. */
  heading?: string;
  /** 1-based file lines, inclusive, of the chunk's first and last character. */
  startLine: number;
  endLine: number;
  /** An exact slice of the body (newlines normalised to `\n`), trimmed. */
  text: string;
  /** Hash of title, heading path and text: the same value means the same embedding input. */
  textHash: string;
  /**
   * Set on the single chunk of a note with no body text: its `text` is the title (so the note
   * is findable by title) and its lines point at the top of the file.
   */
  titleOnly?: true;
}

interface Section {
  headingPath: string[];
  /** Level of the heading that opens it; 0 for text before the first heading. */
  level: number;
  blocks: Block[];
  start: number;
  end: number;
}

interface Piece {
  range: TextRange;
  headingPath: string[];
}

/** Prose splits at lines (lists), then sentences, then words; paragraphs are already blocks. */
const TEXT_LEVELS: readonly SplitLevel[] = ['line', 'sentence', 'hard'];

/**
 * Splits a note into chunks along its headings.
 *
 * - A chunk never spans two H1/H2 sections. Under one H2, small H3+ sections are merged with
 *   their neighbours up to `targetChars`.
 * - A section longer than `maxChars` is split between blocks; a long paragraph at lines, then
 *   sentences, then words. Later pieces repeat up to `overlapChars` of the previous one when it
 *   ended in prose.
 * - Code blocks, math blocks and tables are kept whole unless they alone exceed `maxChars`;
 *   then they are split between lines. No chunk is ever longer than `maxChars`.
 * - A heading with nothing under it but deeper headings is not a chunk of its own; it stays
 *   in the `headingPath` of the chunks below it.
 */
export function chunkNote(input: NoteChunkInput, options?: Partial<ChunkOptions>): NoteChunk[] {
  const { targetChars, maxChars, overlapChars } = resolveChunkOptions(options);
  const body = normaliseNewlines(input.body);
  const lines = new LineIndex(body);
  const sections = toSections(scanBlocks(body, lines));

  const pieces: Piece[] = [];
  const groups = groupByMajorHeading(sections);
  groups.forEach((group, g) => {
    if (isBareParent(group, groups[g + 1])) return;
    let merged: Section[] = [];
    const flush = () => {
      const first = merged[0];
      const last = merged[merged.length - 1];
      if (first && last) {
        pieces.push({
          range: { start: first.start, end: last.end },
          headingPath: first.headingPath,
        });
      }
      merged = [];
    };
    for (const section of group) {
      if (section.end - section.start > maxChars) {
        flush();
        for (const range of splitSection(body, section, targetChars, maxChars, overlapChars)) {
          pieces.push({ range, headingPath: section.headingPath });
        }
        continue;
      }
      const first = merged[0];
      if (first && section.end - first.start > targetChars) flush();
      merged.push(section);
    }
    flush();
  });

  const ordinals = new Map<string, number>();
  const chunks: NoteChunk[] = [];
  for (const piece of pieces) {
    const range = trimRange(body, piece.range);
    if (range.end <= range.start) continue;
    const text = body.slice(range.start, range.end);
    const key = piece.headingPath.map(encodeURIComponent).join('/');
    const ordinal = ordinals.get(key) ?? 0;
    ordinals.set(key, ordinal + 1);
    chunks.push(
      makeChunk(input, {
        chunkId: `${input.path}#${key}#${ordinal}`,
        headingPath: piece.headingPath,
        startLine: input.bodyStartLine + lines.lineOf(range.start),
        endLine: input.bodyStartLine + lines.lineOf(range.end - 1),
        text,
      }),
    );
  }
  if (chunks.length > 0) return chunks;
  return [
    makeChunk(input, {
      chunkId: `${input.path}##0`,
      headingPath: [],
      startLine: 1,
      endLine: 1,
      text: input.title,
      titleOnly: true,
    }),
  ];
}

type ChunkLocation = Pick<
  NoteChunk,
  'chunkId' | 'headingPath' | 'startLine' | 'endLine' | 'text'
> & {
  titleOnly?: true;
};

function makeChunk(input: NoteChunkInput, location: ChunkLocation): NoteChunk {
  const heading = location.headingPath[location.headingPath.length - 1];
  return {
    chunkId: location.chunkId,
    path: input.path,
    ...(input.id === undefined ? {} : { noteId: input.id }),
    ...(input.type === undefined ? {} : { type: input.type }),
    title: input.title,
    aliases: input.aliases,
    tags: input.tags,
    headingPath: location.headingPath,
    ...(heading === undefined ? {} : { heading }),
    startLine: location.startLine,
    endLine: location.endLine,
    text: location.text,
    textHash: textHash([input.title, ...location.headingPath, location.text].join('\n')),
    ...(location.titleOnly ? { titleOnly: true as const } : {}),
  };
}

function toSections(blocks: readonly Block[]): Section[] {
  const sections: Section[] = [];
  const stack: Array<{ level: number; heading: string }> = [];
  let current: Section | undefined;
  for (const block of blocks) {
    if (block.kind === 'heading') {
      const level = block.level ?? 1;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, heading: block.heading ?? '' });
      current = {
        headingPath: stack.map((entry) => entry.heading),
        level,
        blocks: [block],
        start: block.start,
        end: block.end,
      };
      sections.push(current);
      continue;
    }
    if (current === undefined) {
      current = { headingPath: [], level: 0, blocks: [], start: block.start, end: block.end };
      sections.push(current);
    }
    current.blocks.push(block);
    current.end = block.end;
  }
  return sections;
}

/** Sections grouped so that each group starts at an H1/H2 (or the note's start). */
function groupByMajorHeading(sections: readonly Section[]): Section[][] {
  const groups: Section[][] = [];
  for (const section of sections) {
    const last = groups[groups.length - 1];
    if (last === undefined || (section.level >= 1 && section.level <= 2)) groups.push([section]);
    else last.push(section);
  }
  return groups;
}

/** A group that is one bare heading whose next group sits below it (`# Title` then `## Part`). */
function isBareParent(group: readonly Section[], next: readonly Section[] | undefined): boolean {
  const only = group.length === 1 ? group[0] : undefined;
  const following = next?.[0];
  return (
    only !== undefined &&
    following !== undefined &&
    only.blocks.length === 1 &&
    only.blocks[0]!.kind === 'heading' &&
    following.headingPath.length > only.headingPath.length
  );
}

/** Ranges for a section longer than `maxChars`; see `chunkNote` for the rules. */
function splitSection(
  body: string,
  section: Section,
  targetChars: number,
  maxChars: number,
  overlapChars: number,
): TextRange[] {
  const units: UnitRange[] = [];
  for (const block of section.blocks) {
    // Prose is cut to the target so a piece plus its overlap stays within maxChars; code and
    // tables stay whole up to maxChars.
    const prose = block.kind === 'text';
    const limit = prose ? targetChars : maxChars;
    for (const range of splitRange(body, block, limit, prose ? TEXT_LEVELS : BLOCK_LEVELS)) {
      units.push({ ...range, prose });
    }
  }
  return packWithOverlap(body, units, { targetChars, maxChars, overlapChars });
}
