/**
 * Memories imported from a `.txt` or `.md` file (docs/memory-digest-calendar.md): one memory per
 * line of a text file, one per list item of a Markdown file (or per line of prose when it has
 * no list at all). Headings, front matter, code blocks, blank lines and `---` rules are not
 * memories. The whole file is checked before anything is written: a line that cannot be a
 * memory (over the length limit) refuses the import, naming its line, so no half of a file is
 * ever imported.
 */
import { locateFrontMatter } from '../markdown/front-matter-fence';
import { MEMORY_TEXT_MAX_CHARS } from './memory-file';

export type MemoryImportKind = 'text' | 'markdown';

export interface ImportedLine {
  /** 1-based line in the uploaded file. */
  line: number;
  text: string;
}

export class MemoryImportError extends Error {
  override readonly name = 'MemoryImportError';
  constructor(
    message: string,
    /** 1-based line of the upload, when one line is the problem. */
    readonly line?: number,
  ) {
    super(message);
  }
}

const EXPORTED_SUFFIX = /(?:\s*\(added \d{4}-\d{2}-\d{2}\))?(?:\s+\^[A-Za-z0-9-]+)?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$/;

export function memoryImportKind(filename: string): MemoryImportKind | undefined {
  const lower = filename.toLowerCase();
  if (lower.endsWith('.txt')) return 'text';
  if (lower.endsWith('.md') || lower.endsWith('.markdown')) return 'markdown';
  return undefined;
}

/**
 * The memories of an uploaded file's text, in file order, with their lines.
 * @throws MemoryImportError naming the line of the first item that cannot be a memory, or when
 *   the file holds none.
 */
export function parseMemoryImport(
  text: string,
  kind: MemoryImportKind,
  filename: string,
): ImportedLine[] {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const candidates: ImportedLine[] = [];
  const prose: ImportedLine[] = [];
  let first = 0;
  if (kind === 'markdown') {
    const fence = locateFrontMatter(text.replace(/^\uFEFF/, ''));
    if (fence) first = fence.bodyStartLine - 1;
  }
  let inCode = false;
  for (let index = first; index < lines.length; index++) {
    const raw = lines[index]!.replace(/\r$/, '');
    const line = index + 1;
    if (kind === 'text') {
      if (raw.trim() !== '') candidates.push({ line, text: raw.trim() });
      continue;
    }
    if (/^\s*(```|~~~)/.test(raw)) {
      inCode = !inCode;
      continue;
    }
    if (
      inCode ||
      raw.trim() === '' ||
      /^\s*#{1,6}\s/.test(raw) ||
      /^\s*([-*_])\1{2,}\s*$/.test(raw)
    ) {
      continue;
    }
    const item = LIST_ITEM.exec(raw);
    if (item) candidates.push({ line, text: item[1]!.trim() });
    else prose.push({ line, text: raw.trim().replace(/^>\s*/, '') });
  }
  // A Markdown file without any list: each line of prose is one memory.
  const chosen = (candidates.length > 0 ? candidates : prose)
    // A line exported from a Cairn/Memory.md keeps its words and tag, not its date and id;
    // struck-through (replaced) facts are history, not memories.
    .filter((c) => !c.text.startsWith('~~'))
    .map((c) => ({ line: c.line, text: c.text.replace(EXPORTED_SUFFIX, '').trim() }))
    .filter((c) => c.text !== '');
  if (chosen.length === 0) {
    throw new MemoryImportError(
      `${filename}: no memories found (one per line${kind === 'markdown' ? ' or list item' : ''})`,
    );
  }
  for (const candidate of chosen) {
    if (candidate.text.length > MEMORY_TEXT_MAX_CHARS) {
      throw new MemoryImportError(
        `${filename}:${candidate.line}: the line is ${candidate.text.length} characters (a memory is at most ${MEMORY_TEXT_MAX_CHARS}); nothing was imported`,
        candidate.line,
      );
    }
  }
  return chosen;
}
