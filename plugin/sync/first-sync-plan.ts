/**
 * The first-sync plan (DESIGN §9 "First sync", docs/sync.md "Pairing"): before a device that
 * already holds notes syncs for the first time, it compares its files with the companion's and
 * says what would happen: how many files (and bytes) go up, come down, are already the same, or
 * differ on both sides (the companion then keeps both: a merge is impossible without a common
 * version, so the device's copy lands beside the note as a conflict copy). Nothing is written
 * or sent here but `GET changes?since=0`; files are read one at a time to hash them.
 */
import type { SyncChangesResponse } from '../../shared/protocol/sync';
import { sha256Hex } from './sync-hash';
import type { SyncVault } from './sync-ports';
import { WHOLE_VAULT } from './sync-scope';
import type { SyncScope } from './sync-scope';

export interface PlanGroup {
  readonly count: number;
  readonly bytes: number;
  /** The first paths, for the user to recognise (at most `PLAN_SAMPLE`). */
  readonly paths: readonly string[];
}

export interface FirstSyncPlan {
  readonly upload: PlanGroup;
  readonly download: PlanGroup;
  readonly identical: PlanGroup;
  /** On both sides with other bytes; the device's version would become a conflict copy. */
  readonly conflict: PlanGroup;
  /** On the companion only and above this device's download limit: downloaded when opened. */
  readonly onDemand: PlanGroup;
}

export const PLAN_SAMPLE = 20;

export interface PlanSource {
  changes(
    since: number,
    options?: { limit?: number; settings?: boolean },
  ): Promise<SyncChangesResponse>;
}

export async function firstSyncPlan(
  vault: SyncVault,
  api: PlanSource,
  onProgress?: (done: number, total: number) => void,
  /** The folders this device leaves out are neither uploaded nor downloaded: not in the plan. */
  scope: SyncScope = WHOLE_VAULT,
  /** Files above this many bytes that are not here are downloaded when opened (null: none). */
  downloadLimitBytes: number | null = null,
): Promise<FirstSyncPlan> {
  const remote = new Map<string, { path: string; hash: string; size: number }>();
  const key = (path: string) => (vault.caseInsensitive ? path.toLowerCase() : path);
  let since = 0;
  for (;;) {
    const page = await api.changes(since, {
      limit: 5000,
      ...(scope.settings ? { settings: true } : {}),
    });
    for (const change of page.changes) {
      if (!scope.includes(change.path)) continue;
      if (change.op === 'delete') remote.delete(key(change.path));
      else
        remote.set(key(change.path), { path: change.path, hash: change.hash, size: change.size });
    }
    if (!page.more || page.next === since) break;
    since = page.next;
  }
  const groups = {
    upload: newGroup(),
    download: newGroup(),
    identical: newGroup(),
    conflict: newGroup(),
    onDemand: newGroup(),
  };
  const local = (await vault.list()).filter((stat) => scope.includes(stat.path));
  let done = 0;
  for (const stat of local) {
    const there = remote.get(key(stat.path));
    remote.delete(key(stat.path));
    if (there === undefined) {
      add(groups.upload, stat.path, stat.size);
    } else if (there.size === 0 && stat.size > 0) {
      // The companion's empty file gives way to the device's (docs/sync.md "two new files").
      add(groups.upload, stat.path, stat.size);
    } else if (stat.size === 0 && there.size > 0) {
      add(groups.download, there.path, there.size);
    } else if (there.size !== stat.size) {
      add(groups.conflict, stat.path, stat.size);
    } else {
      const hash = await sha256Hex(await vault.read(stat.path));
      add(hash === there.hash ? groups.identical : groups.conflict, stat.path, stat.size);
    }
    onProgress?.(++done, local.length);
  }
  for (const there of remote.values()) {
    const onDemand = downloadLimitBytes !== null && there.size > downloadLimitBytes;
    add(onDemand ? groups.onDemand : groups.download, there.path, there.size);
  }
  return groups;
}

function newGroup(): { count: number; bytes: number; paths: string[] } {
  return { count: 0, bytes: 0, paths: [] };
}

function add(group: { count: number; bytes: number; paths: string[] }, path: string, size: number) {
  group.count++;
  group.bytes += size;
  if (group.paths.length < PLAN_SAMPLE) group.paths.push(path);
}

/** `812 B`, `4.2 KB`, `13 MB`: sizes as the plan shows them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit] ?? 'TB'}`;
}
