import { TEMP_FILE_NAME } from '../vault/atomic-write';

/*
 * What syncs (DESIGN §9): every file of the vault, attachments included, except hidden files and
 * folders (`.obsidian/`, `.trash/`, `.git/`: the companion's path rules never read or write
 * them, see vault/paths.ts), and temp files of writes in progress.
 */
export function isSyncablePath(path: string): boolean {
  if (path === '') return false;
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment.startsWith('.'))) return false;
  return !TEMP_FILE_NAME.test(segments[segments.length - 1] as string);
}

/** Text files are merged three ways (DESIGN §9); everything else gets a conflict copy. */
const TEXT_EXTENSIONS = ['.md', '.canvas', '.txt', '.base', '.json'];

export function isMergeableText(path: string): boolean {
  const lower = path.toLowerCase();
  return TEXT_EXTENSIONS.some((extension) => lower.endsWith(extension));
}

export function isMarkdown(path: string): boolean {
  return path.toLowerCase().endsWith('.md');
}
