import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSyncTestApp } from './sync-app';
import type { SyncTestApp } from './sync-app';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

describe('POST commit: a folder named in other letter case than the companion’s', () => {
  it('puts a new file in the folder as the companion spells it', async () => {
    // seed 7009: Projects/ was left empty on the companion by a delete; a case-sensitive
    // device made projects/plan.md, refused for good (INVALID_PATH), its lines never synced.
    t = await buildSyncTestApp({ files: { 'Projects/Old.md': '# Old\n' } });
    rmSync(join(t.vault, 'Projects/Old.md'));
    await t.sync.journal.rescan();
    const hash = await t.upload('# Plan\n- L1 linux\n~1\n');
    const { results } = await t.commit('Linux laptop', [
      { path: 'projects/plan.md', base: null, hash },
    ]);
    expect(results[0]).toMatchObject({ status: 'accepted', path: 'Projects/plan.md' });
    expect(readdirSync(t.vault)).toEqual(['Projects']);
    expect(readFileSync(join(t.vault, 'Projects/plan.md'), 'utf8')).toBe(
      '# Plan\n- L1 linux\n~1\n',
    );
  });

  it('moves a renamed file into the folder as the companion spells it', async () => {
    t = await buildSyncTestApp({ files: { 'Projects/Old.md': '# Old\n', 'Trip.md': '# Trip\n' } });
    const trip = await t.upload('# Trip\n');
    const [made] = (await t.commit('Pixel 8', [{ path: 'Trip.md', base: null, hash: trip }]))
      .results;
    if (made?.status !== 'accepted') throw new Error(`unexpected ${JSON.stringify(made)}`);
    const { results } = await t.commit('Linux laptop', [
      { file_id: made.file_id, base: trip, rename_to: 'projects/Trip.md' },
    ]);
    expect(results[0]).toMatchObject({ status: 'accepted', path: 'Projects/Trip.md' });
    expect(existsSync(join(t.vault, 'Projects/Trip.md'))).toBe(true);
    expect(readdirSync(t.vault).sort()).toEqual(['Projects']);
  });
});
