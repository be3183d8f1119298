/** The plugin's data.json: schema, defaults, migrations and the one reader both sides use. */
export {
  CURRENT_SETTINGS_VERSION,
  DEFAULT_FOLDERS,
  EMBEDDING_PROVIDERS,
  PLUGIN_DATA_PATH,
  defaultSettings,
} from './cairn-settings';
export type {
  CairnSettings,
  EmbeddingProvider,
  ReminderSyntaxes,
  VaultFolders,
} from './cairn-settings';
export { formatProblem, loadSettings, toStoredData } from './load-settings';
export type { LoadedSettings, SettingsProblem } from './load-settings';
