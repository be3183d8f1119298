import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRecord } from '../../shared/protocol/json';

/** Where the Cairn plugin keeps its settings, relative to the vault (Obsidian's default config folder). */
export const PLUGIN_SETTINGS_PATH = '.obsidian/plugins/cairn/data.json';

export interface VaultFolders {
  readonly notes: string;
  readonly reminders: string;
  readonly chats: string;
  readonly attachments: string;
}

/**
 * The plugin's folder defaults (plugin/settings/settings.ts), repeated here because the
 * companion cannot import the plugin. Both sides read the same data.json keys.
 */
export const DEFAULT_FOLDERS: VaultFolders = {
  notes: 'Cairn/Notes',
  reminders: 'Cairn/Reminders',
  chats: 'Cairn/Chats',
  attachments: 'Cairn/Attachments',
};

/** The part of the plugin's settings the companion shares (companion/README.md). */
export interface SharedPluginSettings {
  /** IANA zone; undefined when the file has none. */
  readonly timezone?: string;
  /** Only the folders the file sets; the rest fall back to the defaults. */
  readonly folders: Partial<VaultFolders>;
}

export interface PluginSettingsRead {
  readonly settings: SharedPluginSettings;
  /** Problems found, each naming the file and key; the companion starts anyway. */
  readonly warnings: string[];
}

/**
 * Reads `timezone` and `folders` from the plugin's data.json. A missing file is normal (plugin
 * not installed or never saved); a broken one is a warning, never a crash: the companion must
 * keep running while a sync client is half-way through writing the file. The rest of the
 * file (which includes the plugin's copy of the token) is not kept or logged.
 */
export function readPluginSettings(vaultRoot: string): PluginSettingsRead {
  const file = join(vaultRoot, PLUGIN_SETTINGS_PATH);
  const empty: SharedPluginSettings = { folders: {} };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { settings: empty, warnings: [] };
    return {
      settings: empty,
      warnings: [`${file}: cannot read (${code ?? 'error'}); using defaults`],
    };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return {
      settings: empty,
      warnings: [`${file}: not valid JSON (${(error as Error).message}); using defaults`],
    };
  }
  if (!isRecord(data)) {
    return { settings: empty, warnings: [`${file}: expected a JSON object; using defaults`] };
  }

  const warnings: string[] = [];
  let timezone: string | undefined;
  if (data.timezone !== undefined) {
    if (typeof data.timezone === 'string' && data.timezone.trim() !== '') timezone = data.timezone;
    else warnings.push(`${file}: "timezone" must be a non-empty string; ignored`);
  }

  const folders: Partial<Record<keyof VaultFolders, string>> = {};
  if (data.folders !== undefined) {
    if (!isRecord(data.folders)) {
      warnings.push(`${file}: "folders" must be an object; ignored`);
    } else {
      for (const key of Object.keys(DEFAULT_FOLDERS) as (keyof VaultFolders)[]) {
        const value = data.folders[key];
        if (value === undefined) continue;
        const problem = typeof value === 'string' ? folderProblem(value) : 'must be a string';
        if (problem) warnings.push(`${file}: "folders.${key}" ${problem}; using the default`);
        else folders[key] = value as string;
      }
    }
  }
  return {
    settings: timezone === undefined ? { folders } : { timezone, folders },
    warnings,
  };
}

/** Folders are vault-relative with no leading/trailing slash and never climb out of the vault. */
function folderProblem(folder: string): string | null {
  if (folder === '') return null; // the vault root
  if (folder.startsWith('/') || folder.endsWith('/') || folder.includes('\\')) {
    return 'must be vault-relative, with / separators and no leading or trailing slash';
  }
  if (folder.split('/').some((part) => part === '..' || part === '.' || part === '')) {
    return 'must not contain "..", "." or empty segments';
  }
  if (folder.includes('\0')) return 'must not contain NUL';
  return null;
}
