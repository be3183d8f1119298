/**
 * What the plugin's own index leaves out beyond the user's exclude globs (ExcludeRules):
 * - Cairn's saved chats: an old chat quoting the user's own question would rank first and be
 *   cited as a source (the companion leaves them out too, companion/search/search-exclusions.ts);
 * - Obsidian's own Settings → Files and links → Excluded files (`userIgnoreFilters`): a plain
 *   entry excludes every path starting with it (`Archive/`), an entry written `/…/` is a
 *   regular expression tested against the path, as Obsidian itself reads them.
 * Pure: the composition root reads the settings and hands them in.
 */

export interface IndexExclusionsInput {
  /** Settings' chats folder, vault-relative (empty: chats are not saved). */
  chatsFolder: string;
  /** `app.vault.getConfig('userIgnoreFilters')` as read: anything but a string array is none. */
  userIgnoreFilters: unknown;
}

/** A path test built once per settings change, cheap per path. */
export function indexExclusions(input: IndexExclusionsInput): (path: string) => boolean {
  const prefixes: string[] = [];
  const patterns: RegExp[] = [];
  const chats = input.chatsFolder.replace(/^\/+|\/+$/g, '');
  if (chats !== '') prefixes.push(`${chats}/`);
  if (Array.isArray(input.userIgnoreFilters)) {
    for (const filter of input.userIgnoreFilters) {
      if (typeof filter !== 'string' || filter.trim() === '') continue;
      const regex = /^\/(.+)\/$/.exec(filter);
      if (regex) {
        try {
          patterns.push(new RegExp(regex[1]!));
        } catch {
          // Obsidian ignores an entry that is not a valid expression; so does the index.
        }
      } else {
        prefixes.push(filter.replace(/^\/+/, ''));
      }
    }
  }
  if (prefixes.length === 0 && patterns.length === 0) return () => false;
  return (path) =>
    prefixes.some((prefix) => path.startsWith(prefix)) ||
    patterns.some((pattern) => pattern.test(path));
}
