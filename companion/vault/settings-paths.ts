import { AsyncLocalStorage } from 'node:async_hooks';
import { isSyncedSettingsPath } from '../../shared/protocol/sync-settings';

/*
 * The one door through which the companion touches Obsidian's settings folder: Cairn Sync's
 * journal and commits run inside `withSettingsPaths`, and only there does `resolveVaultPath`
 * accept a `.obsidian/` path, and only one `isSyncedSettingsPath` names (never a workspace file,
 * never `plugins/cairn/`, whose data.json holds a token). Search, notes, tools, MCP, the phone
 * page and the indexer never run inside it, so they keep refusing every hidden path.
 */
const settingsScope = new AsyncLocalStorage<true>();

/** Runs `work` with synced settings paths allowed for every vault path it resolves. */
export function withSettingsPaths<T>(work: () => T): T {
  return settingsScope.run(true, work);
}

/** True when `path` is a synced settings file and the caller runs inside `withSettingsPaths`. */
export function settingsPathAllowed(path: string): boolean {
  return settingsScope.getStore() === true && isSyncedSettingsPath(path);
}
