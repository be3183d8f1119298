// Public surface of companion/sync: Cairn Sync's server side (DESIGN §9, docs/sync.md).
export { SyncService, SYNC_BLOBS_FOLDER, type SyncServiceOptions } from './sync-service';
export { registerSyncRoutes } from './routes';
export { SyncJournal, type DiskChange } from './journal';
export { BlobStore, BlobError } from './blob-store';
export { SyncCommitter, DEFAULT_MASS_DELETE, type MassDeleteLimits } from './commit';
export { HistoryPruner, DEFAULT_RETENTION, type RetentionPolicy } from './history-pruning';
export { SyncStore, pathKey } from './sync-store';
export { registerSyncDeviceRoutes, pairDevice, DEVICE_TOKEN_SCOPES } from './device-routes';
export type { PairedDevice } from './device-routes';
