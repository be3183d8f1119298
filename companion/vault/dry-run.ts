import { AsyncLocalStorage } from 'node:async_hooks';
import { unifiedDiff } from '../../shared/markdown/line-diff';
import type { DryRunOutcome, PlannedChange } from '../../shared/protocol/dry-run';

export type { DryRunOutcome, PlannedChange };

/*
 * Dry runs of writes (docs/clients.md "Dry run"): `dry_run: true` on a write tool or route runs
 * the write as usual up to the moment it would touch the vault. There the vault's write
 * primitives (atomic-write.ts: create, edit, write, remove, move) see the dry run, record the
 * change they would make and stop with `DryRunStop` instead of writing. Every write already
 * leaves nothing behind when its vault write fails (whole or nothing), so stopping there leaves
 * the vault, the index and the database as they were. One place, so no route or tool can forget
 * it; the caller (`dryRun`) answers the recorded change.
 */

/** Thrown by a vault write primitive inside a dry run, in place of the write. */
export class DryRunStop extends Error {
  override name = 'DryRunStop';
  constructor(readonly change: PlannedChange) {
    super(`dry run: ${change.action} ${change.path} not written`);
  }
}

/** What one dry run recorded: the changes its writes would have made. */
export interface DryRunRecord {
  readonly changes: PlannedChange[];
}

/** Runs `work` (and all it calls) as a dry run recording into `record` (the route hook's binding). */
export function withDryRunRecord<T>(record: DryRunRecord, work: () => T): T {
  return dryRuns.run(record, work);
}

const dryRuns = new AsyncLocalStorage<DryRunRecord>();

/** Whether the code running is inside a dry run (the write primitives ask). */
export function inDryRun(): boolean {
  return dryRuns.getStore() !== undefined;
}

/**
 * Called by a write primitive in a dry run in place of writing: records the change and throws
 * `DryRunStop`. Recorded first, so a caller that turns every error into its own still cannot
 * hide the change from `dryRun`.
 */
export function stopForDryRun(
  change: Omit<PlannedChange, 'diff'> & { readonly diff?: string },
): never {
  const planned: PlannedChange = {
    ...change,
    diff:
      change.diff ??
      (change.action === 'move' || change.action === 'schedule'
        ? ''
        : unifiedDiff(change.path, change.before, change.after)),
  };
  dryRuns.getStore()?.changes.push(planned);
  throw new DryRunStop(planned);
}

/**
 * Runs `work` as a dry run: `stopped` with the change it would have made when it reached a
 * vault write, else its own value (nothing to write, or it was refused before writing: a
 * refusal is the answer then, as it would be for the real write).
 */
export async function dryRun<T>(work: () => Promise<T>): Promise<DryRunOutcome<T>> {
  const record: DryRunRecord = { changes: [] };
  try {
    const value = await dryRuns.run(record, work);
    if (record.changes.length > 0) return { stopped: true, changes: record.changes };
    return { stopped: false, value };
  } catch (error) {
    if (record.changes.length > 0) return { stopped: true, changes: record.changes };
    throw error;
  }
}
