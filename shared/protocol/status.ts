import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { IsoInstant } from './formats';

/** `GET /health`: liveness only, no token, no details. */
export const HealthResponse = Type.Object({ status: Type.Literal('ok') });
export type HealthResponse = Static<typeof HealthResponse>;

export const IndexFailure = Type.Object({
  path: Type.String(),
  /** Why the file could not be indexed, naming the line or field when there is one. */
  error: Type.String(),
});
export type IndexFailure = Static<typeof IndexFailure>;

/**
 * The embedding model the index was built with; `null` when search runs keyword-only and while
 * vectors are still being computed (see `semantic` for the progress).
 */
export const EmbeddingInfo = Type.Union([
  Type.Object({ model: Type.String(), dims: Type.Integer({ minimum: 1 }) }),
  Type.Null(),
]);
export type EmbeddingInfo = Static<typeof EmbeddingInfo>;

/**
 * Semantic (vector) search readiness, so a client can show "semantic search: 40 % ready".
 * `state`: `off` when no embedding model runs (by choice, `CAIRN_EMBEDDINGS=none`, or because it
 * could not start: `reason` says which), `embedding` while texts still wait for vectors,
 * `ready` once every indexed text has a vector of the running model. `embedded` / `total` count
 * distinct chunk texts (identical texts share one vector).
 */
export const SemanticStatus = Type.Object({
  state: Type.Union([Type.Literal('ready'), Type.Literal('embedding'), Type.Literal('off')]),
  provider: Type.Union([Type.Literal('builtin'), Type.Literal('ollama'), Type.Literal('none')]),
  model: Type.Union([Type.String(), Type.Null()]),
  dims: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  embedded: Type.Integer({ minimum: 0 }),
  total: Type.Integer({ minimum: 0 }),
  reason: Type.Union([Type.String(), Type.Null()]),
  /**
   * What runs the built-in model: `native` (onnxruntime) or `wasm` (TensorFlow.js); the vectors
   * are the same. Absent for other providers, before a worker has loaded, and from older
   * companions.
   */
  runtime: Type.Optional(Type.Union([Type.Literal('native'), Type.Literal('wasm')])),
});
export type SemanticStatus = Static<typeof SemanticStatus>;

/** Vault files kept out of search by default, and how to let them in. */
export const SearchExclusion = Type.Object({
  /** What is left out: `chats` (Cairn/Chats/ transcripts) or `digests` (`type: digest` notes). */
  kind: Type.Union([Type.Literal('chats'), Type.Literal('digests')]),
  /** The folder the rule applies to. */
  folder: Type.String(),
  /** Indexed files the rule keeps out of results right now. */
  files: Type.Integer({ minimum: 0 }),
  /** The setting that includes them (an environment variable). */
  setting: Type.String(),
});
export type SearchExclusion = Static<typeof SearchExclusion>;

/** `GET /api/v1/status` (companion/README.md). */
export const StatusResponse = Type.Object({
  version: Type.String(),
  index: Type.Object({
    files: Type.Integer({ minimum: 0 }),
    chunks: Type.Integer({ minimum: 0 }),
    /** Files waiting to be (re)indexed; 0 once caught up. */
    pending: Type.Integer({ minimum: 0 }),
    failed: Type.Array(IndexFailure),
    /** The embedding model, once every text has its vector; `null` before and when off. */
    embedding: EmbeddingInfo,
    semantic: SemanticStatus,
    /** Cairn's own files kept out of search and answers (see SearchExclusion). */
    excluded: Type.Array(SearchExclusion),
  }),
  scheduler: Type.Object({
    reminders: Type.Integer({ minimum: 0 }),
    next_fire: Type.Union([IsoInstant(), Type.Null()]),
  }),
  push: Type.Object({ subscriptions: Type.Integer({ minimum: 0 }) }),
  /**
   * The companion process, embedding workers included (they are threads of it): resident
   * memory, so "idles small" can be checked without shell access. Optional: older companions
   * do not send it.
   */
  process: Type.Optional(Type.Object({ rss_bytes: Type.Integer({ minimum: 0 }) })),
});
export type StatusResponse = Static<typeof StatusResponse>;
