import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/**
 * One file a write would change, as a dry run answers it (docs/clients.md "Dry run"): a write
 * tool called with `dry_run: true`, or a write route with `?dry_run=true`.
 */
export const PlannedChange = Type.Object({
  /** Vault-relative path as it would be named on disk. */
  path: Type.String(),
  action: Type.Union([
    Type.Literal('create'),
    Type.Literal('edit'),
    Type.Literal('remove'),
    Type.Literal('move'),
    // A change kept in the companion's database only (a reminder's snooze): the file is as it was.
    Type.Literal('schedule'),
  ]),
  /** The new path of a move. */
  to: Type.Optional(Type.String()),
  /** The text before; null for a new file (or one that is not text). */
  before: Type.Union([Type.String(), Type.Null()]),
  /** The text after; null for a removal (or a file that is not text). */
  after: Type.Union([Type.String(), Type.Null()]),
  /** Unified diff (`diff -u`) of before → after. */
  diff: Type.String(),
});
export type PlannedChange = Static<typeof PlannedChange>;

/** The answer of a dry run: nothing was written; `changes` is what would have been. */
export const DryRunResponse = Type.Object({
  dry_run: Type.Literal(true),
  changes: Type.Array(PlannedChange),
});
export type DryRunResponse = Static<typeof DryRunResponse>;

/** How a dry run of some work ended: stopped at its first vault write, or done without one. */
export type DryRunOutcome<T> =
  | { readonly stopped: true; readonly changes: readonly PlannedChange[] }
  | { readonly stopped: false; readonly value: T };
