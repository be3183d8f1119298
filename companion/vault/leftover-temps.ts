import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_FILE_NAME } from './atomic-write';

/** Folders visited at most: a bound for a vault with a pathological tree. */
const MAX_FOLDERS = 100_000;

/**
 * Removes the temp files an interrupted vault write left behind (a crash or `kill -9` between
 * the temp file's creation and its rename), across the whole vault. Only names exactly as
 * `atomic-write.ts` makes them (`.<name>.cairn-<12 hex>.tmp`) are removed; hidden folders
 * (`.obsidian/`, `.trash/`, `.git/`) and symlinked folders are not entered, since Cairn never
 * writes there. Run at start-up, before anything writes. Returns the vault-relative paths
 * removed; a file that cannot be removed is left and reported in `failed`.
 */
export async function removeLeftoverTemps(
  vault: string,
): Promise<{ removed: string[]; failed: Array<{ path: string; error: string }> }> {
  const removed: string[] = [];
  const failed: Array<{ path: string; error: string }> = [];
  const pending: string[] = [''];
  let visited = 0;
  while (pending.length > 0 && visited < MAX_FOLDERS) {
    const folder = pending.pop()!;
    visited++;
    let entries;
    try {
      entries = await readdir(join(vault, folder), { withFileTypes: true });
    } catch {
      continue; // Unreadable or gone: nothing of ours can be removed there anyway.
    }
    for (const entry of entries) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) pending.push(relative);
      } else if (entry.isFile() && TEMP_FILE_NAME.test(entry.name)) {
        try {
          await unlink(join(vault, relative));
          removed.push(relative);
        } catch (error) {
          failed.push({ path: relative, error: (error as NodeJS.ErrnoException).code ?? 'error' });
        }
      }
    }
  }
  return { removed, failed };
}
