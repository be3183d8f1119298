import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { NoteCitation } from './citation';
import { QUERY_MAX_CHARS } from './search';

/** `GET /api/v1/decisions?q=&limit=` (docs/search.md, "Decisions"). */
export const DecisionsQuery = Type.Object({
  /** Words the decision, its alternatives, its note's title or heading contain; all when absent. */
  q: Type.Optional(Type.String({ maxLength: QUERY_MAX_CHARS })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
export type DecisionsQuery = Static<typeof DecisionsQuery>;

export const Decision = Type.Object({
  /** What was decided, as the note says it. */
  text: Type.String(),
  /** The alternatives it names as not chosen. */
  rejected: Type.Array(Type.String()),
  /**
   * When: an ADR's own `Date:`, else the note's front-matter `created`, a date in its name, its
   * `updated`, or the file's time (YYYY-MM-DD).
   */
  date: Type.Union([Type.String(), Type.Null()]),
  /** `adr` (an ADR file), `line` (`Decision:`/`Agreed:`/`Rejected:`), `sentence`. */
  kind: Type.Union([Type.Literal('adr'), Type.Literal('line'), Type.Literal('sentence')]),
  /** An ADR's status. */
  status: Type.Optional(Type.String()),
  citation: NoteCitation,
});
export type Decision = Static<typeof Decision>;

export const DecisionsResponse = Type.Object({ decisions: Type.Array(Decision) });
export type DecisionsResponse = Static<typeof DecisionsResponse>;
