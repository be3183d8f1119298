import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { VaultPath } from './formats';

/*
 * Cairn Sync (DESIGN §9, docs/sync.md): the routes under `/api/v1/sync`, token scope `sync`.
 * Devices sync their vault with the companion in a star: they read the companion's journal
 * (`changes`), move bytes as content-addressed blobs (`blobs/:hash`), and send their own changes
 * as one batch (`commit`), which the companion accepts, merges, turns into a conflict copy,
 * holds (mass delete, until `confirm`) or rejects, op by op.
 */

/** Text files are merged three ways (DESIGN §9); everything else gets a conflict copy. */
const MERGEABLE_TEXT_EXTENSIONS = ['.md', '.canvas', '.txt', '.base', '.json'];

export function isMergeableText(path: string): boolean {
  const lower = path.toLowerCase();
  return MERGEABLE_TEXT_EXTENSIONS.some((extension) => lower.endsWith(extension));
}

/** Lowercase hex SHA-256 of a file's bytes: the name of a version. */
export const SyncHash = () =>
  Type.String({ pattern: '^[0-9a-f]{64}$', description: 'a lowercase hex SHA-256' });
export type SyncHash = string;

/** The companion's name for a file, stable across renames; devices never make one up. */
export const SyncFileId = () =>
  Type.String({
    pattern: '^[A-Za-z0-9_-]{1,64}$',
    description: 'a file_id handed out by the companion',
  });

/**
 * The device's name as the user knows it (`Pixel 8`, `MacBook`). `server` is the companion's own
 * name for changes made on its disk and is refused from clients.
 */
export const SyncDeviceName = () =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[^\\x00-\\x1f\\x7f]*\\S[^\\x00-\\x1f\\x7f]*$',
    description: 'a device name (1–64 characters, no control characters)',
  });

/** The device name of changes that entered the vault on the companion's disk. */
export const SYNC_SERVER_DEVICE = 'server';

/** Per-file size limit (default): uploads above it get 413. */
export const SYNC_DEFAULT_MAX_FILE_BYTES = 200 * 1024 * 1024;
/** Longest long poll of `GET changes`, in seconds. */
export const SYNC_MAX_WAIT_SECONDS = 30;
/** Default and largest page of `GET changes`. */
export const SYNC_CHANGES_DEFAULT_LIMIT = 500;
export const SYNC_CHANGES_MAX_LIMIT = 5000;
/** Most ops in one commit. */
export const SYNC_MAX_OPS_PER_COMMIT = 10_000;

export const SyncOpKind = Type.Union([
  Type.Literal('put'),
  Type.Literal('delete'),
  Type.Literal('rename'),
]);
export type SyncOpKind = Static<typeof SyncOpKind>;

// ---------------------------------------------------------------------------------------------
// GET /api/v1/sync/changes?since=&limit=&wait=&device=

export const SyncChangesQuery = Type.Object(
  {
    /** The `next` of the previous answer; 0 = the vault as it is now (one `put` per live file). */
    since: Type.Integer({ minimum: 0 }),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SYNC_CHANGES_MAX_LIMIT,
        default: SYNC_CHANGES_DEFAULT_LIMIT,
      }),
    ),
    /** Long poll: answer when something newer than `since` exists, or with nothing after this many seconds. */
    wait: Type.Optional(Type.Integer({ minimum: 0, maximum: SYNC_MAX_WAIT_SECONDS, default: 0 })),
    /**
     * The device asking. Its `since` tells the companion which versions it has seen, so they are
     * kept as merge bases (history pruning) until it moves past them.
     */
    device: Type.Optional(SyncDeviceName()),
    /**
     * 1: list the synced settings files (`.obsidian/…`, shared/protocol/sync-settings.ts) too.
     * Without it they are left out of the page (its `next` and `more` unchanged).
     */
    settings: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);
export type SyncChangesQuery = Static<typeof SyncChangesQuery>;

/** One journal entry: the file's state after the change. */
export const SyncChange = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  file_id: SyncFileId(),
  /** Path after the change (for a delete: the path it had). */
  path: Type.String(),
  op: SyncOpKind,
  /** put/rename: the file's bytes now; delete: the version that was deleted. */
  hash: SyncHash(),
  size: Type.Integer({ minimum: 0 }),
  /** Modification time in ms since the epoch, as the writing device or disk reported it. */
  mtime: Type.Integer(),
  /** The committing device's name, or `server` for changes made on the companion's disk. */
  device: Type.String(),
  /** rename: the path before. */
  from_path: Type.Optional(Type.String()),
});
export type SyncChange = Static<typeof SyncChange>;

export const SyncChangesResponse = Type.Object({
  changes: Type.Array(SyncChange),
  /** Pass as `since` next time (the last seq listed, or the journal's head once all is listed). */
  next: Type.Integer({ minimum: 0 }),
  /** More changes are waiting right now: ask again at once with `since=next`. */
  more: Type.Boolean(),
});
export type SyncChangesResponse = Static<typeof SyncChangesResponse>;

// ---------------------------------------------------------------------------------------------
// GET|PUT /api/v1/sync/blobs/:hash

export const SyncBlobParams = Type.Object({ hash: SyncHash() }, { additionalProperties: false });
export type SyncBlobParams = Static<typeof SyncBlobParams>;

/**
 * `PUT blobs/:hash` answer: `201` stored now, `200` already held (`complete: true`), `202` a
 * `Content-Range` part was stored and `received` bytes of `size` are held (resume from there).
 */
export const SyncBlobPutResponse = Type.Object({
  hash: SyncHash(),
  /** Bytes held so far: the whole size once complete. */
  received: Type.Integer({ minimum: 0 }),
  complete: Type.Boolean(),
});
export type SyncBlobPutResponse = Static<typeof SyncBlobPutResponse>;

// ---------------------------------------------------------------------------------------------
// POST /api/v1/sync/blobs/batch

/** Most hashes in one `POST blobs/batch`. */
export const SYNC_BLOB_BATCH_MAX_HASHES = 256;
/** Most bytes (the blobs' sizes added up) one `POST blobs/batch` answers with. */
export const SYNC_BLOB_BATCH_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Many blobs in one answer (a first sync downloads thousands of small notes): the hashes, in
 * the order their frames come back, each at most once.
 */
export const SyncBlobBatchRequest = Type.Object(
  {
    hashes: Type.Array(SyncHash(), {
      minItems: 1,
      maxItems: SYNC_BLOB_BATCH_MAX_HASHES,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false },
);
export type SyncBlobBatchRequest = Static<typeof SyncBlobBatchRequest>;

// ---------------------------------------------------------------------------------------------
// POST /api/v1/sync/commit

/** Write the bytes of `hash` (uploaded first) to a file: a new one (`base: null`) or `file_id`. */
export const SyncPutOp = Type.Object(
  {
    path: VaultPath(),
    file_id: Type.Optional(SyncFileId()),
    /** The version the device's edit started from; null = the device created the file. */
    base: Type.Union([SyncHash(), Type.Null()]),
    hash: SyncHash(),
    /** The device's modification time (ms since the epoch); informational. */
    mtime: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
export type SyncPutOp = Static<typeof SyncPutOp>;

export const SyncDeleteOp = Type.Object(
  {
    file_id: SyncFileId(),
    /** The version the device deleted; a delete of an older version loses to the newer edit. */
    base: SyncHash(),
    delete: Type.Literal(true),
  },
  { additionalProperties: false },
);
export type SyncDeleteOp = Static<typeof SyncDeleteOp>;

export const SyncRenameOp = Type.Object(
  {
    file_id: SyncFileId(),
    base: SyncHash(),
    rename_to: VaultPath(),
  },
  { additionalProperties: false },
);
export type SyncRenameOp = Static<typeof SyncRenameOp>;

export const SyncOp = Type.Union([SyncPutOp, SyncDeleteOp, SyncRenameOp]);
export type SyncOp = Static<typeof SyncOp>;

export const SyncCommitRequest = Type.Object(
  {
    device: SyncDeviceName(),
    ops: Type.Array(SyncOp, { minItems: 1, maxItems: SYNC_MAX_OPS_PER_COMMIT }),
    /**
     * Optional, recommended: a fresh id per batch (reused on retries). Without it, a batch with
     * the same device and ops as an earlier one is its retry while nothing it touched changed since.
     */
    commit_id: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{8,64}$',
        description: 'an id of 8–64 letters, digits, _ or -',
      }),
    ),
    /**
     * With `commit_id`: only the stored answer of that batch, never applied now. A batch the
     * companion never got (its request lost) is withdrawn instead, answered `409
     * COMMIT_WITHDRAWN`, and refused the same way if it arrives later: a device resending a
     * batch from before the app died or went offline builds its ops again from what is there
     * now, and bytes moved or edited since are never applied as they were.
     */
    replay_only: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SyncCommitRequest = Static<typeof SyncCommitRequest>;

/** Where the file named by the op stands now. */
const fileState = {
  /** The journal entry that made this state (for a delete that lost: the file's latest). */
  seq: Type.Integer({ minimum: 1 }),
  /** The bytes now at `path`: the device downloads them unless it already has them. */
  hash: SyncHash(),
  file_id: SyncFileId(),
  path: Type.String(),
};

/** The device's op is in, as sent. */
export const SyncAcceptedResult = Type.Object({
  status: Type.Literal('accepted'),
  ...fileState,
});

/**
 * The op met a newer version and both were combined: `hash` is the merge (download it). Also the
 * answer to a delete that lost to a newer edit (`kept: true`: the file stays as `hash`) and to a
 * rename of a file whose content changed meanwhile (renamed; download `hash`).
 */
export const SyncMergedResult = Type.Object({
  status: Type.Literal('merged'),
  ...fileState,
  kept: Type.Optional(Type.Literal(true)),
});

/**
 * The op's change could not be combined: the version at `path` (`file_id`, `hash`) stays, the
 * device's version was written beside it as a new file (`copy_path`, `copy_file_id`,
 * `copy_hash`). For a rename onto a taken path, `copy_*` is the renamed file itself.
 */
export const SyncConflictResult = Type.Object({
  status: Type.Literal('conflict'),
  ...fileState,
  copy_path: Type.String(),
  copy_file_id: SyncFileId(),
  copy_hash: SyncHash(),
});

/** Nothing of the batch was applied: it waits for `POST confirm` with `hold` from this device. */
export const SyncHeldResult = Type.Object({
  status: Type.Literal('held'),
  reason: Type.Literal('mass_delete'),
  hold: Type.String(),
  /** How many files the batch would delete, and how many the vault holds. */
  deletes: Type.Integer({ minimum: 0 }),
  files: Type.Integer({ minimum: 0 }),
});

/**
 * Codes of a rejected op: `UNKNOWN_FILE_ID` (no such file), `BLOB_MISSING` (upload the bytes of
 * `hash` first), `INVALID_PATH` (escapes the vault or is not portable; `field` names it),
 * `TOO_LARGE` (over the per-file limit), `FILE_DELETED` (a rename of a file deleted meanwhile),
 * `UNAVAILABLE` (the vault could not be written; retry later).
 */
export const SYNC_REJECT_CODES = [
  'UNKNOWN_FILE_ID',
  'BLOB_MISSING',
  'INVALID_PATH',
  'TOO_LARGE',
  'FILE_DELETED',
  'UNAVAILABLE',
] as const;
export type SyncRejectCode = (typeof SYNC_REJECT_CODES)[number];

export const SyncRejectedResult = Type.Object({
  status: Type.Literal('rejected'),
  error: Type.Object({
    code: Type.Union(SYNC_REJECT_CODES.map((code) => Type.Literal(code))),
    message: Type.String(),
    /** `ops[2].rename_to`, … */
    field: Type.Optional(Type.String()),
  }),
});

export const SyncOpResult = Type.Union([
  SyncAcceptedResult,
  SyncMergedResult,
  SyncConflictResult,
  SyncHeldResult,
  SyncRejectedResult,
]);
export type SyncOpResult = Static<typeof SyncOpResult>;
export type SyncAcceptedResult = Static<typeof SyncAcceptedResult>;
export type SyncMergedResult = Static<typeof SyncMergedResult>;
export type SyncConflictResult = Static<typeof SyncConflictResult>;
export type SyncHeldResult = Static<typeof SyncHeldResult>;
export type SyncRejectedResult = Static<typeof SyncRejectedResult>;

/** One result per op, in order. */
export const SyncCommitResponse = Type.Object({
  results: Type.Array(SyncOpResult),
  /** True when this answer is the stored one of an earlier identical commit (nothing re-applied). */
  replayed: Type.Boolean(),
});
export type SyncCommitResponse = Static<typeof SyncCommitResponse>;

// ---------------------------------------------------------------------------------------------
// POST /api/v1/sync/confirm

export const SyncConfirmRequest = Type.Object(
  {
    device: SyncDeviceName(),
    hold: Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description: 'a hold id from a held result',
    }),
  },
  { additionalProperties: false },
);
export type SyncConfirmRequest = Static<typeof SyncConfirmRequest>;

/** The held batch, applied: the same answer as its commit would have given. */
export const SyncConfirmResponse = SyncCommitResponse;
export type SyncConfirmResponse = SyncCommitResponse;

// ---------------------------------------------------------------------------------------------
// GET /api/v1/sync/history?path=  ·  GET /api/v1/sync/trash

export const SyncHistoryQuery = Type.Object(
  {
    path: Type.Optional(VaultPath()),
    file_id: Type.Optional(SyncFileId()),
  },
  { additionalProperties: false },
);
export type SyncHistoryQuery = Static<typeof SyncHistoryQuery>;

export const SyncVersion = Type.Object({
  hash: SyncHash(),
  size: Type.Integer({ minimum: 0 }),
  /** When the companion journalled it (ISO 8601, UTC). */
  time: Type.String(),
  device: Type.String(),
  seq: Type.Integer({ minimum: 1 }),
  /** The file's path at that version. */
  path: Type.String(),
});
export type SyncVersion = Static<typeof SyncVersion>;

/** Newest first; only versions whose bytes the companion still holds. */
export const SyncHistoryResponse = Type.Object({
  file_id: SyncFileId(),
  versions: Type.Array(SyncVersion),
});
export type SyncHistoryResponse = Static<typeof SyncHistoryResponse>;

export const SyncTrashQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    /** The previous page's `next_cursor`. */
    cursor: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,16}$', description: 'a cursor from a previous page' }),
    ),
  },
  { additionalProperties: false },
);
export type SyncTrashQuery = Static<typeof SyncTrashQuery>;

export const SyncTrashItem = Type.Object({
  file_id: SyncFileId(),
  path: Type.String(),
  /** The last version before the delete; a `put` with `file_id` and `base` = this hash restores it. */
  hash: SyncHash(),
  size: Type.Integer({ minimum: 0 }),
  /** When it was deleted (ISO 8601, UTC), by whom, at which seq. */
  deleted: Type.String(),
  device: Type.String(),
  seq: Type.Integer({ minimum: 1 }),
});
export type SyncTrashItem = Static<typeof SyncTrashItem>;

/** Deleted files whose last version is still held, most recently deleted first. */
export const SyncTrashResponse = Type.Object({
  files: Type.Array(SyncTrashItem),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type SyncTrashResponse = Static<typeof SyncTrashResponse>;
