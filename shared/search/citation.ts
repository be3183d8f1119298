import type { Citation, NoteCitation, PdfCitation } from '../protocol/citation';
import type { NoteChunk } from './chunk';
import { bestExcerpt } from './excerpt';
import { normaliseNewlines, scanBlocks } from './markdown-blocks';
import type { PdfChunk } from './pdf-chunk';

export type CitableChunk = NoteChunk | PdfChunk;

/**
 * The citation (docs/search.md) for a retrieved chunk. The excerpt is the chunk's best passage for
 * `terms`; for notes, `lines` and `heading` narrow to that passage, so opening the citation
 * lands on the quoted text rather than the top of a merged chunk. `score` is clamped to [0, 1].
 */
export function toCitation(
  chunk: CitableChunk,
  score: number,
  terms: readonly string[] = [],
): Citation {
  const excerpt = chunk.titleOnly ? undefined : bestExcerpt(chunk.text, terms);
  const common = {
    path: chunk.path,
    title: chunk.title,
    excerpt: excerpt?.text ?? chunk.title,
    score: Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0,
  };
  if ('page' in chunk) {
    const citation: PdfCitation = { type: 'pdf', ...common, page: chunk.page };
    return citation;
  }
  let lines: [number, number] = [chunk.startLine, chunk.endLine];
  let heading = chunk.heading;
  if (excerpt !== undefined) {
    const before = chunk.text.slice(0, excerpt.source.start);
    const first = chunk.startLine + countNewlines(before);
    const last = first + countNewlines(chunk.text.slice(excerpt.source.start, excerpt.source.end));
    lines = [first, Math.min(last, chunk.endLine)];
    // The heading is the one above the matched terms, which may sit below the excerpt's start;
    // the matched line is read whole, so a match inside a heading line names that heading.
    const matchStart = excerpt.match?.start ?? excerpt.source.start;
    const lineEnd = chunk.text.indexOf('\n', matchStart);
    heading =
      lastHeading(chunk.text.slice(0, lineEnd === -1 ? chunk.text.length : lineEnd)) ?? heading;
  }
  const citation: NoteCitation = {
    type: 'note',
    ...common,
    ...(chunk.noteId === undefined ? {} : { id: chunk.noteId }),
    ...(heading === undefined ? {} : { heading }),
    lines,
  };
  return citation;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * The last heading in `text` (fences respected: a `# comment` in a shell block is not one).
 * A merged chunk's passage sits under that heading, not necessarily the chunk's first.
 */
function lastHeading(text: string): string | undefined {
  let heading: string | undefined;
  for (const block of scanBlocks(normaliseNewlines(text))) {
    if (block.kind === 'heading' && block.heading) heading = block.heading;
  }
  return heading;
}
