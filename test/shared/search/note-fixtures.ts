import { readFileSync, readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { NoteChunkInput } from '../../../shared/search/index';

/**
 * Just enough front-matter handling to feed the chunker real notes: the body after a leading
 * `---` … `---` block and the file line it starts on. Deliberately independent of shared/markdown.
 */
export function noteInput(path: string, content: string): NoteChunkInput {
  const lines = content.split(/\r\n|\r|\n/);
  let bodyStart = 0;
  if (lines[0] === '---') {
    const close = lines.findIndex((line, i) => i > 0 && (line === '---' || line === '...'));
    if (close > 0) bodyStart = close + 1;
  }
  return {
    path,
    title: basename(path, '.md'),
    aliases: [],
    tags: [],
    body: lines.slice(bodyStart).join('\n'),
    bodyStartLine: bodyStart + 1,
  };
}

/** Every Markdown file under `root`, as [vault-relative path, content]. */
export function readVault(root: string): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) walk(full);
      } else if (entry.name.endsWith('.md')) {
        files.push([relative(root, full).split('\\').join('/'), readFileSync(full, 'utf8')]);
      }
    }
  };
  walk(root);
  return files.sort(([a], [b]) => a.localeCompare(b));
}

/**
 * 1-based lines that open an H1/H2 section, found independently of the chunker (ATX only,
 * outside ``` / ~~~ fences), so the corpus test does not check the chunker against itself.
 */
export function majorHeadingLines(content: string, fromLine: number): Set<number> {
  const lines = content.split(/\r\n|\r|\n/);
  const found = new Set<number>();
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (
        marker !== undefined &&
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        line.trim() === marker
      ) {
        fence = undefined;
      }
      return;
    }
    if (marker !== undefined) fence = marker;
    else if (i + 1 >= fromLine && /^ {0,3}#{1,2}(?:[ \t]|$)/.test(line)) found.add(i + 1);
  });
  return found;
}
