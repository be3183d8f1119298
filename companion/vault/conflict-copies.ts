/*
 * Conflict copies: when a change to a note cannot be merged with Cairn's own write, the other
 * version is kept beside the note as `Note.conflict-20261125-034100.md` (UTC time of the copy;
 * `-2`, `-3`… when several land in the same second), the style of docs/principles.md, docs/chat.md and close to
 * Syncthing's `Note.sync-conflict-20261125-034100-ABCDEF7.md`. A copy repeats the note's
 * reminders (same ids): the reminder source lets the original win over any copy.
 */

/** Copies named by Cairn. */
export const CAIRN_CONFLICT_COPY = /\.conflict-\d{8}-\d{6}(?:-\d+)?(?:\.[^./]+)?$/;
/** Copies named by sync tools: Syncthing, and Dropbox-style "(Conflicted copy …)". */
const SYNC_TOOL_CONFLICT_COPY =
  /\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]+\.md$|\(Conflicted copy [^)]*\)\.md$/i;

/** Whether the vault-relative `path` names a conflict copy (Cairn's or a sync tool's). */
export function isConflictCopy(path: string): boolean {
  return CAIRN_CONFLICT_COPY.test(path) || SYNC_TOOL_CONFLICT_COPY.test(path);
}

/**
 * The `n`th candidate name of a conflict copy of `relative` stamped `stamp`:
 * `Folder/Note.conflict-20261125-034100.md`, then `…-034100-2.md`, `-3`… when taken.
 */
export function conflictCopyName(relative: string, stamp: string, n: number): string {
  const slash = relative.lastIndexOf('/');
  const folder = slash < 0 ? '' : relative.slice(0, slash + 1);
  const name = relative.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : '';
  return `${folder}${stem}.conflict-${stamp}${n === 1 ? '' : `-${n}`}${extension}`;
}

/** UTC `YYYYMMDD-HHMMSS` of `ms`, as conflict copies are stamped. */
export function conflictStamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-25T03:41:00.000Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}
