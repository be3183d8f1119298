import { inSettingsFolder, settingsCategoryOf } from '../../shared/protocol/sync-settings';
import type { SettingsCategory } from '../../shared/protocol/sync-settings';

/**
 * Which paths this device syncs (docs/sync.md "Folders this device does not sync"). A path
 * outside the scope is neither uploaded nor downloaded, and a file there is never deleted or
 * reported deleted because it is outside: leaving a folder out is this device's choice and
 * must never reach the companion or another device as a delete.
 */
export interface SyncScope {
  includes(path: string): boolean;
  /**
   * True when some `.obsidian/` settings files are in: the engine then asks the companion to
   * list them (`changes?settings=1`), which it otherwise leaves out.
   */
  readonly settings?: boolean;
}

/**
 * Every path of the vault but hidden ones (the default: `.obsidian/` settings are opt-in, and
 * `.trash/`, `.git/` and the like never sync, as on the companion).
 */
export const WHOLE_VAULT: SyncScope = { includes: (path) => !isHiddenPath(path) };

function isHiddenPath(path: string): boolean {
  return path.startsWith('.') || path.includes('/.');
}

/**
 * Everything but the files under `folders` (vault-relative, `/`-separated; slashes at either
 * end and empty entries ignored). Letter case is ignored, as the companion ignores it.
 */
export function scopeExcluding(folders: readonly string[]): SyncScope {
  return syncScope({ excludedFolders: folders, settingsCategories: [] });
}

/**
 * The device's whole choice (docs/sync.md): every file outside the folders it leaves out, and of
 * `.obsidian/` only the files of the settings categories it enabled (never the never-list:
 * workspace files, Cairn's own folder, caches; shared/protocol/sync-settings.ts).
 */
export function syncScope(choice: {
  readonly excludedFolders: readonly string[];
  readonly settingsCategories: readonly SettingsCategory[];
}): SyncScope {
  const prefixes = normalizeFolders(choice.excludedFolders).map(
    (folder) => `${folder.toLowerCase()}/`,
  );
  const categories = new Set(choice.settingsCategories);
  if (prefixes.length === 0 && categories.size === 0) return WHOLE_VAULT;
  return {
    settings: categories.size > 0,
    includes: (path) => {
      if (inSettingsFolder(path)) {
        const category = settingsCategoryOf(path);
        return category !== null && categories.has(category);
      }
      if (isHiddenPath(path)) return false;
      const folded = path.toLowerCase();
      return !prefixes.some((prefix) => folded.startsWith(prefix));
    },
  };
}

/** True when `now` enables a settings category `before` did not (its files must be listed). */
export function categoriesWidened(
  before: readonly string[],
  now: readonly SettingsCategory[],
): boolean {
  return now.some((category) => !before.includes(category));
}

/** The folders as the scope reads them: trimmed, without leading or trailing slashes, unique. */
export function normalizeFolders(folders: readonly string[]): string[] {
  const result: string[] = [];
  for (const folder of folders) {
    const normalized = folder.trim().replace(/^\/+|\/+$/g, '');
    if (normalized !== '' && !result.includes(normalized)) result.push(normalized);
  }
  return result;
}

/**
 * True when `now` syncs a folder `before` left out: files skipped while it was out must be
 * listed again from the start (`since=0`) to arrive.
 */
export function scopeWidened(before: readonly string[], now: readonly string[]): boolean {
  const current = new Set(normalizeFolders(now).map((folder) => folder.toLowerCase()));
  return normalizeFolders(before).some((folder) => !current.has(folder.toLowerCase()));
}

/** How Settings → Sync names each settings category (docs/sync.md "Settings"). */
export const SETTINGS_CATEGORY_LABELS: Record<
  SettingsCategory,
  { readonly name: string; readonly desc: string }
> = {
  appearance: {
    name: 'Appearance, themes and snippets',
    desc: 'appearance.json, themes/ and snippets/',
  },
  hotkeys: { name: 'Hotkeys', desc: 'hotkeys.json' },
  'core-plugins': {
    name: 'Core plugins and their settings',
    desc: 'Which core plugins are on (core-plugins.json) and their own files, such as daily-notes.json and templates.json',
  },
  'community-plugin-list': {
    name: 'Which community plugins are on',
    desc: 'community-plugins.json. A plugin that is not installed on a device stays off there.',
  },
  'community-plugins': {
    name: 'Community plugins: their code and settings',
    desc: 'Each plugin’s folder under plugins/, its data.json included (some plugins keep API keys there). Never Cairn’s own folder.',
  },
  other: {
    name: 'Other settings',
    desc: 'app.json (editor, files and links) and any other file at the top of the settings folder',
  },
};
