/**
 * Undelete and "restore this folder as it was at…" (docs/sync.md "History"): both are new commits
 * of versions the companion still holds, made on behalf of the asking device, so every device
 * receives them as ordinary changes and nothing in history is rewritten.
 */
import type { SyncPutOp } from '../../shared/protocol/sync';
import { ApiHttpError } from '../http/api-error';
import type { JournalRow, SyncStore } from './sync-store';
import { isSettingsPath } from './syncable-path';

/** Ops that bring deleted files back with their last version. */
export function undeleteOps(store: SyncStore, fileIds: readonly string[]): SyncPutOp[] {
  return fileIds.map((fileId, index) => {
    const file = store.file(fileId);
    if (file === undefined) {
      throw new ApiHttpError('NOT_FOUND', `no synced file ${fileId}`, `file_ids[${index}]`);
    }
    // A live file is restored to itself (a no-op the committer accepts as it is).
    return { path: file.path, file_id: file.file_id, base: file.hash, hash: file.hash };
  });
}

/**
 * Ops that put every file that was under `folder` at `at` back to the version it had then.
 * Files made there since stay (a restore never deletes); files that had no version held then
 * are left as they are.
 */
export function folderAsOfOps(store: SyncStore, folder: string, at: number): SyncPutOp[] {
  const prefix = folder.replace(/^\/+|\/+$/g, '');
  const rows = store.db
    .prepare(
      `SELECT j.* FROM sync_journal j
         JOIN (SELECT file_id, MAX(seq) AS seq FROM sync_journal WHERE time <= ? GROUP BY file_id) last
           ON last.seq = j.seq
         JOIN sync_blobs b ON b.hash = j.hash
        WHERE j.op != 'delete'`,
    )
    .all(at) as JournalRow[];
  const ops: SyncPutOp[] = [];
  for (const then of rows) {
    if (prefix !== '' && !then.path.startsWith(`${prefix}/`)) continue;
    // The whole vault as it was means its notes and files; settings only when asked by folder.
    if (prefix === '' && isSettingsPath(then.path)) continue;
    const now = store.file(then.file_id);
    if (now === undefined) continue;
    if (now.deleted === 0 && now.hash === then.hash) continue;
    ops.push({ path: now.path, file_id: now.file_id, base: now.hash, hash: then.hash });
  }
  return ops.sort((a, b) => a.path.localeCompare(b.path));
}
