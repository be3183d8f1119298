/**
 * What the vault change feed (change-feed.ts) tells its subscribers: the search indexer, the
 * reminder source, the digest and the sync journal all learn about the vault from it, and from
 * nothing else. Paths are vault-relative and `/`-separated.
 */

/** What a file is, by its name: the kinds the indexer reads, and everything else. */
export type VaultFileKind = 'markdown' | 'text' | 'pdf' | 'other';

/** What the feed knows of a file on disk. */
export interface VaultFileState {
  /** Lowercase hex SHA-256 of the file's bytes. */
  readonly hash: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * One change of one file. `upsert`: the file exists with these bytes (new, or its content
 * changed; a touch that keeps the bytes is no change). `bytes` is null above
 * {@link MAX_BYTES_IN_CHANGE} (a subscriber that needs them streams the file and checks the
 * hash). `delete`: the file is gone (or excluded now). `refused`: the file may not be read (a
 * symlink leading out of the vault, an unreadable file), with why.
 *
 * Only notes and text files come with their bytes (what the indexer and reminders read);
 * PDFs and attachments are hashed as a stream and come without (`bytes: null`): a subscriber
 * that needs them reads the file itself (the PDF reader's child process, so a large PDF is
 * never held by the companion) or copies it and checks the hash (the sync journal).
 */
export type VaultChange =
  | ({
      readonly type: 'upsert';
      readonly path: string;
      readonly kind: VaultFileKind;
      readonly bytes: Buffer | null;
    } & VaultFileState)
  | { readonly type: 'delete'; readonly path: string; readonly kind: VaultFileKind }
  | {
      readonly type: 'refused';
      readonly path: string;
      readonly kind: VaultFileKind;
      readonly reason: string;
    };

/** Files above this size come without their bytes (the indexer reads nothing larger). */
export const MAX_BYTES_IN_CHANGE = 64 * 1024 * 1024;

/**
 * A subscriber of the feed. Changes arrive in the order the feed saw them, one call at a time
 * per subscriber; a returned promise holds the next change for this subscriber only.
 */
export interface VaultChangeSubscriber {
  /** For logs. */
  readonly name: string;
  /** The kinds it wants; all when absent. */
  readonly kinds?: readonly VaultFileKind[];
  onChange(change: VaultChange): void | Promise<void>;
  /**
   * After each full scan, the files on disk: the subscriber compares what it holds (a crash may
   * have cut it off after the feed recorded a change), forgets what is gone, and returns the
   * paths whose content it needs again; the feed delivers those as `upsert`s to it alone.
   */
  reconcile?(files: ReadonlyMap<string, VaultFileState>): Iterable<string>;
  /**
   * The feed has nothing left to read for now (batching subscribers flush here); called after
   * each run of reads and again when a scan ends.
   */
  settled?(): void | Promise<void>;
}

/** Where vault changes come from. Returns the unsubscribe function. */
export interface VaultChangeFeed {
  subscribe(subscriber: VaultChangeSubscriber): () => void;
}

/**
 * Called by code that just wrote vault files: the feed reads them now (no debounce) and
 * resolves once every subscriber has them (the index included).
 */
export type AfterVaultWrite = (paths: readonly string[]) => Promise<void>;
