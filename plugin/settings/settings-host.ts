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
  /** Called when the tab closes, so connection-related edits take effect once, not per keystroke. */
  settingsClosed(): void;
}
