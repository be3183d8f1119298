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

  it('finds a file another program wrote in a folder spelled otherwise than an empty one', async () => {
    // seed 2300000212: Projects/ was left empty by a delete; another program wrote
    // projects/plan.md; before the journal saw it, a device committed Projects/Plan.md. The
    // look for a case variant went into the empty Projects/ only, found nothing, and the
    // companion held both spellings: no device could have both, and none converged.
    t = await buildSyncTestApp({ files: { 'Projects/Old.md': '# Old\n', 'Trip.md': '# Trip\n' } });
    rmSync(join(t.vault, 'Projects/Old.md'));
    await t.sync.journal.rescan();
    t.write('projects/plan.md', '# Theirs\n- L1 server\n~1\n');
    const hash = await t.upload('# Mine\n- L2 laptop\n~2\n');
    const { results } = await t.commit('Linux laptop', [
      { path: 'Projects/Plan.md', base: null, hash },
    ]);
    expect(results[0]).toMatchObject({ status: 'conflict', path: 'projects/plan.md' });
    expect(readdirSync(join(t.vault, 'Projects'))).toEqual([]);
    expect(readdirSync(join(t.vault, 'projects')).sort()).toEqual([
      expect.stringMatching(/^plan\.conflict-\d{8}-\d{6}\.md$/),
      'plan.md',
    ]);
    expect(readFileSync(join(t.vault, 'projects/plan.md'), 'utf8')).toBe(
      '# Theirs\n- L1 server\n~1\n',
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
