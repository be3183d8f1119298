import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Citation } from './citation';

/*
 * The audit of an answer (docs/search.md, "Checked claims"): what was retrieved, which of those
 * passages the answer used, and each claim of a phrased answer with the passages it cites and
 * whether they support it. `citations` are 1-based positions in `retrieved`, like the `[n]`
 * markers of the text.
 */

export const AuditedClaim = Type.Object({
  /** The claim as the model wrote it, without its markers. */
  text: Type.String(),
  citations: Type.Array(Type.Integer({ minimum: 1 })),
  supported: Type.Boolean(),
  /** Why it is (or is not) supported, in words a user can check against the passages. */
  why: Type.String(),
});
export type AuditedClaim = Static<typeof AuditedClaim>;

export const AnswerAudit = Type.Object({
  retrieved: Type.Array(Citation),
  used: Type.Array(Citation),
  claims: Type.Array(AuditedClaim),
});
export type AnswerAudit = Static<typeof AnswerAudit>;

/** What happens to a claim its passages do not support: marked in the text, or removed. */
export const UnsupportedClaimPolicy = Type.Union([Type.Literal('mark'), Type.Literal('remove')]);
export type UnsupportedClaimPolicy = Static<typeof UnsupportedClaimPolicy>;
