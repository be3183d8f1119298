import type { Bm25fSnapshot } from './bm25f-index';

/*
 * What the search engine persists so a restart rebuilds nothing (measured on this stack: never Orama's or
 * anyone's JSON dump): the compacted keyword index as typed arrays plus its vocabulary as one
 * string, and a note table (path, content hash it was indexed from, its run of doc ids, chunk
 * ids per doc) to check each note against the store's current files, and the vector index as
 * one Float32Array (so a hybrid restart reads no vector records). Chunk texts are not in it:
 * they stay in the store's files.
 */

/** Bump when the snapshot's shape or the index's meaning changes: older snapshots are rebuilt. */
export const ENGINE_SNAPSHOT_VERSION = 1;

export interface EngineSnapshot {
  version: number;
  /** The analyzer that produced the terms (tokenizer, stop words, stemming). */
  analyzer: string;
  index: Bm25fSnapshot;
  /** Note paths, joined by LIST_SEPARATOR. */
  paths: string;
  /** Per note, the content hash of the file version indexed. */
  contentHashes: string;
  /** Per note, its first doc id and number of docs (a note's chunks are consecutive docs). */
  firstDocs: Uint32Array;
  docCounts: Uint32Array;
  /** Per doc, its chunk id. */
  chunkIds: string;
  /** The vector index (unit vectors by chunk id), when the engine had an embedder. */
  vectors?: {
    model: string;
    dims: number;
    /** Chunk ids, joined by LIST_SEPARATOR, in the order of `data`. */
    keys: string;
    data: Float32Array;
    /** The vectors' sign codes and the coder that wrote them (absent in older snapshots). */
    codes?: Int32Array;
    coder?: string;
  };
}

/** NUL never occurs in a vault path or a chunk id (both are built from paths and headings). */
const LIST_SEPARATOR = '\u0000';

export function joinList(items: readonly string[]): string {
  for (const item of items) {
    if (item.includes(LIST_SEPARATOR))
      throw new Error(`snapshot: ${JSON.stringify(item)} holds NUL`);
  }
  return items.join(LIST_SEPARATOR);
}

export function splitList(joined: unknown): string[] {
  if (typeof joined !== 'string') throw new Error('snapshot: a list is not a string');
  return joined === '' ? [] : joined.split(LIST_SEPARATOR);
}
