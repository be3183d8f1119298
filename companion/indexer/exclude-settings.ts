import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_SETTINGS_PATH } from '../vault/plugin-settings';

/**
 * The plugin's `search.excludeGlobs` from its data.json, so the companion indexes what the
 * plugin does. A missing file means none; a broken one is a warning, never a crash.
 */
export function readExcludeGlobs(vaultRoot: string): { globs: string[]; warnings: string[] } {
  const file = join(vaultRoot, PLUGIN_SETTINGS_PATH);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { globs: [], warnings: [] };
    return {
      globs: [],
      warnings: [`${file}: cannot read exclude globs (${(error as Error).message})`],
    };
  }
  const search = (data as { search?: unknown } | null)?.search;
  const globs = (search as { excludeGlobs?: unknown } | undefined)?.excludeGlobs;
  if (globs === undefined) return { globs: [], warnings: [] };
  if (!Array.isArray(globs) || !globs.every((glob) => typeof glob === 'string')) {
    return {
      globs: [],
      warnings: [`${file}: "search.excludeGlobs" must be a list of strings; ignored`],
    };
  }
  return { globs: globs as string[], warnings: [] };
}
