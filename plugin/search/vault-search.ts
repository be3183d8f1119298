import type { Citation } from '../../shared/protocol/citation';

/** Note kinds a search can be narrowed to (docs/search.md filters). */
export type SearchDocType = 'note' | 'reminder' | 'pdf';

export interface VaultSearchOptions {
  /** At most this many hits (default 10). */
  limit?: number;
  /** Only files in this vault folder or below it (no leading/trailing slash). */
  folder?: string;
  /** Only notes carrying this tag (with or without `#`; nested tags match their parent). */
  tag?: string;
  type?: SearchDocType;
  /** Only these notes (vault paths): the chat's attached and `[[mentioned]]` notes. */
  paths?: readonly string[];
}

/** How a hit was found: `keyword only` when no embedding provider is active or ready. */
export type SearchMode = 'hybrid' | 'keyword';

export interface VaultSearchHit {
  /** The shared citation object (docs/search.md): path, title, heading, lines, excerpt, score. */
  citation: Citation;
  /** Stable chunk id (see shared/search chunkNote). */
  chunkId: string;
  /** Content terms of the query, for highlighting the excerpt. */
  terms: readonly string[];
  mode: SearchMode;
  /**
   * 0..1 on the answer gate's scale (shared/search/answer-gate.ts relevanceOf): 0.5 and above
   * means the passage answers the query. Absent when the source cannot judge (an older
   * companion).
   */
  relevance?: number;
}

/**
 * The narrow face of the plugin's in-vault search that other features (the chat engine,
 * commands) depend on. Hits are deduplicated per note, best first.
 */
export interface VaultSearch {
  search(query: string, options?: VaultSearchOptions): Promise<VaultSearchHit[]>;
  /** True once the persisted index has been loaded (or a first index built). */
  readonly ready: boolean;
  /** Whether vector similarity is part of the ranking right now. */
  readonly mode: SearchMode;
}
