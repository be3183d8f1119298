import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { optionalCorpus, repoRoot } from '../../helpers/corpora';
import { chunkNote, DEFAULT_CHUNK_OPTIONS } from '../../../shared/search/index';
import { majorHeadingLines, noteInput, readVault } from './note-fixtures';

// In-repo vaults always run (a bare clone too); the Obsidian Help vault where the corpora are present.
const vaults: Array<[string, string | undefined, number]> = [
  ['the handbook fixture vault', join(repoRoot, 'test/fixtures/vaults/handbook'), 9],
  ['the sample vault', join(repoRoot, 'companion/sample-vault'), 5],
  ['the Obsidian help vault', optionalCorpus('obsidian-help-en'), 170],
];

describe.each(vaults)('chunkNote over %s', (name, root, minimumNotes) => {
  if (!root) {
    it.skip('corpus absent', () => {});
    return;
  }
  const notes = readVault(root);
  const { maxChars } = DEFAULT_CHUNK_OPTIONS;

  it('reads the whole vault', () => {
    expect(notes.length).toBeGreaterThanOrEqual(minimumNotes);
  });

  it('keeps every chunk within maxChars, inside one H1/H2 section, with exact line locators', () => {
    const sizes: number[] = [];
    const problems: string[] = [];
    for (const [path, content] of notes) {
      const input = noteInput(path, content);
      const fileLines = content.split(/\r\n|\r|\n/);
      const majors = majorHeadingLines(content, input.bodyStartLine);
      const covered = new Set<number>();
      for (const chunk of chunkNote(input)) {
        sizes.push(chunk.text.length);
        const where = `${path}:${chunk.startLine}-${chunk.endLine}`;
        if (chunk.text.length > maxChars) problems.push(`${where} has ${chunk.text.length} chars`);
        if (chunk.titleOnly) continue;
        const span = fileLines.slice(chunk.startLine - 1, chunk.endLine);
        const textLines = chunk.text.split('\n');
        if (!span.join('\n').includes(chunk.text)) problems.push(`${where} text not in its lines`);
        if (!span[0]?.includes(textLines[0]!))
          problems.push(`${where} does not start on startLine`);
        if (!span[span.length - 1]?.includes(textLines[textLines.length - 1]!)) {
          problems.push(`${where} does not end on endLine`);
        }
        for (let line = chunk.startLine + 1; line <= chunk.endLine; line++) {
          if (majors.has(line)) problems.push(`${where} crosses the H1/H2 on line ${line}`);
        }
        for (let line = chunk.startLine; line <= chunk.endLine; line++) covered.add(line);
      }
      // Nothing is lost: every non-blank body line is in some chunk, bar bare parent headings.
      fileLines.forEach((line, i) => {
        const n = i + 1;
        if (n >= input.bodyStartLine && line.trim() !== '' && !covered.has(n) && !majors.has(n)) {
          problems.push(`${path}:${n} is in no chunk`);
        }
      });
    }
    expect(problems).toEqual([]);

    sizes.sort((a, b) => a - b);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    const at = (q: number) => sizes[Math.min(sizes.length - 1, Math.floor(q * sizes.length))];
    console.info(
      `${name}: ${notes.length} notes → ${sizes.length} chunks; chars min ${sizes[0]}, ` +
        `median ${at(0.5)}, p90 ${at(0.9)}, max ${sizes[sizes.length - 1]}, mean ${Math.round(total / sizes.length)}`,
    );
  });

  it('gives every chunk of a note a distinct id', () => {
    for (const [path, content] of notes) {
      const ids = chunkNote(noteInput(path, content)).map((chunk) => chunk.chunkId);
      expect(new Set(ids).size, path).toBe(ids.length);
    }
  });
});
