import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  contentHash,
  createVaultFile,
  editVaultFile,
  removeVaultFile,
  TEMP_FILE_NAME,
} from '../../../companion/vault/atomic-write';
import { dryRun, severalVaultWrites } from '../../../companion/vault/dry-run';
import { tempDir } from '../helpers/app';

/*
 * A block of vault writes (`severalVaultWrites`) in a dry run: every write is planned, later
 * writes see the earlier ones' text, each file is one change, and nothing after the block runs.
 * The same block for real writes exactly what the dry run said.
 */

let dir: ReturnType<typeof tempDir>;
let vault: string;
beforeEach(() => {
  dir = tempDir('dry-run');
  vault = join(dir.path, 'vault');
  mkdirSync(join(vault, 'Notes'), { recursive: true });
  writeFileSync(join(vault, 'Notes/Garden.md'), '# Garden\n\nWater the basil.\n');
  writeFileSync(join(vault, 'Notes/Old.md'), 'to be removed\n');
});
afterEach(() => {
  dir.remove();
});

function files(): Record<string, string> {
  const read = (folder: string): Record<string, string> =>
    Object.fromEntries(
      readdirSync(join(vault, folder))
        // A real edit's witness lingers a moment while it watches for late writes.
        .filter((name) => !TEMP_FILE_NAME.test(name))
        .map((name) => [`${folder}/${name}`, readFileSync(join(vault, folder, name), 'utf8')]),
    );
  return { ...read('Notes'), ...(readdirSync(vault).includes('Inbox') ? read('Inbox') : {}) };
}

/** A note made, then edited; another note edited twice; one removed; then the "index" step. */
async function work(after: string[]): Promise<string> {
  await severalVaultWrites(async () => {
    await createVaultFile(vault, 'Inbox/Seeds.md', '# Seeds\n');
    await editVaultFile(vault, 'Inbox/Seeds.md', (text) => `${text}\nbuy tomato seeds\n`);
    await editVaultFile(vault, 'Notes/Garden.md', (text) => `${text}- compost\n`);
    await editVaultFile(vault, 'Notes/Garden.md', (text) => `${text}- mulch\n`);
    await removeVaultFile(vault, 'Notes/Old.md', contentHash('to be removed\n'));
    // Made and taken back within the block: no change at all.
    await createVaultFile(vault, 'Inbox/Scratch.md', 'x\n');
    await removeVaultFile(vault, 'Inbox/Scratch.md', contentHash('x\n'));
  });
  after.push('indexed');
  return 'done';
}

describe('severalVaultWrites in a dry run', () => {
  it('plans every file once, sees its own writes, and runs nothing after the block', async () => {
    const before = files();
    const after: string[] = [];
    const outcome = await dryRun(() => work(after));
    expect(files()).toEqual(before);
    expect(after).toEqual([]);
    expect(outcome.stopped).toBe(true);
    if (!outcome.stopped) return;
    expect(
      outcome.changes.map(({ path, action, before, after }) => ({ path, action, before, after })),
    ).toEqual([
      {
        path: 'Inbox/Seeds.md',
        action: 'create',
        before: null,
        after: '# Seeds\n\nbuy tomato seeds\n',
      },
      {
        path: 'Notes/Garden.md',
        action: 'edit',
        before: '# Garden\n\nWater the basil.\n',
        after: '# Garden\n\nWater the basil.\n- compost\n- mulch\n',
      },
      { path: 'Notes/Old.md', action: 'remove', before: 'to be removed\n', after: null },
    ]);
    expect(outcome.changes[1]!.diff).toContain('+- compost\n+- mulch\n');

    // For real, the same block writes exactly that.
    const real: string[] = [];
    expect(await work(real)).toBe('done');
    expect(real).toEqual(['indexed']);
    expect(files()).toEqual({
      'Inbox/Seeds.md': '# Seeds\n\nbuy tomato seeds\n',
      'Notes/Garden.md': '# Garden\n\nWater the basil.\n- compost\n- mulch\n',
    });
  });

  it('outside a block a dry run still stops at its first write', async () => {
    const outcome = await dryRun(async () => {
      await createVaultFile(vault, 'Inbox/A.md', 'a\n');
      await createVaultFile(vault, 'Inbox/B.md', 'b\n');
    });
    expect(outcome.stopped && outcome.changes.map((change) => change.path)).toEqual(['Inbox/A.md']);
    expect(readdirSync(vault)).not.toContain('Inbox');
  });
});
