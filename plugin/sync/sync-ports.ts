/*
 * The narrow seams of the device sync engine (docs/sync.md, DESIGN §9). The engine is domain
 * code: it reaches the vault, its own saved state and the companion only through these, so the
 * same engine runs in Obsidian (plugin/sync/obsidian/), in tests and in the multi-device
 * simulation (scripts/sync-sim/) over in-memory vaults.
 */

import type { SyncOp } from '../../shared/protocol/sync';

/** A file as the vault lists it: enough to tell "surely unchanged" from "read and hash it". */
export interface VaultFileStat {
  /** Vault-relative, `/`-separated, as the vault spells it. */
  readonly path: string;
  readonly size: number;
  /** Modification time in ms since the epoch (never trusted alone: size too, then the hash). */
  readonly mtime: number;
}

/** What a guarded write expects at the path just before it writes. */
export type WriteExpectation =
  /** Only if no file is there. */
  | { readonly absent: true }
  /** Only if the file there still has these bytes (lowercase hex SHA-256). */
  | { readonly hash: string };

/** A guarded write, rename or delete found something else there and did nothing. */
export type GuardedOutcome = 'done' | 'changed';

/**
 * The device's vault. Paths are vault-relative with `/`. Implementations hold at most one
 * file's bytes at a time; nothing here lists contents.
 *
 * Every method that takes a path finds the file at exactly that path, else a file whose path
 * differs from it only in letter case, on case-sensitive vaults too: the companion (like every
 * phone) holds one file per case-folded path, so a write of a new file next to a case variant is
 * 'changed', never a second file the companion could not take.
 */
export interface SyncVault {
  /**
   * True when two paths differing only in letter case are one file (macOS, Windows, iOS). The
   * engine then never creates a second file at a case variant of an existing one.
   */
  readonly caseInsensitive: boolean;
  /**
   * Every file that syncs (the adapter leaves out `.obsidian/`, `.trash/` and the like). Throws
   * when the vault root cannot be read: an unreadable root is never "every file was deleted".
   */
  list(): Promise<VaultFileStat[]>;
  /** The file at `path` (or at a case variant of it), or null when there is none. */
  stat(path: string): Promise<VaultFileStat | null>;
  /**
   * The bytes of the file at exactly `path`, letter case included, unlike the lookups above:
   * every read follows a listing or a stat that named the file, and a case variant there now is
   * another file, moved onto it since (read for this one, its bytes would go up as this file's
   * edit, seed 1200001196). Throws when there is none, as for a file gone since.
   */
  read(path: string): Promise<Uint8Array>;
  /**
   * Writes `bytes` to `path` (creating folders) if `expect` still holds, at once and whole.
   * Returns the file's stat after the write, or 'changed' when the expectation failed.
   */
  write(
    path: string,
    bytes: Uint8Array,
    expect: WriteExpectation,
  ): Promise<VaultFileStat | 'changed'>;
  /**
   * Moves the file, creating folders, without touching links in other notes (link edits arrive
   * as content changes). `to` may differ from `from` only in case. 'changed' when `to` is taken
   * by another file or `from` is gone.
   */
  rename(from: string, to: string): Promise<GuardedOutcome>;
  /** Deletes the file if it still has the bytes `hash`; 'changed' otherwise. */
  delete(path: string, hash: string): Promise<GuardedOutcome>;
}

/** What the engine remembers of one file between runs. */
export interface SyncFileRecord {
  /** Where the file is in this vault now (the key). */
  readonly path: string;
  /** The companion's id of the file; null for a file this device made and never committed. */
  readonly fileId: string | null;
  /**
   * The hash of the last version this device and the companion agreed on (the merge base of the
   * device's next commit); null for a file the companion does not know yet.
   */
  readonly base: string | null;
  /** The path the companion has for `fileId` at `base`; differs from `path` after a local rename. */
  readonly syncedPath: string | null;
  /** The hash of the local bytes when the file had `size` and `mtime` (skips re-hashing). */
  readonly localHash: string | null;
  readonly size: number;
  readonly mtime: number;
  /**
   * The journal entry (`seq`) this file's state here includes: entries up to it, listed again
   * (a pull resumed or rewound), are not applied again. Absent in records from before it.
   */
  readonly seq?: number;
  /**
   * For a file this device made and has not committed: the journal entry of the companion's
   * file at the same path that it kept from being written here. If this file is deleted or
   * moved first, that entry is pulled again, so the companion's file arrives after all.
   */
  readonly shadowedSeq?: number;
  /**
   * The first companion entry of this file skipped while it was changed here (the change goes
   * up against `base` and merges with it). If the change goes away instead (the file back at
   * `base`: a daily note deleted and made again from its template), that entry is pulled again:
   * nothing would commit, and the companion's version would never come.
   */
  readonly skippedSeq?: number;
  /**
   * The companion's delete of this file (its `seq`), pulled when the file was gone here too:
   * the record waits for the scan (a file moved with no event is found by its bytes). A file
   * at its path by then was made since (a daily note made again from its template, the very
   * bytes of `base`): a new file, never this deleted one looking unchanged.
   */
  readonly deletedThere?: number;
  /**
   * A companion file above this device's download limit (docs/sync.md "Large files on
   * phones"): known by `fileId`, `base` (its hash) and `size`, but not in this vault until the
   * user opens it. Its absence is never a delete, and nothing is ever committed from it: no
   * placeholder file is written that could be uploaded over the real one.
   */
  readonly notDownloaded?: true;
  /**
   * Saved at a path with no file, just before a downloaded text file is written there (its
   * other fields are those of a file never committed: null ids, 0 size). The write's own record
   * replaces it; a crash between the two leaves it, and the next open tells what happened from
   * the file (docs/sync.md, "A client in outline", item 5).
   */
  readonly download?: DownloadBegun;
}

/** What a download about to be written would link: the companion's file and version. */
export interface DownloadBegun {
  readonly fileId: string;
  readonly hash: string;
  /** The companion's path of the file at `hash`. */
  readonly syncedPath: string;
  /** The journal entry of that version. */
  readonly seq: number;
}

/**
 * A commit sent whose answer the device has not recorded yet. Kept until it is: after a crash or
 * a lost answer it is sent again with the same `commitId`, which the companion answers from its
 * record instead of applying twice (the retry of a merge applied again would merge its own
 * lines in a second time).
 */
export interface PendingCommit {
  readonly commitId: string;
  /** The journal position when it was sent: changes after it are pulled again once it settles. */
  readonly sinceSeq: number;
  readonly items: readonly PendingCommitItem[];
  /**
   * Answered 429: the companion applied none of it, so it is sent again as it was (first in the
   * next pass, before a pull spends the budget). Without it its fate is unknown, and only its
   * stored answer is asked for (`replay_only`).
   */
  readonly refused?: true;
  /**
   * Local moves applied to the records while it was unanswered (old path → new path, in order):
   * its answer, settled after a crash, finds a new file's record where the file went.
   */
  readonly moved?: readonly (readonly [from: string, to: string])[];
}

export interface PendingCommitItem {
  /** The protocol op as sent (JSON: `shared/protocol/sync.ts` SyncOp). */
  readonly op: SyncOp;
  /** The record the op was made from. */
  readonly record: SyncFileRecord;
  /** For a put, the hash sent; for a rename or delete, the base. */
  readonly sent: string;
}

/**
 * The engine's saved state (IndexedDB in Obsidian, memory in tests). Each call is atomic; the
 * engine orders its calls so that a crash between any two leaves a state a later run repairs.
 */
export interface SyncStateStore {
  getFile(path: string): Promise<SyncFileRecord | undefined>;
  findByFileId(fileId: string): Promise<SyncFileRecord | undefined>;
  /** Every record, in path order (the engine walks them once per scan). */
  allFiles(): Promise<SyncFileRecord[]>;
  /** Writes `put` and removes the records at `remove` paths, in one step. */
  update(put: readonly SyncFileRecord[], remove?: readonly string[]): Promise<void>;
  /** The `next` of the last journal page fully applied; 0 before the first pull. */
  getSeq(): Promise<number>;
  setSeq(seq: number): Promise<void>;
  getPendingCommit(): Promise<PendingCommit | undefined>;
  /** Saves the commit about to be sent, or (null) forgets it once its answer is recorded. */
  setPendingCommit(pending: PendingCommit | null): Promise<void>;
  close(): void;
}
