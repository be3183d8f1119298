import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_FOLDERS, PLUGIN_DATA_PATH, loadSettings } from '../../shared/settings';
import type { LoadedSettings, SettingsProblem, VaultFolders } from '../../shared/settings';

/**
 * The plugin's data.json as the companion sees it, read with the plugin's own reader
 * (shared/settings: the same schema, defaults, migrations and checks): missing (plugin not
 * installed or never saved), unreadable (half-written by a sync client, not JSON), or read.
 */
export type PluginDataFile =
  | { readonly kind: 'missing' }
  | { readonly kind: 'unreadable'; readonly warning: string }
  | { readonly kind: 'read'; readonly file: string; readonly loaded: LoadedSettings };

/**
 * Reads the vault's data.json. `systemTimeZone` is the zone a file without a valid one falls
 * back to (only named in warnings). The file also holds the plugin's copy of the token: the
 * result is never logged whole.
 */
export function readPluginDataFile(vaultRoot: string, systemTimeZone = 'UTC'): PluginDataFile {
  const file = join(vaultRoot, PLUGIN_DATA_PATH);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', warning: `${file}: cannot read (${code ?? 'error'})` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { kind: 'unreadable', warning: `${file}: not valid JSON (${(error as Error).message})` };
  }
  return { kind: 'read', file, loaded: loadSettings(data, systemTimeZone) };
}

/** A problem of the reader as a warning naming the file and the key. */
export function pluginDataWarning(file: string, problem: SettingsProblem): string {
  return `${file} › ${problem.field}: ${problem.message}`;
}

/** Whether a problem concerns `fields`: one of them, inside one, the object holding one, or the file. */
export function concerns(problem: SettingsProblem, fields: readonly string[]): boolean {
  return (
    problem.field === '(file)' ||
    problem.field === 'settingsVersion' ||
    fields.some(
      (field) =>
        problem.field === field ||
        field.startsWith(`${problem.field}.`) ||
        problem.field.startsWith(`${field}.`) ||
        problem.field.startsWith(`${field}[`),
    )
  );
}

/** The part of the plugin's settings the companion shares (companion/README.md). */
export interface SharedPluginSettings {
  /** IANA zone; undefined when the file sets none (or none that is valid). */
  readonly timezone?: string;
  /** Only the folders the file sets; the rest fall back to DEFAULT_FOLDERS. */
  readonly folders: Partial<VaultFolders>;
}

export interface PluginSettingsRead {
  readonly settings: SharedPluginSettings;
  /** Problems found, each naming the file and key; the companion starts anyway. */
  readonly warnings: string[];
}

/**
 * `timezone` and `folders` from the plugin's data.json. A missing file is normal; a broken one
 * or a bad field is a warning, never a crash: the companion must keep running while a sync
 * client is half-way through writing the file.
 */
export function readPluginSettings(vaultRoot: string, systemTimeZone = 'UTC'): PluginSettingsRead {
  const read = readPluginDataFile(vaultRoot, systemTimeZone);
  if (read.kind === 'missing') return { settings: { folders: {} }, warnings: [] };
  if (read.kind === 'unreadable') {
    return { settings: { folders: {} }, warnings: [`${read.warning}; using defaults`] };
  }
  const { settings, problems, fromFile } = read.loaded;
  const folders: Partial<Record<keyof VaultFolders, string>> = {};
  for (const key of Object.keys(DEFAULT_FOLDERS) as (keyof VaultFolders)[]) {
    if (fromFile.has(`folders.${key}`)) folders[key] = settings.folders[key];
  }
  return {
    settings: fromFile.has('timezone') ? { timezone: settings.timezone, folders } : { folders },
    warnings: problems
      .filter((problem) => concerns(problem, ['timezone', 'folders']))
      .map((problem) => pluginDataWarning(read.file, problem)),
  };
}
