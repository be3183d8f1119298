/**
 * The device sync engine (DESIGN §9, docs/sync.md). One pass: pull what changed on the companion
 * and apply it to the files this device has not changed; then find this device's own changes
 * (vault events, then size/mtime, then the hash), upload their bytes and commit them; then apply
 * what the companion answered (merges and conflict copies are downloaded). A file with local
 * changes is never overwritten; a remote delete is applied only to a copy that still has the
 * deleted bytes (or the last synced ones); renames move files by `file_id`.
 *
 * Crash safety: every step writes the vault first and the state after, and every step is
 * repeatable, so a crash between any two awaits leaves a state the next pass repairs: the pull
 * re-applies a page whose `seq` was not saved (a file already holding the new bytes is linked,
 * not rewritten); a commit the device did not record is sent again and the companion answers it
 * as already applied. Only one file's bytes are held at a time.
 */
import { decodeUtf8, insertsInto } from '../../shared/markdown/merge-lines';
import type { Clock } from '../../shared/ports';
import {
  SYNC_BLOB_BATCH_MAX_BYTES,
  SYNC_BLOB_BATCH_MAX_HASHES,
  isMergeableText,
} from '../../shared/protocol/sync';
import type {
  SyncChange,
  SyncCommitResponse,
  SyncOp,
  SyncOpResult,
} from '../../shared/protocol/sync';
import type { SyncApi } from './sync-client';
import { SyncRequestError } from './sync-client';
import { conflictCopy, withoutConflictKeys } from './conflict-copies';
import { sha256Hex } from './sync-hash';
import { WHOLE_VAULT } from './sync-scope';
import type { SyncScope } from './sync-scope';
import type {
  DownloadBegun,
  PendingCommit,
  PendingCommitItem,
  SyncFileRecord,
  SyncStateStore,
  SyncVault,
  VaultFileStat,
} from './sync-ports';

/** What the engine reports as it goes (the Obsidian adapter shows some of it). */
export type SyncEvent =
  | { readonly kind: 'pulled'; readonly applied: number; readonly seq: number }
  | { readonly kind: 'committed'; readonly ops: number }
  | {
      readonly kind: 'conflict';
      readonly path: string;
      /** Where this device's version was put. */
      readonly copyPath: string;
    }
  | {
      readonly kind: 'held';
      readonly hold: string;
      readonly deletes: number;
      readonly files: number;
    }
  | {
      /** A file that could not be synced now; `code` says why (the protocol's reject code, or ours). */
      readonly kind: 'problem';
      readonly path: string;
      readonly code: string;
      readonly message: string;
    };

export interface SyncEngineOptions {
  readonly vault: SyncVault;
  readonly store: SyncStateStore;
  readonly api: SyncApi;
  readonly clock: Clock;
  readonly onEvent?: (event: SyncEvent) => void;
  /** Ops per commit request (the protocol allows 10,000; smaller keeps answers quick). */
  readonly opsPerCommit?: number;
  /** Journal entries per `changes` page. */
  readonly pageSize?: number;
  /**
   * Most hashes per `POST blobs/batch` while pulling (default and most: the protocol's
   * SYNC_BLOB_BATCH_MAX_HASHES); 1 fetches every blob alone (`GET blobs/:hash`).
   */
  readonly blobsPerBatch?: number;
  /** Random ids for commits; injected so a simulation is reproducible. */
  readonly randomId?: () => string;
  /**
   * The paths this device syncs (default: all). Files outside are neither uploaded nor
   * downloaded, and are never deleted here nor committed as deleted because they are outside.
   */
  readonly scope?: SyncScope;
  /**
   * Files above this many bytes that are not on this device are listed but not downloaded
   * until `downloadNow` (docs/sync.md "Large files on phones"); null or absent: every file.
   */
  readonly downloadLimitBytes?: number | null;
}

/**
 * Bytes per `POST blobs/batch` (the protocol allows SYNC_BLOB_BATCH_MAX_BYTES): small notes fill
 * a batch's 256 hashes long before this; kept well under the protocol's limit so one answer
 * arrives within the plugin's request timeout (60 s) on a slow phone connection too.
 */
const BATCH_BYTES = Math.min(SYNC_BLOB_BATCH_MAX_BYTES, 2 * 1024 * 1024);

/** Commit rounds per pass: a rename and an edit of one file take two. */
const MAX_COMMIT_ROUNDS = 3;

/** Sends of one batch when no answer arrives, with the same commit id (the companion applies it once). */
const COMMIT_ATTEMPTS = 3;

/** Files larger than this are never checked for being made anew (`madeAnew`): edits. */
const ANEW_CHECK_MAX_BYTES = 1024 * 1024;
/**
 * A base with fewer non-blank lines is never "another note" when none is kept: rewriting every
 * line of a title or a one-line task is an ordinary edit (its history stays the file's).
 */
const ANEW_MIN_LINES = 3;
/**
 * A file no record holds is a gone record's note moved and edited with no event seen (the app
 * closed) when it keeps at least this share of the base's distinct non-blank lines, and it is
 * the only such file (`movedAndEdited`).
 */
const MOVED_EDITED_MIN_SHARE = 0.5;
/** More gone records than this in one scan (a folder deleted) are not looked for that way. */
const MOVED_EDITED_MAX_RECORDS = 20;

/** Reject codes after which the op is not retried until the file changes again. */
const REFUSED_CODES = new Set(['INVALID_PATH', 'TOO_LARGE']);

interface LocalState {
  readonly stat: VaultFileStat;
  readonly hash: string;
}

/** One op of a batch with what the engine needs to apply its result. */
type PendingOp = PendingCommitItem;

export class SyncEngine {
  private readonly vault: SyncVault;
  private readonly store: SyncStateStore;
  private readonly api: SyncApi;
  private readonly clock: Clock;
  private readonly onEvent: (event: SyncEvent) => void;
  private readonly opsPerCommit: number;
  private readonly pageSize: number;
  private readonly blobsPerBatch: number;
  private readonly randomId: () => string;
  private scope: SyncScope;
  private downloadLimit: number | null;
  /**
   * Records of files kept on the companion may fit the limit now (it was set or changed): the
   * next pass looks. Without a limit ever set, passes make no extra state reads for them.
   */
  private recheckKept: boolean;
  /** Paths a vault event touched since the last pass: hashed whatever their size and mtime say. */
  private readonly touched = new Set<string>();
  /** Renames seen as vault events, applied to the state at the start of the next pass. */
  private readonly renames: [string, string][] = [];
  /** Records moved by local renames (old path → new), so a commit's answer finds new files. */
  private readonly movedRecords = new Map<string, string>();
  /**
   * Answers of this batch whose move to the companion's path another file here blocked
   * (file_id → that path): tried again once the batch is settled (`retryBlockedMoves`).
   */
  private readonly blockedAnswerMoves = new Map<string, string>();
  /** The end of the last page listed by a pull (`pollFrom`). */
  private listedUpTo = 0;
  /** The commit being sent or settled: the moves above are saved with it (`PendingCommit`). */
  private unanswered: PendingCommit | null = null;
  /** file_ids whose gone record a joining file took in this pass (adopt): their deletes stay. */
  private readonly joinedGone = new Set<string>();
  /** path → hash the companion refused for good (too large, not portable): not retried. */
  private readonly refused = new Map<string, string>();
  /**
   * Paths that differ only in case from another file here (a case-sensitive file system can
   * hold both; the companion, like every phone, cannot): not committed as new files or rename
   * targets, and reported, rather than merged into one another.
   */
  private caseClashes = new Set<string>();
  /**
   * The journal position before a change that found its path taken here: pulled again after
   * this pass's commits, which may free the path (a rename of ours that the companion moved).
   */
  private blockedSince: number | null = null;
  private readonly reportedClashes = new Set<string>();
  /** Held mass-delete batches waiting for the user (hold id → its ops). */
  private readonly holds = new Map<string, PendingOp[]>();
  /** The files of those batches: not sent again while they wait. */
  private readonly heldFileIds = new Set<string>();
  /**
   * Files whose held delete (made anew here, `madeAnew`) the user cancelled: the file here is
   * then committed as an edit, not deleted again (which would hold again, for ever).
   */
  private readonly editsNotAnew = new Set<string>();
  /**
   * New files the companion took as sent after they left this device (file id → where and
   * what): their deletes lead the next commit. In memory: after a crash the file comes back, a
   * note back, never lines lost.
   */
  private readonly goneNewFiles = new Map<string, { path: string; hash: string }>();
  /** Versions found to be edits by `madeAnew` (path → local hash): not checked again. */
  private readonly notAnew = new Map<string, string>();
  /**
   * Bytes fetched ahead (`POST blobs/batch`) for the stretch of a pulled page being applied;
   * emptied after it, so at most one batch (BATCH_BYTES) is held at a time.
   */
  private readonly fetchedAhead = new Map<string, Uint8Array>();
  private running: Promise<void> = Promise.resolve();
  private resolveFirstPull!: () => void;
  private firstPullLanded = false;
  /** The moves made while the app was closed have been looked for (once per start). */
  private unseenMovesFound = false;
  /** A base `movedAndEdited` could not fetch since the last look for unseen moves began. */
  private baseOutOfReach = false;
  /** Resolves once the first pull since start has been applied (daily notes wait for it). */
  readonly firstPullDone: Promise<void>;

  constructor(options: SyncEngineOptions) {
    this.vault = options.vault;
    this.store = options.store;
    this.api = options.api;
    this.clock = options.clock;
    this.onEvent = options.onEvent ?? (() => undefined);
    this.opsPerCommit = options.opsPerCommit ?? 500;
    this.pageSize = options.pageSize ?? 500;
    this.blobsPerBatch = Math.max(
      1,
      Math.min(SYNC_BLOB_BATCH_MAX_HASHES, options.blobsPerBatch ?? SYNC_BLOB_BATCH_MAX_HASHES),
    );
    this.randomId = options.randomId ?? randomCommitId;
    this.scope = options.scope ?? WHOLE_VAULT;
    this.downloadLimit = options.downloadLimitBytes ?? null;
    this.recheckKept = this.downloadLimit !== null;
    this.firstPullDone = new Promise((resolve) => (this.resolveFirstPull = resolve));
  }

  get hasPulled(): boolean {
    return this.firstPullLanded;
  }

  /** The hold ids of mass-delete batches waiting for `confirmHold`. */
  get pendingHolds(): string[] {
    return [...this.holds.keys()];
  }

  /** A vault event: the file at `path` was created, modified or deleted. */
  noteChanged(path: string): void {
    this.touched.add(path);
  }

  /** A vault event: a file (or folder: its files each) moved. */
  noteRenamed(from: string, to: string): void {
    this.renames.push([from, to]);
    this.touched.add(to);
  }

  /**
   * One whole pass: pull, commit this device's changes, pull again if anything was committed.
   * Passes never overlap: a call while one runs waits for it and then runs its own.
   */
  sync(): Promise<void> {
    const run = this.running.then(() => this.pass());
    // The queue continues after a failed pass; the caller still sees the failure.
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Only the pull (a long poll said something changed). */
  pull(): Promise<void> {
    const run = this.running.then(() => this.pullAll());
    this.running = run.catch(() => undefined);
    return run;
  }

  /** The user confirmed a held mass delete: the companion applies it now. */
  confirmHold(hold: string): Promise<void> {
    const run = this.running.then(async () => {
      const pending = this.holds.get(hold);
      if (!pending) return;
      const answer = await this.api.confirm(hold);
      this.holds.delete(hold);
      for (const item of pending)
        if (item.record.fileId) this.heldFileIds.delete(item.record.fileId);
      for (const [index, item] of pending.entries()) {
        const result = answer.results[index];
        if (result) await this.settle(item, result);
      }
    });
    this.running = run.catch(() => undefined);
    return run;
  }

  /** The held mass-delete batches with the paths they delete (the sync view lists them). */
  heldDeletes(): { hold: string; paths: string[] }[] {
    return [...this.holds].map(([hold, items]) => ({
      hold,
      paths: items.map((item) => item.record.path),
    }));
  }

  /**
   * The user said the held deletes were not meant: nothing is sent, and the deleted files come
   * back on this device from the companion (which still has them: nothing was applied there).
   */
  cancelHold(hold: string): Promise<void> {
    const run = this.running.then(async () => {
      const pending = this.holds.get(hold);
      if (!pending) return;
      for (const item of pending) {
        const { record } = item;
        if (record.fileId === null || record.base === null) continue;
        const bytes = await this.blob(record.base);
        const written = await this.vault.write(record.path, bytes, { absent: true });
        if (written === 'changed') this.editsNotAnew.add(record.fileId);
        else {
          await this.store.update([
            linked(
              written,
              record.fileId,
              record.base,
              record.syncedPath ?? record.path,
              record.seq ?? 0,
            ),
          ]);
        }
        this.heldFileIds.delete(record.fileId);
      }
      this.holds.delete(hold);
    });
    this.running = run.catch(() => undefined);
    return run;
  }

  /**
   * Changes the paths this device syncs, between passes (a pass sees one scope throughout: a
   * file listed under one scope and recorded under another would look deleted). `widened`: a
   * folder is synced again, so the next pull lists the whole vault (`since=0`) and the files
   * skipped while it was left out arrive (identical ones linked by hash, never deleted).
   */
  setScope(scope: SyncScope, options: { widened: boolean }): Promise<void> {
    const run = this.running.then(async () => {
      const before = this.scope;
      this.scope = scope;
      if (!options.widened) return;
      // A file gone from a folder while it was left out was not deleted by this device (what
      // happens there is not synced): its record goes, so the listing brings it back instead
      // of the next commit deleting it everywhere.
      const gone: string[] = [];
      for (const record of await this.store.allFiles()) {
        if (before.includes(record.path) || !scope.includes(record.path)) continue;
        if ((await this.vault.stat(record.path)) === null) gone.push(record.path);
      }
      if (gone.length > 0) await this.store.update([], gone);
      await this.store.setSeq(0);
    });
    this.running = run.catch(() => undefined);
    return run;
  }

  /** True when the scope takes settings files: the long poll asks for them too. */
  get wantsSettings(): boolean {
    return this.scope.settings === true;
  }

  /**
   * Changes the download limit between passes. Files that fit under the new one are downloaded
   * by the next pass; files already here stay here and keep syncing whatever their size.
   */
  setDownloadLimit(bytes: number | null): Promise<void> {
    const run = this.running.then(() => {
      this.downloadLimit = bytes !== null && bytes > 0 ? bytes : null;
      this.recheckKept = true;
    });
    this.running = run.catch(() => undefined);
    return run;
  }

  /** The companion's files this device knows of but has not downloaded (above its limit). */
  async notDownloaded(): Promise<{ path: string; size: number }[]> {
    return (await this.store.allFiles())
      .filter((record) => record.notDownloaded === true && this.scope.includes(record.path))
      .map((record) => ({ path: record.path, size: record.size }));
  }

  /**
   * Downloads a file kept on the companion (the user opened it): written only where no file is,
   * then synced like any. 'changed' when a file is there already (it is this device's, never
   * overwritten) or the companion's file is no longer one this device has not downloaded.
   */
  downloadNow(path: string): Promise<'done' | 'changed'> {
    const run = this.running.then(async () => {
      const record = await this.store.getFile(path);
      if (!record?.notDownloaded || record.fileId === null || record.base === null) {
        return 'changed' as const;
      }
      return (await this.fetchNotDownloaded(record)) ? ('done' as const) : ('changed' as const);
    });
    this.running = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** The journal position this device has applied up to. */
  seq(): Promise<number> {
    return this.store.getSeq();
  }

  /**
   * Where the long poll waits from: past every entry this engine has listed. The saved
   * position stays before an entry that could not be applied yet (a path taken here): polled
   * from there, the companion would answer at once, again and again, until that path is free;
   * the next pass (a local change, or a new entry) tries that entry again.
   */
  async pollFrom(): Promise<number> {
    return Math.max(await this.store.getSeq(), this.listedUpTo);
  }

  private async pass(): Promise<void> {
    // Renames seen here first: a remote delete or move must find the file where it is now.
    await this.applyLocalRenames();
    // Read once for both steps: each state call is one more step a crash can fall between.
    let pending = await this.store.getPendingCommit();
    if (!this.unseenMovesFound) {
      this.baseOutOfReach = false;
      pending = await this.findUnseenMoves(pending);
      // A base out of reach (offline as the app opened): looked for again next pass, before
      // that pass's pull, or the note moved and edited meanwhile went up as a new one for good
      // (seed 28036224).
      this.unseenMovesFound = !this.baseOutOfReach;
    }
    // A commit whose answer was lost is settled first: the pull would take the conflict copies
    // it made of this device's versions for files from elsewhere, and write back one of a file
    // deleted here since.
    await this.resendPending(pending);
    await this.pullAll();
    await this.fetchWithinLimit();
    // A file renamed and edited is committed as a rename, then (next round) as an edit.
    for (let round = 0; round < MAX_COMMIT_ROUNDS; round++) {
      const committed = await this.commitLocal();
      if (committed === 0) break;
      await this.pullAll();
    }
    const blocked = this.blockedSince;
    if (blocked !== null) {
      this.blockedSince = null;
      if ((await this.store.getSeq()) > blocked) await this.store.setSeq(blocked);
      await this.pullAll();
    }
  }

  // -------------------------------------------------------------------------------------------
  // Pull

  private async pullAll(): Promise<void> {
    let since = await this.store.getSeq();
    let applied = 0;
    // `since=0` lists the live files only, no deletes: the files listed, to find records of
    // files deleted on the companion since this device recorded them (a first pull that
    // crashed before its position was saved, then is listed again).
    let listed = since === 0 ? new Set<string>() : null;
    for (;;) {
      let page;
      try {
        page = await this.api.changes(since, {
          limit: this.pageSize,
          ...(this.scope.settings ? { settings: true } : {}),
        });
      } catch (error) {
        if (
          !(error instanceof SyncRequestError) ||
          error.apiCode !== 'CURSOR_EXPIRED' ||
          since === 0
        )
          throw error;
        // The companion's journal is not the one this device synced with (its database was
        // replaced): every record forgets the companion's ids, bases and positions, and the
        // whole vault is listed again; files with the same bytes are linked again by hash, the
        // others are new files (the companion keeps both, never overwrites).
        await this.forgetCompanion();
        since = 0;
        listed = new Set<string>();
        continue;
      }
      // In stretches whose downloads come in one batch request each: a first sync of 10,000
      // small notes is some 40 requests instead of 10,000 (docs/sync.md "Performance").
      for (let start = 0; start < page.changes.length;) {
        // One blob a request: no looking ahead (nor its state reads) at all.
        const end =
          this.blobsPerBatch === 1
            ? page.changes.length
            : await this.fetchAhead(page.changes, start);
        try {
          for (const change of page.changes.slice(start, end)) {
            listed?.add(change.file_id);
            await this.applyChange(change);
            applied++;
          }
        } finally {
          this.fetchedAhead.clear();
        }
        start = end;
      }
      // Saved only after the whole page: a crash re-applies it, which changes nothing twice.
      // Never past a change that found its path taken here: it is pulled again once the path
      // is free, after a crash too (the engine's memory of it is gone then).
      const saved = Math.min(page.next, this.blockedSince ?? Infinity);
      if (saved !== since && saved !== (await this.store.getSeq())) await this.store.setSeq(saved);
      since = page.next;
      if (!page.more) break;
    }
    this.listedUpTo = since;
    if (listed) await this.applyUnlisted(listed);
    if (!this.firstPullLanded) {
      this.firstPullLanded = true;
      this.resolveFirstPull();
    }
    if (applied > 0) this.onEvent({ kind: 'pulled', applied, seq: since });
  }

  /**
   * Fetches in one request the bytes that applying `changes` from `start` on will likely
   * download, as far as one batch holds them; returns where that stretch ends. Only a guess
   * (the changes are applied as ever, and may find a file changed here meanwhile): a blob not
   * fetched ahead is asked for alone, and every blob is checked against its hash.
   */
  private async fetchAhead(changes: readonly SyncChange[], start: number): Promise<number> {
    const hashes: string[] = [];
    let bytes = 0;
    let end = start;
    for (; end < changes.length; end++) {
      const change = changes[end] as SyncChange;
      // Larger files are streamed alone (`GET blobs`), as before.
      if (change.size > BATCH_BYTES || hashes.includes(change.hash)) continue;
      if (!(await this.willDownload(change))) continue;
      if (hashes.length >= this.blobsPerBatch || bytes + change.size > BATCH_BYTES) {
        break;
      }
      hashes.push(change.hash);
      bytes += change.size;
    }
    // One blob is one request either way.
    if (hashes.length > 1) {
      let blobs: Map<string, Uint8Array>;
      try {
        blobs = await this.api.getBlobs(hashes);
      } catch (error) {
        // Cut off or timed out (a slow phone connection): the stretch's files are fetched one
        // by one instead, so a pass still moves on; every other failure is the pass's.
        if (!(error instanceof SyncRequestError) || error.code !== 'UNREACHABLE') throw error;
        blobs = new Map();
      }
      for (const [hash, blob] of blobs) this.fetchedAhead.set(hash, blob);
    }
    return Math.max(end, start + 1);
  }

  /** Whether applying `change` would download its bytes, as far as the state says. */
  private async willDownload(change: SyncChange): Promise<boolean> {
    if (change.op === 'delete' || this.aboveLimit(change.size)) return false;
    const record = await this.store.findByFileId(change.file_id);
    if (!record) {
      return this.scope.includes(change.path) && (await this.vault.stat(change.path)) === null;
    }
    if (!this.scope.includes(record.path)) return false;
    if (record.seq !== undefined && change.seq <= record.seq) return false;
    return record.notDownloaded === true || record.base !== change.hash;
  }

  /** A version's bytes: fetched ahead with its stretch of the page, else asked for alone. */
  private blob(hash: string): Promise<Uint8Array> {
    const ahead = this.fetchedAhead.get(hash);
    return ahead !== undefined ? Promise.resolve(ahead) : this.api.getBlob(hash);
  }

  private async applyChange(change: SyncChange): Promise<void> {
    // A file the user moved while this pull ran: its record follows it first, else the change
    // would find the old path empty and write the file back there beside the moved one.
    await this.applyLocalRenames();
    const record = await this.store.findByFileId(change.file_id);
    // Outside this device's scope: not downloaded, and a file here stays as it is (a remote
    // delete or edit of it is not applied). A file here moved there remotely follows the move.
    if (record ? !this.scope.includes(record.path) : !this.scope.includes(change.path)) return;
    // Listed again (a pull resumed or rewound after a crash, a resent commit or a blocked
    // path): an entry this file's state already includes. Applied again, an older version
    // would look like a remote edit, and bring back a file deleted here since.
    if (record?.seq !== undefined && change.seq <= record.seq) return;
    if (record?.notDownloaded) {
      await this.applyToNotDownloaded(record, change);
      return;
    }
    if (change.op === 'delete') {
      if (record) await this.applyRemoteDelete(record, change);
      return;
    }
    if (!record) {
      await this.applyRemoteNew(change);
      return;
    }
    let current = record;
    if (change.path !== record.syncedPath) {
      const moved = await this.applyRemoteMove(record, change.path, change.seq);
      if (moved === null) return;
      current = moved;
    }
    if (change.hash !== current.base) {
      await this.applyRemoteContent(current, change.hash, change.seq);
    } else if (current.seq === undefined || current.seq < change.seq) {
      await this.store.update([{ ...current, seq: change.seq }]);
    }
  }

  /** A file this device has no record of (new on the companion, or never linked here). */
  private async applyRemoteNew(change: SyncChange): Promise<void> {
    let stat = await this.vault.stat(change.path);
    if (stat === null && this.aboveLimit(change.size)) {
      // Known, not downloaded: a record without a file, never a placeholder in the vault.
      const stale = await this.store.getFile(change.path);
      if (stale && !stale.notDownloaded) {
        // A record of another file here whose file is gone: this device's business (its delete
        // is committed by the scan); the companion's file waits until that path is free.
        this.blocked(change.seq);
        return;
      }
      await this.store.update([notDownloadedRecord(change)]);
      return;
    }
    if (stat === null) {
      const stale = await this.store.getFile(change.path);
      if (stale?.fileId && stale.fileId !== change.file_id && !stale.notDownloaded) {
        // As above: the record of another companion file whose file is gone here (deleted, or a
        // new file it followed by a rename was; not one kept on the companion), its delete not
        // committed yet. Written over, that file would be forgotten here, never deleted on the
        // companion nor downloaded again; this one waits until the scan commits that delete.
        this.blocked(change.seq);
        return;
      }
      const bytes = await this.blob(change.hash);
      const begun: DownloadBegun | null =
        stale === undefined && isMergeableText(change.path)
          ? { fileId: change.file_id, hash: change.hash, syncedPath: change.path, seq: change.seq }
          : null;
      const written = await this.writeDownload(change.path, bytes, begun);
      if (written !== 'changed') {
        const before = stale?.path ?? (begun ? change.path : undefined);
        await this.store.update(
          [linked(written, change.file_id, change.hash, change.path, change.seq)],
          before !== undefined && before !== written.path ? [before] : [],
        );
        return;
      }
      // Someone made a file there meanwhile: it is theirs, and it keeps this one out like any
      // local file found at the path (below), so this one is pulled again if that one goes.
      stat = await this.vault.stat(change.path);
      if (stat === null) {
        this.blocked(change.seq);
        return;
      }
    }
    const existing = await this.store.getFile(stat.path);
    if (existing?.fileId && existing.fileId !== change.file_id) {
      // Another companion file holds this path here (a case variant on this file system, or a
      // local rename onto it): this one cannot be placed until that is resolved.
      this.blocked(change.seq);
      this.onEvent({
        kind: 'problem',
        path: change.path,
        code: 'PATH_TAKEN',
        message: `${change.path} is not synced here: ${stat.path} is another file at the same path on this device`,
      });
      return;
    }
    const local = await this.localState(existing ?? null, stat);
    if (local.hash === change.hash) {
      await this.store.update(
        [linked(local.stat, change.file_id, change.hash, change.path, change.seq)],
        existing && existing.path !== local.stat.path ? [existing.path] : [],
      );
      return;
    }
    // A file made here (a daily note created on open, say) with other bytes: never overwritten.
    // It stays new (base null); the companion decides at commit (one empty → the other, etc.).
    // If it goes before that, the companion's file is pulled again (shadowedSeq).
    const kept = await this.remember(existing ?? null, local);
    if (kept.shadowedSeq !== change.seq) {
      await this.store.update([{ ...kept, shadowedSeq: change.seq }]);
    }
  }

  /**
   * A change to a file this device has not downloaded: the record follows it (moves, new
   * hashes, deletes) without a file; a file that now fits the limit is downloaded. A file the
   * user made at its path meanwhile is theirs: the record goes, and the change is applied as to a
   * file this device never knew (linked if the same, else committed as a new file, which the
   * companion keeps beside its own: never an edit over it).
   */
  private async applyToNotDownloaded(record: SyncFileRecord, change: SyncChange): Promise<void> {
    const here = await this.vault.stat(record.path);
    if (here !== null) {
      await this.store.update([], [record.path]);
      if (change.op !== 'delete') await this.applyRemoteNew(change);
      return;
    }
    if (change.op === 'delete') {
      await this.store.update([], [record.path]);
      return;
    }
    if (change.path !== record.path && (await this.store.getFile(change.path))) {
      // Its new path holds another record here: placed once that path is free.
      this.blocked(change.seq);
      return;
    }
    const moved = change.path === record.path ? [] : [record.path];
    if (this.aboveLimit(change.size)) {
      await this.store.update([notDownloadedRecord(change)], moved);
      return;
    }
    await this.store.update([], [record.path]);
    await this.applyRemoteNew(change);
  }

  /** Downloads the files kept on the companion that fit under the limit now. */
  private async fetchWithinLimit(): Promise<void> {
    if (!this.recheckKept && this.downloadLimit === null) return;
    for (const record of await this.store.allFiles()) {
      if (!record.notDownloaded || this.aboveLimit(record.size)) continue;
      if (!this.scope.includes(record.path)) continue;
      await this.fetchNotDownloaded(record);
    }
    // With no limit, every kept file is here now: no more looking until the limit changes.
    if (this.downloadLimit === null) this.recheckKept = false;
  }

  /** Writes a not-downloaded file where no file is; true when it is here now. */
  private async fetchNotDownloaded(record: SyncFileRecord): Promise<boolean> {
    if (record.fileId === null || record.base === null) return false;
    const bytes = await this.blob(record.base);
    const written = await this.vault.write(record.path, bytes, { absent: true });
    if (written === 'changed') {
      // A file the user made there: the next scan finds it and commits it as a new file.
      return false;
    }
    await this.store.update(
      [
        linked(
          written,
          record.fileId,
          record.base,
          record.syncedPath ?? record.path,
          record.seq ?? 0,
        ),
      ],
      written.path === record.path ? [] : [record.path],
    );
    return true;
  }

  private aboveLimit(size: number): boolean {
    return this.downloadLimit !== null && size > this.downloadLimit;
  }

  private blocked(seq: number): void {
    this.blockedSince = Math.min(this.blockedSince ?? Infinity, seq - 1);
  }

  /**
   * Before the record of a new file that kept the companion's file at its path out (its
   * `shadowedSeq`) is dropped or moved: the saved pull position goes back before that entry
   * first, so it is pulled again even if the app dies before this pass ends (remembered only in
   * memory, the entry was lost with it, and the companion's file never came).
   */
  private async unshadow(record: SyncFileRecord): Promise<void> {
    if (record.shadowedSeq === undefined) return;
    await this.pullAgainFrom(record.shadowedSeq);
  }

  /**
   * The journal entry `seq` is pulled again: in this pass (`blocked`) and after a crash too (the
   * saved pull position goes back before it now, not at the end of the pass).
   */
  private async pullAgainFrom(seq: number): Promise<void> {
    this.blocked(seq);
    if ((await this.store.getSeq()) > seq - 1) await this.store.setSeq(seq - 1);
  }

  /**
   * Whether a rename event `from` → `to`, with the record `atTarget` at `to`, is the user's move
   * onto the path of a file deleted here (its record waiting for its delete to be committed),
   * not the engine's own move seen late: nothing is left at `from` (after the engine's move, a
   * record at `from` is of a file written there since), and the file at `to` is not the one
   * `atTarget` recorded. A file kept on the companion (not downloaded) has no file to delete.
   */
  private async movedOntoDeleted(
    from: string,
    to: string,
    atTarget: SyncFileRecord,
  ): Promise<boolean> {
    if (atTarget.notDownloaded || from.toLowerCase() === to.toLowerCase()) return false;
    if ((await this.vault.stat(from)) !== null) return false;
    const there = await this.vault.stat(to);
    return (
      there !== null &&
      there.path === to &&
      !(there.size === atTarget.size && there.mtime === atTarget.mtime)
    );
  }

  /**
   * The file of `record` here: the one at its path, or at a case variant of it (the port's
   * lookups match letter case loosely), unless another record is at that very spelling. Then
   * that file is the other record's, and this one's is gone (moved away or deleted with no event
   * seen, while the other arrived): taken for this record's, it would be moved, or committed as
   * an edit of this file, and the merge would drop every line of this file.
   */
  private async statOwn(record: SyncFileRecord): Promise<VaultFileStat | null> {
    const stat = await this.vault.stat(record.path);
    if (stat === null || stat.path === record.path) return stat;
    const there = await this.store.getFile(stat.path);
    return there === undefined || (there.fileId !== undefined && there.fileId === record.fileId)
      ? stat
      : null;
  }

  /** The companion moved the file: move it here too, unless this device moved it as well. */
  private async applyRemoteMove(
    record: SyncFileRecord,
    path: string,
    seq?: number,
  ): Promise<SyncFileRecord | null> {
    if (record.path !== record.syncedPath) {
      // Renamed here too: this device's rename is committed next and the companion decides.
      const updated = { ...record, syncedPath: path };
      await this.store.update([updated]);
      return updated;
    }
    // A pulled move only (an answer's, `seq` undefined, settles the records it names itself).
    if (seq !== undefined && path !== record.path) {
      const holder = await this.store.getFile(path);
      if (
        holder !== undefined &&
        holder.fileId !== record.fileId &&
        !holder.notDownloaded &&
        (await this.statOwn(holder)) === null
      ) {
        // Another record holds the new path, its file gone here (renamed there and deleted, its
        // rename or delete not committed yet: the app was closed, and a pull comes first).
        // Records are kept by path: moved there, this one would write over it, and that delete
        // would never reach the companion. The move waits until the scan has committed it.
        this.blocked(seq);
        return null;
      }
    }
    const own = await this.statOwn(record);
    if (
      seq !== undefined &&
      own !== null &&
      path !== record.path &&
      record.base !== null &&
      // Changed since recorded (only then read: a folder moved elsewhere moves many files).
      (!(own.size === record.size && own.mtime === record.mtime) ||
        (record.localHash !== null && record.localHash !== record.base)) &&
      (await this.vault.stat(path)) === null &&
      (await this.sharesNoLine(record.base, own.path))
    ) {
      // The file at the record's path keeps no line of the version recorded: not this note
      // edited, but a new one made where it was deleted (the app closed, or before a scan saw
      // the delete). Moved as this note, its text would go up as an edit replacing every line
      // and meet the edits made elsewhere as a conflict copy (seeds 9300233, 459925576). The
      // record follows the move without a file, so its delete goes next (an edit made there
      // wins: the note comes back at the companion's path), and the file here is a new one.
      const moved = { ...record, path, syncedPath: path };
      await this.store.update([moved], [record.path]);
      return moved;
    }
    const outcome = own === null ? 'changed' : await this.vault.rename(record.path, path);
    if (outcome === 'changed') {
      // Already done by a pass that crashed before recording it?
      const there = await this.vault.stat(path);
      const gone = (await this.statOwn(record)) === null;
      if (!(gone && there && there.size === record.size && there.mtime === record.mtime)) {
        if (seq !== undefined) this.blocked(seq);
        this.onEvent({
          kind: 'problem',
          path,
          code: 'PATH_TAKEN',
          message: `${record.path} could not be moved to ${path}: another file is there`,
        });
        return null;
      }
    }
    const moved = { ...record, path, syncedPath: path };
    await this.store.update([moved], record.path === path ? [] : [record.path]);
    return moved;
  }

  /**
   * Whether the file `local` found at its record's path is a new note rather than an edit: it
   * changed since recorded, and keeps no line of the committed version (`sharesNoLine`).
   */
  private async madeAnew(record: SyncFileRecord, local: LocalState): Promise<boolean> {
    if (!record.fileId || !record.base || record.notDownloaded) return false;
    if (record.deletedThere !== undefined || this.editsNotAnew.has(record.fileId)) return false;
    if (local.stat.path !== record.path || local.stat.size > ANEW_CHECK_MAX_BYTES) return false;
    // A conflict copy's bytes are the answers' doing (its base the version this device sent,
    // lines typed since moved in), not a note the user made: a copy "made anew" is a version
    // misplaced there, and deleting the copy would drop its lines for the edits made to it
    // elsewhere (seed 1300000208).
    if (conflictCopy(record.path) !== null) return false;
    if (local.hash === record.base || this.notAnew.get(record.path) === local.hash) return false;
    // The base is fetched for this (the device keeps no text of its bases): one small GET per
    // changed note and version, bounded so a large file is never held twice for it.
    if (await this.sharesNoLine(record.base, local.stat.path)) return true;
    this.notAnew.set(record.path, local.hash);
    return false;
  }

  /**
   * Whether the text file at `path` keeps no non-blank line of the version `base` (both text,
   * the base with ANEW_MIN_LINES of them, the file with one): another note, not an edit of that
   * one. A note emptied, or a short one rewritten, is an edit. A blob out of reach answers no.
   */
  private async sharesNoLine(base: string, path: string): Promise<boolean> {
    let was: string | null;
    try {
      was = decodeUtf8(await this.blob(base));
    } catch {
      return false;
    }
    const now = decodeUtf8(await this.vault.read(path));
    if (was === null || now === null) return false;
    const kept = new Set(nonBlankLines(now));
    const before = nonBlankLines(was);
    return (
      kept.size > 0 && before.length >= ANEW_MIN_LINES && !before.some((line) => kept.has(line))
    );
  }

  /** New bytes on the companion for a file this device has. */
  private async applyRemoteContent(
    record: SyncFileRecord,
    hash: string,
    seq: number,
  ): Promise<void> {
    const stat = await this.statOwn(record);
    if (stat === null) {
      // Its path here given to another file moved there after it was deleted: left to the
      // scan, whose delete loses to this edit and lets the file come like one from elsewhere
      // (`settle`). Written back where the moved file came from, it would go up as a move.
      if (await this.pathTakenSince(record)) return;
      if (
        record.fileId !== null &&
        record.base !== null &&
        conflictCopy(record.path) !== null &&
        (await this.onlyKeysAdded(hash, record.base))
      ) {
        // No edit there: the companion's version of this conflict copy is this device's own
        // (its base) with only the copy's two keys added (its edit of the copy merged, the
        // answer's version not fetched before the app went offline, seed 1600001850). Every
        // line of it was seen here, so the delete stands: recorded against that version, it is
        // committed next. (Only copies get those keys: other files are not fetched for this.)
        await this.store.update([{ ...record, base: hash, seq }]);
        return;
      }
      // Deleted here but edited there: the edit wins, the file comes back, at the companion's
      // path. The record's own may be where a file moved onto its path came from (the records
      // changed places, `applyLocalRenames`), or a move of it never sent: written there, it
      // would go up as a move nobody made (seed 211000230). Where another record still holds
      // the companion's path (a file moved there, deleted since, its delete not sent), it is
      // left to the scan: that delete goes first.
      const target = record.syncedPath ?? record.path;
      if (target !== record.path) {
        const holder = await this.store.getFile(target);
        if (holder && holder.fileId !== record.fileId) return;
      }
      const bytes = await this.blob(hash);
      const written = await this.vault.write(target, bytes, { absent: true });
      if (written === 'changed') return;
      await this.store.update(
        [linked(written, record.fileId ?? '', hash, record.syncedPath ?? record.path, seq)],
        written.path === record.path ? [] : [record.path],
      );
      return;
    }
    if (stat.path !== record.path) record = await this.moveRecord(record, stat.path);
    const local = await this.localState(record, stat);
    if (local.hash === hash) {
      await this.store.update([{ ...fingerprint(record, local), base: hash, seq }]);
      return;
    }
    if (local.hash !== record.base) {
      // Changed here too: never overwritten. The next commit sends it against the old base and
      // the companion merges. Should the change go away first, this entry comes again.
      await this.store.update([
        { ...fingerprint(record, local), skippedSeq: record.skippedSeq ?? seq },
      ]);
      return;
    }
    const bytes = await this.blob(hash);
    const written = await this.overwrite(record, bytes, local.hash);
    if (written === 'changed') return;
    await this.store.update([
      { ...record, base: hash, localHash: hash, size: written.size, mtime: written.mtime, seq },
    ]);
  }

  /**
   * After a whole listing from `since=0`: a record of a companion file the listing left out is
   * of a file deleted there (every live file is listed), applied as a delete of its base.
   */
  private async applyUnlisted(listed: ReadonlySet<string>): Promise<void> {
    for (const record of await this.store.allFiles()) {
      if (record.fileId === null || record.base === null || listed.has(record.fileId)) continue;
      if (!this.scope.includes(record.path)) continue;
      await this.applyRemoteDelete(record, { hash: record.base });
    }
  }

  private async applyRemoteDelete(
    record: SyncFileRecord,
    change: Pick<SyncChange, 'hash'> & { readonly seq?: number },
  ): Promise<void> {
    const stat = await this.vault.stat(record.path);
    if (stat === null) {
      // Gone here too, or moved with no event (the app was closed): the record stays until the
      // next scan, which finds a moved file by its bytes and commits its move (answered
      // FILE_DELETED: the delete wins, a move is no edit), or else sends a delete the companion
      // has already applied. Dropped now, a moved file would be new (or an edit of the file at
      // its new path) and bring the deleted note back.
      if (change.seq !== undefined && (record.seq ?? 0) < change.seq) {
        await this.store.update([{ ...record, seq: change.seq, deletedThere: change.seq }]);
      }
      return;
    }
    const local = await this.localState(record, stat);
    // The deleted version, or the last one synced (already in the companion's history): no
    // word of this device's is lost. Anything else is an edit, which wins over the delete.
    if (local.hash !== change.hash && local.hash !== record.base) {
      await this.remember(record, local);
      return;
    }
    const outcome = await this.vault.delete(record.path, local.hash);
    if (outcome === 'done') await this.store.update([], [record.path]);
  }

  // -------------------------------------------------------------------------------------------
  // Local changes

  /** Finds local changes, uploads their bytes and commits them; returns how many ops were sent. */
  private async commitLocal(): Promise<number> {
    await this.applyLocalRenames();
    const ops = await this.collectOps();
    if (ops.length === 0) return 0;
    // Deletes go in batches of their own, so a mass-delete hold keeps nothing else waiting.
    const deletes = ops.filter((item) => 'delete' in item.op);
    // A new file at the path of a file deleted or moved away here, or a file moved there (a
    // case variant too), goes after that delete or move: sent before it, it would meet the old
    // file there and become a conflict copy. While the delete is held, it waits too.
    const target = (item: PendingOp): string | null =>
      'delete' in item.op
        ? null
        : ('rename_to' in item.op ? item.op.rename_to : item.op.path).toLowerCase();
    const isNewAt = (item: PendingOp, paths: ReadonlySet<string>): boolean => {
      const at = target(item);
      if (at === null) return false;
      const arrives = item.op.base === null || at !== this.syncedKey(item.record);
      return arrives && paths.has(at);
    };
    const movedAway = ops.filter((item) => {
      const at = target(item);
      return at !== null && item.op.base !== null && at !== this.syncedKey(item.record);
    });
    const vacated = new Set([...deletes, ...movedAway].map((item) => this.syncedKey(item.record)));
    const writes = ops.filter((item) => !('delete' in item.op) && !isNewAt(item, vacated));
    let sent = 0;
    const commitAll = async (group: PendingOp[]): Promise<void> => {
      for (let start = 0; start < group.length; start += this.opsPerCommit) {
        await this.commitBatch(group.slice(start, start + this.opsPerCommit));
      }
      sent += group.length;
    };
    this.joinedGone.clear();
    await commitAll(writes.filter((item) => !isNewAt(item, this.heldPaths())));
    // A delete whose file a write's answer just gave to a file here (a new file joined to it,
    // its gone record dropped: adopt) is no delete any more: sent, it would drop that file.
    // (Kept in memory, not looked up: an await per delete would move every later step.)
    await commitAll(
      deletes.filter((item) => {
        const fileId = 'file_id' in item.op ? item.op.file_id : undefined;
        return fileId === undefined || !this.joinedGone.has(fileId);
      }),
    );
    const held = this.heldPaths();
    await commitAll(ops.filter((item) => isNewAt(item, vacated) && !isNewAt(item, held)));
    if (sent > 0) this.onEvent({ kind: 'committed', ops: sent });
    return sent;
  }

  /** The companion's paths (case-folded) of the files in held batches. */
  private heldPaths(): Set<string> {
    return new Set(
      [...this.holds.values()].flatMap((items) => items.map((item) => this.syncedKey(item.record))),
    );
  }

  /** The companion's path of a record's file, case-folded (the companion's paths are). */
  private syncedKey(record: SyncFileRecord): string {
    return (record.syncedPath ?? record.path).toLowerCase();
  }

  private async applyLocalRenames(): Promise<void> {
    const renames = this.renames.splice(0);
    await this.moveRecords(renames);
    // Saved with the commit on its way: if the app dies before its answer is settled, the
    // answer settled on start finds a new file's record where it went (seed 459925569: found
    // at its old path, another note's record moved there, it was dropped, the note sent again
    // as a new one).
    if (this.unanswered !== null && renames.length > 0 && this.movedRecords.size > 0) {
      this.unanswered = { ...this.unanswered, moved: [...this.movedRecords] };
      await this.store.setPendingCommit(this.unanswered);
    }
  }

  private async moveRecords(renames: readonly (readonly [string, string])[]): Promise<void> {
    for (const [from, to] of renames) {
      const record = await this.store.getFile(from);
      if (!record) continue;
      const atTarget = from === to ? undefined : await this.store.getFile(to);
      if (atTarget) {
        // The engine's own moves (a remote rename applied here) fire rename events too, seen
        // here after the state moved on: the record is at `to` already, and `from` may hold
        // another file since (a remote new file written there after the move). Not a move of
        // that file.
        if (!(await this.movedOntoDeleted(from, to, atTarget))) continue;
        // The user deleted the file at `to` (its delete not committed yet) and moved this one
        // there. Skipped, the move would be lost: the moved file taken for an edit of the
        // deleted one (its lines dropped by the merge, or a note deleted elsewhere back), and
        // this one for a delete (a remote edit of it written back at its old path, a second
        // copy). The records change places: the deleted file's, at the path this one left
        // (no file there), goes up as its delete, and the move after it (`commitLocal`).
        await this.unshadow(record);
        const moved = { ...record, path: to, shadowedSeq: undefined, deletedThere: undefined };
        if (atTarget.fileId && atTarget.base) {
          await this.store.update([moved, { ...atTarget, path: from }]);
        } else {
          // Never committed: nothing to tell the companion (a file it kept out is pulled again).
          await this.unshadow(atTarget);
          await this.store.update([moved], [from]);
        }
        this.movedRecords.set(from, to);
        this.touched.add(to);
        continue;
      }
      // The record is of a file the engine wrote at `from` after the move (the move happened
      // while the write was in progress): it stays; the moved file is a new one to it.
      const left = from === to ? null : await this.vault.stat(from);
      if (left?.path === from && left.size === record.size && left.mtime === record.mtime) {
        this.touched.add(to);
        continue;
      }
      // A new file moved off a path where it kept the companion's file out: that one is pulled
      // again.
      await this.unshadow(record);
      // A folder rename arrives as one event per file, each handled here the same way.
      await this.store.update(
        [{ ...record, path: to, shadowedSeq: undefined, deletedThere: undefined }],
        from === to ? [] : [from],
      );
      if (from !== to) this.movedRecords.set(from, to);
      this.touched.add(to);
    }
  }

  /**
   * On start, before the pull: files moved while the app was closed (no rename event; or the
   * event lost in a crash). A record whose file is gone, with the very bytes (`localHash`) in a
   * file no record holds, is that file renamed, and its record follows it as a rename event's
   * would. Left to the scan after the pull, a remote edit of the file would write it back at its
   * old path first, and the moved file would go up as a new one (a note deleted elsewhere back).
   * Only unrecorded files of a gone record's size are read, one at a time.
   */
  private async findUnseenMoves(
    pending: PendingCommit | undefined,
  ): Promise<PendingCommit | undefined> {
    const listed = (await this.vault.list()).filter((stat) => this.scope.includes(stat.path));
    const here = new Set(listed.map((stat) => this.key(stat.path)));
    const records = await this.store.allFiles();
    for (const record of records) {
      if (record.download) await this.settleDownload(record, record.download, listed);
    }
    const recorded = new Set(records.map((record) => this.key(record.path)));
    const settled = pending && (await this.findMovedUnanswered(pending, listed, here, recorded));
    const gone = new Map<number, SyncFileRecord[]>();
    for (const record of records) {
      if (record.notDownloaded || !record.fileId || !record.base || !record.localHash) continue;
      if (!this.scope.includes(record.path) || here.has(this.key(record.path))) continue;
      if (this.heldFileIds.has(record.fileId)) continue;
      const sameSize = gone.get(record.size);
      if (sameSize) sameSize.push(record);
      else gone.set(record.size, [record]);
    }
    const moved = new Set<SyncFileRecord>();
    const claimed = new Set<string>();
    for (const stat of listed) {
      const candidates = gone.get(stat.size);
      if (!candidates || candidates.length === 0 || recorded.has(this.key(stat.path))) continue;
      const hash = await sha256Hex(await this.vault.read(stat.path));
      const index = candidates.findIndex((record) => record.localHash === hash);
      if (index < 0) continue;
      const [record] = candidates.splice(index, 1) as [SyncFileRecord];
      moved.add(record);
      await this.store.update(
        [
          {
            ...record,
            path: stat.path,
            size: stat.size,
            mtime: stat.mtime,
            deletedThere: undefined,
          },
        ],
        [record.path],
      );
      this.movedRecords.set(record.path, stat.path);
      claimed.add(this.key(stat.path));
    }
    // Or moved and edited too (no file keeps its bytes): found by most of its lines. The record
    // keeps its size and mtime, so the scan reads the file and sends the edit with the move;
    // a remote edit pulled meanwhile waits for that commit, never written at the old path.
    const left = records.filter(
      (record) =>
        !record.notDownloaded &&
        record.fileId !== null &&
        record.base !== null &&
        this.scope.includes(record.path) &&
        !here.has(this.key(record.path)) &&
        !moved.has(record),
    );
    if (left.length === 0 || left.length > MOVED_EDITED_MAX_RECORDS) return settled;
    const candidates = listed.filter(
      (stat) => !recorded.has(this.key(stat.path)) && !claimed.has(this.key(stat.path)),
    );
    const linesOf = new Map<string, Set<string> | null>();
    for (const record of left) {
      const index = await this.movedAndEdited(record, candidates, linesOf);
      if (index < 0) continue;
      const [stat] = candidates.splice(index, 1) as [VaultFileStat];
      await this.store.update(
        [{ ...record, path: stat.path, deletedThere: undefined }],
        [record.path],
      );
      this.movedRecords.set(record.path, stat.path);
      this.touched.add(stat.path);
    }
    return settled;
  }

  /**
   * The index in `candidates` (files no record holds) of the one that is `record`'s note moved
   * and edited with no event seen (the app closed), or -1: a text file keeping at least
   * MOVED_EDITED_MIN_SHARE of the distinct non-blank lines of its base (a note of ANEW_MIN_LINES
   * or more), the only such file. Committed as the rename and edit it is, its edit merges with
   * those made elsewhere; taken for a delete and a new note, the delete lost to those edits and
   * the note was there twice, its two versions meeting as a conflict copy wherever they shared
   * a path (seed 940826117). One GET of the base per record looked for; `linesOf` keeps each
   * candidate's lines for the next record.
   */
  private async movedAndEdited(
    record: SyncFileRecord,
    candidates: readonly VaultFileStat[],
    linesOf: Map<string, Set<string> | null>,
  ): Promise<number> {
    if (candidates.length === 0 || !record.fileId || !record.base) return -1;
    if (!isMergeableText(record.path) || this.heldFileIds.has(record.fileId)) return -1;
    let base: string | null;
    try {
      base = decodeUtf8(await this.blob(record.base));
    } catch {
      this.baseOutOfReach = true;
      return -1;
    }
    const before = base === null ? null : distinctLines(base);
    if (before === null || before.size < ANEW_MIN_LINES) return -1;
    const found: number[] = [];
    for (const [index, { path, size }] of candidates.entries()) {
      if (!isMergeableText(path) || size > ANEW_CHECK_MAX_BYTES) continue;
      let lines = linesOf.get(path);
      if (lines === undefined) {
        const text = decodeUtf8(await this.vault.read(path));
        lines = text === null ? null : distinctLines(text);
        linesOf.set(path, lines);
      }
      if (lines === null) continue;
      let kept = 0;
      for (const line of before) if (lines.has(line)) kept++;
      if (kept >= before.size * MOVED_EDITED_MIN_SHARE) found.push(index);
    }
    return found.length === 1 ? (found[0] as number) : -1;
  }

  /**
   * On start, before the unanswered commit is settled: a new file it sent, moved with the app
   * closed (no rename event). Its record has no bytes recorded of its own to be found by, but
   * the commit holds the version sent: an unrecorded text file that keeps every line of it (in
   * order, lines added allowed) is that file moved. Its answer then finds it there; left at the
   * old path, the file looked deleted (a delete that loses to an edit made elsewhere, the note
   * kept) and the moved one went up as a new note: the same note twice (seed 871001365).
   */
  private async findMovedUnanswered(
    pending: PendingCommit,
    listed: readonly VaultFileStat[],
    here: ReadonlySet<string>,
    recorded: Set<string>,
  ): Promise<PendingCommit> {
    // The gone new files first (few: those of one commit), so each candidate is read once.
    const gone: { record: SyncFileRecord; sentText: string; matches: VaultFileStat[] }[] = [];
    for (const item of pending.items) {
      const op = item.op;
      if (!('path' in op) || op.base !== null || item.record.fileId !== null) continue;
      if (here.has(this.key(op.path))) continue;
      const record = await this.store.getFile(op.path);
      if (!record || record.fileId !== null) continue;
      let sentText: string | null;
      try {
        sentText = decodeUtf8(await this.blob(item.sent));
      } catch {
        // Not on the companion (or out of reach): left as it was, the resend decides.
        continue;
      }
      if (sentText === null || sentText.trim() === '') continue;
      gone.push({ record, sentText, matches: [] });
    }
    if (gone.length === 0) return pending;
    const smallest = Math.min(...gone.map((file) => file.record.size));
    for (const stat of listed) {
      if (recorded.has(this.key(stat.path)) || stat.size < smallest) continue;
      const text = decodeUtf8(await this.vault.read(stat.path));
      if (text === null) continue;
      for (const file of gone) {
        if (stat.size >= file.record.size && insertsInto(file.sentText, text)) {
          file.matches.push(stat);
        }
      }
    }
    const moved: [string, string][] = [];
    for (const { record, matches } of gone) {
      // Only one file can be it; two (a template's lines in both) are left alone, and so is a
      // file that two gone ones would both claim.
      const [stat] = matches;
      if (stat === undefined || matches.length > 1) continue;
      if (gone.some((other) => other.record !== record && other.matches.includes(stat))) continue;
      // Its fingerprint is not the file's: lines may have been added since the version sent.
      // With the file's size and mtime beside the sent version's hash, a crash before the
      // answer (the touch below is in memory only) left it looking unchanged for good, its
      // added lines never sent (seed 2100095441).
      await this.store.update(
        [{ ...record, path: stat.path, size: stat.size, mtime: stat.mtime, localHash: null }],
        [record.path],
      );
      recorded.add(this.key(stat.path));
      moved.push([record.path, stat.path]);
      this.touched.add(stat.path);
    }
    if (moved.length === 0) return pending;
    for (const [from, to] of moved) this.movedRecords.set(from, to);
    const updated = { ...pending, moved: [...(pending.moved ?? []), ...moved] };
    await this.store.setPendingCommit(updated);
    return updated;
  }

  /** Where the record once at `path` is now, after the local renames applied since. */
  private followMoves(path: string): string {
    let current = path;
    for (let hops = 0; hops < 100 && this.movedRecords.has(current); hops++) {
      current = this.movedRecords.get(current) as string;
    }
    return current;
  }

  /**
   * Walks the vault and the records once: every file whose size or mtime differ from what was
   * recorded, or that an event touched, is read and hashed (and, when changed, uploaded at once,
   * so its bytes are released before the next file is read).
   */
  private async collectOps(): Promise<PendingOp[]> {
    // Outside the scope: neither listed (never uploaded) nor missing (never committed deleted).
    const listed = (await this.vault.list()).filter((stat) => this.scope.includes(stat.path));
    const byKey = new Map<string, VaultFileStat>();
    for (const stat of listed) byKey.set(this.key(stat.path), stat);
    this.caseClashes = caseClashes(listed);
    // Records of files at their very path first: a record matched by letter case only (its file
    // gone, another moved onto a case variant of its path) must not take that file from its own
    // record.
    const exact = new Set(listed.map((stat) => stat.path));
    const records = (await this.store.allFiles()).sort(
      (a, b) => Number(!exact.has(a.path)) - Number(!exact.has(b.path)),
    );
    const seen = new Set<string>();
    const missing: SyncFileRecord[] = [];
    const ops: PendingOp[] = [];
    for (const [fileId, gone] of this.goneNewFiles) {
      // Recorded nowhere here (the path's record is another file's): the op carries a record
      // of its own, which its answer finds no trace of and so leaves the path's record alone.
      if ((await this.store.findByFileId(fileId)) === undefined) {
        ops.push({
          op: { file_id: fileId, base: gone.hash, delete: true },
          record: {
            path: gone.path,
            fileId,
            base: gone.hash,
            syncedPath: gone.path,
            localHash: null,
            size: 0,
            mtime: 0,
          },
          sent: gone.hash,
        });
      }
    }
    this.goneNewFiles.clear();

    const present: [SyncFileRecord, VaultFileStat][] = [];
    for (const record of records) {
      if (!this.scope.includes(record.path)) continue;
      const key = this.key(record.path);
      const stat = byKey.get(key);
      if (record.notDownloaded) {
        // Absent is what it is meant to be: never a delete. A file at its path is the user's
        // own new file (the record goes; the file is committed as new, never over the
        // companion's), or the very bytes, linked.
        if (stat === undefined || seen.has(key)) continue;
        const local = await this.localState(null, stat);
        if (local.hash === record.base && record.fileId !== null) {
          seen.add(key);
          await this.store.update(
            [
              linked(
                stat,
                record.fileId,
                record.base,
                record.syncedPath ?? stat.path,
                record.seq ?? 0,
              ),
            ],
            stat.path === record.path ? [] : [record.path],
          );
          continue;
        }
        await this.store.update([], [record.path]);
        continue;
      }
      if (stat === undefined || seen.has(key)) {
        missing.push(record);
        continue;
      }
      seen.add(key);
      present.push([record, stat]);
    }

    // A file moved onto the path of one deleted here (with no rename event: the app was closed,
    // or the event was skipped because the path still had the deleted file's record) shows as
    // that path's file changed to the very bytes of a vanished one. Committed as an edit of the
    // deleted file and a delete of the moved one, a concurrent delete of the moved one elsewhere
    // would lose to that "edit" (a deleted note back). So the deleted file's delete goes first,
    // and the moved one waits for the next round, when its path is free and it is found there
    // by its bytes: a rename, which is no edit.
    const vanished = new Map<string, SyncFileRecord>();
    for (const record of missing) {
      if (!record.fileId || !record.base || !record.localHash) continue;
      if (this.heldFileIds.has(record.fileId) || vanished.has(record.localHash)) continue;
      vanished.set(record.localHash, record);
    }
    const waiting = new Set<SyncFileRecord>();
    const madeAnewHere: SyncFileRecord[] = [];
    for (const [record, stat] of present) {
      const current = stat.path === record.path ? record : await this.moveRecord(record, stat.path);
      const local = vanished.size > 0 ? await this.localState(current, stat) : undefined;
      const mover = local && vanished.get(local.hash);
      if (
        local &&
        mover &&
        mover.fileId !== current.fileId &&
        local.hash !== current.localHash &&
        local.hash !== current.base
      ) {
        vanished.delete(local.hash);
        waiting.add(mover);
        if (current.fileId && current.base) {
          if (!this.heldFileIds.has(current.fileId)) {
            ops.push({
              op: { file_id: current.fileId, base: current.base, delete: true },
              record: current,
              sent: current.base,
            });
          }
        } else {
          // Never committed: its record goes, and the moved file is found at the path now.
          waiting.delete(mover);
          await this.unshadow(current);
          await this.store.update([], [current.path]);
          seen.delete(this.key(stat.path));
        }
        continue;
      }
      // A file of a held batch is not sent again while the hold waits (its delete, when made
      // anew here, would otherwise go up as an edit beside it).
      if (current.fileId !== null && this.heldFileIds.has(current.fileId)) continue;
      const state = local ?? (await this.localState(current, stat));
      if (await this.madeAnew(current, state)) {
        // Deleted and made again at its path while nobody watched (the app closed, or killed
        // before the delete went up): the file here keeps no line of the version recorded, so
        // it is a new note, not an edit of that one (seed 1300000184). Decided below, once the
        // unrecorded files are hashed: the note itself may be among them, moved.
        madeAnewHere.push(current);
        continue;
      }
      const op = await this.examine(current, stat, state);
      if (op) ops.push(op);
    }

    const unknown = listed.filter((stat) => !seen.has(this.key(stat.path)));
    const fresh: LocalState[] = [];
    for (const stat of unknown) {
      const bytes = await this.vault.read(stat.path);
      fresh.push({ stat, hash: await sha256Hex(bytes) });
    }
    // Few gone records looked for by their lines (a folder deleted is not searched), and only
    // when files no record holds are here.
    const lookedFor = madeAnewHere.length + missing.length;
    const linesOf = new Map<string, Set<string> | null>();
    const movedAndEdited = async (record: SyncFileRecord): Promise<number> =>
      fresh.length === 0 || lookedFor > MOVED_EDITED_MAX_RECORDS
        ? -1
        : this.movedAndEdited(
            record,
            fresh.map((candidate) => candidate.stat),
            linesOf,
          );

    for (const record of madeAnewHere) {
      // Its very bytes in an unrecorded file: the note was moved there (no event seen, seed
      // 9300170) and a new one made where it was; the record follows it, and the new file is
      // committed next round. Else the note was deleted: its delete goes first, and its answer
      // drops the record (an edit made elsewhere wins: the note comes back beside the new one,
      // `madeSinceDelete`). Sent as an edit, the new file would replace every line and meet the
      // edits made elsewhere as a conflict copy.
      let index = fresh.findIndex(
        (candidate) => candidate.hash === record.localHash || candidate.hash === record.base,
      );
      // Or most of its lines, edited as well as moved (seeds 9300170, 1400001736).
      if (index < 0) index = await movedAndEdited(record);
      if (index >= 0) {
        const [local] = fresh.splice(index, 1) as [LocalState];
        const moved = await this.moveRecord(record, local.stat.path);
        const op = await this.examine(moved, local.stat, local);
        if (op) ops.push(op);
      } else {
        ops.push({
          op: { file_id: record.fileId as string, base: record.base as string, delete: true },
          record,
          sent: record.base as string,
        });
      }
      this.touched.add(record.path);
    }

    // From the listing and the records read above, not looked up again: an await per record
    // would move every later step of the simulation's runs.
    // Built on first use: most scans have no moved-then-deleted record to ask about.
    let byPath: Map<string, SyncFileRecord> | undefined;
    const recordAt = (path: string): SyncFileRecord | undefined =>
      (byPath ??= new Map(records.map((record) => [record.path, record]))).get(path);
    /** Whether a file this device has not committed yet is at `path` (a new note made there). */
    const newFileAt = (path: string): boolean => {
      if (byKey.get(this.key(path))?.path !== path) return false;
      const there = recordAt(path);
      return there === undefined || there.fileId === null;
    };
    /**
     * Whether `record` is the deleted half of a record swap (a file moved onto the path of one
     * deleted here, `applyLocalRenames`): the deleted file's record parked at the path the mover
     * left, the mover's at the deleted file's. Its path is no move of the user's: only its
     * delete goes.
     */
    const parkedBySwap = (record: SyncFileRecord): boolean =>
      record.syncedPath !== null && recordAt(record.syncedPath)?.syncedPath === record.path;
    for (const record of missing) {
      if (waiting.has(record)) continue;
      // Moved while nobody was watching (or the rename event was lost in a crash): a new file
      // with the very bytes of a vanished one is that file, renamed. On a case-sensitive vault,
      // so is a new file at its path in other letter case, whatever its bytes (renamed in case
      // only, then edited): the companion, like a phone, does not tell the two paths apart, so
      // a delete and a new file there would meet the delete's file again (kept when edited
      // elsewhere) and make a conflict copy of it.
      const folded = record.path.toLowerCase();
      let index =
        record.fileId && record.localHash
          ? fresh.findIndex((candidate) => candidate.hash === record.localHash)
          : -1;
      if (index < 0 && record.fileId && record.base && !this.vault.caseInsensitive) {
        index = fresh.findIndex((candidate) => candidate.stat.path.toLowerCase() === folded);
      }
      // Or most of its lines, edited as well as moved (seed 940826117).
      if (index < 0) index = await movedAndEdited(record);
      if (index >= 0) {
        const [local] = fresh.splice(index, 1) as [LocalState];
        const moved = await this.moveRecord(record, local.stat.path);
        const op = await this.examine(moved, local.stat, local);
        if (op) ops.push(op);
        continue;
      }
      if (!record.fileId || !record.base) {
        // Never committed, now gone: nothing to tell the companion, but a companion file it
        // kept out of this path is pulled again.
        await this.unshadow(record);
        await this.store.update([], [record.path]);
        continue;
      }
      if (this.heldFileIds.has(record.fileId)) continue;
      if (
        record.syncedPath !== null &&
        record.syncedPath !== record.path &&
        newFileAt(record.syncedPath) &&
        !parkedBySwap(record)
      ) {
        // Moved here, then deleted, before the move went up, and a new note made here at the
        // path it left: the move goes first, the delete next round. Sent alone, a delete that
        // loses to an edit made elsewhere keeps the note at that path, and the new note's
        // commit meets it: a conflict copy of nothing shared (seed 1073465334). Moved first,
        // the kept note stays where this device last had it, and the new note has its path.
        ops.push({
          op: { file_id: record.fileId, base: record.base, rename_to: record.path },
          record,
          sent: record.base,
        });
        continue;
      }
      ops.push({
        op: { file_id: record.fileId, base: record.base, delete: true },
        record,
        sent: record.base,
      });
    }

    for (const local of fresh) {
      const op = await this.examine(null, local.stat, local);
      if (op) ops.push(op);
    }
    this.touched.clear();
    return ops;
  }

  /** The op a file needs, if any, after hashing it when it may have changed. */
  private async examine(
    record: SyncFileRecord | null,
    stat: VaultFileStat,
    known?: LocalState,
  ): Promise<PendingOp | null> {
    const local = known ?? (await this.localState(record, stat));
    if (record?.deletedThere !== undefined && record.path === stat.path) {
      // Deleted on the companion while gone here, and a file made at its path since (seed
      // 1040000843: the daily note, deleted elsewhere, made again from its template on open,
      // the very bytes of the base): a new file. Taken for the deleted one, it looked
      // unchanged, was never sent, and stayed on this device only.
      record = {
        ...record,
        fileId: null,
        base: null,
        syncedPath: null,
        seq: undefined,
        deletedThere: undefined,
      };
      await this.store.update([record]);
    }
    const current = await this.remember(record, local);
    if (this.refused.get(current.path) === local.hash) return null;
    const isNewName = !current.fileId || !current.base || current.syncedPath !== current.path;
    if (isNewName && this.caseClashes.has(current.path)) {
      if (!this.reportedClashes.has(current.path)) {
        this.reportedClashes.add(current.path);
        this.onEvent({
          kind: 'problem',
          path: current.path,
          code: 'CASE_CLASH',
          message: `${current.path} is not synced: another file here has the same name in other letter case, which the companion and case-insensitive devices cannot hold. Rename one of them.`,
        });
      }
      return null;
    }
    if (current.fileId && current.base) {
      if (current.syncedPath !== current.path) {
        return this.upload(current, local, {
          file_id: current.fileId,
          base: current.base,
          rename_to: current.path,
        });
      }
      if (local.hash === current.base) {
        if (current.skippedSeq !== undefined) {
          // Back at its base with a companion entry skipped meanwhile (seed 983002167): pulled
          // again, at the end of this pass, else this file would keep the older version.
          await this.pullAgainFrom(current.skippedSeq);
          await this.store.update([{ ...current, skippedSeq: undefined }]);
        }
        return null;
      }
      return this.upload(current, local, {
        path: current.path,
        file_id: current.fileId,
        base: current.base,
        hash: local.hash,
        mtime: Math.round(local.stat.mtime),
      });
    }
    return this.upload(current, local, {
      path: current.path,
      base: null,
      hash: local.hash,
      mtime: Math.round(local.stat.mtime),
    });
  }

  /** Uploads the bytes a put needs (never for renames), then returns the op. */
  private async upload(
    record: SyncFileRecord,
    local: LocalState,
    op: SyncOp,
  ): Promise<PendingOp | null> {
    if (!('hash' in op)) return { op, record, sent: record.base ?? local.hash };
    const bytes = await this.vault.read(record.path);
    const hash = await sha256Hex(bytes);
    if (hash !== local.hash) {
      // Changed since it was hashed: the next pass sends the newer bytes.
      this.touched.add(record.path);
      return null;
    }
    await this.api.putBlob(hash, bytes);
    return { op, record, sent: hash };
  }

  private async commitBatch(batch: PendingOp[]): Promise<void> {
    this.movedRecords.clear();
    const pending = {
      commitId: this.randomId(),
      sinceSeq: await this.store.getSeq(),
      items: batch,
    };
    // Saved before it is sent: if the answer never arrives, its id is asked for again
    // (`resendPending`), and the companion answers it from its record or withdraws it.
    await this.store.setPendingCommit(pending);
    this.unanswered = pending;
    try {
      let answer: SyncCommitResponse;
      try {
        answer = await this.send(pending.items, pending.commitId);
      } catch (error) {
        // Refused before anything was applied (429: the companion did nothing with it): sent
        // again whole once the wait is over, first in the next pass.
        if (isRateLimited(error)) await this.store.setPendingCommit({ ...pending, refused: true });
        throw error;
      }
      await this.settleAll(pending.items, answer.results);
      await this.store.setPendingCommit(null);
    } finally {
      this.unanswered = null;
    }
  }

  /**
   * A batch sent by an earlier pass (or an engine that crashed) whose answer was never recorded:
   * sent again with its id, settled, and the journal pulled again from where it was sent, since
   * the pulls meanwhile skipped its files (they looked changed here).
   */
  private async resendPending(pending: PendingCommit | undefined): Promise<void> {
    if (!pending) return;
    this.movedRecords.clear();
    for (const [from, to] of pending.moved ?? []) this.movedRecords.set(from, to);
    this.unanswered = pending;
    try {
      await this.settlePending(pending);
    } finally {
      this.unanswered = null;
    }
    await this.pullAll();
  }

  private async settlePending(pending: PendingCommit): Promise<void> {
    // Only its answer: a batch the companion never got is withdrawn, and this pass builds its
    // ops again from the vault as it is now. Applied now as it was built, a file moved or
    // edited since would be sent as it was then (seed 211001907: a note moved while offline
    // made again at its old path, beside its move: the same note twice).
    let answer: SyncCommitResponse | null;
    try {
      answer = await this.send(pending.items, pending.commitId, {
        replayOnly: pending.refused !== true,
      });
    } catch (error) {
      if (!(error instanceof SyncRequestError && error.apiCode === 'COMMIT_WITHDRAWN')) throw error;
      answer = null;
    }
    if (answer) await this.settleAll(pending.items, answer.results);
    if ((await this.store.getSeq()) > pending.sinceSeq) await this.store.setSeq(pending.sinceSeq);
    await this.store.setPendingCommit(null);
  }

  private async send(
    items: readonly PendingOp[],
    commitId: string,
    options?: { readonly replayOnly?: boolean },
  ) {
    const ops = items.map((item) => item.op);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.api.commit(ops, commitId, options);
      } catch (error) {
        // A 429 is not retried at once: the runner waits its Retry-After, then the pass sends
        // the same pending commit again (the companion did nothing with this one).
        if (attempt >= COMMIT_ATTEMPTS || !isRetryable(error) || isRateLimited(error)) throw error;
      }
    }
  }

  private async settleAll(
    batch: readonly PendingOp[],
    results: readonly SyncOpResult[],
  ): Promise<void> {
    const held = results.find((result) => result.status === 'held');
    if (held && held.status === 'held') {
      this.holds.set(held.hold, [...batch]);
      for (const item of batch) if (item.record.fileId) this.heldFileIds.add(item.record.fileId);
      this.onEvent({ kind: 'held', hold: held.hold, deletes: held.deletes, files: held.files });
      return;
    }
    this.blockedAnswerMoves.clear();
    for (const [index, item] of batch.entries()) {
      const result = results[index];
      if (result) await this.settle(item, result);
    }
    await this.retryBlockedMoves();
  }

  /**
   * A move an answer could not make because another file held the companion's path, tried
   * again once the whole batch is settled: that file may have gone with a later op's answer (a
   * new file found to be this very note's version, deleted as its twin). Left to the pull, a
   * conflict answer's move would never come: pulled again from the answer's entry (the copy's),
   * the note's own entry is older, and the note stays at a path the companion moved it off
   * (seed 871000382).
   */
  private async retryBlockedMoves(): Promise<void> {
    for (const [fileId, path] of this.blockedAnswerMoves) {
      const record = await this.store.findByFileId(fileId);
      if (!record || record.path === path || record.syncedPath !== record.path) continue;
      if ((await this.store.getFile(path)) !== undefined) continue;
      if ((await this.vault.stat(path)) !== null) continue;
      await this.applyRemoteMove(record, path);
    }
    this.blockedAnswerMoves.clear();
  }

  /** Records what the companion did with one op, downloading what it made of it. */
  private async settle(item: PendingOp, result: SyncOpResult): Promise<void> {
    const { op, sent } = item;
    // A move made here while the commit was on its way: the record follows the file first, else
    // the file looks deleted here (and its conflict copy, holding its lines, would be deleted).
    await this.applyLocalRenames();
    // The record may have moved since the op was built (a rename applied meanwhile).
    const byFileId = item.record.fileId
      ? await this.store.findByFileId(item.record.fileId)
      : undefined;
    const found = byFileId ?? (await this.store.getFile(this.followMoves(item.record.path)));
    if (
      item.record.fileId !== null &&
      byFileId === undefined &&
      found?.fileId &&
      found.fileId !== item.record.fileId
    ) {
      // This file's record is gone and another file's holds its path (a new file's answer,
      // settled just before, gave that path the companion's file: a moved-away file's record
      // was still there). Taken for this file, that one would be moved to this file's path and
      // committed as its edit (seed 9800132: the companion's note gone from its path). What the
      // companion kept of this file comes like a file from elsewhere: the pull goes back before
      // its entry (an accepted delete leaves nothing to bring).
      if (
        result.status !== 'held' &&
        result.status !== 'rejected' &&
        !('delete' in op && result.status === 'accepted')
      ) {
        await this.pullAgainFrom(result.seq);
      }
      return;
    }
    const record = found ?? item.record;
    if (
      item.record.fileId === null &&
      found?.fileId &&
      'file_id' in result &&
      found.fileId !== result.file_id &&
      !(result.status === 'conflict' && found.fileId === result.copy_file_id)
    ) {
      // A new file's path holds another companion file's record now (moved there with the app
      // closed, found on start): the new file left it (moved, its record with it, or deleted).
      // Taken for it, that file's bytes would be its edits (into its conflict copy: a note
      // deleted elsewhere back). Its version, on the companion, goes as a file deleted here:
      // a copy recorded without a file (its delete committed next); a file at the path is
      // pulled once the path is free.
      if (result.status === 'conflict') {
        this.onEvent({ kind: 'conflict', path: result.path, copyPath: result.copy_path });
        await this.recordCopyGone(result);
      } else if (result.status === 'accepted' && result.hash === sent) {
        // Taken as sent, and gone from here since (deleted, another file moved onto its path
        // as the commit went up, seed 1500000883): its delete goes with the next round, before
        // the other file's move onto that path. Left on the companion, it was pulled back.
        this.goneNewFiles.set(result.file_id, { path: result.path, hash: result.hash });
      }
      return;
    }
    switch (result.status) {
      case 'held':
        return;
      case 'rejected':
        await this.rejected(record, op, sent, result.error.code, result.error.message);
        return;
      case 'conflict': {
        this.onEvent({ kind: 'conflict', path: result.path, copyPath: result.copy_path });
        if (record.fileId !== null && result.copy_file_id === record.fileId) {
          if (
            'hash' in op &&
            (await this.statOwn(record)) === null &&
            (await this.holdsOnly(result.copy_hash, sent))
          ) {
            // An edit of a note deleted elsewhere, deleted here too after it went up: the
            // companion brought the note back as the copy (this very file), holding only what
            // was sent. Recorded at the copy's name without a file, its delete is committed next
            // (written back, it would look like an edit made elsewhere, winning over a delete);
            // against the copy's bytes, it loses to any line added to the copy since. A copy
            // with lines this device never sent (a rename's answer: the file as the companion
            // had it, lines merged in) is not: its delete would drop them. It comes here.
            await this.store.update(
              [copyWithoutFile(result)],
              record.path === result.copy_path ? [] : [record.path],
            );
            return;
          }
          if ('rename_to' in op && (await this.statOwn(record)) === null) {
            // A move sent for a file deleted here (moved, then deleted: the move goes first),
            // onto a path another file holds: the companion put it at the copy's name. The
            // record follows it there without a file, so its delete is committed next.
            await this.store.update(
              [
                {
                  ...record,
                  path: result.copy_path,
                  syncedPath: result.copy_path,
                  seq: result.seq,
                },
              ],
              record.path === result.copy_path ? [] : [record.path],
            );
            return;
          }
          // A rename onto a path another file holds: the companion put this very file (its
          // file_id) at the copy's name instead. It moves there here too; the other file is
          // the other file, pulled like any.
          const moved = await this.applyRemoteMove(
            { ...record, syncedPath: record.path },
            result.copy_path,
          );
          if (moved)
            await this.adopt(
              moved,
              {
                fileId: result.copy_file_id,
                hash: result.copy_hash,
                path: result.copy_path,
                seq: result.seq,
              },
              sent,
              op,
            );
          return;
        }
        // Placed already when this answer was applied before the app died (its commit resent):
        // that record is the copy's, wherever the user moved it; a second one would stay forever.
        const placedBefore = (await this.store.findByFileId(result.copy_file_id)) !== undefined;
        if (!('delete' in op) && (await this.sentVersionGone(record, op, sent))) {
          // The file was deleted here after its version was sent: that version, now the copy,
          // is not written here; recorded without a file, the copy's delete is committed next.
          // Unless this answer placed the copy already (its commit resent after a crash): that
          // record is the copy's, wherever the user moved it; a second one would stay forever.
          await this.recordCopyGone(result);
        } else if (!placedBefore) {
          await this.placeCopy(result.copy_path, result.copy_file_id, result.copy_hash, result.seq);
        }
        // The companion kept its own version at the path; this device's bytes are in the copy.
        await this.adopt(
          record,
          { fileId: result.file_id, hash: result.hash, path: result.path, seq: result.seq },
          sent,
          op,
          {
            path: result.copy_path,
            fileId: result.copy_file_id,
            hash: result.copy_hash,
            placedBefore,
          },
        );
        return;
      }
      case 'accepted':
      case 'merged': {
        if ('delete' in op && result.status === 'accepted') {
          await this.store.update([], [record.path]);
          return;
        }
        if (
          'delete' in op &&
          ((await this.madeSinceDelete(record)) || (await this.pathTakenSince(record)))
        ) {
          // The delete lost (an edit elsewhere kept the file), and a file was made here at its
          // path since the delete went up: a new note, not the kept one. Taken for the kept file,
          // it would be moved to the companion's path and committed as an edit of it, dropping
          // its lines. The record goes (the scan finds the file as new, or as a moved one), and
          // the pull goes back before the kept file's entry, so it comes like a file from
          // elsewhere (kept out of this path while the new note is there).
          await this.store.update([], [record.path]);
          await this.pullAgainFrom(result.seq);
          return;
        }
        await this.adopt(
          record,
          { fileId: result.file_id, hash: result.hash, path: result.path, seq: result.seq },
          sent,
          op,
        );
        return;
      }
    }
  }

  /**
   * Whether the version sent for `record` is gone from here since: no file is at its path, or
   * the file there (in any letter case) is another note, keeping no line of it (`sharesNoLine`:
   * deleted and made anew, seed 1900001182, where a new inbox.md took the place of a deleted
   * Inbox.md as its commit went up; its copy, written here, brought the deleted note back).
   */
  private async sentVersionGone(
    record: SyncFileRecord,
    op: SyncOp,
    sent: string,
  ): Promise<boolean> {
    const own = await this.statOwn(record);
    if (own === null) return true;
    if (!('hash' in op) || !isMergeableText(own.path) || own.size > ANEW_CHECK_MAX_BYTES) {
      return false;
    }
    if (conflictCopy(own.path) !== null) return false;
    if ((await this.localState(record, own)).hash === sent) return false;
    return this.sharesNoLine(sent, own.path);
  }

  /** A conflict copy of a version deleted here: recorded without a file, so its delete goes. */
  private async recordCopyGone(result: {
    copy_path: string;
    copy_file_id: string;
    copy_hash: string;
    seq: number;
  }): Promise<void> {
    if (await this.store.findByFileId(result.copy_file_id)) return;
    await this.store.update([copyWithoutFile(result)]);
  }

  private async rejected(
    record: SyncFileRecord,
    op: SyncOp,
    sent: string,
    code: string,
    message: string,
  ): Promise<void> {
    if (code === 'UNKNOWN_FILE_ID' || code === 'FILE_DELETED') {
      if ('delete' in op) {
        await this.store.update([], [record.path]);
        return;
      }
      if ('rename_to' in op) {
        // Renamed here, deleted there: a rename is no edit, so the delete wins where the bytes
        // are still the deleted ones.
        const stat = await this.vault.stat(record.path);
        const local = stat && (await this.localState(record, stat));
        if (local && local.hash === record.base) {
          if ((await this.vault.delete(record.path, local.hash)) === 'done') {
            await this.store.update([], [record.path]);
            return;
          }
        }
      }
      // The companion no longer has this file: it is new again (the next pass puts it).
      await this.store.update([{ ...record, fileId: null, base: null, syncedPath: null }]);
      this.touched.add(record.path);
      return;
    }
    if (code === 'BLOB_MISSING') {
      this.touched.add(record.path);
      return;
    }
    if (REFUSED_CODES.has(code)) this.refused.set(record.path, sent);
    this.onEvent({ kind: 'problem', path: record.path, code, message });
  }

  /**
   * After a commit: the companion holds `server.hash` at `server.path` for `server.fileId`, and
   * `sent` was this device's version. If the file still has `sent`, it takes the companion's
   * bytes; if it changed since, it keeps them and `sent` (held by the companion, an ancestor of
   * what is here) becomes the base, so the next commit merges instead of overwriting.
   */
  private async adopt(
    record: SyncFileRecord,
    server: { fileId: string; hash: string; path: string; seq: number },
    sent: string,
    op?: SyncOp,
    copy?: { path: string; fileId: string; hash: string; placedBefore?: boolean },
    retries = 0,
  ): Promise<void> {
    let current = record;
    let twin = await this.store.findByFileId(server.fileId);
    if (
      twin &&
      twin.path !== record.path &&
      copy === undefined &&
      server.hash === twin.base &&
      (await this.vault.stat(twin.path)) === null
    ) {
      // The companion's file has a record here but no file, under any spelling, and this file
      // joined it as the very version recorded (a conflict copy recorded gone, its delete still
      // to go: its version was taken for deleted when it had been moved here with the app
      // closed, to this very path, seed 800013729). This file is that file here now: it takes
      // the record. Removed as a twin, the record's delete would go next and drop the
      // companion's file, lines this device never saw deleted. A file that met it as a conflict
      // (its own copy made) is a new one: the record's delete, the user's, still goes (seed
      // 910001101: a note deleted here was back).
      await this.store.update([], [twin.path]);
      if (twin.fileId) this.joinedGone.add(twin.fileId);
      twin = undefined;
    }
    if (twin && twin.path !== record.path) {
      // The companion's file is here already, at another path (a new file of ours that met it
      // at a path that only differs in case): this file was just our version of it, which the
      // companion has now (merged, or in a conflict copy). Removed when it still has those bytes.
      const stat = await this.vault.stat(record.path);
      if (stat !== null && (await this.vault.stat(twin.path))?.path === stat.path) {
        // One file under both spellings (a case-insensitive vault): the companion's file itself,
        // renamed here in case only with the app closed, this answer settled again on start
        // (seed 2100060306). Its record follows the spelling here (a case-only move, committed
        // next). Deleted as a twin of itself, the file was gone here and its record's delete
        // went next, dropping the companion's note: two lines lost.
        await this.store.update([{ ...twin, path: stat.path }], [twin.path, record.path]);
        this.touched.add(stat.path);
        return;
      }
      const local = stat && stat.path === record.path ? await this.localState(record, stat) : null;
      if (local && (local.hash === sent || local.hash === server.hash)) {
        if ((await this.vault.delete(record.path, local.hash)) === 'done') {
          await this.store.update([], [record.path]);
          return;
        }
      }
      if (local) {
        await this.store.update([
          { ...fingerprint(record, local), fileId: null, base: null, syncedPath: null },
        ]);
      }
      return;
    }
    let moveBlocked = false;
    if (server.path !== record.path) {
      // Moved here after the op went up (the settle applied the move), and the companion kept
      // the file where it was sent: the move is this device's, committed next. Moved back to
      // the sent path, the user's move would be undone and the record parked there written over
      // (a note deleted here, its delete still to go: seed 459924914). Not for a conflict
      // answer: the moved bytes are then the copy's, the path's file is the companion's own,
      // and the file goes back to take it (its bytes are in the copy).
      const sentTo =
        op === undefined
          ? undefined
          : 'path' in op
            ? op.path
            : 'rename_to' in op
              ? op.rename_to
              : undefined;
      const syncedPath = copy === undefined && sentTo === server.path ? server.path : record.path;
      const moved = await this.applyRemoteMove({ ...record, syncedPath }, server.path);
      if (moved) current = moved;
      else moveBlocked = true;
    }
    let stat = await this.statOwn(current);
    if (stat === null && this.renames.length > 0) {
      // Moved here while this answer was applied (the copy placed, after the settle's renames
      // were applied): the record follows the file first, else it looks deleted (its copy is
      // deleted with it), and the companion's version written at its old path would take this
      // record when the move is seen.
      await this.applyLocalRenames();
      const moved = await this.store.getFile(this.followMoves(current.path));
      if (moved && moved.path !== current.path) {
        current = moved;
        stat = await this.statOwn(current);
      }
    }
    if (
      stat === null &&
      copy?.placedBefore === true &&
      current.fileId === server.fileId &&
      current.base === server.hash
    ) {
      // This answer was applied whole before the app died (its commit resent): the copy placed
      // and the path given the companion's version, recorded so. What was deleted here since is
      // that version, seen here, not this device's (the copy, kept). The record stays, so its
      // delete is committed next against the companion's version (losing to any edit made
      // elsewhere since); written back, it would be a note back that its deleter saw.
      return;
    }
    if (stat === null && copy !== undefined) {
      // Deleted here after its version went up and came back a conflict copy: what was
      // deleted is that version, the copy; the path's note (the companion's, never seen here)
      // comes back below. The copy's delete is committed by the next scan. Unless this answer
      // was applied before the app died (the copy placed then): the path may have taken the
      // companion's version before the delete, and the copy is then this device's only one.
      // Both are kept (the companion's comes back below): a note back, never lines lost.
      if (!copy.placedBefore) await this.deleteCopy(copy);
    } else if (stat === null && op !== undefined && 'rename_to' in op) {
      // A move sent for a file deleted here (moved, then deleted: the move goes first): the
      // record takes the companion's path, and the delete is committed next, against what this
      // device saw (`sent`); edits made elsewhere since keep the note there, and it comes back.
      await this.store.update([
        { ...current, fileId: server.fileId, base: sent, syncedPath: server.path, seq: server.seq },
      ]);
      return;
    } else if (
      stat === null &&
      copy === undefined &&
      op !== undefined &&
      'hash' in op &&
      server.hash !== sent &&
      insertsInto(
        withoutConflictKeys(new TextDecoder().decode(await this.blob(server.hash))),
        withoutConflictKeys(new TextDecoder().decode(await this.blob(sent))),
      )
    ) {
      // Deleted here after its edit was sent, and merged there into a version with no line this
      // device did not send (what came from elsewhere only took lines out; a conflict copy's
      // own two keys, the companion's, aside): every line of it was seen here, so the delete
      // stands. Committed next against that version; written back,
      // it would be a note back that its deleter saw whole (seed 1300001342: a conflict copy
      // edited, moved and deleted while the edit was on its way).
      await this.store.update([
        {
          ...current,
          fileId: server.fileId,
          base: server.hash,
          syncedPath: server.path,
          seq: server.seq,
        },
      ]);
      return;
    } else if (stat === null && op !== undefined && !('delete' in op) && server.hash === sent) {
      // Deleted here after the op was sent, and the companion took it as sent: that delete is
      // committed next, against `sent`. (When lines from elsewhere were merged in, that delete
      // would lose to them: the merge comes back at once, below. Recorded as seen with `sent`
      // as its base, a file made again here with those bytes, a daily note's template, would
      // look unchanged and never get the merge.)
      await this.store.update([
        { ...current, fileId: server.fileId, base: sent, syncedPath: server.path, seq: server.seq },
      ]);
      return;
    }
    if (stat === null) {
      // A delete that lost to an edit: the companion's file comes back, at the companion's path
      // (the record stays at its own when the move above found no file of its to move).
      const bytes = await this.blob(server.hash);
      const written = await this.vault.write(server.path, bytes, { absent: true });
      if (written !== 'changed') {
        await this.store.update(
          [linked(written, server.fileId, server.hash, server.path, server.seq)],
          written.path === current.path ? [] : [current.path],
        );
      }
      return;
    }
    // Found under another spelling (the port's lookups match letter case loosely): the record
    // follows the file, replacing any record of it there (this very file, renamed here).
    if (stat.path !== current.path) current = await this.moveRecord(current, stat.path);
    const local = await this.localState(current, stat);
    // A conflict answer's `seq` is the copy's entry: the companion's file has no entry from
    // there on, so a pull again from it would never bring its move (seed 1040011590: the note
    // kept at the path it was moved to here, for good). The pull lists the live files from
    // the start instead, each once at its latest entry, and this record counts none as seen.
    const conflictBlocked = moveBlocked && copy !== undefined;
    if (moveBlocked) {
      if (server.fileId) this.blockedAnswerMoves.set(server.fileId, server.path);
      // The companion's path is taken here by another file: the file stays where it is, and
      // the pull goes back to the answer's entry, which moves it once that path is free (it
      // waits there, `blocked`), or the batch's end does when a later op's answer frees it.
      // Recorded at the companion's path, the path here would look like this device's own
      // move back, sent as a rename nobody made (seed 211000777: it met a note made since at
      // the old path, a conflict copy).
      await this.pullAgainFrom(conflictBlocked ? 1 : server.seq);
    }
    const known = {
      ...fingerprint(current, local),
      fileId: server.fileId,
      syncedPath: moveBlocked ? current.path : server.path,
      seq: conflictBlocked ? undefined : moveBlocked ? server.seq - 1 : server.seq,
      shadowedSeq: undefined,
    };
    if (local.hash === server.hash) {
      await this.store.update([{ ...known, base: server.hash }]);
      return;
    }
    if (local.hash !== sent && current.base === server.hash && current.fileId === server.fileId) {
      // This answer was applied here already (a resent commit answered again): the edits made
      // since continue the companion's version, which stays the base.
      await this.store.update([{ ...known, base: server.hash }]);
      return;
    }
    if (local.hash !== sent && copy !== undefined) {
      // Edited here after a version that became a conflict copy: those edits continue that
      // version, so they go to the copy (committed against `sent`, the companion merges them
      // with the copy's front matter), and the path takes the companion's version. Kept here
      // as the path's, they would meet the companion's version again: a copy of nothing new.
      const companion = await this.blob(server.hash);
      const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
      if (insertsInto(decode(companion), decode(await this.vault.read(current.path)))) {
        // Unless the companion's version is here already, edited since: this very answer was
        // applied before the app died (its commit resent, answered again), and the write of the
        // companion's version landed but its record did not. The edits continue that version,
        // not `sent`: moved to the copy, they would go up as an edit of `sent` that drops its
        // lines, the copy's own.
        await this.store.update([{ ...known, base: server.hash }]);
        return;
      }
      const copyRecord = await this.store.findByFileId(copy.fileId);
      // This answer applied before (the copy placed, then the app died or a download failed,
      // and the commit was answered again): the path may have taken the companion's version,
      // been moved away with the app closed and a new note made there (seed 800064617), or had
      // another file moved there (seed 800007146): bytes that are no edit of `sent`, while the
      // copy may be this device's only one of it. Written over the copy based on `sent`, they
      // drop its every line. So then only bytes that keep every line of `sent` move; others
      // stay at the path (a new note's as a new file, below).
      const sentText = copy.placedBefore ? decode(await this.blob(sent)) : null;
      // The copy holds `copyHash`; edits typed meanwhile move too (a few rounds at most).
      let copyHash = copy.hash;
      for (let round = 0; copyRecord && round < 3; round++) {
        if ((await this.vault.stat(current.path)) === null) break;
        const mine = await this.vault.read(current.path);
        if (sentText !== null && !insertsInto(sentText, decode(mine))) break;
        const mineHash = await sha256Hex(mine);
        const moved = await this.vault.write(copyRecord.path, mine, { hash: copyHash });
        if (moved === 'changed') break;
        copyHash = mineHash;
        await this.store.update([
          { ...copyRecord, base: sent, localHash: mineHash, size: moved.size, mtime: moved.mtime },
        ]);
        this.touched.add(copyRecord.path);
        const written = await this.overwrite(current, companion, mineHash);
        if (written !== 'changed') {
          await this.store.update([
            {
              ...known,
              base: server.hash,
              localHash: server.hash,
              size: written.size,
              mtime: written.mtime,
            },
          ]);
          return;
        }
      }
      if (op !== undefined && 'hash' in op && op.base === null) {
        // Not moved: the copy no longer has the companion's bytes (edited, or it got edits
        // moved by this answer applied before the app died, when the path may have taken the
        // companion's version too and been edited since: its bytes then are no edit of
        // `sent`, and written over the copy they would drop the copy's lines). The path keeps
        // its bytes as a new file, the companion's kept out of its path until it is committed
        // (merged, or kept twice). Recorded as the companion's file based on `sent`, a note it
        // never was, its next commit would meet the companion's note again: a copy of the copy.
        // It keeps the companion's note out: remembered by the note's journal entry (the pull
        // that met this file recorded it), not this answer's, the copy's, which comes after it:
        // pulled again from there if this file goes, the note would never come.
        await this.store.update([
          {
            ...fingerprint(current, local),
            fileId: null,
            base: null,
            syncedPath: null,
            shadowedSeq: Math.min(current.shadowedSeq ?? server.seq, server.seq),
          },
        ]);
        this.touched.add(current.path);
        return;
      }
    }
    if (local.hash !== sent) {
      // Edited here since: the edits continue `sent`, the base of the next commit.
      if (server.hash !== sent) {
        // The companion merged lines from elsewhere into it: the record stays just before the
        // answer's entry and the pull goes back to it (the cursor first: a crash between the
        // two only lists entries again), so that version comes as a remote edit: kept out of
        // edits made here, and written when the file is `sent` again or deleted (the delete
        // loses to those lines). Recorded at the answer's `seq`, a file made again with
        // `sent`'s bytes (the daily note from its template, after the app died) would look
        // unchanged and never get them (seed 137361585).
        await this.pullAgainFrom(server.seq);
        await this.store.update([{ ...known, base: sent, seq: server.seq - 1 }]);
        return;
      }
      await this.store.update([{ ...known, base: sent }]);
      return;
    }
    const bytes = await this.blob(server.hash);
    const written = await this.overwrite(current, bytes, sent);
    if (written === 'changed') {
      const now = copy !== undefined ? await this.vault.stat(current.path) : undefined;
      if (copy !== undefined && now === null) {
        // Deleted here just now: as above (the stat found it), the delete was of the copy.
        await this.deleteCopy(copy);
        const back = await this.vault.write(current.path, bytes, { absent: true });
        if (back !== 'changed') {
          await this.store.update([
            linked(back, server.fileId, server.hash, server.path, server.seq),
          ]);
          return;
        }
      } else if (copy !== undefined && retries < 3) {
        // Edited here just now (typed as the companion's version came): those edits continue
        // the version that became the copy, as above (moved to it, or kept as a new file).
        // Recorded as the companion's file based on `sent`, a note it never was, a new note's
        // next commit would meet the companion's note again: a copy of nothing new. (A few
        // rounds at most: the user may type again as each one writes.)
        await this.adopt(current, server, sent, op, copy, retries + 1);
        return;
      }
      await this.store.update([{ ...known, base: sent }]);
      return;
    }
    await this.store.update([
      {
        ...known,
        base: server.hash,
        localHash: server.hash,
        size: written.size,
        mtime: written.mtime,
      },
    ]);
  }

  /** After `410 CURSOR_EXPIRED`: the records keep only what this device knows of its files. */
  private async forgetCompanion(): Promise<void> {
    // Positions in the journal replaced mean nothing in the new one.
    this.listedUpTo = 0;
    await this.store.setPendingCommit(null);
    const records = await this.store.allFiles();
    await this.store.update(
      records.map(({ path, localHash, size, mtime }) => ({
        path,
        fileId: null,
        base: null,
        syncedPath: null,
        localHash,
        size,
        mtime,
      })),
    );
    await this.store.setSeq(0);
  }

  /** `holdsOnly`, false when the companion no longer keeps either version (pruned history). */
  private async onlyKeysAdded(hash: string, base: string): Promise<boolean> {
    try {
      return await this.holdsOnly(hash, base);
    } catch (error) {
      if (error instanceof SyncRequestError && error.status === 404) return false;
      throw error;
    }
  }

  /** Whether the copy `copyHash` is the version `sent` and only the keys a copy gets added. */
  private async holdsOnly(copyHash: string, sent: string): Promise<boolean> {
    if (copyHash === sent) return true;
    // One after the other: the engine has one request in flight at a time (the simulation
    // runs a device until its next request; two at once left it waiting on one never announced).
    const copy = await this.blob(copyHash);
    const mine = await this.blob(sent);
    try {
      const decode = (bytes: Uint8Array): string =>
        new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return withoutConflictKeys(decode(copy)) === decode(mine);
    } catch {
      return false; // not text: the companion adds nothing to such a copy
    }
  }

  /**
   * True when the record of a file deleted here is away from the companion's path of it, which
   * another record holds: a file the user moved there after the delete (`applyLocalRenames`).
   */
  private async pathTakenSince(record: SyncFileRecord): Promise<boolean> {
    if (record.syncedPath === null || record.syncedPath === record.path) return false;
    const there = await this.vault.stat(record.syncedPath);
    const holder = there && (await this.store.getFile(there.path));
    return holder !== undefined && holder !== null && holder.fileId !== record.fileId;
  }

  /** True when a file other than the deleted one is at the path of `record` (made after it). */
  private async madeSinceDelete(record: SyncFileRecord): Promise<boolean> {
    const stat = await this.statOwn(record);
    if (stat === null) return false;
    const local = await this.localState(record, stat);
    return local.hash !== record.base;
  }

  /** Deletes the conflict copy here if it still has the companion's bytes (the scan commits it). */
  private async deleteCopy(copy: { fileId: string; hash: string }): Promise<void> {
    const copyRecord = await this.store.findByFileId(copy.fileId);
    const copyStat = copyRecord ? await this.vault.stat(copyRecord.path) : null;
    if (!copyRecord || !copyStat) return;
    const there = await this.localState(copyRecord, copyStat);
    if (there.hash === copy.hash) await this.vault.delete(copyRecord.path, copy.hash);
  }

  /** Writes the conflict copy the companion made of this device's version. */
  private async placeCopy(path: string, fileId: string, hash: string, seq: number): Promise<void> {
    const stat = await this.vault.stat(path);
    if (stat) {
      const existing = await this.store.getFile(stat.path);
      if (existing?.fileId) return;
      // The copy's name is the companion's, made for this very commit: a file there that no
      // record links is this device's own write of the copy (the app died before recording
      // it, and the commit was answered again), edited since when its bytes differ. Linked
      // with the copy's bytes as its base, the edits are committed against the copy (merged),
      // not as a new file meeting it at its own name (a copy of the copy).
      const local = await this.localState(existing ?? null, stat);
      await this.store.update([
        { ...linked(stat, fileId, hash, path, seq), localHash: local.hash },
      ]);
      return;
    }
    const bytes = await this.blob(hash);
    const begun = isMergeableText(path) ? { fileId, hash, syncedPath: path, seq } : null;
    const written = await this.writeDownload(path, bytes, begun);
    if (written !== 'changed') {
      await this.store.update(
        [linked(written, fileId, hash, path, seq)],
        begun && written.path !== path ? [path] : [],
      );
    }
  }

  /**
   * Writes a downloaded file at a path with no file and (`begun`) no record, saving first what
   * it is. Without that, an app that dies between the write and its record meets the file on
   * its next open as one of its own, never committed: edited since, it goes up as a new file
   * and meets the companion's at its path, a conflict copy of edits that never overlapped
   * (seed 1300001294). `settleDownload` reads what the crash left.
   */
  private async writeDownload(
    path: string,
    bytes: Uint8Array,
    begun: DownloadBegun | null,
  ): Promise<VaultFileStat | 'changed'> {
    if (begun) await this.store.update([downloadRecord(path, begun)]);
    let written: VaultFileStat | 'changed';
    try {
      written = await this.vault.write(path, bytes, { absent: true });
    } catch (error) {
      // The record is settled by the next pass, as after a crash.
      if (begun) this.unseenMovesFound = false;
      throw error;
    }
    // Someone made a file there first: it is theirs, and nothing of this download is left.
    if (written === 'changed' && begun) await this.store.update([], [path]);
    return written;
  }

  /**
   * Writes over the file of `record` (at its path) if it still holds `expected`. Its fingerprint
   * goes first: a crash between the write and its record would leave a record whose size and
   * mtime can match the new bytes (the same size, written within the mtime's resolution: a
   * second on some disks, a millisecond here), and the next scan would take them for the old
   * ones, never sent nor pulled again (seed 213001522: a note only on the device).
   */
  private async overwrite(
    record: SyncFileRecord,
    bytes: Uint8Array,
    expected: string,
  ): Promise<VaultFileStat | 'changed'> {
    if (record.localHash !== null) await this.store.update([{ ...record, localHash: null }]);
    return this.vault.write(record.path, bytes, { hash: expected });
  }

  /**
   * A download that a crash cut off before its record (`writeDownload`): the file at its path
   * says what happened. The very bytes: linked. Those bytes with lines added (the user wrote in
   * it since): linked with the download as their base, so the next scan commits the added lines
   * as an edit, merged into the companion's note. Anything else stays what it looks like, this
   * device's own new file (the companion keeps it beside its own), and no file at all is read
   * as "never written": the pull writes it again (a note deleted in that window comes back,
   * never a note lost; docs/sync.md).
   */
  private async settleDownload(
    record: SyncFileRecord,
    begun: DownloadBegun,
    listed: readonly VaultFileStat[],
  ): Promise<void> {
    const key = this.key(record.path);
    const stat = listed.find((candidate) => this.key(candidate.path) === key);
    if (stat !== undefined) {
      const bytes = await this.vault.read(stat.path);
      const hash = await sha256Hex(bytes);
      if (hash === begun.hash || (await this.addsToDownload(bytes, begun.hash))) {
        await this.store.update(
          [
            {
              ...linked(stat, begun.fileId, begun.hash, begun.syncedPath, begun.seq),
              localHash: hash,
            },
          ],
          stat.path === record.path ? [] : [record.path],
        );
        return;
      }
    }
    await this.store.update([], [record.path]);
  }

  /**
   * Whether `bytes` are the companion's version `hash` with lines inserted and none removed: an
   * edit of it that merges without taking anything away, whoever made it. A version the
   * companion no longer keeps, or bytes that are not text, are not.
   */
  private async addsToDownload(bytes: Uint8Array, hash: string): Promise<boolean> {
    const text = decodeUtf8(bytes);
    if (text === null) return false;
    let version: Uint8Array;
    try {
      version = await this.api.getBlob(hash);
    } catch (error) {
      if (error instanceof SyncRequestError && error.status === 404) return false;
      throw error;
    }
    const versionText = decodeUtf8(version);
    return versionText !== null && insertsInto(versionText, text);
  }

  // -------------------------------------------------------------------------------------------
  // Helpers

  /** The file's hash, read and computed only when size, mtime or an event say it may differ. */
  private async localState(
    record: SyncFileRecord | null,
    stat: VaultFileStat,
  ): Promise<LocalState> {
    if (
      record?.localHash &&
      record.path === stat.path &&
      record.size === stat.size &&
      record.mtime === stat.mtime &&
      !this.touched.has(stat.path)
    ) {
      return { stat, hash: record.localHash };
    }
    const bytes = await this.vault.read(stat.path);
    return { stat, hash: await sha256Hex(bytes) };
  }

  /** Saves the local fingerprint (and creates the record of a new file) when it changed. */
  private async remember(
    record: SyncFileRecord | null,
    local: LocalState,
  ): Promise<SyncFileRecord> {
    const next: SyncFileRecord = record
      ? fingerprint(record, local)
      : {
          path: local.stat.path,
          fileId: null,
          base: null,
          syncedPath: null,
          localHash: local.hash,
          size: local.stat.size,
          mtime: local.stat.mtime,
        };
    if (
      !record ||
      record.localHash !== next.localHash ||
      record.size !== next.size ||
      record.mtime !== next.mtime
    ) {
      await this.store.update([next]);
    }
    return next;
  }

  private async moveRecord(record: SyncFileRecord, path: string): Promise<SyncFileRecord> {
    // Its file found elsewhere: that file is this one (moved), not one made where it was.
    const moved = { ...record, path, deletedThere: undefined };
    await this.store.update([moved], [record.path]);
    return moved;
  }

  private key(path: string): string {
    return this.vault.caseInsensitive ? path.toLowerCase() : path;
  }

  /** Milliseconds since the epoch from the injected clock (for callers that log). */
  now(): number {
    return this.clock.now();
  }
}

/** Every path that shares its case-folded form with another listed path. */
function caseClashes(listed: readonly VaultFileStat[]): Set<string> {
  const byFolded = new Map<string, string[]>();
  for (const { path } of listed) {
    const folded = path.toLowerCase();
    const group = byFolded.get(folded);
    if (group) group.push(path);
    else byFolded.set(folded, [path]);
  }
  const clashes = new Set<string>();
  for (const group of byFolded.values())
    if (group.length > 1) for (const path of group) clashes.add(path);
  return clashes;
}

function fingerprint(record: SyncFileRecord, local: LocalState): SyncFileRecord {
  return { ...record, localHash: local.hash, size: local.stat.size, mtime: local.stat.mtime };
}

/** A text's non-blank lines, trimmed. */
function nonBlankLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A text's distinct non-blank lines, trimmed; front matter fences left out. */
function distinctLines(text: string): Set<string> {
  return new Set(nonBlankLines(text).filter((line) => line !== '---'));
}

/** The record saved before a download is written (`SyncFileRecord.download`). */
function downloadRecord(path: string, begun: DownloadBegun): SyncFileRecord {
  return {
    path,
    fileId: null,
    base: null,
    syncedPath: null,
    localHash: null,
    size: 0,
    mtime: 0,
    download: begun,
  };
}

function notDownloadedRecord(change: SyncChange): SyncFileRecord {
  return {
    path: change.path,
    fileId: change.file_id,
    base: change.hash,
    syncedPath: change.path,
    localHash: null,
    size: change.size,
    mtime: 0,
    seq: change.seq,
    notDownloaded: true,
  };
}

function linked(
  stat: VaultFileStat,
  fileId: string,
  hash: string,
  syncedPath: string,
  seq: number,
): SyncFileRecord {
  return {
    path: stat.path,
    fileId,
    base: hash,
    syncedPath,
    localHash: hash,
    size: stat.size,
    mtime: stat.mtime,
    seq,
  };
}

/**
 * The record of a conflict copy known gone here: the companion's, with no file (size and mtime
 * 0), so the next scan commits its delete against the copy's bytes.
 */
function copyWithoutFile(result: {
  copy_path: string;
  copy_file_id: string;
  copy_hash: string;
  seq: number;
}): SyncFileRecord {
  return {
    path: result.copy_path,
    fileId: result.copy_file_id,
    base: result.copy_hash,
    syncedPath: result.copy_path,
    localHash: result.copy_hash,
    size: 0,
    mtime: 0,
    seq: result.seq,
  };
}

/** 22 random url-safe characters: a commit id (reused by the retries of one batch). */
export function randomCommitId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = '';
  for (const byte of bytes)
    id += 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[byte % 64];
  return id;
}

/** Whether a failed request may be retried later as it is (network, companion busy). */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof SyncRequestError)) return false;
  if (error.code === 'UNREACHABLE' || error.code === 'RATE_LIMITED') return true;
  return error.code === 'HTTP_ERROR' && (error.status === undefined || error.status >= 500);
}

/** The companion's rate limit answered (429): wait for its Retry-After before sending again. */
export function isRateLimited(error: unknown): error is SyncRequestError {
  return error instanceof SyncRequestError && error.code === 'RATE_LIMITED';
}
