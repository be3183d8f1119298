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
 * it; the caller (`dryRun`) answers the recorded changes.
 *
 * A write that changes several files (an import's notes) runs its vault writes inside
 * `severalVaultWrites`: there a dry run's primitives record each change and go on as if it was
 * made (later writes of the block see the planned text, `plannedText`), and the stop comes at
 * the end of the block, before anything after it (the index, the database) runs. So the dry
 * run lists every file the real write would change, each once, with its text before the first
 * and after the last change.
 */

/** Thrown in place of the write inside a dry run: by a primitive, or at a block's end. */
export class DryRunStop extends Error {
  override name = 'DryRunStop';
  constructor(readonly changes: readonly PlannedChange[]) {
    super(
      `dry run: ${changes.map((change) => `${change.action} ${change.path}`).join(', ')} not written`,
    );
  }
}

/** What one dry run recorded: the changes its writes would have made. */
export interface DryRunRecord {
  readonly changes: PlannedChange[];
}

/**
 * Inside `severalVaultWrites` of a dry run: the planned text of each file its writes touched so
 * far (null = removed), keyed by vault-relative path.
 */
const plannedFiles = new AsyncLocalStorage<Map<string, string | null>>();

/** Runs `work` (and all it calls) as a dry run recording into `record` (the route hook's binding). */
export function withDryRunRecord<T>(record: DryRunRecord, work: () => T): T {
  return dryRuns.run(record, work);
}

const dryRuns = new AsyncLocalStorage<DryRunRecord>();

/** Whether the code running is inside a dry run (the write primitives ask). */
export function inDryRun(): boolean {
  return dryRuns.getStore() !== undefined;
}

type ChangeToPlan = Omit<PlannedChange, 'diff'> & { readonly diff?: string };

function withDiff(change: ChangeToPlan): PlannedChange {
  return {
    ...change,
    diff:
      change.diff ??
      (change.action === 'move' || change.action === 'schedule'
        ? ''
        : unifiedDiff(change.path, change.before, change.after)),
  };
}

/**
 * Called by a vault write primitive in a dry run in place of writing: records the change and
 * throws `DryRunStop`, or, inside `severalVaultWrites`, returns so the block's next write can be
 * planned too (the primitive then answers as if it had written). Recorded first, so a caller
 * that turns every error into its own still cannot hide the change from `dryRun`.
 */
export function planForDryRun(change: ChangeToPlan): void {
  const record = dryRuns.getStore();
  const planned = plannedFiles.getStore();
  if (record === undefined || planned === undefined) stopForDryRun(change);
  record.changes.splice(0, record.changes.length, ...merged(record.changes, withDiff(change)));
  if (change.action === 'move') {
    planned.set(change.path, null);
    if (change.to !== undefined) planned.set(change.to, change.before);
  } else if (change.action !== 'schedule') {
    planned.set(change.path, change.after);
  }
}

/**
 * `changes` with `change` added. A file changed twice in a block is one change, its text before
 * the first and after the last; one made and removed again in it is none.
 */
function merged(changes: readonly PlannedChange[], change: PlannedChange): PlannedChange[] {
  const at = changes.findIndex((known) => known.path === change.path);
  const first = at === -1 ? undefined : changes[at]!;
  const textual = (action: PlannedChange['action']) => action !== 'move' && action !== 'schedule';
  if (first === undefined || !textual(first.action) || !textual(change.action)) {
    return [...changes, change];
  }
  const rest = changes.filter((_, index) => index !== at);
  if (first.action === 'create' && change.action === 'remove') return rest;
  const action = first.action === 'create' ? 'create' : change.action;
  const one = withDiff({ path: change.path, action, before: first.before, after: change.after });
  return [...rest.slice(0, at), one, ...rest.slice(at)];
}

/**
 * Records the change and throws `DryRunStop`, in a block too: for a change after which the
 * caller cannot go on as if it was made (a reminder's schedule change).
 */
export function stopForDryRun(change: ChangeToPlan): never {
  const one = withDiff(change);
  const record = dryRuns.getStore();
  record?.changes.push(one);
  throw new DryRunStop(record?.changes ?? [one]);
}

/**
 * The text a file has in the dry run's plan so far (`severalVaultWrites`): a string, null when
 * planned away, undefined when the block has not touched it (read the disk then).
 */
export function plannedText(relative: string): string | null | undefined {
  return plannedFiles.getStore()?.get(relative);
}

/**
 * Runs the vault writes of one call that changes several files (docs/clients.md "Dry run"). For
 * real, just `work`. In a dry run, every write in it is planned (recorded, not made), and at its
 * end the dry run stops with all of them, so nothing after the block runs. `work` must only
 * write the vault (and read it): no index, database or push in it, since those would run.
 */
export async function severalVaultWrites<T>(work: () => Promise<T>): Promise<T> {
  const record = dryRuns.getStore();
  if (record === undefined) return work();
  const value = await plannedFiles.run(new Map(), work);
  if (record.changes.length > 0) throw new DryRunStop([...record.changes]);
  return value;
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
