/**
 * Which vault paths are never indexed, by the plugin and the companion alike: anything inside a
 * dot-folder or dot-file (`.obsidian/`, `.trash/`, `.git/`, sync tools' temp files), and the
 * user's exclude globs (the plugin's `search.excludeGlobs`, read by both sides).
 *
 * Globs are vault-relative, `/`-separated: `*` matches within one segment, `**` any number of
 * segments, `?` one character; a glob without a `/` matches a name in any folder
 * (`*.excalidraw.md`), and a glob naming a folder excludes what is inside it (`Archive/`).
 */
export class ExcludeRules {
  private readonly patterns: RegExp[];

  constructor(readonly globs: readonly string[] = []) {
    this.patterns = globs.flatMap((glob) => {
      const pattern = globToRegExp(glob);
      return pattern ? [pattern] : [];
    });
  }

  /** True when `relative` (a file or folder path in the vault) must not be indexed. */
  excludes(relative: string): boolean {
    if (relative === '') return false;
    if (relative.split('/').some((segment) => segment.startsWith('.'))) return true;
    return this.patterns.some((pattern) => pattern.test(relative));
  }
}

function globToRegExp(glob: string): RegExp | null {
  let source = glob.trim().replace(/^\/+/, '');
  if (source === '') return null;
  source = source.replace(/\/+$/, '');
  const anywhere = !source.includes('/');
  let pattern = '';
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '*' && source[i + 1] === '*') {
      // `**/` matches zero or more folders; a trailing `**` everything below.
      if (source[i + 2] === '/') {
        pattern += '(?:.*/)?';
        i += 2;
      } else {
        pattern += '.*';
        i += 1;
      }
    } else if (char === '*') pattern += '[^/]*';
    else if (char === '?') pattern += '[^/]';
    else pattern += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const prefix = anywhere ? '(?:^|.*/)' : '^';
  // A match on a folder excludes everything inside it too; `Archive/` and `Archive` both
  // match the folder itself, so the companion's walker and watcher never enter it.
  return new RegExp(`${prefix}${pattern}(?:/.*)?$`, 'u');
}
