import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import {
  access,
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  stat,
  unlink,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { resolveVaultPath } from './paths';

/*
 * Every write the companion makes into the vault (DESIGN §1.4): whole-file atomic (a temp file
 * in the same folder, fsync, rename), and never over a change it did not see. Obsidian, a sync
 * client or the user may write the same note at any moment; the companion only ever edits the
 * lines and keys it owns, so on a concurrent change it re-reads and re-applies its edit once,
 * and when that no longer applies it writes nothing.
 */

/** Why a vault write did not happen; `code` is the API error code the routes answer with. */
export class VaultWriteError extends Error {
  override name = 'VaultWriteError';
  constructor(
    readonly code: 'VALIDATION_ERROR' | 'NOT_FOUND' | 'CONFLICT' | 'UNPROCESSABLE',
    message: string,
    /** The request field the problem is about, when there is one (e.g. `path`). */
    readonly field?: string,
  ) {
    super(message);
  }
}

/**
 * An edit of a file's whole text: returns the new text (the same text = nothing to write), or
 * throws a VaultWriteError when the edit does not apply (e.g. its line is gone).
 */
export type TextEdit = (current: string) => string;

export interface EditedFile {
  /** Vault-relative path as named on disk. */
  readonly path: string;
  readonly before: string;
  readonly after: string;
  readonly changed: boolean;
}

/** Test seam: runs between the read and the write of each attempt (to race a concurrent edit). */
export interface EditHooks {
  beforeWrite?(attempt: number): Promise<void> | void;
}

/** Attempts per edit: the first, and one re-read after a concurrent change. */
const ATTEMPTS = 2;

/**
 * Reads `path` (vault-relative), applies `edit`, and replaces the file atomically if, just
 * before the rename, its content is still what the edit was applied to. On a concurrent change
 * the file is re-read and the edit applied again once; if it changed again, or the edit no
 * longer applies to the new text, nothing is written and a CONFLICT is thrown. The file's mode
 * is kept; a read-only file is refused, as is a path outside the vault.
 */
export async function editVaultFile(
  vault: string,
  path: string,
  edit: TextEdit,
  hooks: EditHooks = {},
): Promise<EditedFile> {
  const resolved = await resolveVaultPath(vault, path, 'write');
  if (!resolved.ok) throw new VaultWriteError('VALIDATION_ERROR', resolved.reason, 'path');
  if (!resolved.exists) throw new VaultWriteError('NOT_FOUND', `${path} does not exist`);
  const absolute = resolved.absolute;

  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await readCurrent(absolute, resolved.relative);
    let after: string;
    try {
      after = edit(before.text);
    } catch (error) {
      if (attempt > 1 && error instanceof VaultWriteError) {
        throw new VaultWriteError(
          'CONFLICT',
          `${resolved.relative} changed while Cairn was editing it, and the edit no longer applies (${error.message}); nothing was written`,
        );
      }
      throw error;
    }
    if (after === before.text) {
      return { path: resolved.relative, before: before.text, after, changed: false };
    }
    await hooks.beforeWrite?.(attempt);
    await assertWritable(absolute, resolved.relative);
    const temp = await writeTemp(absolute, after, before.mode);
    try {
      const now = await readCurrent(absolute, resolved.relative).catch((error: unknown) => {
        if (error instanceof VaultWriteError && error.code === 'NOT_FOUND') {
          throw new VaultWriteError(
            'NOT_FOUND',
            `${resolved.relative} was deleted while Cairn was editing it; nothing was written`,
          );
        }
        throw error;
      });
      if (now.hash !== before.hash) {
        if (attempt === ATTEMPTS) {
          throw new VaultWriteError(
            'CONFLICT',
            `${resolved.relative} kept changing while Cairn was editing it; nothing was written, try again`,
          );
        }
        continue;
      }
      // The window between this check and the rename is a few microseconds; a writer landing
      // in it loses its change the way two editors saving the same file do.
      await rename(temp, absolute);
      await syncFolder(dirname(absolute));
      return { path: resolved.relative, before: before.text, after, changed: true };
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }
  /* c8 ignore next */
  throw new Error('unreachable');
}

/**
 * Creates a new file with `content`, atomically and never over an existing one: the text is
 * written and synced to a temp file, then hard-linked to its name (which fails if the name was
 * taken meanwhile). Missing folders are created. Throws a CONFLICT when the name exists.
 */
export async function createVaultFile(
  vault: string,
  path: string,
  content: string | Uint8Array,
): Promise<{ path: string; absolute: string }> {
  const resolved = await resolveVaultPath(vault, path, 'write');
  if (!resolved.ok) throw new VaultWriteError('VALIDATION_ERROR', resolved.reason, 'path');
  if (resolved.exists) throw new VaultWriteError('CONFLICT', `${resolved.relative} already exists`);
  const absolute = resolved.absolute;
  await mkdir(dirname(absolute), { recursive: true });
  const temp = await writeTemp(absolute, content, 0o644);
  try {
    try {
      await link(temp, absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        throw new VaultWriteError('CONFLICT', `${resolved.relative} already exists`);
      }
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
      // File systems without hard links (exFAT, some FUSE mounts): an exclusive create instead.
      // Not atomic, so a reader may briefly see a short file; never an overwrite.
      await writeExclusive(absolute, content, resolved.relative);
    }
    await syncFolder(dirname(absolute));
    return { path: resolved.relative, absolute };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Names of the folder's entries, for collision checks; none when the folder does not exist. */
export async function folderEntries(vault: string, folder: string): Promise<string[]> {
  const resolved = await resolveVaultPath(vault, folder, 'write');
  if (!resolved.ok) throw new VaultWriteError('VALIDATION_ERROR', resolved.reason, 'folder');
  if (!resolved.exists) return [];
  try {
    return (await readdir(resolved.absolute)).map((name) => `${resolved.relative}/${name}`);
  } catch {
    return [];
  }
}

export function contentHash(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function readCurrent(
  absolute: string,
  relative: string,
): Promise<{ text: string; hash: string; mode: number }> {
  let bytes: Buffer;
  let mode: number;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) throw new VaultWriteError('VALIDATION_ERROR', `${relative} is not a file`);
    mode = info.mode & 0o7777;
    bytes = await readFile(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new VaultWriteError('NOT_FOUND', `${relative} does not exist`);
    }
    throw error;
  }
  return { text: bytes.toString('utf8'), hash: contentHash(bytes), mode };
}

async function assertWritable(absolute: string, relative: string): Promise<void> {
  let writable: boolean;
  try {
    // A rename would replace a read-only file anyway (renames need only the folder's
    // permission), and root passes `access` checks: look at the mode bits too.
    const info = await stat(absolute);
    writable = (info.mode & 0o222) !== 0;
    if (writable) await access(absolute, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new VaultWriteError(
        'NOT_FOUND',
        `${relative} was deleted while Cairn was editing it; nothing was written`,
      );
    }
    writable = false;
  }
  if (!writable) {
    throw new VaultWriteError(
      'CONFLICT',
      `${relative} is read-only; Cairn does not write files that are protected`,
    );
  }
}

/** `.name.cairn-<random>.tmp` beside the target: same file system, hidden from Obsidian. */
async function writeTemp(
  target: string,
  content: string | Uint8Array,
  mode: number,
): Promise<string> {
  const temp = join(
    dirname(target),
    `.${basename(target)}.cairn-${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temp;
}

async function writeExclusive(
  absolute: string,
  content: string | Uint8Array,
  relative: string,
): Promise<void> {
  let handle;
  try {
    handle = await open(absolute, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new VaultWriteError('CONFLICT', `${relative} already exists`);
    }
    throw error;
  }
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the rename itself durable; not every platform can open a folder, so best effort. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows and some network file systems refuse; the rename is still atomic there.
  }
}
