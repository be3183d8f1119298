import { link, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ASIDE_FILE_NAME, TEMP_FILE_NAME } from './atomic-write';

/** Folders visited at most: a bound for a vault with a pathological tree. */
const MAX_FOLDERS = 100_000;

/**
 * Removes the temp files an interrupted vault write left behind (a crash or `kill -9` between
 * the temp file's creation and its rename), across the whole vault. Only names exactly as
 * `atomic-write.ts` makes them (`.<name>.cairn-<12 hex>.tmp`) are removed; hidden folders
 * (`.obsidian/`, `.trash/`, `.git/`) and symlinked folders are not entered, since Cairn never
 * writes there. A note Cairn had moved aside for a moment (`.<name>.cairn-aside-<12 hex>.tmp`,
 * a crash between moving it and putting the new version in its place) is put back under its
 * name when that name is empty, never over a file. Run at start-up, before anything writes.
 * Returns the vault-relative paths removed and the notes put back; a file that cannot be
 * removed is left and reported in `failed`.
 */
export async function removeLeftoverTemps(vault: string): Promise<{
  removed: string[];
  restored: string[];
  failed: Array<{ path: string; error: string }>;
}> {
  const removed: string[] = [];
  const restored: string[] = [];
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
          const note = ASIDE_FILE_NAME.exec(entry.name)?.[1];
          if (note !== undefined) {
            const named = folder === '' ? note : `${folder}/${note}`;
            const back = await link(join(vault, relative), join(vault, named)).then(
              () => true,
              (error: NodeJS.ErrnoException) => {
                if (error.code === 'EEXIST') return false;
                throw error;
              },
            );
            if (back) restored.push(named);
          }
          await unlink(join(vault, relative));
          removed.push(relative);
        } catch (error) {
          failed.push({ path: relative, error: (error as NodeJS.ErrnoException).code ?? 'error' });
        }
      }
    }
  }
  return { removed, restored, failed };
}
