import { lstat, readdir, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { vaultFileKind } from './indexable-kind';
import { hiddenInside } from './paths';
import type { VaultFileKind } from './vault-change';

export interface WalkedFile {
  /** Vault-relative, `/`-separated. */
  readonly path: string;
  readonly kind: VaultFileKind;
  /**
   * The file's own time and size when asked for (`withStats`) and it is a regular file (not a
   * symlink) that could be stat'ed; a restart compares them with the index to skip the read.
   */
  readonly stat?: FileStat;
}

/** What a restart compares with the index to know a file is unchanged without reading it. */
export interface FileStat {
  readonly mtimeMs: number;
  readonly size: number;
}

export interface WalkOptions {
  /** Stat every regular file found (a few at a time) and return its `stat`. */
  readonly withStats?: boolean;
  /** Every file, attachments included; default only the kinds the indexer reads. */
  readonly allFiles?: boolean;
}

/** Files stat'ed at once: enough to keep the disk busy, few file handles at a time. */
const STAT_CONCURRENCY = 64;

export interface WalkResult {
  readonly files: WalkedFile[];
  /** Indexable-looking entries refused, with why (a symlink leading out of the vault). */
  readonly refused: Array<{ path: string; reason: string }>;
}

/**
 * Lists the vault's indexable files. Excluded paths are not entered. Symlinked folders are
 * not followed (they could loop, or lead out of the vault); a symlinked file is indexed only
 * when its target is inside the vault (ASVS 5.3.2), otherwise it is refused with a reason.
 */
export async function walkVault(
  root: string,
  exclude: { excludes(relative: string): boolean },
  options: WalkOptions = {},
): Promise<WalkResult> {
  const realRoot = await realpath(root);
  const files: WalkedFile[] = [];
  /** Regular files found, stat'ed after the walk when `withStats`. */
  const regular: Array<{ path: string; kind: WalkedFile['kind'] }> = [];
  const refused: Array<{ path: string; reason: string }> = [];
  const pending: string[] = [''];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    let entries;
    try {
      entries = await readdir(join(realRoot, folder), { withFileTypes: true });
    } catch {
      continue; // Deleted while walking, or unreadable: the watcher reports what comes next.
    }
    for (const entry of entries) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (exclude.excludes(relative)) continue;
      if (entry.isDirectory()) {
        pending.push(relative);
        continue;
      }
      const kind = vaultFileKind(relative);
      if (kind === 'other' && !options.allFiles) continue;
      if (entry.isSymbolicLink()) {
        const problem = await symlinkProblem(realRoot, relative, exclude);
        if (problem !== null) {
          refused.push({ path: relative, reason: problem });
          continue;
        }
        files.push({ path: relative, kind });
      } else if (entry.isFile()) {
        if (options.withStats) regular.push({ path: relative, kind });
        else files.push({ path: relative, kind });
      }
    }
  }
  for (let start = 0; start < regular.length; start += STAT_CONCURRENCY) {
    const group = regular.slice(start, start + STAT_CONCURRENCY);
    const stats = await Promise.all(
      // Gone since readdir, or unreadable: listed without a stat, so the indexer looks at it.
      group.map((file) => lstat(join(realRoot, file.path)).catch(() => null)),
    );
    group.forEach((file, index) => {
      const stat = stats[index];
      files.push(
        stat?.isFile() ? { ...file, stat: { mtimeMs: stat.mtimeMs, size: stat.size } } : file,
      );
    });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, refused };
}

/**
 * Why a symlinked file at `relative` may not be read, or null when its target is a file in the
 * vault that is itself read: a target in a hidden folder (`.obsidian/` holds the plugin's copy
 * of the token) or an excluded path is refused like one outside the vault.
 */
export async function symlinkProblem(
  realRoot: string,
  relative: string,
  exclude: { excludes(relative: string): boolean },
): Promise<string | null> {
  let target: string;
  try {
    target = await realpath(join(realRoot, relative));
  } catch {
    return 'symlink whose target does not exist';
  }
  const inside = target.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
  if (!inside) return 'symlink leading outside the vault; not read';
  if (hiddenInside(target, realRoot)) {
    return 'symlink leading into a hidden folder (such as .obsidian/); not read';
  }
  const targetRelative = target
    .slice(realRoot.length + 1)
    .split(sep)
    .join('/');
  if (exclude.excludes(targetRelative)) {
    return 'symlink leading into an excluded path; not read';
  }
  const stats = await lstat(target).catch(() => null);
  if (!stats?.isFile()) return 'symlink to something other than a file; not read';
  return null;
}

/**
 * Visits the vault's folders (vault-relative, `''` for the root, then depth first) under the
 * same rules as `walkVault`: excluded folders are not entered, symlinked ones not followed.
 * `visit` runs before a folder is listed, so a watcher placed there misses nothing created
 * after the listing; a folder it cannot list (deleted meanwhile, unreadable) is skipped.
 */
export async function walkFolders(
  root: string,
  exclude: { excludes(relative: string): boolean },
  visit: (relative: string) => void,
  from = '',
): Promise<void> {
  const pending: string[] = [from];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    visit(folder);
    let entries;
    try {
      entries = await readdir(join(root, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory() && !exclude.excludes(relative)) pending.push(relative);
    }
  }
}
