import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ExcludeRules } from '../../shared/search/exclude-rules';
import { PLUGIN_DATA_PATH } from '../../shared/settings';
import type { Logger } from '../logging';
import { concerns, pluginDataWarning, readPluginDataFile } from './plugin-settings';

/**
 * The plugin's `search.excludeGlobs` from its data.json (read by the plugin's own reader), so the
 * companion indexes what the plugin does. A missing file means none; a broken one is a warning,
 * never a crash.
 */
export function readExcludeGlobs(vaultRoot: string): { globs: string[]; warnings: string[] } {
  const read = readPluginDataFile(vaultRoot);
  if (read.kind === 'missing') return { globs: [], warnings: [] };
  if (read.kind === 'unreadable') {
    return { globs: [], warnings: [read.warning] };
  }
  return {
    globs: read.loaded.settings.search.excludeGlobs,
    warnings: read.loaded.problems
      .filter((problem) => concerns(problem, ['search.excludeGlobs']))
      .map((problem) => pluginDataWarning(read.file, problem)),
  };
}

/**
 * The one live set of exclude rules for the vault: dot-folders, the plugin's
 * `search.excludeGlobs` and the companion's own globs. The indexer and the reminder source hold
 * the same instance, so a rule changed while the companion runs (data.json edited in Obsidian)
 * applies to both at once: a folder un-excluded is indexed and its reminders scheduled together.
 */
export class VaultExcludes {
  private rules: ExcludeRules;

  constructor(
    pluginGlobs: readonly string[],
    private readonly ownGlobs: readonly string[] = [],
  ) {
    this.rules = new ExcludeRules([...pluginGlobs, ...ownGlobs]);
  }

  /** The rules in the vault's data.json now, plus `ownGlobs`; warnings go to `logger`. */
  static read(vaultRoot: string, ownGlobs: readonly string[] = [], logger?: Logger): VaultExcludes {
    const plugin = readExcludeGlobs(vaultRoot);
    for (const warning of plugin.warnings) logger?.warn(warning);
    return new VaultExcludes(plugin.globs, ownGlobs);
  }

  excludes(relative: string): boolean {
    return this.rules.excludes(relative);
  }

  setPluginGlobs(globs: readonly string[]): void {
    this.rules = new ExcludeRules([...globs, ...this.ownGlobs]);
  }
}

export interface ExcludeGlobsWatchOptions {
  /** Called with the new globs when they differ from the last ones applied. */
  readonly onChange: (globs: readonly string[]) => Promise<void>;
  readonly logger: Logger;
  /** How often the file is stat'ed; default 2 s. */
  readonly intervalMs?: number;
}

export interface ExcludeGlobsWatch {
  /** Stops watching and waits for a change being applied. */
  close(): Promise<void>;
}

const DEFAULT_WATCH_INTERVAL_MS = 2_000;

/**
 * Follows the plugin's data.json (the indexer's own watcher ignores `.obsidian/`) and hands
 * changed exclude globs to `onChange`, one change at a time. It polls the file's stat rather
 * than using fs.watch: Obsidian and sync tools replace the file by rename, which ends an
 * fs.watch on it, and the folder may not exist until the plugin is installed. The stat is
 * taken before the first read, so a change in between is seen at the first poll (fs.watchFile
 * takes its baseline later, asynchronously, and could miss it). A file that does
 * not read (half-written, bad JSON) keeps the rules in force, with a warning; a missing file
 * means no plugin globs, as at start.
 */
export function watchExcludeGlobs(
  vaultRoot: string,
  options: ExcludeGlobsWatchOptions,
): ExcludeGlobsWatch {
  const file = join(vaultRoot, PLUGIN_DATA_PATH);
  let seen = statKey(file);
  let current = readExcludeGlobs(vaultRoot).globs;
  let applying: Promise<void> = Promise.resolve();
  let closed = false;

  const check = () => {
    const read = readExcludeGlobs(vaultRoot);
    if (read.warnings.length > 0) {
      for (const warning of read.warnings)
        options.logger.warn(`${warning}; keeping the rules in force`);
      return;
    }
    if (sameGlobs(read.globs, current)) return;
    const previous = current;
    current = read.globs;
    options.logger.info(
      {
        added: read.globs.filter((glob) => !previous.includes(glob)),
        removed: previous.filter((glob) => !read.globs.includes(glob)),
      },
      'exclude globs changed in the plugin settings; rescanning the vault',
    );
    applying = applying
      .then(() => (closed ? undefined : options.onChange(read.globs)))
      .catch((error: unknown) =>
        options.logger.error(
          { err: { message: (error as Error).message } },
          'applying the new exclude globs failed',
        ),
      );
  };
  const timer = setInterval(() => {
    const now = statKey(file);
    if (now === seen) return;
    seen = now;
    check();
  }, options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS);
  timer.unref();
  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await applying;
    },
  };
}

/** What tells one version of the file from the next (a rename gives a new inode). */
function statKey(file: string): string {
  try {
    const stats = statSync(file, { throwIfNoEntry: false });
    return stats === undefined ? 'missing' : `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
  } catch (error) {
    return `error:${(error as NodeJS.ErrnoException).code ?? 'unknown'}`;
  }
}

function sameGlobs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((glob, index) => glob === b[index]);
}
