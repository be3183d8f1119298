/**
 * The folders other plugins keep templates in: the core Templates plugin's "Template folder
 * location" (while that plugin is enabled) and Templater's "Template folder location" (while it
 * is loaded). An `@remind(tomorrow 9am)` in a template is meant for the note made from it;
 * normalising it in place would bake one date and one block id into every such note.
 *
 * Neither setting is in Obsidian's public API, so both are read defensively: a shape this code
 * does not know means "no template folder", never an error.
 */
import { editorInfoField, normalizePath } from 'obsidian';
import type { App } from 'obsidian';
import type { EditorState } from '@codemirror/state';

interface InternalPlugins {
  getEnabledPluginById?(id: string): unknown;
}

interface CommunityPlugins {
  plugins?: Record<string, unknown>;
}

export function templateFolders(app: App): string[] {
  const folders: string[] = [];
  const internal = (app as unknown as { internalPlugins?: InternalPlugins }).internalPlugins;
  const templates = internal?.getEnabledPluginById?.('templates');
  pushFolder(folders, readPath(templates, ['options', 'folder']));
  const community = (app as unknown as { plugins?: CommunityPlugins }).plugins;
  pushFolder(
    folders,
    readPath(community?.plugins?.['templater-obsidian'], ['settings', 'templates_folder']),
  );
  return folders;
}

/** The `@remind` extension's `isTemplate`: is this editor's note in a template folder now? */
export function editorIsTemplate(app: App): (state: EditorState) => boolean {
  return (state) => {
    const path = state.field(editorInfoField, false)?.file?.path;
    return path !== undefined && isInFolders(path, templateFolders(app));
  };
}

/** True when `path` is inside one of `folders` (vault-relative, as `templateFolders` gives). */
export function isInFolders(path: string, folders: readonly string[]): boolean {
  return folders.some((folder) => path === folder || path.startsWith(`${folder}/`));
}

function pushFolder(folders: string[], value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') return;
  const folder = normalizePath(value);
  if (folder !== '/' && folder !== '') folders.push(folder);
}

function readPath(value: unknown, keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
