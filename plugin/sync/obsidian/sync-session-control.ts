import type { App } from 'obsidian';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import type { SyncArchiveClient } from '../sync-archive-client';
import type { SyncStatus } from '../sync-status';

/** What the sync screens (plugin/sync/obsidian/sync-ui.ts) may ask of the running sync. */
export interface SyncSessionControl {
  readonly app: App;
  readonly status: SyncStatus;
  readonly settings: () => CairnSettings;
  readonly updateSettings: (change: (settings: CairnSettings) => void) => Promise<void>;
  readonly running: () => boolean;
  syncNow(): Promise<void>;
  /** Pull now (after a restore made on the companion). */
  pull(): Promise<void>;
  isPaused(): boolean;
  setPaused(paused: boolean): void;
  heldDeletes(): { hold: string; paths: string[] }[];
  confirmHold(hold: string): Promise<void>;
  cancelHold(hold: string): Promise<void>;
  /** History, trash and restores on the paired companion. */
  archive(): SyncArchiveClient;
  deviceName(): string;
  /** Starts or stops sync to match the settings (after pairing). */
  refresh(): void;
  otherSyncTool(): Promise<string | null>;
  /** The IndexedDB database holding this vault's sync state on this device. */
  stateStoreName(): string;
  /**
   * Unpairs this device: revokes its token on the companion (unless `localOnly`, when the
   * companion cannot be reached), stops sync and deletes the sync state here. Notes stay.
   * Resolves to what was done, in words.
   */
  unpair(options: { localOnly: boolean }): Promise<string>;
  /** The companion's files above this device's download limit, not downloaded here. */
  notDownloaded(): Promise<{ path: string; size: number }[]>;
  /** Downloads one of them (the user opened it); 'changed' when a file is there already. */
  downloadNow(path: string): Promise<'done' | 'changed'>;
}
