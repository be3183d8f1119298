import type { DocumentType } from '../../shared/protocol/search';

/**
 * A vault file the companion saw added, changed or removed. The indexer's watcher publishes
 * these after indexing the file (`VaultIndexer.onChange`); the reminder source re-reads the file
 * and the scheduler re-plans the reminders in it.
 */
export interface VaultChange {
  readonly type: 'upsert' | 'delete';
  /** Vault-relative path. */
  readonly path: string;
  readonly kind: DocumentType;
}

/** Where vault changes are published; the indexer is one. Returns the unsubscribe function. */
export interface VaultChangeFeed {
  onChange(listener: (change: VaultChange) => void): () => void;
}
