/**
 * The vault as the chat's writers see it: a few file operations the Obsidian adapter provides
 * with `vault.create`, `vault.process` (atomic read-modify-write), `fileManager.trashFile` and
 * the metadata cache. Narrow on purpose, so the writers are tested without Obsidian.
 */
export interface ChatVaultFiles {
  /** Whether a file exists at `path`, compared without case (as most file systems do). */
  exists(path: string): boolean;
  /** The file's text, or undefined when there is no such file. */
  read(path: string): Promise<string | undefined>;
  /** Creates a new file, and its folders; rejects when the file exists. */
  create(path: string, text: string): Promise<void>;
  /** Rewrites a file atomically from its current text; rejects when there is no such file. */
  process(path: string, update: (current: string) => string): Promise<void>;
  /** Moves a file to the trash (the user's trash setting decides which). */
  trash(path: string): Promise<void>;
  /**
   * Markdown notes whose path, front-matter `id` or title (front matter, else first H1, else
   * file name) equals `reference`, compared without case.
   */
  findNotes(reference: string): Array<{ path: string; title: string }>;
  /** Paths of the Markdown notes whose front matter has `type: <type>` (metadata cache). */
  notesOfType(type: string): string[];
  /** Paths of the Markdown files directly inside `folder`. */
  listMarkdown(folder: string): string[];
}
