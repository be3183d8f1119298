import type { ChatVaultFiles } from '../../../plugin/chat/chat-vault-files';
import { parseFrontMatter } from '../../../shared/markdown';

/** ChatVaultFiles over a Map, with the same contract as the Obsidian adapter. */
export class MemoryVaultFiles implements ChatVaultFiles {
  readonly files = new Map<string, string>();
  readonly trashed: string[] = [];

  exists(path: string): boolean {
    return [...this.files.keys()].some((known) => known.toLowerCase() === path.toLowerCase());
  }

  async read(path: string): Promise<string | undefined> {
    return this.files.get(path);
  }

  async create(path: string, text: string): Promise<void> {
    if (this.exists(path)) throw new Error(`File already exists: ${path}`);
    this.files.set(path, text);
  }

  async process(path: string, update: (current: string) => string): Promise<void> {
    const current = this.files.get(path);
    if (current === undefined) throw new Error(`No such file: ${path}`);
    this.files.set(path, update(current));
  }

  async trash(path: string): Promise<void> {
    if (!this.files.delete(path)) throw new Error(`No such file: ${path}`);
    this.trashed.push(path);
  }

  findNotes(reference: string): Array<{ path: string; title: string }> {
    const wanted = reference.toLowerCase();
    const found: Array<{ path: string; title: string }> = [];
    for (const [path, text] of this.files) {
      if (!path.endsWith('.md')) continue;
      const parsed = parseFrontMatter(text);
      const data = parsed.ok ? parsed.data : {};
      const heading = /^# (.+)$/m.exec(parsed.body)?.[1];
      const title =
        typeof data.title === 'string'
          ? data.title
          : (heading ?? path.replace(/^.*\//, '').replace(/\.md$/, ''));
      const keys = [path, typeof data.id === 'string' ? data.id : '', title];
      if (keys.some((key) => key.toLowerCase() === wanted)) found.push({ path, title });
    }
    return found;
  }

  notesOfType(type: string): string[] {
    return [...this.files.entries()]
      .filter(([path, text]) => {
        const parsed = path.endsWith('.md') ? parseFrontMatter(text) : undefined;
        return parsed?.ok === true && parsed.data.type === type;
      })
      .map(([path]) => path);
  }

  listMarkdown(folder: string): string[] {
    const prefix = `${folder.replace(/\/+$/, '')}/`;
    return [...this.files.keys()].filter(
      (path) =>
        path.startsWith(prefix) && !path.slice(prefix.length).includes('/') && path.endsWith('.md'),
    );
  }
}

/** Deterministic "random" bytes: 0, 1, 2, … so ids and suffixes are predictable. */
export function countingBytes(): (count: number) => Uint8Array {
  let next = 0;
  return (count) => Uint8Array.from({ length: count }, () => next++ % 256);
}
