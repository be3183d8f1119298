import { resolveChunkOptions } from './chunk-options';
import type { ChunkOptions } from './chunk-options';
import { textHash } from './hash';
import { normaliseNewlines } from './markdown-blocks';
import { PROSE_LEVELS, packWithOverlap, splitRange } from './text-ranges';

/** A PDF's extracted text, one string per page (page 1 first). */
export interface PdfChunkInput {
  path: string;
  title: string;
  pages: readonly string[];
}

export interface PdfChunk {
  /** `path#page=N#ordinal`: stable as long as that page's text is. */
  chunkId: string;
  path: string;
  title: string;
  /** 1-based page the text comes from; a chunk never spans two pages. */
  page: number;
  text: string;
  textHash: string;
  /** Set on the single chunk of a PDF with no extractable text (scans): its text is the title. */
  titleOnly?: true;
}

/**
 * Splits each page at blank lines, lines, sentences, then words, packs the pieces to
 * `targetChars` with overlap, and never lets a chunk cross a page boundary, so a citation
 * can name its page.
 */
export function chunkPdfPages(input: PdfChunkInput, options?: Partial<ChunkOptions>): PdfChunk[] {
  const sizes = resolveChunkOptions(options);
  const chunks: PdfChunk[] = [];
  input.pages.forEach((raw, index) => {
    const page = index + 1;
    const text = normaliseNewlines(raw);
    const units = splitRange(text, { start: 0, end: text.length }, sizes.targetChars, PROSE_LEVELS);
    const ranges = packWithOverlap(
      text,
      units.map((unit) => ({ ...unit, prose: true })),
      sizes,
    );
    ranges.forEach((range, ordinal) => {
      const piece = text.slice(range.start, range.end);
      chunks.push({
        chunkId: `${input.path}#page=${page}#${ordinal}`,
        path: input.path,
        title: input.title,
        page,
        text: piece,
        textHash: textHash(`${input.title}\n${page}\n${piece}`),
      });
    });
  });
  if (chunks.length > 0) return chunks;
  return [
    {
      chunkId: `${input.path}#page=1#0`,
      path: input.path,
      title: input.title,
      page: 1,
      text: input.title,
      textHash: textHash(`${input.title}\n1\n${input.title}`),
      titleOnly: true,
    },
  ];
}
