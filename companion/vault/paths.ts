import { readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { portableNameProblem } from '../../shared/markdown/portable-name';
import { currentPathRules, describePathRules, pathAllowed } from '../auth/path-rules';
import { settingsPathAllowed } from './settings-paths';

export type VaultAccess = 'read' | 'write';

export type VaultPathResult =
  | {
      readonly ok: true;
      /** Vault-relative, `/`-separated, NFC, as it is (or will be) named on disk. */
      readonly relative: string;
      /** Absolute path under the vault's real path, symlinks in existing parts resolved. */
      readonly absolute: string;
      readonly exists: boolean;
    }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Set when the path is fine but outside the calling token's path rules (a 403, not a 400). */
      readonly forbidden?: true;
    };

const MAX_PATH_LENGTH = 1024;

/**
 * Turns a vault-relative path supplied by a client into a file system path that is
 * guaranteed to stay inside the vault (ASVS 5.3.2), or says why not.
 *
 * The path is validated as text first (no `..`, no absolute or drive paths, no backslashes,
 * no percent-encoding, no NUL or control characters, no hidden segments such as `.obsidian/`:
 * Obsidian ignores dot-folders, and its config folder holds plugin code and the plugin's
 * copy of the token). Then the longest existing prefix is resolved with `realpath`, so a
 * symlink inside the vault that points outside it is refused.
 *
 * Names are compared in NFC: macOS may store `é` decomposed (NFD), and writing the NFC
 * spelling next to it would create a second, identical-looking note. For writes, a new name
 * that differs only in case from an existing sibling is refused: the vault syncs to
 * case-insensitive systems where the two would collide.
 */
export async function resolveVaultPath(
  vaultRoot: string,
  userPath: string,
  access: VaultAccess = 'read',
): Promise<VaultPathResult> {
  // Cairn Sync's settings files (`.obsidian/appearance.json`, …), inside the sync routes only.
  const settings = settingsPathAllowed(userPath.normalize('NFC'));
  const problem = textProblem(userPath, settings);
  if (problem) return { ok: false, reason: `path ${JSON.stringify(userPath)}: ${problem}` };
  const segments = userPath.normalize('NFC').split('/');

  let root: string;
  try {
    root = await realpath(vaultRoot);
  } catch (error) {
    return { ok: false, reason: `vault ${vaultRoot}: ${(error as Error).message}` };
  }

  // Walk down the existing part, matching each segment's on-disk spelling in NFC.
  let current = root;
  const onDisk: string[] = [];
  let index = 0;
  for (; index < segments.length; index++) {
    const wanted = segments[index] as string;
    const entry = await findEntry(current, wanted);
    if (entry === null) break;
    const next = await realpathInside(join(current, entry), root);
    if (next === null) {
      return {
        ok: false,
        reason: `path ${JSON.stringify(userPath)}: leads outside the vault (through a symlink)`,
      };
    }
    if (hiddenInside(next, root) && !(settings && next === join(root, ...onDisk, entry))) {
      // A symlink such as `Projects/settings.md → ../.obsidian/plugins/cairn/data.json`: the
      // name looks ordinary, the file is one Cairn never reads or writes. A synced settings
      // file is allowed only as itself, never through a symlink.
      return {
        ok: false,
        reason: `path ${JSON.stringify(userPath)}: leads into a hidden file or folder (such as .obsidian/) through a symlink`,
      };
    }
    current = next;
    onDisk.push(entry);
    if (index < segments.length - 1 && !(await isDirectory(current))) {
      return {
        ok: false,
        reason: `path ${JSON.stringify(userPath)}: ${onDisk.join('/')} is not a folder`,
      };
    }
  }

  const missing = segments.slice(index);
  if (access === 'write') {
    // Names Cairn would create must work on every device the vault syncs to; names that
    // already exist are the user's and are left alone.
    for (const segment of missing) {
      // A synced settings path names `.obsidian/` on purpose; its names are otherwise portable.
      const problem = portableNameProblem(settings ? segment.replace(/^\./, '') : segment);
      if (problem !== null) {
        return { ok: false, reason: `path ${JSON.stringify(userPath)}: ${problem}` };
      }
    }
  }
  if (access === 'write' && missing.length > 0) {
    const clash = await caseVariant(current, missing[0] as string);
    if (clash !== null) {
      return {
        ok: false,
        reason: `path ${JSON.stringify(userPath)}: "${[...onDisk, clash].join('/')}" already exists with different letter case`,
      };
    }
  }
  const relative = [...onDisk, ...missing].join('/');
  const rules = currentPathRules();
  if (rules !== undefined && !pathAllowed(rules, relative)) {
    // The one check of the token's path rules for reads of a note and every write.
    return {
      ok: false,
      forbidden: true,
      reason: `path ${JSON.stringify(userPath)}: outside the folders this token may use (${describePathRules(rules)})`,
    };
  }
  return {
    ok: true,
    relative,
    absolute: join(current, ...missing),
    exists: missing.length === 0,
  };
}

function textProblem(path: string, settings = false): string | null {
  if (typeof path !== 'string' || path === '') return 'is empty';
  if (path.length > MAX_PATH_LENGTH) return `is longer than ${MAX_PATH_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'contains a NUL or control character';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path))
    return 'is absolute; give a path inside the vault';
  if (/%[0-9A-Fa-f]{2}/.test(path)) return 'looks percent-encoded; send the decoded path';
  if (path.includes('\\')) return 'contains a backslash; use / between folders';
  const segments = path.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.')) {
    return 'contains "." or ".." segments';
  }
  if (segments.some((segment) => segment === ''))
    return 'contains an empty segment (// or a trailing /)';
  if (!settings && segments.some((segment) => segment.startsWith('.'))) {
    return 'names a hidden file or folder (such as .obsidian/), which Cairn never reads or writes';
  }
  return null;
}

/** The on-disk name in `dir` equal to `wanted` in NFC, or null. Exact bytes win over NFC matches. */
async function findEntry(dir: string, wanted: string): Promise<string | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  if (names.includes(wanted)) return wanted;
  return names.find((name) => name.normalize('NFC') === wanted) ?? null;
}

/**
 * `userPath` with each folder that exists on disk in other letter case spelled as on disk
 * (`projects/plan.md` → `Projects/plan.md` when `Projects/` exists): a device on a case-sensitive
 * file system may name a folder otherwise than the companion's, and its file belongs in the one
 * folder every case-insensitive device has. Only text is returned; nothing is checked or made.
 */
export async function folderSpelledOnDisk(vaultRoot: string, userPath: string): Promise<string> {
  const segments = userPath.split('/');
  let current = vaultRoot;
  for (let index = 0; index < segments.length - 1; index++) {
    const wanted = segments[index] as string;
    const entry = (await findEntry(current, wanted)) ?? (await caseVariant(current, wanted));
    if (entry === null || !(await isDirectory(join(current, entry)))) break;
    segments[index] = entry;
    current = join(current, entry);
  }
  return segments.join('/');
}

async function caseVariant(dir: string, wanted: string): Promise<string | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  const lower = wanted.toLocaleLowerCase('en-US');
  return (
    names.find((name) => {
      const spelled = name.normalize('NFC');
      // The very name, created meanwhile (a concurrent write made the folder): not a clash.
      return spelled !== wanted && spelled.toLocaleLowerCase('en-US') === lower;
    }) ?? null
  );
}

async function realpathInside(path: string, root: string): Promise<string | null> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    // A dangling symlink: where it points is unknown, so it is not inside.
    return null;
  }
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep) ? real : null;
}

/** Whether the real path `real` (inside `root`) has a dot-named segment below the root. */
export function hiddenInside(real: string, root: string): boolean {
  if (real === root) return false;
  const below = real.slice((root.endsWith(sep) ? root : root + sep).length);
  return below.split(sep).some((segment) => segment.startsWith('.'));
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
