import {
  inSettingsFolder,
  isSyncedSettingsPath,
  settingsFolderMayHold,
} from '../../shared/protocol/sync-settings';
import { TEMP_FILE_NAME } from '../vault/atomic-write';

/*
 * What syncs (DESIGN §9): every file of the vault, attachments included, except hidden files and
 * folders (`.trash/`, `.git/`: the companion's path rules never read or write them, see
 * vault/paths.ts), and temp files of writes in progress. In `.obsidian/`, the settings files a
 * device may opt in to (shared/protocol/sync-settings.ts), never workspace files or Cairn's own.
 */
export function isSyncablePath(path: string): boolean {
  if (path === '') return false;
  if (inSettingsFolder(path)) return isSyncedSettingsPath(path) && !isTempName(path);
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment.startsWith('.'))) return false;
  return !isTempName(path);
}

function isTempName(path: string): boolean {
  return TEMP_FILE_NAME.test(path.slice(path.lastIndexOf('/') + 1));
}

/** A folder the companion's walk of its vault enters (the settings folder only where it may hold synced files). */
export function isSyncableFolder(path: string): boolean {
  if (inSettingsFolder(path)) return settingsFolderMayHold(path);
  return isSyncablePath(path);
}

/** A settings file: synced only to devices that ask (`settings=1`), never in the trash list. */
export { inSettingsFolder as isSettingsPath };

/** Text files are merged three ways; the rule is the protocol's, devices read it too. */
export { isMergeableText } from '../../shared/protocol/sync';

export function isMarkdown(path: string): boolean {
  return path.toLowerCase().endsWith('.md');
}
