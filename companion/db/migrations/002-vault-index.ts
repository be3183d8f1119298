import type { Migration } from '../migrate';

/** Reserved: the vault index (files, chunks, FTS5, vectors); filled in by the indexer. */
export const vaultIndex: Migration = {
  version: 2,
  name: 'vault-index',
  up: '',
};
