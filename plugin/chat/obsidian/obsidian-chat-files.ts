/**
 * ChatVaultFiles (plugin/chat/chat-vault-files.ts) over Obsidian's vault: `vault.create` after
 * making the folders, `vault.process` for atomic read-modify-write, `fileManager.trashFile` (the
 * user's trash setting) and the metadata cache for ids, titles and types.
 */
import { normalizePath, TFile, TFolder } from 'obsidian';
import type { App } from 'obsidian';
import type { ChatVaultFiles } from '../chat-vault-files';

export class ObsidianChatFiles implements ChatVaultFiles {
  constructor(private readonly app: App) {}

  exists(path: string): boolean {
    return this.fileAt(path) !== null;
  }

  async read(path: string): Promise<string | undefined> {
    const file = this.fileAt(path);
    return file === null ? undefined : this.app.vault.read(file);
  }

  async create(path: string, text: string): Promise<void> {
    const normalised = normalizePath(path);
    const slash = normalised.lastIndexOf('/');
    if (slash > 0) await this.ensureFolder(normalised.slice(0, slash));
    await this.app.vault.create(normalised, text);
  }

  async process(path: string, update: (current: string) => string): Promise<void> {
    const file = this.fileAt(path);
    if (file === null) throw new Error(`No such file: ${path}`);
    await this.app.vault.process(file, update);
  }

  async trash(path: string): Promise<void> {
    const file = this.fileAt(path);
    if (file === null) throw new Error(`No such file: ${path}`);
    await this.app.fileManager.trashFile(file);
  }

  findNotes(reference: string): Array<{ path: string; title: string }> {
    const wanted = reference.trim().toLowerCase();
    const found: Array<{ path: string; title: string }> = [];
    for (const file of this.app.vault.getMarkdownFiles()) {
      const cache = this.app.metadataCache.getFileCache(file);
      const front = cache?.frontmatter;
      const id: unknown = front?.id;
      const title = this.titleOf(file);
      const keys = [file.path, typeof id === 'string' ? id : '', title];
      if (keys.some((key) => key.toLowerCase() === wanted)) found.push({ path: file.path, title });
    }
    return found;
  }

  notesOfType(type: string): string[] {
    return this.app.vault
      .getMarkdownFiles()
      .filter((file) => this.app.metadataCache.getFileCache(file)?.frontmatter?.type === type)
      .map((file) => file.path);
  }

  listMarkdown(folder: string): string[] {
    const wanted = normalizePath(folder);
    return this.app.vault
      .getMarkdownFiles()
      .filter((file) => (file.parent?.path ?? '') === wanted)
      .map((file) => file.path);
  }

  /** Title as docs/vault-format.md reads it: front matter, else the first H1, else the file name. */
  titleOf(file: TFile): string {
    const cache = this.app.metadataCache.getFileCache(file);
    const title: unknown = cache?.frontmatter?.title;
    if (typeof title === 'string' && title.trim() !== '') return title.trim();
    const h1 = cache?.headings?.find((heading) => heading.level === 1)?.heading;
    return h1 ?? file.basename;
  }

  private fileAt(path: string): TFile | null {
    const normalised = normalizePath(path);
    const exact = this.app.vault.getAbstractFileByPath(normalised);
    if (exact instanceof TFile) return exact;
    const lower = normalised.toLowerCase();
    return this.app.vault.getFiles().find((file) => file.path.toLowerCase() === lower) ?? null;
  }

  private async ensureFolder(folder: string): Promise<void> {
    const existing = this.app.vault.getAbstractFileByPath(folder);
    if (existing instanceof TFolder) return;
    if (existing !== null) throw new Error(`${folder} is a file, not a folder`);
    const slash = folder.lastIndexOf('/');
    if (slash > 0) await this.ensureFolder(folder.slice(0, slash));
    await this.app.vault.createFolder(folder);
  }
}
