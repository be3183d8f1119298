import { createHash, randomBytes } from 'node:crypto';
import { constants, linkSync, renameSync, statSync, unlinkSync } from 'node:fs';
import {
  access,
  chmod,
  copyFile,
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
import type { Clock } from '../../shared/ports';
import { mergeLines } from '../../shared/markdown/merge-lines';
import { conflictCopyName, conflictStamp } from './conflict-copies';
import { inDryRun, planForDryRun, plannedText } from './dry-run';
import { resolveVaultPath } from './paths';
import { portableNameProblem } from '../../shared/markdown/portable-name';

/*
 * Every write the companion makes into the vault (docs/principles.md, docs/chat.md): whole-file atomic (a temp file
 * in the same folder, fsync, rename), and never over a change it did not see. Obsidian, a sync
 * client or the user may write the same note at any moment; the companion only ever edits the
 * lines and keys it owns, so on a concurrent change it re-reads and re-applies its edit once,
 * and when that no longer applies it writes nothing.
 */

/** Why a vault write did not happen; `code` is the API error code the routes answer with. */
export class VaultWriteError extends Error {
  override name = 'VaultWriteError';
  constructor(
    readonly code:
      | 'VALIDATION_ERROR'
      | 'FORBIDDEN'
      | 'NOT_FOUND'
      | 'CONFLICT'
      | 'UNPROCESSABLE'
      | 'STORAGE_FULL'
      | 'STORAGE_READ_ONLY',
    message: string,
    /** The request field the problem is about, when there is one (e.g. `path`). */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** A path `resolveVaultPath` refused, as the error: FORBIDDEN when the token's path rules say no. */
export function pathRefusal(
  resolved: { readonly reason: string; readonly forbidden?: true },
  field: string,
): VaultWriteError {
  return new VaultWriteError(
    resolved.forbidden === true ? 'FORBIDDEN' : 'VALIDATION_ERROR',
    resolved.reason,
    field,
  );
}

/**
 * A create that found its name taken (a CONFLICT): callers that want the existing file (a
 * digest written meanwhile) tell it from other conflicts by type, never by message.
 */
export class VaultFileExistsError extends VaultWriteError {
  override name = 'VaultFileExistsError';
  constructor(readonly relative: string) {
    super('CONFLICT', `${relative} already exists`);
  }
}

/**
 * A write the vault's disk refused: full (ENOSPC, EDQUOT), read-only (EROFS), or a folder the
 * companion may not write in (EACCES, EPERM). Said as the vault's problem with the note's
 * vault-relative path (never the absolute one: it must not leave the server), so the routes
 * answer 507 with a message a user can act on. Anything else is rethrown as it is.
 */
function vaultStorageError(error: unknown, relative: string): unknown {
  if (error instanceof VaultWriteError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new VaultWriteError(
      'STORAGE_FULL',
      `the disk holding the vault is full (writing ${relative}); nothing was saved. Free some space there and try again`,
    );
  }
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') {
    const place =
      code === 'EROFS'
        ? 'the vault is on a read-only disk'
        : 'the companion may not write in the vault folder holding it';
    return new VaultWriteError(
      'STORAGE_READ_ONLY',
      `${relative} cannot be written: ${place}; nothing was saved. Make it writable and try again`,
    );
  }
  return error;
}

/** Runs a vault write, saying a full or read-only disk as such (see vaultStorageError). */
async function storageSaid<T>(relative: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw vaultStorageError(error, relative);
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
  /** Vault-relative path of a conflict copy kept of someone else's version, when one was made. */
  readonly conflictCopy?: string;
}

/** Test seams and the clock; all optional. */
export interface EditHooks {
  /** Runs between the read and the last check of each attempt (to race a concurrent edit). */
  beforeWrite?(attempt: number): Promise<void> | void;
  /**
   * Runs between the re-read through the witness and the rename, before the synchronous check
   * that the note is still the witnessed file (to land a change in the window that check closes).
   */
  beforeRename?(attempt: number): Promise<void> | void;
  /**
   * Runs synchronously after the last inode check, directly before the note is swapped (to land
   * another program's rename in the few microseconds between them, which no check can close).
   */
  inLastWindow?(attempt: number): void;
  /** Runs synchronously while the note is moved aside by the swap (to make the note anew then). */
  whileAside?(): void;
  /** Runs right after the rename (to land a stale version over Cairn's, as a sync tool may). */
  afterRename?(attempt: number): Promise<void> | void;
  /** Names conflict copies; the system clock when absent. */
  clock?: Clock;
  /** How long the write waits to re-read the replaced file; LATE_WRITE_GRACE_MS when absent. */
  lateWriteGraceMs?: number;
  /** When the replaced file is re-read again after answering (ms after each other); LATE_WATCH_MS when absent, `[]` for none. */
  lateWatchMs?: readonly number[];
}

/** Attempts per edit: the first, then a merge or re-applied edit per concurrent change. */
const ATTEMPTS = 10;
/**
 * A writer that opened the file before the rename may write into the replaced file a moment
 * after it (Node's appendFile opens, then writes, through a busy thread pool): the replaced
 * file is read again after this long, so such a write is merged in too.
 */
const LATE_WRITE_GRACE_MS = 20;
/** Further looks at the replaced file after the write answered, each this long after the last. */
const LATE_WATCH_MS: readonly number[] = [250, 2000];
/** How many times a change that landed after the last check is merged in before it is copied. */
const LATE_MERGES = 2;

/**
 * Reads `path` (vault-relative), applies `edit`, and replaces the file atomically if, just
 * before the rename, its content is still what the edit was applied to. When it changed
 * meanwhile, the two edits are merged line by line (diff3 against the text read); when they
 * touched the same lines, the edit is applied afresh to the new text; when it no longer applies,
 * nothing is written and a CONFLICT is thrown. A change that lands between the last check and
 * the rename is caught too (see `replaceWatched`): it is merged into the new file, or kept as a
 * conflict copy beside it, never dropped. The file's mode is kept; a read-only file is refused,
 * as is a path outside the vault.
 */
export async function editVaultFile(
  vault: string,
  path: string,
  edit: TextEdit,
  hooks: EditHooks = {},
): Promise<EditedFile> {
  const resolved = await resolveVaultPath(vault, path, 'write');
  if (!resolved.ok) throw pathRefusal(resolved, 'path');
  // In a dry run's block of writes (dry-run.ts), a file it planned to make is there.
  const planned = plannedText(resolved.relative);
  if (planned === null || (!resolved.exists && planned === undefined)) {
    throw new VaultWriteError('NOT_FOUND', `${path} does not exist`);
  }
  return oneAtATime(resolved.absolute, () =>
    storageSaid(resolved.relative, () =>
      editResolved(vault, resolved.absolute, resolved.relative, edit, hooks, 0),
    ),
  );
}

/**
 * Edits of one file by this process, in turn. The witness link sees writes into the file it
 * replaces, not a second rename over it: two of Cairn's own edits renaming at once would drop
 * the first (and what others appended to it), so they queue instead. Keyed by absolute path;
 * an entry lives only while an edit of that file is running or waiting.
 */
const editsInFlight = new Map<string, Promise<unknown>>();

async function oneAtATime<T>(absolute: string, work: () => Promise<T>): Promise<T> {
  const previous = editsInFlight.get(absolute) ?? Promise.resolve();
  const mine = previous.then(work, work);
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  editsInFlight.set(absolute, settled);
  try {
    return await mine;
  } finally {
    if (editsInFlight.get(absolute) === settled) editsInFlight.delete(absolute);
  }
}

async function editResolved(
  vault: string,
  absolute: string,
  relative: string,
  edit: TextEdit,
  hooks: EditHooks,
  lateMerges: number,
): Promise<EditedFile> {
  if (inDryRun()) {
    // A dry run (dry-run.ts): the edit applied to the file as it is (or as the dry run's
    // earlier writes left it), recorded, nothing written.
    const current = plannedText(relative) ?? (await readCurrent(absolute, relative)).text;
    const planned = edit(current);
    if (planned === current) {
      return { path: relative, before: current, after: planned, changed: false };
    }
    planForDryRun({ path: relative, action: 'edit', before: current, after: planned });
    return { path: relative, before: current, after: planned, changed: true };
  }
  if (lateMerges === 0 && recentWrites(absolute).length > 0) {
    // Cairn's recent writes of this file are still watched: make sure they are in what this
    // edit starts from (a stale version renamed over them would otherwise become the base).
    await keepOursOnDisk(vault, absolute, relative, hooks, lateMerges);
  }
  let before = await readCurrent(absolute, relative);
  const original = before.text;
  let after = edit(before.text);
  /** The next attempt starts from their version, with Cairn's edit reconciled onto it. */
  const buildOn = (theirs: Awaited<ReturnType<typeof readCurrent>>): void => {
    after = reconcile(relative, before.text, after, withRecentWrites(absolute, theirs.text), edit);
    before = theirs;
  };
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (after === before.text) {
      return { path: relative, before: original, after, changed: false };
    }
    await hooks.beforeWrite?.(attempt);
    await assertWritable(absolute, relative);
    const temp = await writeTemp(absolute, after, before.mode);
    let witness: string | null = null;
    try {
      witness = await witnessLink(absolute, relative);
      const now = await readCurrent(witness ?? absolute, relative);
      if (now.hash !== before.hash) {
        buildOn(now);
        continue;
      }
      await hooks.beforeRename?.(attempt);
      // What another program renamed over the note after the last check: moved aside by the
      // swap, not destroyed, and merged in below.
      let displaced: string | null = null;
      if (witness === null) {
        renameSync(temp, absolute);
      } else {
        // A writer that renames its own file over the note (sync tools, many editors) after the
        // witness was made leaves the witness on a file that is no longer the note. This check
        // (synchronous, directly before the swap) sees nearly all of them before anything is
        // written; the swap keeps the rest (see swapIn).
        if (replacedSinceWitness(absolute, witness, relative)) {
          buildOn(await readCurrent(absolute, relative));
          continue;
        }
        hooks.inLastWindow?.(attempt);
        const swap = swapIn(temp, absolute, witness, relative, hooks.whileAside);
        if (swap.taken) {
          // Someone made the note anew in the instant it was aside: build on theirs.
          const theirs = await readCurrent(absolute, relative);
          await keepAsideUnlessHeld(vault, relative, swap.aside, theirs.text, hooks.clock);
          buildOn(theirs);
          continue;
        }
        displaced = swap.displaced ? swap.aside : null;
        if (displaced === null) await unlink(swap.aside).catch(() => undefined);
      }
      const generation = recordWrite(absolute, now.text, after);
      await hooks.afterRename?.(attempt);
      await syncFolder(dirname(absolute));
      let conflictCopy: string | undefined;
      if (displaced !== null) {
        const theirs = await readCurrent(displaced, relative);
        conflictCopy = await keepLateChange(
          vault,
          absolute,
          relative,
          now.text,
          theirs.text,
          hooks,
          lateMerges,
        );
        await unlink(displaced).catch(() => undefined);
      }
      const replaced =
        witness === null ? now : await settledText(witness, relative, hooks.lateWriteGraceMs);
      if (replaced.hash !== now.hash) {
        const copy = await keepLateChange(
          vault,
          absolute,
          relative,
          now.text,
          replaced.text,
          hooks,
          lateMerges,
        );
        conflictCopy ??= copy;
      }
      conflictCopy ??= await keepOursOnDisk(vault, absolute, relative, hooks, lateMerges);
      if (witness !== null && (hooks.lateWatchMs ?? LATE_WATCH_MS).length > 0) {
        watchReplaced(vault, absolute, relative, witness, replaced, hooks, lateMerges);
        witness = null; // the watch removes it
      } else {
        forgetWrite(absolute, generation);
      }
      return conflictCopy === undefined
        ? { path: relative, before: original, after, changed: true }
        : { path: relative, before: original, after, changed: true, conflictCopy };
    } finally {
      await unlink(temp).catch(() => undefined);
      if (witness !== null) await unlink(witness).catch(() => undefined);
    }
  }
  throw new VaultWriteError(
    'CONFLICT',
    `${relative} kept changing while Cairn was editing it; nothing was written, try again`,
  );
}

/**
 * The text to write after the file changed from `base` to `theirs` while Cairn made `ours` of
 * `base`: the line merge of both when they changed different lines, else the edit applied to
 * `theirs` (it touches only lines Cairn owns), else a CONFLICT.
 */
function reconcile(
  relative: string,
  base: string,
  ours: string,
  theirs: string,
  edit: TextEdit,
): string {
  const merged = mergeLines(base, ours, theirs);
  if (merged.clean) return merged.text;
  try {
    return edit(theirs);
  } catch (error) {
    if (error instanceof VaultWriteError) {
      throw new VaultWriteError(
        'CONFLICT',
        `${relative} changed while Cairn was editing it, and the edit no longer applies (${error.message}); nothing was written`,
      );
    }
    throw error;
  }
}

/**
 * A change landed on the old file after the last check (its inode, held by the witness link,
 * no longer has the checked text): merge it into what is on disk now, or, when it cannot be
 * merged, keep that version as a conflict copy next to the note. Returns the copy's path.
 */
async function keepLateChange(
  vault: string,
  absolute: string,
  relative: string,
  base: string,
  theirs: string,
  hooks: EditHooks,
  lateMerges: number,
): Promise<string | undefined> {
  if (lateMerges < LATE_MERGES) {
    try {
      const mergeTheirs: TextEdit = (current) => {
        const merged = mergeLines(base, current, theirs);
        if (!merged.clean) throw new VaultWriteError('CONFLICT', merged.reason);
        return merged.text;
      };
      const result = await editResolved(
        vault,
        absolute,
        relative,
        mergeTheirs,
        hooks,
        lateMerges + 1,
      );
      return result.conflictCopy;
    } catch {
      // Not mergeable, still changing, or the note went away meanwhile: keep their version as
      // a copy rather than lose it.
    }
  }
  return writeConflictCopy(vault, relative, theirs, hooks.clock);
}

/** `Note.conflict-20261125-034100.md` beside `Note.md` (UTC), with `-2`, `-3`… if taken. */
async function writeConflictCopy(
  vault: string,
  relative: string,
  text: string,
  clock: Clock | undefined,
): Promise<string> {
  const stamp = conflictStamp(clock?.now() ?? Date.now());
  for (let n = 1; ; n++) {
    const candidate = conflictCopyName(relative, stamp, n);
    try {
      return (await createVaultFile(vault, candidate, text)).path;
    } catch (error) {
      // Taken (or, in a race with another copy of the same second, taken in other letter case).
      const taken =
        error instanceof VaultWriteError &&
        (error.code === 'CONFLICT' || error.code === 'VALIDATION_ERROR');
      if (!taken || n >= 100) throw error;
    }
  }
}

/** One of Cairn's writes of a file: the text it replaced and the text it wrote. */
interface WrittenVersion {
  readonly base: string;
  readonly ours: string;
  readonly generation: number;
  /** Date.now() when written, to let it go once no watch looks any more. */
  readonly at: number;
}

/**
 * Cairn's recent writes per file (absolute path), oldest first, kept while the late watches run:
 * a writer that read the note before several of them and renames its version over the last
 * drops them all, and each must be brought back.
 */
const lastWrites = new Map<string, WrittenVersion[]>();
let writeGenerations = 0;
/** How long a write is remembered: past the last late watch, with room for a slow loop. */
const WRITE_KEPT_MS = 5_000;
/** Writes remembered per file at most. */
const WRITES_KEPT = 32;

function recordWrite(absolute: string, base: string, ours: string): number {
  const generation = ++writeGenerations;
  const chain = [...recentWrites(absolute), { base, ours, generation, at: Date.now() }];
  lastWrites.set(absolute, chain.slice(-WRITES_KEPT));
  return generation;
}

function recentWrites(absolute: string): WrittenVersion[] {
  const chain = lastWrites.get(absolute);
  if (chain === undefined) return [];
  const since = Date.now() - WRITE_KEPT_MS;
  const live = chain.filter((write) => write.at >= since);
  if (live.length === 0) lastWrites.delete(absolute);
  else if (live.length < chain.length) lastWrites.set(absolute, live);
  return live;
}

function forgetWrite(absolute: string, generation: number): void {
  const chain = recentWrites(absolute).filter((write) => write.generation !== generation);
  if (chain.length === 0) lastWrites.delete(absolute);
  else lastWrites.set(absolute, chain);
}

/**
 * True when the note is no longer the file the witness holds: someone renamed (or deleted and
 * recreated) it since the witness was made. Synchronous on purpose (see the caller).
 */
function replacedSinceWitness(absolute: string, witness: string, relative: string): boolean {
  const held = statSync(witness);
  let note;
  try {
    note = statSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new VaultWriteError(
        'NOT_FOUND',
        `${relative} was deleted while Cairn was editing it; nothing was written`,
      );
    }
    throw error;
  }
  return note.ino !== held.ino || note.dev !== held.dev;
}

/**
 * Puts `temp` at the note's name in place of the file there, without destroying that file: the
 * note is first renamed aside (atomic, so whatever file is at the name at that instant is the
 * one moved, even one another program renamed over it a microsecond after the last check),
 * then `temp` is linked to the name, which fails if someone made the note anew in the instant
 * between the two calls. A plain rename over the note would destroy a file renamed in at the
 * last moment with no name left to read it by; only Linux's renameat2(RENAME_EXCHANGE), which
 * Node does not offer, would do this in one call. The price is that the name is empty for the
 * time between two back-to-back system calls (docs/vault-writes.md).
 *
 * `displaced`: the file moved aside is not the witnessed one (someone renamed theirs in after
 * the check), so its text has to be merged. `taken`: the note was made anew meanwhile and
 * `temp` was not put in place. Either way the moved file is at `aside` until the caller is done
 * with it; a crash before that leaves it for the next start to put back (leftover-temps.ts).
 */
function swapIn(
  temp: string,
  absolute: string,
  witness: string,
  relative: string,
  whileAside?: () => void,
): { readonly aside: string; readonly displaced: boolean; readonly taken: boolean } {
  const aside = asideName(absolute);
  try {
    renameSync(absolute, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new VaultWriteError(
        'NOT_FOUND',
        `${relative} was deleted while Cairn was editing it; nothing was written`,
      );
    }
    throw error;
  }
  let taken = false;
  try {
    whileAside?.();
    linkSync(temp, absolute);
  } catch (error) {
    taken = (error as NodeJS.ErrnoException).code === 'EEXIST';
    if (!taken) {
      // Nothing was written: the note goes back where it was.
      try {
        linkSync(aside, absolute);
        unlinkSync(aside);
      } catch {
        // Left aside under its name: the next start puts it back (leftover-temps.ts).
      }
      throw error;
    }
  }
  const moved = statSync(aside);
  const held = statSync(witness);
  return { aside, displaced: moved.ino !== held.ino || moved.dev !== held.dev, taken };
}

/**
 * The file that was aside when the note was made anew: dropped when the new note holds all its
 * lines (its writer read it first), else kept beside the note as a conflict copy.
 */
async function keepAsideUnlessHeld(
  vault: string,
  relative: string,
  aside: string,
  current: string,
  clock: Clock | undefined,
): Promise<void> {
  try {
    const held = await readFile(aside, 'utf8');
    if (!containsLines(current, held)) await linkConflictCopy(vault, relative, aside, clock);
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

/**
 * Whether Cairn's change from `base` to `ours` is still in `current`: every line it added is
 * there at least as often, and no line it removed came back. A writer that read the note before
 * Cairn's rename and then renamed (or saved in place) its own version over Cairn's drops it.
 */
function stillHasOurChange(base: string, ours: string, current: string): boolean {
  if (current === ours) return true;
  const counts = (text: string): Map<string, number> => {
    const map = new Map<string, number>();
    for (const line of text.split('\n')) map.set(line, (map.get(line) ?? 0) + 1);
    return map;
  };
  const was = counts(base);
  const wrote = counts(ours);
  const now = counts(current);
  for (const [line, n] of wrote) {
    if (n > (was.get(line) ?? 0) && (now.get(line) ?? 0) < n) return false;
  }
  for (const [line, n] of was) {
    const kept = wrote.get(line) ?? 0;
    if (n > kept && (now.get(line) ?? 0) > kept) return false;
  }
  return true;
}

/** Whether every line of `part` is in `whole`, at least as often. */
function containsLines(whole: string, part: string): boolean {
  const have = new Map<string, number>();
  for (const line of whole.split('\n')) have.set(line, (have.get(line) ?? 0) + 1);
  for (const line of part.split('\n')) {
    const n = have.get(line) ?? 0;
    if (n === 0) return false;
    have.set(line, n - 1);
  }
  return true;
}

/** The writes of `chain` to merge into `current`: from the newest whose starting text it holds. */
function writesToRestore(chain: readonly WrittenVersion[], current: string): WrittenVersion[] {
  let from = chain.length - 1;
  while (from > 0 && !containsLines(current, (chain[from] as WrittenVersion).base)) from--;
  return chain.slice(from);
}

/** `text` with each of `writes` merged in again where it is missing; a CONFLICT if one cannot be. */
function mergeWrites(writes: readonly WrittenVersion[], text: string): string {
  let restored = text;
  for (const write of writes) {
    if (stillHasOurChange(write.base, write.ours, restored)) continue;
    const merged = mergeLines(write.base, write.ours, restored);
    if (!merged.clean) throw new VaultWriteError('CONFLICT', merged.reason);
    restored = merged.text;
  }
  return restored;
}

/**
 * Someone else's version of the note that an edit is about to build on, with Cairn's recent
 * writes it dropped merged back in (it was made from a copy read before them). As it is when
 * it holds them all, or when they cannot be merged (the later checks keep a conflict copy).
 */
function withRecentWrites(absolute: string, theirs: string): string {
  const chain = recentWrites(absolute);
  const last = chain.at(-1);
  if (last === undefined) return theirs;
  if (containsLines(theirs, last.ours) && stillHasOurChange(last.base, last.ours, theirs)) {
    return theirs;
  }
  try {
    return mergeWrites(writesToRestore(chain, theirs), theirs);
  } catch {
    return theirs;
  }
}

/**
 * Cairn's recent writes of the note must still be in it. When someone replaced the note with a
 * version made before some of them (a sync tool that read it, then renamed its copy over
 * Cairn's), those writes are merged again, in order, into what is there now, starting from the
 * newest write whose starting text the note still holds; when that cannot be done, the last
 * version Cairn wrote is kept as a conflict copy. Returns the copy's path. Nothing to do when
 * the note holds Cairn's last version (plus whatever others added) or is gone.
 */
async function keepOursOnDisk(
  vault: string,
  absolute: string,
  relative: string,
  hooks: EditHooks,
  lateMerges: number,
): Promise<string | undefined> {
  const chain = recentWrites(absolute);
  const last = chain.at(-1);
  if (last === undefined) return undefined;
  let current: string;
  try {
    current = (await readCurrent(absolute, relative)).text;
  } catch {
    return undefined; // deleted or moved meanwhile: not Cairn's to bring back
  }
  if (containsLines(current, last.ours) && stillHasOurChange(last.base, last.ours, current)) {
    return undefined;
  }
  const lost = writesToRestore(chain, current);
  lastWrites.delete(absolute); // the restoring write records itself
  if (lateMerges < LATE_MERGES) {
    try {
      const restore: TextEdit = (text) => mergeWrites(lost, text);
      const result = await editResolved(vault, absolute, relative, restore, hooks, lateMerges + 1);
      return result.conflictCopy;
    } catch {
      // Not mergeable or still changing: keep Cairn's version as a copy rather than lose it.
    }
  }
  return writeConflictCopy(vault, relative, last.ours, hooks.clock);
}

/**
 * Keeps an eye on the replaced file for a while after the write has answered: a write still in
 * flight on it (a slow thread pool under load can hold one for longer than LATE_WRITE_GRACE_MS)
 * is merged in, or kept as a conflict copy, when it lands. Timers are unref'd; if the process
 * stops first, the witness is a temp file that the next start-up removes.
 */
function watchReplaced(
  vault: string,
  absolute: string,
  relative: string,
  witness: string,
  seen: { text: string; hash: string },
  hooks: EditHooks,
  lateMerges: number,
): void {
  const delays = hooks.lateWatchMs ?? LATE_WATCH_MS;
  void (async () => {
    let last = seen;
    try {
      for (const delay of delays) {
        await new Promise((done) => setTimeout(done, delay).unref());
        await oneAtATime(absolute, () =>
          keepOursOnDisk(vault, absolute, relative, hooks, lateMerges),
        );
        const current = await readCurrent(witness, relative);
        if (current.hash === last.hash) continue;
        await oneAtATime(absolute, () =>
          keepLateChange(vault, absolute, relative, last.text, current.text, hooks, lateMerges),
        );
        last = current;
      }
    } catch {
      // The note was deleted or moved meanwhile: nothing left to merge into.
    } finally {
      await unlink(witness).catch(() => undefined);
    }
  })();
}

/** The witness's text once writes still in flight on it had a moment to land. */
async function settledText(
  witness: string,
  relative: string,
  graceMs = LATE_WRITE_GRACE_MS,
): Promise<{ text: string; hash: string; mode: number }> {
  if (graceMs > 0) await new Promise((done) => setTimeout(done, graceMs));
  return readCurrent(witness, relative);
}

/**
 * A hard link to the file's current inode, named like a temp file: after the rename it still
 * holds the replaced version, so a writer that changed the old file in place after the last
 * check is seen instead of lost. Null on file systems without hard links (then only the check
 * before the rename guards the write).
 */
async function witnessLink(absolute: string, relative: string): Promise<string | null> {
  const witness = tempName(absolute);
  for (let tries = 1; ; tries++) {
    try {
      await link(absolute, witness);
      return witness;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Linux answers ENOENT when the file found by name was renamed over (its last link gone)
      // before the link was made: the note is still there, only replaced. Link the new one.
      if (code === 'ENOENT' && tries < 10 && (await exists(absolute))) continue;
      return witnessLinkFailed(error, relative);
    }
  }
}

async function exists(absolute: string): Promise<boolean> {
  return stat(absolute).then(
    () => true,
    () => false,
  );
}

/** Null on file systems without hard links; a NOT_FOUND when the note is gone. */
function witnessLinkFailed(error: unknown, relative: string): null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    throw new VaultWriteError(
      'NOT_FOUND',
      `${relative} was deleted while Cairn was editing it; nothing was written`,
    );
  }
  if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV') return null;
  throw error;
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
  if (!resolved.ok) throw pathRefusal(resolved, 'path');
  const planned = plannedText(resolved.relative);
  if (planned !== undefined ? planned !== null : resolved.exists) {
    throw new VaultFileExistsError(resolved.relative);
  }
  if (inDryRun()) {
    const text = typeof content === 'string' ? content : null;
    planForDryRun({
      path: resolved.relative,
      action: 'create',
      before: null,
      after: text,
      ...(text === null
        ? {
            diff: `Binary file b/${resolved.relative} (${content.length} bytes) would be created\n`,
          }
        : {}),
    });
    return { path: resolved.relative, absolute: resolved.absolute };
  }
  const absolute = resolved.absolute;
  return storageSaid(resolved.relative, async () => {
    await mkdir(dirname(absolute), { recursive: true });
    const temp = await writeTemp(absolute, content, 0o644);
    try {
      try {
        await link(temp, absolute);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') {
          throw new VaultFileExistsError(resolved.relative);
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
  });
}

/**
 * Removes a file Cairn has just created, when its answer turned into an error after all (its
 * record could not be stored): only while it still holds exactly `content`, so nothing anyone
 * wrote into it meanwhile is deleted. True when it was removed (or is gone already).
 */
export async function removeCreatedFile(
  vault: string,
  path: string,
  content: string | Uint8Array,
): Promise<boolean> {
  const resolved = await resolveVaultPath(vault, path, 'write');
  if (!resolved.ok) return false;
  if (!resolved.exists) return true;
  const now = await readFile(resolved.absolute).catch(() => undefined);
  if (now === undefined || contentHash(now) !== contentHash(content)) return false;
  await unlink(resolved.absolute);
  await syncFolder(dirname(resolved.absolute));
  return true;
}

/** Names of the folder's entries, for collision checks; none when the folder does not exist. */
export async function folderEntries(vault: string, folder: string): Promise<string[]> {
  const resolved = await resolveVaultPath(vault, folder, 'write');
  if (!resolved.ok) throw pathRefusal(resolved, 'folder');
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
    const code = (error as NodeJS.ErrnoException).code;
    // A read-only disk is the disk's problem, not this file's protection: a 507, not a 409.
    if (code === 'EROFS') throw vaultStorageError(error, relative);
    if (code === 'ENOENT') {
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

/** `.name.cairn-<12 hex>.tmp` beside the target: same file system, hidden from Obsidian. */
function tempName(target: string): string {
  return join(dirname(target), `.${basename(target)}.cairn-${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * `.name.cairn-aside-<12 hex>.tmp` beside the note: the note itself, moved aside for a moment
 * (swapIn, removeVaultFile). Unlike other temps, the next start puts it back when the note's
 * name is empty (a crash between moving it and putting something in its place).
 */
function asideName(target: string): string {
  return join(
    dirname(target),
    `.${basename(target)}.cairn-aside-${randomBytes(6).toString('hex')}.tmp`,
  );
}

/** Exactly the names `tempName` and `asideName` make (and nothing a user would name a file). */
export const TEMP_FILE_NAME = /^\..+\.cairn-(?:aside-)?[0-9a-f]{12}\.tmp$/;

/** An `asideName`, with the name of the note it was moved from. */
export const ASIDE_FILE_NAME = /^\.(.+)\.cairn-aside-[0-9a-f]{12}\.tmp$/;

async function writeTemp(
  target: string,
  content: string | Uint8Array,
  mode: number,
): Promise<string> {
  const temp = tempName(target);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      // Closing can report a deferred write error (ENOSPC, EDQUOT on network disks) too.
      await handle.close();
    }
  } catch (error) {
    // A full disk must not keep the part written: the temp goes at once, not at the next start.
    await unlink(temp).catch(() => undefined);
    throw error;
  }
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
      throw new VaultFileExistsError(relative);
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

/*
 * Whole-file writes of bytes that are already on disk elsewhere (Cairn Sync's blob store,
 * companion/sync/): streamed, never held in memory, and with the same guarantees as the edits
 * above. Each names the version (`expectedHash`, SHA-256 hex) it means to replace; when the file
 * on disk is not that version any more, nothing is written and a CONFLICT is thrown, so the
 * caller can look at the newer version first. A change that lands on the replaced file after the
 * last check is kept as a conflict copy beside it, never dropped.
 */

/** SHA-256 hex and size of a file, read in chunks. */
export async function hashFile(absolute: string): Promise<{ hash: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const handle = await open(absolute, 'r');
  try {
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      const bytes = chunk as Buffer;
      size += bytes.length;
      hash.update(bytes);
    }
  } finally {
    await handle.close();
  }
  return { hash: hash.digest('hex'), size };
}

/**
 * Writes the bytes of `source` (an absolute path outside the vault) to the vault-relative `path`:
 * a new file when `expectedHash` is null (never over an existing one), else a replacement of the
 * file whose content hashes to `expectedHash`. Returns the path as named on disk and, when a
 * change landed on the replaced file between the check and the rename, where it was kept.
 */
export async function writeVaultFileFrom(
  vault: string,
  path: string,
  source: string,
  expectedHash: string | null,
  hooks: Pick<
    EditHooks,
    'clock' | 'beforeRename' | 'inLastWindow' | 'whileAside' | 'lateWriteGraceMs'
  > = {},
): Promise<{ path: string; conflictCopy?: string }> {
  const resolved = await resolveVaultPath(vault, path, 'write');
  if (!resolved.ok) throw pathRefusal(resolved, 'path');
  const { absolute, relative } = resolved;
  if (inDryRun()) {
    // An upload's bytes (ingest): said by size, not as text.
    if (expectedHash === null && resolved.exists) throw new VaultFileExistsError(relative);
    const { size } = await stat(source);
    planForDryRun({
      path: relative,
      action: expectedHash === null ? 'create' : 'edit',
      before: null,
      after: null,
      diff: `Binary file b/${relative} (${size} bytes) would be ${expectedHash === null ? 'created' : 'replaced'}\n`,
    });
    return { path: relative };
  }
  if (expectedHash === null) {
    if (resolved.exists) throw new VaultFileExistsError(relative);
    // A full or read-only vault is said as such (507), never as the raw errno with a path.
    return storageSaid(relative, async () => {
      await mkdir(dirname(absolute), { recursive: true });
      const temp = await copyToTemp(absolute, source);
      try {
        await link(temp, absolute).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') throw new VaultFileExistsError(relative);
          throw error;
        });
        await syncFolder(dirname(absolute));
      } finally {
        await unlink(temp).catch(() => undefined);
      }
      return { path: relative };
    });
  }
  if (!resolved.exists) throw new VaultWriteError('NOT_FOUND', `${relative} does not exist`);
  return oneAtATime(absolute, async () => {
    await assertWritable(absolute, relative);
    const temp = await copyToTemp(absolute, source);
    let witness: string | null = null;
    try {
      witness = await witnessLink(absolute, relative);
      const now = await hashFile(witness ?? absolute);
      if (now.hash !== expectedHash) {
        throw new VaultWriteError('CONFLICT', `${relative} changed on disk; nothing was written`);
      }
      await hooks.beforeRename?.(1);
      if (witness === null) {
        renameSync(temp, absolute);
        await syncFolder(dirname(absolute));
        return { path: relative };
      }
      // As in editResolved: a writer that renamed its own file over the note since the witness
      // was made is seen here, synchronously and directly before the swap, and the swap keeps
      // one that lands after the check.
      if (replacedSinceWitness(absolute, witness, relative)) {
        throw new VaultWriteError(
          'CONFLICT',
          `${relative} was replaced on disk; nothing was written`,
        );
      }
      hooks.inLastWindow?.(1);
      const swap = swapIn(temp, absolute, witness, relative, hooks.whileAside);
      if (swap.taken) {
        // Made anew meanwhile: nothing was written. The version moved aside is kept unless it is
        // the expected one (the caller has those bytes already).
        try {
          if (swap.displaced || (await hashFile(swap.aside)).hash !== expectedHash) {
            await linkConflictCopy(vault, relative, swap.aside, hooks.clock);
          }
        } finally {
          await unlink(swap.aside).catch(() => undefined);
        }
        throw new VaultWriteError('CONFLICT', `${relative} changed on disk; nothing was written`);
      }
      await syncFolder(dirname(absolute));
      let displacedCopy: string | undefined;
      try {
        // Someone renamed theirs in after the check: kept beside the new version.
        if (swap.displaced) {
          displacedCopy = await linkConflictCopy(vault, relative, swap.aside, hooks.clock);
        }
      } finally {
        await unlink(swap.aside).catch(() => undefined);
      }
      const graceMs = hooks.lateWriteGraceMs ?? LATE_WRITE_GRACE_MS;
      if (graceMs > 0) await new Promise((done) => setTimeout(done, graceMs));
      const replaced = await hashFile(witness);
      if (replaced.hash === expectedHash) {
        return displacedCopy === undefined
          ? { path: relative }
          : { path: relative, conflictCopy: displacedCopy };
      }
      // Someone wrote into the old file after the check: keep their version beside the new one.
      const conflictCopy = await linkConflictCopy(vault, relative, witness, hooks.clock);
      return { path: relative, conflictCopy: displacedCopy ?? conflictCopy };
    } finally {
      await unlink(temp).catch(() => undefined);
      if (witness !== null) await unlink(witness).catch(() => undefined);
    }
  });
}

/**
 * Removes the vault-relative `path` if its content still hashes to `expectedHash`: the file is
 * first moved aside (atomically), then checked; a file that changed meanwhile is put back (or,
 * if its name was taken again meanwhile, kept as a conflict copy) and a CONFLICT is thrown.
 */
export async function removeVaultFile(
  vault: string,
  path: string,
  expectedHash: string,
  clock?: Clock,
): Promise<void> {
  const resolved = await resolveVaultPath(vault, path, 'read');
  if (!resolved.ok) throw pathRefusal(resolved, 'path');
  // In a dry run's block of writes (dry-run.ts), a file it planned is there, one it removed not.
  const planned = plannedText(resolved.relative);
  if (planned === null || (!resolved.exists && planned === undefined)) return;
  const { absolute, relative } = resolved;
  if (inDryRun()) {
    const text = plannedText(relative) ?? (await readFile(absolute, 'utf8').catch(() => null));
    planForDryRun({ path: relative, action: 'remove', before: text, after: null });
    return;
  }
  await oneAtATime(absolute, async () => {
    const aside = asideName(absolute);
    try {
      await rename(absolute, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const found = await hashFile(aside);
    if (found.hash === expectedHash) {
      await unlink(aside);
      await syncFolder(dirname(absolute));
      return;
    }
    try {
      await link(aside, absolute);
    } catch {
      await linkConflictCopy(vault, relative, aside, clock);
    }
    await unlink(aside).catch(() => undefined);
    throw new VaultWriteError('CONFLICT', `${relative} changed on disk; it was not deleted`);
  });
}

/**
 * Moves the vault-relative `from` to `to` if its content still hashes to `expectedHash`, never
 * over another file. A move that changes only the letter case of the name is a rename in place
 * (a case-insensitive disk sees one name). Missing folders are created.
 */
export async function moveVaultFile(
  vault: string,
  from: string,
  to: string,
  expectedHash: string,
): Promise<{ path: string }> {
  const source = await resolveVaultPath(vault, from, 'read');
  if (!source.ok) throw pathRefusal(source, 'path');
  if (!source.exists) throw new VaultWriteError('NOT_FOUND', `${from} does not exist`);
  const caseOnly =
    from.normalize('NFC').toLocaleLowerCase('en-US') ===
    to.normalize('NFC').toLocaleLowerCase('en-US');
  const target = await resolveVaultPath(vault, to, caseOnly ? 'read' : 'write');
  if (!target.ok) throw pathRefusal(target, 'rename_to');
  if (caseOnly) {
    const name = to.slice(to.lastIndexOf('/') + 1);
    const problem = portableNameProblem(name);
    if (problem !== null)
      throw new VaultWriteError('VALIDATION_ERROR', `${to}: ${problem}`, 'rename_to');
  } else if (target.exists) {
    throw new VaultFileExistsError(target.relative);
  }
  if (inDryRun()) {
    planForDryRun({
      path: source.relative,
      action: 'move',
      to: target.relative,
      before: null,
      after: null,
      diff: `rename from ${source.relative}\nrename to ${target.relative}\n`,
    });
    return { path: target.relative };
  }
  const now = await hashFile(source.absolute);
  if (now.hash !== expectedHash) {
    throw new VaultWriteError('CONFLICT', `${source.relative} changed on disk; it was not moved`);
  }
  const destination = caseOnly ? join(dirname(source.absolute), basename(to)) : target.absolute;
  await mkdir(dirname(destination), { recursive: true });
  if (caseOnly) {
    await rename(source.absolute, destination);
  } else {
    try {
      await link(source.absolute, destination);
      await unlink(source.absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new VaultFileExistsError(target.relative);
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
      // No hard links here: check, then rename (a narrow window, but never a silent overwrite
      // of a file that was there at the check).
      await access(destination).then(
        () => {
          throw new VaultFileExistsError(target.relative);
        },
        () => undefined,
      );
      await rename(source.absolute, destination);
    }
  }
  await syncFolder(dirname(destination));
  if (dirname(destination) !== dirname(source.absolute)) await syncFolder(dirname(source.absolute));
  const slash = source.relative.lastIndexOf('/');
  return {
    path: caseOnly
      ? `${slash < 0 ? '' : source.relative.slice(0, slash + 1)}${basename(to)}`
      : target.relative,
  };
}

/** A copy of `source` beside `target`, named like a temp file and synced. */
async function copyToTemp(target: string, source: string): Promise<string> {
  const temp = tempName(target);
  try {
    await copyFile(source, temp, constants.COPYFILE_EXCL);
  } catch (error) {
    // A copy cut short by a full disk must not leave its part behind.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      await unlink(temp).catch(() => undefined);
    throw error;
  }
  try {
    const handle = await open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, 0o644);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  return temp;
}

/** Keeps the file at `absolute` (a temp or witness name) as `Note.conflict-….ext` beside `relative`. */
async function linkConflictCopy(
  vault: string,
  relative: string,
  absolute: string,
  clock: Clock | undefined,
): Promise<string> {
  const stamp = conflictStamp(clock?.now() ?? Date.now());
  for (let n = 1; n <= 100; n++) {
    const candidate = conflictCopyName(relative, stamp, n);
    const resolved = await resolveVaultPath(vault, candidate, 'write');
    if (!resolved.ok || resolved.exists) continue;
    try {
      await link(absolute, resolved.absolute);
      await syncFolder(dirname(resolved.absolute));
      return resolved.relative;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
  }
  throw new VaultWriteError('CONFLICT', `no free conflict copy name beside ${relative}`);
}
