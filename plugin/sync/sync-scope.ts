/**
 * Which paths this device syncs (docs/sync.md "Folders this device does not sync"). A path
 * outside the scope is neither uploaded nor downloaded, and a file there is never deleted or
 * reported deleted because it is outside: leaving a folder out is this device's choice and
 * must never reach the companion or another device as a delete.
 */
export interface SyncScope {
  includes(path: string): boolean;
}

/** Every path (the default). */
export const WHOLE_VAULT: SyncScope = { includes: () => true };

/**
 * Everything but the files under `folders` (vault-relative, `/`-separated; slashes at either
 * end and empty entries ignored). Letter case is ignored, as the companion ignores it.
 */
export function scopeExcluding(folders: readonly string[]): SyncScope {
  const prefixes = normalizeFolders(folders).map((folder) => `${folder.toLowerCase()}/`);
  if (prefixes.length === 0) return WHOLE_VAULT;
  return {
    includes: (path) => {
      const folded = path.toLowerCase();
      return !prefixes.some((prefix) => folded.startsWith(prefix));
    },
  };
}

/** The folders as the scope reads them: trimmed, without leading or trailing slashes, unique. */
export function normalizeFolders(folders: readonly string[]): string[] {
  const result: string[] = [];
  for (const folder of folders) {
    const normalized = folder.trim().replace(/^\/+|\/+$/g, '');
    if (normalized !== '' && !result.includes(normalized)) result.push(normalized);
  }
  return result;
}

/**
 * True when `now` syncs a folder `before` left out: files skipped while it was out must be
 * listed again from the start (`since=0`) to arrive.
 */
export function scopeWidened(before: readonly string[], now: readonly string[]): boolean {
  const current = new Set(normalizeFolders(now).map((folder) => folder.toLowerCase()));
  return normalizeFolders(before).some((folder) => !current.has(folder.toLowerCase()));
}
