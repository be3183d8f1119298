import type { Citation } from '../../shared/protocol/citation';
import { sourceDate, textHash, toCitation } from '../../shared/search';
import type { CitableChunk } from '../../shared/search';
import type { IndexedChunk } from './search-index';

/** The shared chunk shape `toCitation` reads, from an indexed row. */
export function toCitableChunk(chunk: IndexedChunk): CitableChunk {
  const hash = chunk.textHash ?? textHash(chunk.text);
  if (chunk.page !== undefined) {
    return {
      chunkId: String(chunk.chunkId),
      path: chunk.path,
      title: chunk.title,
      page: chunk.page,
      text: chunk.text,
      textHash: hash,
    };
  }
  const startLine = chunk.startLine ?? 1;
  return {
    chunkId: String(chunk.chunkId),
    path: chunk.path,
    ...(chunk.noteId === undefined ? {} : { noteId: chunk.noteId }),
    ...(chunk.fileType === 'reminder' ? { type: 'reminder' } : {}),
    title: chunk.title,
    aliases: chunk.aliases,
    tags: chunk.tags,
    headingPath: chunk.headingPath,
    ...(chunk.heading === undefined ? {} : { heading: chunk.heading }),
    startLine,
    endLine: Math.max(startLine, chunk.endLine ?? startLine),
    text: chunk.text,
    textHash: hash,
  };
}

/** docs/search.md's citation for an indexed chunk, its excerpt chosen for `terms`. */
export function citeChunk(chunk: IndexedChunk, score: number, terms: readonly string[]): Citation {
  const date = sourceDate(chunk);
  return { ...toCitation(toCitableChunk(chunk), score, terms), ...date };
}
