import { TFile } from 'obsidian';
import type { EventRef, Vault } from 'obsidian';
import type { VaultFileStat, VaultSource } from '../device-indexer';

/**
 * The indexer's view of the vault: Markdown files with their mtime and size, read through
 * Obsidian's cache. Front matter is parsed from the text read (not metadataCache), because the
 * cache may lag behind a file that was just modified.
 */
export class ObsidianVaultSource implements VaultSource {
  constructor(private readonly vault: Vault) {}

  list(): VaultFileStat[] {
    return this.vault.getMarkdownFiles().map(statOf);
  }

  stat(path: string): VaultFileStat | null {
    const file = this.vault.getAbstractFileByPath(path);
    return file instanceof TFile && file.extension === 'md' ? statOf(file) : null;
  }

  async read(path: string): Promise<string> {
    const file = this.vault.getAbstractFileByPath(path);
    if (!(file instanceof TFile)) throw new Error(`${path} is no longer in the vault`);
    return this.vault.cachedRead(file);
  }
}

/** What vault events mean to the index. */
export interface VaultChangeListener {
  fileChanged(path: string): void;
  fileDeleted(path: string): void;
  fileRenamed(oldPath: string, newPath: string): void;
}

/**
 * Subscribes `listener` to Markdown file changes. Each EventRef goes to `register`
 * (the plugin's `registerEvent`) so unloading the plugin releases them.
 */
export function watchVault(
  vault: Vault,
  listener: VaultChangeListener,
  register: (ref: EventRef) => void,
): void {
  const isNote = (file: unknown): file is TFile => file instanceof TFile && file.extension === 'md';
  register(vault.on('create', (file) => isNote(file) && listener.fileChanged(file.path)));
  register(vault.on('modify', (file) => isNote(file) && listener.fileChanged(file.path)));
  register(vault.on('delete', (file) => isNote(file) && listener.fileDeleted(file.path)));
  register(
    vault.on('rename', (file, oldPath) => {
      // A note renamed to another extension leaves the index; the reverse enters it.
      if (isNote(file)) listener.fileRenamed(oldPath, file.path);
      else if (oldPath.toLowerCase().endsWith('.md')) listener.fileDeleted(oldPath);
    }),
  );
}

function statOf(file: TFile): VaultFileStat {
  return { path: file.path, mtime: file.stat.mtime, size: file.stat.size };
}
