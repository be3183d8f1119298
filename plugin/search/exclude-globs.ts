/**
 * Which vault paths the plugin's index skips: dot-folders and dot-files, and the user's
 * `search.excludeGlobs`. Same grammar as the companion's `ExcludeRules`
 * (companion/indexer/exclude.ts) so both sides index the same files: `*` within one segment,
 * `**` any number of segments, `?` one character; a glob without `/` matches a name in any
 * folder; a glob naming a folder (`Archive/`) excludes what is inside it. The two copies
 * belong in shared/ (the plugin may not import the companion).
 */
export class ExcludeGlobs {
  private readonly patterns: RegExp[];

  constructor(readonly globs: readonly string[] = []) {
    this.patterns = globs.flatMap((glob) => {
      const pattern = globToRegExp(glob);
      return pattern ? [pattern] : [];
    });
  }

  excludes(path: string): boolean {
    if (path === '') return false;
    if (path.split('/').some((segment) => segment.startsWith('.'))) return true;
    return this.patterns.some((pattern) => pattern.test(path));
  }
}

function globToRegExp(glob: string): RegExp | null {
  let source = glob.trim().replace(/^\/+/, '');
  if (source === '') return null;
  const folder = source.endsWith('/');
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
  const suffix = folder ? '(?:/.*)$' : '(?:/.*)?$';
  return new RegExp(`${prefix}${pattern}${suffix}`, 'u');
}
