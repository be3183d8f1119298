import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeLeftoverTemps } from '../../../companion/vault/leftover-temps';
import { tempDir } from '../helpers/app';

let dir: { path: string; remove: () => void };
let vault: string;
beforeEach(() => {
  dir = tempDir('leftovers');
  vault = join(dir.path, 'vault');
  mkdirSync(join(vault, 'Cairn/Notes'), { recursive: true });
  mkdirSync(join(vault, '.obsidian'), { recursive: true });
});
afterEach(() => dir.remove());

describe('removeLeftoverTemps', () => {
  it('removes exactly the temp files a vault write makes, in every folder', async () => {
    const ours = [
      'Cairn/Notes/.call-the-bank.md.cairn-0123456789ab.tmp',
      '.Inbox.md.cairn-abcdef012345.tmp',
    ];
    const theirs = [
      'Cairn/Notes/call-the-bank.md',
      'Cairn/Notes/.call-the-bank.md.cairn-notes.tmp', // not 12 hex digits
      'Cairn/Notes/.x.md.cairn-0123456789AB.tmp', // upper case: not ours
      'Cairn/Notes/x.md.cairn-0123456789ab.tmp', // not hidden: not ours
      'Cairn/Notes/.x.md.cairn-0123456789ab.tmp.bak',
      '.obsidian/.workspace.json.cairn-0123456789ab.tmp', // hidden folder: never entered
    ];
    for (const path of [...ours, ...theirs]) writeFileSync(join(vault, path), 'x');

    const result = await removeLeftoverTemps(vault);

    expect(result.removed.sort()).toEqual([...ours].sort());
    expect(result.failed).toEqual([]);
    for (const path of ours) expect(existsSync(join(vault, path))).toBe(false);
    for (const path of theirs) expect(existsSync(join(vault, path))).toBe(true);
    expect(readdirSync(join(vault, 'Cairn/Notes'))).toHaveLength(5);
  });

  it('puts a note moved aside back under its empty name, never over a file', async () => {
    // A crash between moving the note aside and linking the new version to its name.
    writeFileSync(join(vault, 'Cairn/Notes/.plan.md.cairn-aside-0123456789ab.tmp'), 'my plan\n');
    writeFileSync(join(vault, 'Cairn/Notes/.plan.md.cairn-fedcba987654.tmp'), 'unanswered\n');
    // …and one whose name was filled again before the crash: the file there stays.
    writeFileSync(join(vault, 'Cairn/Notes/todo.md'), 'newer\n');
    writeFileSync(join(vault, 'Cairn/Notes/.todo.md.cairn-aside-abcdefabcdef.tmp'), 'older\n');

    const result = await removeLeftoverTemps(vault);

    expect(result.restored).toEqual(['Cairn/Notes/plan.md']);
    expect(result.failed).toEqual([]);
    expect(readFileSync(join(vault, 'Cairn/Notes/plan.md'), 'utf8')).toBe('my plan\n');
    expect(readFileSync(join(vault, 'Cairn/Notes/todo.md'), 'utf8')).toBe('newer\n');
    expect(readdirSync(join(vault, 'Cairn/Notes')).sort()).toEqual(['plan.md', 'todo.md']);
  });
});
