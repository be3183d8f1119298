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

/** The embedding model the index was built with; `null` when search runs keyword-only. */
export const EmbeddingInfo = Type.Union([
  Type.Object({ model: Type.String(), dims: Type.Integer({ minimum: 1 }) }),
  Type.Null(),
]);
export type EmbeddingInfo = Static<typeof EmbeddingInfo>;

/** `GET /api/v1/status` (DESIGN §6). */
export const StatusResponse = Type.Object({
  version: Type.String(),
  index: Type.Object({
    files: Type.Integer({ minimum: 0 }),
    chunks: Type.Integer({ minimum: 0 }),
    /** Files waiting to be (re)indexed; 0 once caught up. */
    pending: Type.Integer({ minimum: 0 }),
    failed: Type.Array(IndexFailure),
    embedding: EmbeddingInfo,
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
