import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VaultMemories } from '../../../plugin/chat/vault-memories';
import { parseMemoryImport } from '../../../shared/memory';
import { ManualClock } from '../../fakes/clock';
import { repoRoot } from '../../helpers/corpora';
import { MemoryVaultFiles } from './memory-vault-files';

/* The plugin's import command writes the same lines as the companion's import route. */

function setup() {
  const files = new MemoryVaultFiles();
  let seed = 0;
  const memories = new VaultMemories({
    files,
    clock: ManualClock.at('2026-11-25T10:00:00Z'),
    zone: () => 'Europe/Berlin',
    random: () => (seed = (seed + 0.37) % 1),
  });
  return { files, memories };
}

const fixture = (name: string) =>
  readFileSync(join(repoRoot, 'test/fixtures/memory', name), 'utf8');

describe('VaultMemories.importLines', () => {
  it('imports list items in one write, tagged, duplicates counted; again only duplicates', async () => {
    const { files, memories } = setup();
    const lines = parseMemoryImport(fixture('import-notes.md'), 'markdown', 'import-notes.md');
    expect(await memories.importLines(lines, 'import-notes.md')).toEqual({
      imported: 5,
      duplicates: 1,
    });
    const text = (await files.read('Cairn/Memory.md'))!;
    expect(text).toContain('- Watch Past Lives #memory/movies (added 2026-11-25) ^m-');
    expect(await memories.importLines(lines, 'import-notes.md')).toEqual({
      imported: 0,
      duplicates: 6,
    });
    expect(await files.read('Cairn/Memory.md')).toBe(text);
  });

  it('a line that cannot be a memory refuses the whole import, naming it', async () => {
    const { files, memories } = setup();
    await memories.remember('Likes tea');
    const before = await files.read('Cairn/Memory.md');
    const lines = parseMemoryImport('Owns a bike\n...\n', 'text', 'mine.txt');
    await expect(memories.importLines(lines, 'mine.txt')).rejects.toThrow(/mine\.txt:2: /);
    expect(await files.read('Cairn/Memory.md')).toBe(before);
  });
});
