import type { ConnectionState } from '../connection/connection-state';
import type { SettingsProblem } from '../../shared/settings/load-settings';
import type { CairnSettings } from '../../shared/settings/cairn-settings';

/**
 * What the settings tab may do: read and change settings, and check the companion.
 * The tab gets this instead of the plugin so it cannot reach into anything else.
 */
export interface SettingsHost {
  readonly settings: CairnSettings;
  /** Fields of data.json that were invalid at load and replaced by defaults; empty once saved. */
  readonly settingsProblems: readonly SettingsProblem[];
  /** Applies `change` to the settings and persists them. */
  updateSettings(change: (settings: CairnSettings) => void): Promise<void>;
  testConnection(): Promise<ConnectionState>;
  /** Opens "Pair this device" (Cairn Sync): the pairing link, the HTTPS check, the plan. */
  openSyncPairing(): void;
  /** Opens "Unpair this device": what stays on disk, then the token revoked and the state gone. */
  openSyncUnpairing(): void;
  /** Restarts search over the settings as they are now (the embedding provider): no reload. */
  applySearchSettings(): void;
  /** Deletes this vault's search index on this device and builds it again; says what it did. */
  rebuildIndex(): Promise<string>;
  /** What removeLocalData() deletes, one item per line, for the confirmation. */
  localDataItems(): string[];
  /** Deletes Cairn's data on this device outside the vault; says what it removed. */
  removeLocalData(): Promise<string>;
  /** Called when the tab closes, so connection-related edits take effect once, not per keystroke. */
  settingsClosed(): void;
}
