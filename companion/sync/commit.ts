import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/ports';
import { decodeUtf8, insertsInto, mergeLines } from '../../shared/markdown/merge-lines';
import { mergeNote } from '../../shared/markdown/merge-note';
import { parseFrontMatter, updateFrontMatter } from '../../shared/markdown/front-matter';
import type { AuditClient } from '../../shared/protocol/audit';
import { SYNC_SERVER_DEVICE } from '../../shared/protocol/sync';
import type {
  SyncCommitRequest,
  SyncCommitResponse,
  SyncDeleteOp,
  SyncOp,
  SyncOpResult,
  SyncPutOp,
  SyncRejectCode,
  SyncRenameOp,
} from '../../shared/protocol/sync';
import type { AuditLog } from '../audit/audit-log';
import { inTransaction } from '../db/open';
import { ApiHttpError } from '../http/api-error';
import type { Logger } from '../logging';
import {
  VaultFileExistsError,
  VaultWriteError,
  moveVaultFile,
  removeVaultFile,
  writeVaultFileFrom,
} from '../vault/atomic-write';
import { conflictCopyName, conflictStamp } from '../vault/conflict-copies';
import { folderSpelledOnDisk, resolveVaultPath } from '../vault/paths';
import type { BlobStore } from './blob-store';
import { newFileId } from './journal';
import type { SyncJournal } from './journal';
import { isMarkdown, isMergeableText, isSettingsPath, isSyncablePath } from './syncable-path';
import { pathKey } from './sync-store';
import type { SyncFileRow, SyncStore } from './sync-store';

/** The mass-delete guard (DESIGN §9): a batch deleting more than this is held for `confirm`. */
export interface MassDeleteLimits {
  /** More deletes than this in one batch are held (DESIGN: 50). */
  readonly maxFiles: number;
  /** More than this share of the vault's files in one batch is held (DESIGN: 10%)… */
  readonly maxFraction: number;
  /** …once the batch deletes at least this many (one delete in a small vault is not "mass"). */
  readonly minFilesForFraction: number;
}

export const DEFAULT_MASS_DELETE: MassDeleteLimits = {
  maxFiles: 50,
  maxFraction: 0.1,
  minFilesForFraction: 2,
};

/** Text larger than this is not merged line by line (a conflict copy instead). */
const MAX_MERGE_BYTES = 8 * 1024 * 1024;
/** Versions of a file a new file at its path is compared with (newest first). */
const MAX_JOIN_VERSIONS = 50;
/** How often an op is re-evaluated when the disk changed under it meanwhile. */
const ATTEMPTS = 4;
/** Stored commit answers are kept this long for retries. */
export const COMMIT_RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Who committed: for the audit log. */
export interface Committer {
  readonly tokenName: string;
  readonly client: AuditClient;
}

interface StoredCommit {
  readonly ops: string;
  /** (file_id, seq) the commit left each file at: a retry is replayed while they still stand. */
  readonly files: ReadonlyArray<readonly [string, number]>;
  /** Asked for with `replay_only` before it was ever applied: it never will be. */
  readonly withdrawn?: true;
}

function withdrawnError(commitId: string): ApiHttpError {
  return new ApiHttpError(
    'COMMIT_WITHDRAWN',
    `commit ${commitId} was never applied and is withdrawn: nothing of it will be; send the changes again with a new commit_id`,
    'commit_id',
  );
}

/** The disk changed between the check and the write: look again, then decide again. */
class DiskRace extends Error {
  override name = 'DiskRace';
}

type Rejection = Extract<SyncOpResult, { status: 'rejected' }>;

function rejected(code: SyncRejectCode, message: string, field?: string): Rejection {
  return {
    status: 'rejected',
    error: field === undefined ? { code, message } : { code, message, field },
  };
}

function state(
  status: 'accepted' | 'merged',
  row: SyncFileRow,
  extra: { kept?: true } = {},
): SyncOpResult {
  if (status === 'accepted') {
    return { status, seq: row.seq, hash: row.hash, file_id: row.file_id, path: row.path };
  }
  return {
    status,
    seq: row.seq,
    hash: row.hash,
    file_id: row.file_id,
    path: row.path,
    ...(extra.kept ? { kept: true as const } : {}),
  };
}

export interface SyncCommitterOptions {
  readonly vault: string;
  readonly journal: SyncJournal;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly audit?: AuditLog;
  readonly massDelete?: MassDeleteLimits;
  /**
   * How long a replaced file is watched for a late write before the overwrite answers
   * (atomic-write's LATE_WRITE_GRACE_MS when absent; the simulation, whose only other writers
   * are synchronous, uses 0).
   */
  readonly lateWriteGraceMs?: number;
}

/**
 * `POST commit` and `POST confirm` (DESIGN §9): applies a device's batch op by op against the
 * current versions, one batch at a time (the journal's `exclusive`), writing the vault through
 * the atomic write path and journalling what was written.
 */
export class SyncCommitter {
  private readonly store: SyncStore;
  private readonly limits: MassDeleteLimits;

  constructor(private readonly options: SyncCommitterOptions) {
    this.store = options.journal.store;
    this.limits = options.massDelete ?? DEFAULT_MASS_DELETE;
  }

  commit(request: SyncCommitRequest, who: Committer): Promise<SyncCommitResponse> {
    assertClientDevice(request.device);
    return this.options.journal.exclusive(async () => {
      const opsHash = sha256(JSON.stringify(request.ops));
      const key = request.commit_id === undefined ? `ops:${opsHash}` : `id:${request.commit_id}`;
      const replay = this.replay(request.device, key, opsHash, request.commit_id !== undefined);
      if (request.replay_only === true) {
        if (request.commit_id === undefined) {
          throw new ApiHttpError(
            'VALIDATION_ERROR',
            'replay_only needs the commit_id of the batch to replay',
            'commit_id',
          );
        }
        if (replay !== undefined) {
          this.auditOps(request.ops, replay, who, true);
          return { results: replay, replayed: true };
        }
        // Never applied: withdrawn for good, so that the batch, still on its way, cannot be
        // applied after the device has built its ops again.
        this.store.storeCommit(
          request.device,
          key,
          '[]',
          JSON.stringify({ ops: opsHash, files: [], withdrawn: true } satisfies StoredCommit),
        );
        throw withdrawnError(request.commit_id);
      }
      if (replay !== undefined) {
        const retry = replay.flatMap((result, index) => (isRetryable(result) ? [index] : []));
        if (retry.length === 0) {
          this.auditOps(request.ops, replay, who, true);
          return { results: replay, replayed: true };
        }
        // Ops that failed for a reason that passes (bytes not uploaded yet, a busy disk) are
        // tried again; the others keep their answer (a conflict copy is never made twice).
        const results = [...replay];
        this.store.touchDevice(request.device);
        for (const index of retry) {
          const result = await this.applyWithRetries(
            request.device,
            request.ops[index] as SyncOp,
            index,
          );
          results[index] = result;
          inTransaction(this.store.db, () => this.recordBases(request.device, result));
        }
        this.remember(request.device, key, opsHash, results);
        this.auditOps(request.ops, results, who, false);
        return { results, replayed: false };
      }
      const held = this.holdIfMassDelete(request, key);
      if (held !== undefined) {
        this.remember(request.device, key, opsHash, held);
        this.auditOps(request.ops, held, who, false);
        return { results: held, replayed: false };
      }
      const results = await this.applyAll(request.device, request.ops);
      this.remember(request.device, key, opsHash, results);
      this.auditOps(request.ops, results, who, false);
      return { results, replayed: false };
    });
  }

  confirm(device: string, holdId: string, who: Committer): Promise<SyncCommitResponse> {
    assertClientDevice(device);
    return this.options.journal.exclusive(async () => {
      const confirmKey = `confirm:${holdId}`;
      const done = this.store.storedCommit(device, confirmKey);
      if (done !== undefined) {
        return { results: JSON.parse(done.results) as SyncOpResult[], replayed: true };
      }
      const hold = this.store.hold(holdId);
      if (hold === undefined) {
        throw new ApiHttpError('NOT_FOUND', `no held batch ${holdId}`, 'hold');
      }
      if (hold.device !== device) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          `batch ${holdId} was held for the device "${hold.device}"; confirm it there`,
          'device',
        );
      }
      const held = JSON.parse(hold.request) as { key: string; request: SyncCommitRequest };
      const results = await this.applyAll(device, held.request.ops);
      const opsHash = sha256(JSON.stringify(held.request.ops));
      inTransaction(this.store.db, () => {
        this.store.removeHold(holdId);
        this.remember(device, held.key, opsHash, results);
        this.remember(device, confirmKey, opsHash, results);
      });
      this.auditOps(held.request.ops, results, who, false);
      return { results, replayed: false };
    });
  }

  private replay(
    device: string,
    key: string,
    opsHash: string,
    byId: boolean,
  ): SyncOpResult[] | undefined {
    const stored = this.store.storedCommit(device, key);
    if (stored === undefined) return undefined;
    const touched = JSON.parse(stored.touched) as StoredCommit;
    if (touched.withdrawn === true) throw withdrawnError(key.slice('id:'.length));
    if (byId) {
      if (touched.ops !== opsHash) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          'commit_id was used before for other ops; use a fresh id per batch',
          'commit_id',
        );
      }
    } else if (!touched.files.every(([fileId, seq]) => this.store.file(fileId)?.seq === seq)) {
      // The same ops again after something changed the files since: a new batch (an undo
      // redone), not a retry.
      return undefined;
    }
    return JSON.parse(stored.results) as SyncOpResult[];
  }

  private remember(device: string, key: string, opsHash: string, results: SyncOpResult[]): void {
    const files: Array<[string, number]> = [];
    for (const result of results) {
      if ('file_id' in result)
        files.push([result.file_id, this.store.file(result.file_id)?.seq ?? 0]);
      if (result.status === 'conflict') {
        files.push([result.copy_file_id, this.store.file(result.copy_file_id)?.seq ?? 0]);
      }
    }
    const touched: StoredCommit = { ops: opsHash, files };
    this.store.storeCommit(device, key, JSON.stringify(results), JSON.stringify(touched));
    this.store.pruneCommits(this.options.clock.now() - COMMIT_RECORD_TTL_MS);
  }

  private holdIfMassDelete(request: SyncCommitRequest, key: string): SyncOpResult[] | undefined {
    const deletes = request.ops.filter(
      (op) => 'delete' in op && this.store.file(op.file_id)?.deleted === 0,
    ).length;
    const files = this.store.liveCount();
    const mass =
      deletes > this.limits.maxFiles ||
      (deletes >= this.limits.minFilesForFraction && deletes > files * this.limits.maxFraction);
    if (!mass) return undefined;
    const hold = randomBytes(12).toString('base64url');
    this.store.addHold(hold, request.device, JSON.stringify({ key, request }));
    this.options.logger.warn(
      { device: request.device, deletes, files, hold },
      'sync: a batch deleting many files is held until it is confirmed on the device',
    );
    return request.ops.map(() => ({
      status: 'held' as const,
      reason: 'mass_delete' as const,
      hold,
      deletes,
      files,
    }));
  }

  private async applyAll(device: string, ops: readonly SyncOp[]): Promise<SyncOpResult[]> {
    this.store.touchDevice(device);
    const results: SyncOpResult[] = [];
    for (const [index, op] of ops.entries()) {
      results.push(await this.applyWithRetries(device, op, index));
    }
    // One transaction (one fsync) for the whole batch's bases.
    inTransaction(this.store.db, () => {
      for (const result of results) this.recordBases(device, result);
    });
    return results;
  }

  private recordBases(device: string, result: SyncOpResult): void {
    if (result.status === 'accepted' || result.status === 'merged') {
      // A file the device saw deleted is no base it will merge against.
      if (this.store.file(result.file_id)?.deleted === 1) {
        this.store.clearDeviceBase(device, result.file_id);
        return;
      }
      this.store.setDeviceBase(device, result.file_id, result.hash);
    } else if (result.status === 'conflict') {
      this.store.setDeviceBase(device, result.file_id, result.hash);
      this.store.setDeviceBase(device, result.copy_file_id, result.copy_hash);
    }
  }

  private async applyWithRetries(device: string, op: SyncOp, index: number): Promise<SyncOpResult> {
    const field = `ops[${index}]`;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        if ('delete' in op) return await this.remove(device, op, field);
        if ('rename_to' in op) return await this.rename(device, op, field);
        return await this.put(device, op, field);
      } catch (error) {
        if (error instanceof DiskRace || isRace(error)) continue;
        if (error instanceof VaultWriteError && error.code === 'VALIDATION_ERROR') {
          const which = 'rename_to' in op ? 'rename_to' : 'path';
          return rejected('INVALID_PATH', error.message, `${field}.${which}`);
        }
        this.options.logger.error(
          { err: error, device },
          'sync: an op could not be applied; it is answered UNAVAILABLE',
        );
        return rejected('UNAVAILABLE', 'the vault could not be written; retry later');
      }
    }
    return rejected(
      'UNAVAILABLE',
      'the file kept changing on the companion while this op was applied; retry later',
    );
  }

  // --- put --------------------------------------------------------------------------------

  private async put(device: string, op: SyncPutOp, field: string): Promise<SyncOpResult> {
    const size = this.options.blobs.sizeOf(op.hash);
    if (size === undefined) {
      return rejected(
        'BLOB_MISSING',
        `the bytes of ${op.hash} are not on the companion; upload them first (PUT blobs/${op.hash})`,
        `${field}.hash`,
      );
    }
    const pathProblem = await this.pathProblem(op.path);
    if (pathProblem !== null) return rejected('INVALID_PATH', pathProblem, `${field}.path`);
    if (op.file_id !== undefined) {
      const known = this.store.file(op.file_id);
      if (known === undefined) {
        return rejected(
          'UNKNOWN_FILE_ID',
          `no file has the file_id ${op.file_id}; commit it as a new file (without file_id)`,
          `${field}.file_id`,
        );
      }
      if (known.deleted === 0) {
        await this.options.journal.catchUp(known.path);
        const current = this.store.file(known.file_id) as SyncFileRow;
        if (current.deleted === 0) return this.putOnto(device, current, op);
      }
      // Deleted meanwhile (or just now on disk): an edit made without seeing the delete wins
      // over it, so the file comes back with its file_id.
      const revived = await this.revived(this.store.file(op.file_id) ?? known, op, size);
      const occupant = await this.options.journal.catchUp(op.path);
      const result =
        occupant !== undefined
          ? await this.collide(device, occupant, revived.op, revived.size, op.file_id)
          : await this.create(device, revived.op, revived.size, op.file_id);
      return result.status === 'accepted' && result.hash !== op.hash
        ? { ...result, status: 'merged' }
        : result;
    }
    const occupant = await this.options.journal.catchUp(op.path);
    if (occupant !== undefined) return this.collide(device, occupant, op, size);
    return this.create(device, op, size);
  }

  /**
   * What comes back of a deleted file an edit wins over: its last version with the device's edit
   * merged in, as if the delete had not been, when the device edited an older version. Lines
   * others added since that version come back with it (the delete is undone, not only the
   * device's part of it), and their edits of the last version merge later instead of meeting
   * the device's older text as a conflict (seed 1800002284). The device's version as sent when
   * it edited the last version, when the two do not merge, or when either is not text.
   */
  private async revived(
    deleted: SyncFileRow,
    op: SyncPutOp,
    size: number,
  ): Promise<{ op: SyncPutOp; size: number }> {
    if (op.base === null || op.base === deleted.hash || !this.options.blobs.has(deleted.hash))
      return { op, size };
    const merged = await this.merge(deleted, op);
    if (merged === null || merged.hash === op.hash) return { op, size };
    return {
      op: { ...op, hash: merged.hash },
      size: this.options.blobs.sizeOf(merged.hash) ?? size,
    };
  }

  /** The device's version of a live file it has a base for. */
  private async putOnto(device: string, file: SyncFileRow, op: SyncPutOp): Promise<SyncOpResult> {
    if (op.hash === file.hash) return state('accepted', file);
    if (op.base === file.hash) {
      const written = await this.writeOver(device, file, op.hash, op.mtime);
      return state('accepted', written);
    }
    const merged = await this.merge(file, op);
    if (merged !== null) {
      if (merged.hash === file.hash) return state('merged', file);
      const written = await this.writeOver(device, file, merged.hash, op.mtime);
      return state(merged.hash === op.hash ? 'accepted' : 'merged', written);
    }
    return this.conflictCopy(device, file, op.hash);
  }

  /** A new file (`base: null`, or a file_id whose file is gone) at a path a live file holds. */
  private async collide(
    device: string,
    occupant: SyncFileRow,
    op: SyncPutOp,
    size: number,
    ownId?: string,
  ): Promise<SyncOpResult> {
    if (op.hash === occupant.hash) return state('accepted', occupant);
    if (op.base !== null && ownId === undefined) return this.putOnto(device, occupant, op);
    if (size === 0) return state('merged', occupant); // the empty one gives way
    if (occupant.size === 0) {
      const written = await this.writeOver(device, occupant, op.hash, op.mtime);
      return state('accepted', written);
    }
    // A deleted file an edit brings back (`ownId`) shares its edit's base with the file now at
    // its path when that one keeps every line of it: the daily note made again from the
    // template the deleted one started from (seed 1900001029). Joined like any two new files.
    const joined = await this.joinNewFile(occupant, op, ownId !== undefined ? op.base : null);
    if (joined === occupant.hash) return state('merged', occupant);
    if (joined !== null) {
      const written = await this.writeOver(device, occupant, joined, op.mtime);
      return state(joined === op.hash ? 'accepted' : 'merged', written);
    }
    return this.conflictCopy(device, occupant, op.hash, ownId);
  }

  /**
   * Two new text files at one path that are one file after all, or null: the device's holds no
   * line the companion's lacks (a template, or the companion's own version pulled before a crash
   * lost the device's record of it) → the companion's; the device's is a version of the
   * companion's file with lines inserted (the same, edited) → merged against that version.
   * Either way no line of either is dropped; anything else is a conflict copy. Returns the hash
   * of the joined bytes.
   */
  private async joinNewFile(
    occupant: SyncFileRow,
    op: SyncPutOp,
    sharedBase: string | null = null,
  ): Promise<string | null> {
    const blobs = this.options.blobs;
    if (!isMergeableText(occupant.path)) return null;
    const sizeOf = (hash: string): number => blobs.sizeOf(hash) ?? Infinity;
    if (sizeOf(op.hash) > MAX_MERGE_BYTES || sizeOf(occupant.hash) > MAX_MERGE_BYTES) return null;
    const ours = decodeUtf8(await blobs.readBytes(op.hash));
    const theirs = decodeUtf8(await blobs.readBytes(occupant.hash));
    if (ours === null || theirs === null) return null;
    if (insertsInto(ours, theirs)) return occupant.hash;
    const tried = new Set<string>();
    const versions = this.store.versions(occupant.file_id).map((version) => version.hash);
    const extra = sharedBase !== null && blobs.has(sharedBase) && !versions.includes(sharedBase);
    const candidates = extra ? [sharedBase, ...versions] : versions;
    for (const hash of candidates) {
      if (tried.has(hash) || sizeOf(hash) > MAX_MERGE_BYTES) continue;
      tried.add(hash);
      if (tried.size > MAX_JOIN_VERSIONS) return null;
      const base = decodeUtf8(await blobs.readBytes(hash));
      if (base === null || !insertsInto(base, ours)) continue;
      // The edit's own base: only when the companion's file keeps all of it, and it is text.
      if (extra && hash === sharedBase && (base.trim() === '' || !insertsInto(base, theirs)))
        continue;
      const result = isMarkdown(occupant.path)
        ? mergeNote(base, ours, theirs)
        : mergeLines(base, ours, theirs);
      if (!result.clean || mergeBrokeJson(occupant.path, [base, ours, theirs], result.text))
        return null;
      // The device never saw what the companion's file lost since that version (its record of
      // the file is gone, or it never had one): a line of its file missing from the merge was
      // deleted by someone else's edit, and is kept in a conflict copy instead.
      if (!insertsInto(ours, result.text)) return null;
      return (await blobs.putBytes(Buffer.from(result.text, 'utf8'))).hash;
    }
    return null;
  }

  private async create(
    device: string,
    op: SyncPutOp,
    size: number,
    fileId: string = newFileId(),
  ): Promise<SyncOpResult> {
    const source = this.options.blobs.pathOf(op.hash);
    const written = await this.writeNew(
      await folderSpelledOnDisk(this.options.vault, op.path),
      source,
    );
    const [seq] = this.options.journal.append([
      {
        fileId,
        path: written.path,
        op: 'put',
        hash: op.hash,
        size,
        mtime: op.mtime ?? this.options.clock.now(),
        device,
        disk: written.disk,
      },
    ]);
    return {
      status: 'accepted',
      seq: seq as number,
      hash: op.hash,
      file_id: fileId,
      path: written.path,
    };
  }

  /** The three-way merge of a text file, or null when it cannot be merged. */
  private async merge(file: SyncFileRow, op: SyncPutOp): Promise<{ hash: string } | null> {
    const blobs = this.options.blobs;
    if (op.base === null || !isMergeableText(file.path) || !blobs.has(op.base)) return null;
    const sizes = [op.base, op.hash, file.hash].map((hash) => blobs.sizeOf(hash) ?? Infinity);
    if (sizes.some((size) => size > MAX_MERGE_BYTES)) return null;
    const [base, ours, theirs] = await Promise.all(
      [op.base, op.hash, file.hash].map(async (hash) => decodeUtf8(await blobs.readBytes(hash))),
    );
    if (base == null || ours == null || theirs == null) return null;
    const result = isMarkdown(file.path)
      ? mergeNote(base, ours, theirs)
      : mergeLines(base, ours, theirs);
    if (!result.clean || mergeBrokeJson(file.path, [base, ours, theirs], result.text)) return null;
    return blobs.putBytes(Buffer.from(result.text, 'utf8'));
  }

  /**
   * Keeps the current version at its path and writes the device's version beside it as
   * `Note.conflict-YYYYMMDD-HHMMSS.md`; a Markdown copy says in its front matter which device
   * wrote it and links the note.
   */
  private async conflictCopy(
    device: string,
    file: SyncFileRow,
    hash: string,
    fileId: string = newFileId(),
  ): Promise<SyncOpResult> {
    let copyHash = hash;
    if (isMarkdown(file.path)) {
      const text = decodeUtf8(await this.options.blobs.readBytes(hash));
      if (text !== null) {
        const link = `[[${file.path.replace(/\.md$/i, '')}]]`;
        const marked = markedAsCopy(text, link, device);
        if (marked.ok)
          copyHash = (await this.options.blobs.putBytes(Buffer.from(marked.text))).hash;
      }
    }
    const copyPath = await this.freeConflictName(file.path);
    const written = await this.writeNew(copyPath, this.options.blobs.pathOf(copyHash));
    const size = this.options.blobs.sizeOf(copyHash) ?? 0;
    const [seq] = this.options.journal.append([
      {
        fileId,
        path: written.path,
        op: 'put',
        hash: copyHash,
        size,
        mtime: this.options.clock.now(),
        device,
        disk: written.disk,
      },
    ]);
    return {
      status: 'conflict',
      seq: seq as number,
      hash: file.hash,
      file_id: file.file_id,
      path: file.path,
      copy_path: written.path,
      copy_file_id: fileId,
      copy_hash: copyHash,
    };
  }

  private async freeConflictName(path: string): Promise<string> {
    const stamp = conflictStamp(this.options.clock.now());
    for (let n = 1; n < 1000; n++) {
      const candidate = conflictCopyName(path, stamp, n);
      if (this.store.liveAt(candidate) !== undefined) continue;
      const resolved = await resolveVaultPath(this.options.vault, candidate, 'write');
      if (resolved.ok && !resolved.exists) return candidate;
    }
    throw new DiskRace(`no free conflict copy name beside ${path}`);
  }

  // --- delete -----------------------------------------------------------------------------

  private async remove(device: string, op: SyncDeleteOp, field: string): Promise<SyncOpResult> {
    const known = this.store.file(op.file_id);
    if (known === undefined) {
      return rejected(
        'UNKNOWN_FILE_ID',
        `no file has the file_id ${op.file_id}`,
        `${field}.file_id`,
      );
    }
    if (known.deleted === 1) return state('accepted', known);
    await this.options.journal.catchUp(known.path);
    const file = this.store.file(op.file_id) as SyncFileRow;
    if (file.deleted === 1) return state('accepted', file);
    if (op.base !== file.hash && !(await this.isCopyMarkingOf(file, op.base))) {
      // The device deleted an older version: the newer edit wins, the file stays.
      return state('merged', file, { kept: true });
    }
    try {
      await removeVaultFile(this.options.vault, file.path, file.hash, this.options.clock);
    } catch (error) {
      if (error instanceof VaultWriteError && error.code === 'CONFLICT') throw new DiskRace();
      throw error;
    }
    this.options.journal.append([
      {
        fileId: file.file_id,
        path: file.path,
        op: 'delete',
        hash: file.hash,
        size: file.size,
        mtime: this.options.clock.now(),
        device,
      },
    ]);
    return state('accepted', this.store.file(file.file_id) as SyncFileRow);
  }

  /**
   * True when `file` is a conflict copy whose bytes are `base` with only the front matter the
   * companion marked the copy with: a device that moved edits into the copy commits them
   * against `base`, its own version, so its delete of the copy names that version. That is no
   * older version, the copy has no edit of anyone's: the delete wins.
   */
  private async isCopyMarkingOf(file: SyncFileRow, base: string): Promise<boolean> {
    const { blobs } = this.options;
    if (!isMarkdown(file.path) || !blobs.has(base) || !blobs.has(file.hash)) return false;
    const copy = decodeUtf8(await blobs.readBytes(file.hash));
    const sent = decodeUtf8(await blobs.readBytes(base));
    if (copy === null || sent === null) return false;
    const parsed = parseFrontMatter(copy);
    if (!parsed.ok) return false;
    const { conflict_of: conflictOf, conflict_device: conflictDevice } = parsed.data;
    if (typeof conflictOf !== 'string' || typeof conflictDevice !== 'string') return false;
    const marked = markedAsCopy(sent, conflictOf, conflictDevice);
    return marked.ok && marked.text === copy;
  }

  // --- rename -----------------------------------------------------------------------------

  private async rename(device: string, op: SyncRenameOp, field: string): Promise<SyncOpResult> {
    const known = this.store.file(op.file_id);
    if (known === undefined) {
      return rejected(
        'UNKNOWN_FILE_ID',
        `no file has the file_id ${op.file_id}`,
        `${field}.file_id`,
      );
    }
    const problem = await this.pathProblem(op.rename_to);
    if (problem !== null) return rejected('INVALID_PATH', problem, `${field}.rename_to`);
    if (isSettingsPath(known.path) !== isSettingsPath(op.rename_to)) {
      // Settings files reach only the devices that sync them: a move across that line would
      // vanish on one side and appear on the other.
      return rejected(
        'INVALID_PATH',
        `path ${JSON.stringify(op.rename_to)}: a file cannot move into or out of .obsidian/`,
        `${field}.rename_to`,
      );
    }
    if (known.deleted === 0) await this.options.journal.catchUp(known.path);
    const file = this.store.file(op.file_id) as SyncFileRow;
    if (file.deleted === 1) {
      return rejected(
        'FILE_DELETED',
        `${file.path} was deleted on the companion; the delete stands (its changes list it)`,
        `${field}.file_id`,
      );
    }
    const status = op.base === file.hash ? 'accepted' : 'merged';
    if (file.path === op.rename_to) return state(status, file);
    const caseOnly = pathKey(file.path) === pathKey(op.rename_to);
    const occupant = caseOnly ? undefined : await this.options.journal.catchUp(op.rename_to);
    let target = caseOnly
      ? op.rename_to
      : await folderSpelledOnDisk(this.options.vault, op.rename_to);
    if (occupant !== undefined && occupant.file_id !== file.file_id) {
      target = await this.freeConflictName(target);
    }
    let moved: { path: string };
    try {
      moved = await moveVaultFile(this.options.vault, file.path, target, file.hash);
    } catch (error) {
      if (error instanceof VaultWriteError && error.code === 'CONFLICT') throw new DiskRace();
      throw error;
    }
    const disk = await diskStat(join(this.options.vault, moved.path));
    this.options.journal.append([
      {
        fileId: file.file_id,
        path: moved.path,
        op: 'rename',
        hash: file.hash,
        size: file.size,
        mtime: file.mtime,
        device,
        fromPath: file.path,
        disk,
      },
    ]);
    const after = this.store.file(file.file_id) as SyncFileRow;
    if (occupant !== undefined && occupant.file_id !== file.file_id) {
      return {
        status: 'conflict',
        seq: after.seq,
        hash: occupant.hash,
        file_id: occupant.file_id,
        path: occupant.path,
        copy_path: after.path,
        copy_file_id: after.file_id,
        copy_hash: after.hash,
      };
    }
    return state(status, after);
  }

  // --- vault writes -----------------------------------------------------------------------

  /** Replaces a live file's bytes with the blob `hash`, journalled as the device's put. */
  private async writeOver(
    device: string,
    file: SyncFileRow,
    hash: string,
    mtime: number | undefined,
  ): Promise<SyncFileRow> {
    let result: { path: string; conflictCopy?: string };
    try {
      result = await writeVaultFileFrom(
        this.options.vault,
        file.path,
        this.options.blobs.pathOf(hash),
        file.hash,
        {
          clock: this.options.clock,
          ...(this.options.lateWriteGraceMs === undefined
            ? {}
            : { lateWriteGraceMs: this.options.lateWriteGraceMs }),
        },
      );
    } catch (error) {
      if (isRace(error)) throw new DiskRace();
      throw error;
    }
    const disk = await diskStat(join(this.options.vault, result.path));
    this.options.journal.append([
      {
        fileId: file.file_id,
        path: result.path,
        op: 'put',
        hash,
        size: this.options.blobs.sizeOf(hash) ?? 0,
        mtime: mtime ?? this.options.clock.now(),
        device,
        disk,
      },
    ]);
    // A change that landed on the replaced file at the last moment was kept beside it.
    if (result.conflictCopy !== undefined) await this.options.journal.catchUp(result.conflictCopy);
    return this.store.file(file.file_id) as SyncFileRow;
  }

  private async writeNew(
    path: string,
    source: string,
  ): Promise<{ path: string; disk: { mtime: number; size: number } | null }> {
    let written: { path: string };
    try {
      written = await writeVaultFileFrom(this.options.vault, path, source, null);
    } catch (error) {
      if (isRace(error)) throw new DiskRace();
      throw error;
    }
    return { path: written.path, disk: await diskStat(join(this.options.vault, written.path)) };
  }

  /** Why `path` cannot be a synced file, or null (textual rules; the disk is checked on write). */
  private async pathProblem(path: string): Promise<string | null> {
    const resolved = await resolveVaultPath(this.options.vault, path, 'read');
    if (!resolved.ok) return resolved.reason;
    if (!isSyncablePath(path)) return `path ${JSON.stringify(path)}: not a file Cairn syncs`;
    return null;
  }

  private auditOps(
    ops: readonly SyncOp[],
    results: readonly SyncOpResult[],
    who: Committer,
    replayed: boolean,
  ): void {
    const audit = this.options.audit;
    if (audit === undefined) return;
    try {
      inTransaction(this.store.db, () => {
        ops.forEach((op, index) => {
          const result = results[index];
          const action =
            'delete' in op ? 'sync.delete' : 'rename_to' in op ? 'sync.rename' : 'sync.put';
          const path =
            result !== undefined && 'path' in result
              ? result.path
              : 'path' in op
                ? op.path
                : this.store.file(op.file_id)?.path;
          audit.record({
            tokenName: who.tokenName,
            client: who.client,
            action,
            path,
            outcome: replayed
              ? 'deduplicated'
              : result?.status === 'rejected'
                ? 'failed'
                : result?.status === 'held'
                  ? 'refused'
                  : 'ok',
            errorCode:
              result?.status === 'rejected'
                ? result.error.code
                : result?.status === 'held'
                  ? 'MASS_DELETE_HELD'
                  : undefined,
          });
        });
      });
    } catch (error) {
      this.options.logger.error({ err: error }, 'sync: the audit log could not be written');
    }
  }
}

function assertClientDevice(device: string): void {
  if (device.trim().toLowerCase() === SYNC_SERVER_DEVICE) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      `device "${device}" is the companion's own name for changes on its disk; choose another`,
      'device',
    );
  }
}

/** A rejection a retry of the same commit may get past. */
function isRetryable(result: SyncOpResult): boolean {
  return (
    result.status === 'rejected' &&
    (result.error.code === 'BLOB_MISSING' || result.error.code === 'UNAVAILABLE')
  );
}

function isRace(error: unknown): boolean {
  return (
    error instanceof VaultFileExistsError ||
    (error instanceof VaultWriteError && (error.code === 'CONFLICT' || error.code === 'NOT_FOUND'))
  );
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function diskStat(absolute: string): Promise<{ mtime: number; size: number } | null> {
  try {
    const info = await stat(absolute);
    return { mtime: Math.trunc(info.mtimeMs), size: info.size };
  } catch {
    return null;
  }
}

/**
 * True when a line merge of JSON files that each parsed does not parse (two devices adding a
 * key at an object's end leave a comma missing): Obsidian would drop a settings file it cannot
 * read, so such a merge is a conflict copy instead.
 */
function mergeBrokeJson(path: string, inputs: readonly string[], merged: string): boolean {
  if (!path.toLowerCase().endsWith('.json')) return false;
  const parses = (text: string): boolean => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  return inputs.every(parses) && !parses(merged);
}

/** A conflict copy's text: the version with the two keys that mark it (DESIGN §9). */
function markedAsCopy(text: string, conflictOf: string, device: string) {
  return updateFrontMatter(text, { conflict_of: conflictOf, conflict_device: device });
}
