import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { AnswerAudit, UnsupportedClaimPolicy } from './answer-audit';
import { Citation } from './citation';
import { Cursor, IsoDateOrDateTime, NonBlank, TagName, VaultPath } from './formats';

export const SEARCH_LIMIT_MAX = 50;
export const SEARCH_LIMIT_DEFAULT = 10;
export const QUERY_MAX_CHARS = 1000;

export const DocumentType = Type.Union([
  Type.Literal('note'),
  Type.Literal('reminder'),
  Type.Literal('pdf'),
]);
export type DocumentType = Static<typeof DocumentType>;

/** The filters search and answer share (docs/search.md: folder, tag, type, date range). */
export const searchFilters = {
  type: Type.Optional(DocumentType),
  /** Vault-relative folder; matches the folder and everything below it. */
  folder: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  tag: Type.Optional(TagName()),
  /** Inclusive lower bound on the note's modification (or a reminder's due) date. */
  from: Type.Optional(IsoDateOrDateTime()),
  /** Inclusive upper bound. */
  to: Type.Optional(IsoDateOrDateTime()),
};

/**
 * `GET /api/v1/search` querystring. Unknown query parameters are not rejected (caches and
 * browsers add their own); Fastify coerces `limit` from the query string.
 */
export const SearchQuery = Type.Object({
  q: NonBlank({ maxLength: QUERY_MAX_CHARS }),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT }),
  ),
  ...searchFilters,
  cursor: Type.Optional(Cursor()),
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchMode = Type.Union([Type.Literal('hybrid'), Type.Literal('keyword')]);
export type SearchMode = Static<typeof SearchMode>;

export const SearchResult = Type.Object({
  citation: Citation,
  /** Fused rank score: comparable within one response only (the best result is often 1). */
  score: Type.Number({ minimum: 0, maximum: 1 }),
  /**
   * Calibrated relevance, the same scale for every query: the question's key-term coverage or
   * the rescaled vector similarity, mapped so that 0.5 and above means relevant enough to quote
   * in an answer (docs/search-quality.md). Absent from older companions.
   */
  relevance: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});
export type SearchResult = Static<typeof SearchResult>;

/** Chunks a related-notes request may ask for per list. */
export const RELATED_LIMIT_MAX = 100;
export const RELATED_LIMIT_DEFAULT = 20;

/** `GET /api/v1/related?path=&limit=`: other notes' chunks most like the note at `path`. */
export const RelatedQuery = Type.Object({
  path: VaultPath(),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: RELATED_LIMIT_MAX, default: RELATED_LIMIT_DEFAULT }),
  ),
});
export type RelatedQuery = Static<typeof RelatedQuery>;

/**
 * The content candidates the plugin's related-notes view ranks with its own link graph and tags
 * (plugin/related/related-notes.ts), as the device's own index gives them: `vector` by the note's
 * mean stored vector (empty when the index is keyword only), `keyword` by its title's words.
 * Scores in [0, 1], best first in each list; never a chunk of the note itself.
 */
export const RelatedResponse = Type.Object({
  mode: SearchMode,
  vector: Type.Array(SearchResult),
  keyword: Type.Array(SearchResult),
});
export type RelatedResponse = Static<typeof RelatedResponse>;

export const SearchResponse = Type.Object({
  results: Type.Array(SearchResult),
  /** Pass back as `cursor` for the next page; `null` on the last page. */
  next_cursor: Type.Union([Cursor(), Type.Null()]),
  /** `keyword` when no embedding provider is available, so clients can say so. */
  mode: SearchMode,
});
export type SearchResponse = Static<typeof SearchResponse>;

export const ANSWER_LIMIT_MAX = 20;

/** `POST /api/v1/answer`. */
export const AnswerRequest = Type.Object(
  {
    question: NonBlank({ maxLength: QUERY_MAX_CHARS }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: ANSWER_LIMIT_MAX, default: 5 })),
    /** Ask the configured LLM to phrase a summary on top of the quoted passages. */
    summarize: Type.Optional(Type.Boolean({ default: false })),
    /** Return `audit`: what was retrieved and used, and each claim checked. */
    audit: Type.Optional(Type.Boolean({ default: false })),
    /** What becomes of a phrased claim its passages do not support (the server's default). */
    unsupported: Type.Optional(UnsupportedClaimPolicy),
    ...searchFilters,
  },
  { additionalProperties: false },
);
export type AnswerRequest = Static<typeof AnswerRequest>;

export const AnswerResponse = Type.Object({
  /** Quoted passages (extractive) or an LLM summary; every claim is backed by `citations`. */
  answer: Type.String(),
  citations: Type.Array(Citation),
  /**
   * How sure the answer is, 0..1 on the relevance scale of search results: 0.5 and above when
   * passages were quoted, below when the answer says nothing was found. Absent from older companions.
   */
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  /** True when an LLM phrased `answer`; false for the extractive answer. */
  summarized: Type.Boolean(),
  /**
   * About the sources' dates: the newest is over a year old, or two notes give different
   * numbers for the same thing (both named, newest first). Also shown under `answer`.
   */
  notes: Type.Optional(Type.Array(Type.String())),
  /** With `audit: true`: what was retrieved, what the answer used, each claim and its check. */
  audit: Type.Optional(AnswerAudit),
});
export type AnswerResponse = Static<typeof AnswerResponse>;
