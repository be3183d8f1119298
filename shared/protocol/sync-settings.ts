/*
 * Which files of Obsidian's settings folder Cairn Sync may carry (docs/sync.md "Settings"),
 * one rule for the companion and every device. On the wire the settings folder is always
 * `.obsidian/` (a device whose config folder is named otherwise maps it). Nothing here is on by
 * default: a device syncs only the categories it enabled, and the companion accepts a
 * `.obsidian/` path only on the sync routes and only when `settingsCategoryOf` names a category.
 * Every other hidden path (`.trash/`, `.git/`, `.stfolder`, …) never syncs.
 */

/** The settings folder's name on the wire (and on the companion's disk). */
export const SETTINGS_FOLDER = '.obsidian';

export const SETTINGS_CATEGORIES = [
  /** `appearance.json`, `themes/`, `snippets/`. */
  'appearance',
  /** `hotkeys.json`. */
  'hotkeys',
  /** `core-plugins.json` (which core plugins are on) and the core plugins' own settings files. */
  'core-plugins',
  /** `community-plugins.json`: which community plugins are on. */
  'community-plugin-list',
  /** `plugins/<id>/`: the community plugins' code and their settings (`data.json`). */
  'community-plugins',
  /** `app.json` (editor, files and links) and any other file at the folder's top. */
  'other',
] as const;

export type SettingsCategory = (typeof SETTINGS_CATEGORIES)[number];

/**
 * The settings files of Obsidian's core plugins (at the settings folder's top). Anything else
 * at the top that is not named by another category is `other`.
 */
const CORE_PLUGIN_FILES = new Set([
  'core-plugins.json',
  'core-plugins-migration.json',
  'backlink.json',
  'bookmarks.json',
  'canvas.json',
  'command-palette.json',
  'daily-notes.json',
  'file-recovery.json',
  'global-search.json',
  'graph.json',
  'note-composer.json',
  'page-preview.json',
  'properties.json',
  'publish.json',
  'random-note.json',
  'slash-command.json',
  'slides.json',
  'starred.json',
  'switcher.json',
  'templates.json',
  'types.json',
  'word-count.json',
  'zk-prefixer.json',
]);

/** Cairn's own plugin folder: each device installs and updates Cairn itself. */
const CAIRN_PLUGIN_ID = 'cairn';

/**
 * Why a path under the settings folder never syncs, whatever a device enabled, or null. The
 * reasons are for logs and docs; callers only test for null.
 */
export function neverSyncedSettingsReason(path: string): string | null {
  const segments = path.split('/');
  if (segments[0] !== SETTINGS_FOLDER || segments.length < 2) return 'not in the settings folder';
  const below = segments.slice(1);
  const name = below.at(-1) as string;
  if (below.some((segment) => segment === '' || segment === '.' || segment === '..'))
    return 'not a plain path';
  // `workspace.json`, `workspace-mobile.json`, `workspaces.json`: open tabs and panes, per device.
  if (below.length === 1 && /^workspaces?([-.].*)?\.json$/i.test(name))
    return 'the open tabs and panes of this device';
  if (below[0] === 'plugins' && below[1]?.toLowerCase() === CAIRN_PLUGIN_ID)
    return "Cairn's own folder: its data.json holds this device's token and sync choices";
  // Hidden files inside (`.git/`, `.DS_Store`, `.hotreload`), dependency and cache folders.
  if (below.some((segment) => segment.startsWith('.'))) return 'a hidden file';
  if (below.some((segment) => /^(node_modules|cache|\.cache)$/i.test(segment)))
    return 'a cache or dependency folder';
  // Temporary files of writes in progress (Obsidian's and editors').
  if (/(\.tmp|\.swp|~)$/i.test(name) || /^~\$/.test(name)) return 'a temporary file';
  return null;
}

/**
 * The category of a settings file, or null when it is not one Cairn Sync can carry (outside the
 * settings folder, on the never-list, or a folder rather than a file's path).
 */
export function settingsCategoryOf(path: string): SettingsCategory | null {
  if (neverSyncedSettingsReason(path) !== null) return null;
  const below = path.split('/').slice(1);
  const top = (below[0] as string).toLowerCase();
  if (below.length === 1) {
    // The names of the settings folder's own folders are never files of `other`.
    if (top === 'themes' || top === 'snippets' || top === 'plugins') return null;
    if (top === 'appearance.json') return 'appearance';
    if (top === 'hotkeys.json') return 'hotkeys';
    if (top === 'community-plugins.json') return 'community-plugin-list';
    if (CORE_PLUGIN_FILES.has(top)) return 'core-plugins';
    return 'other';
  }
  if (top === 'themes' || top === 'snippets') return 'appearance';
  // `plugins/<id>/…`: at least a file inside a plugin's folder.
  if (top === 'plugins' && below.length >= 3) return 'community-plugins';
  return null;
}

/** True for a settings file some device may sync (the companion's test on the sync routes). */
export function isSyncedSettingsPath(path: string): boolean {
  return settingsCategoryOf(path) !== null;
}

/** True for any path in the settings folder (synced or not). */
export function inSettingsFolder(path: string): boolean {
  return path === SETTINGS_FOLDER || path.startsWith(`${SETTINGS_FOLDER}/`);
}

/**
 * True for a folder (`.obsidian`, `.obsidian/plugins/x`, …) that may hold files of
 * `categories`: a walk of the settings folder descends only into these.
 */
export function settingsFolderMayHold(
  folder: string,
  categories: ReadonlySet<SettingsCategory> = ALL_SETTINGS_CATEGORIES,
): boolean {
  if (folder === SETTINGS_FOLDER) return categories.size > 0;
  // A folder is worth entering when a file right inside it would be synced.
  if (neverSyncedSettingsReason(`${folder}/x`) !== null) return false;
  const below = folder.split('/').slice(1);
  const top = (below[0] as string).toLowerCase();
  if (top === 'themes' || top === 'snippets') return categories.has('appearance');
  if (top === 'plugins') return categories.has('community-plugins');
  return false;
}

export const ALL_SETTINGS_CATEGORIES: ReadonlySet<SettingsCategory> = new Set(SETTINGS_CATEGORIES);

/** The categories in a list read from settings: known names only, in the canonical order. */
export function normalizeSettingsCategories(values: readonly string[]): SettingsCategory[] {
  return SETTINGS_CATEGORIES.filter((category) => values.includes(category));
}
