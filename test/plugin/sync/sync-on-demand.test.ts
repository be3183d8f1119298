// @vitest-environment node
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstSyncPlan } from '../../../plugin/sync/first-sync-plan';
import { CompanionSyncClient } from '../../../plugin/sync/sync-client';
import { syncScope } from '../../../plugin/sync/sync-scope';
import { TEST_TOKEN } from '../../companion/helpers/app';
import { buildSyncTestApp } from '../../companion/sync/sync-app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import { InjectTransport } from '../../helpers/inject-transport';
import { testDevice } from './sync-device';

/*
 * Large files on phones (docs/sync.md): above the device's limit, a companion file is known
 * (hash, size) but not downloaded until opened. Its absence is never a delete, nothing is ever
 * uploaded for it, and a file the user makes at its path never replaces the companion's.
 */
let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const BIG = 'B'.repeat(5000);
const LIMIT = { engine: { downloadLimitBytes: 1000 } };

function onDisk(path: string): string | undefined {
  const absolute = join(t.vault, path);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : undefined;
}

describe('files above the download limit', () => {
  it('are listed, not downloaded, never deleted, and downloaded when opened', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': 'trip\n', 'Media/film.mov': BIG } });
    const phone = testDevice(t, 'Pixel 8', LIMIT);
    await phone.engine.sync();
    expect(phone.vault.paths()).toEqual(['Trip.md']);
    expect(await phone.engine.notDownloaded()).toEqual([{ path: 'Media/film.mov', size: 5000 }]);
    // Passes after it never commit the absent file as deleted.
    phone.vault.userWrite('Trip.md', 'trip\nmore\n');
    await phone.engine.sync();
    await phone.engine.sync();
    expect(onDisk('Media/film.mov')).toBe(BIG);
    expect(onDisk('Trip.md')).toBe('trip\nmore\n');
    expect(await phone.engine.downloadNow('Media/film.mov')).toBe('done');
    expect(phone.vault.text('Media/film.mov')).toBe(BIG);
    expect(await phone.engine.notDownloaded()).toEqual([]);
    // Downloaded, it syncs like any file: an edit goes up.
    phone.vault.userWrite('Media/film.mov', `${BIG}!`);
    await phone.engine.sync();
    expect(onDisk('Media/film.mov')).toBe(`${BIG}!`);
  });

  it('follows remote edits, moves and deletes without a file here', async () => {
    t = await buildSyncTestApp({ files: { 'film.mov': BIG } });
    const phone = testDevice(t, 'Pixel 8', LIMIT);
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    laptop.vault.userWrite('film.mov', `${BIG}2`);
    await laptop.engine.sync();
    laptop.vault.userRename('film.mov', 'Media/film.mov');
    await laptop.engine.sync();
    await phone.engine.sync();
    expect(phone.vault.paths()).toEqual([]);
    expect(await phone.engine.notDownloaded()).toEqual([{ path: 'Media/film.mov', size: 5001 }]);
    expect(await phone.engine.downloadNow('Media/film.mov')).toBe('done');
    expect(phone.vault.text('Media/film.mov')).toBe(`${BIG}2`);
    phone.vault.userDelete('Media/film.mov');
    await phone.engine.sync();
    expect(onDisk('Media/film.mov')).toBeUndefined();

    // A delete elsewhere of a file not downloaded here: the record goes, nothing is written.
    laptop.vault.userWrite('other.mov', BIG);
    await laptop.engine.sync();
    await phone.engine.sync();
    expect(await phone.engine.notDownloaded()).toEqual([{ path: 'other.mov', size: 5000 }]);
    await laptop.engine.sync();
    laptop.vault.userDelete('other.mov');
    await laptop.engine.sync();
    await phone.engine.sync();
    expect(await phone.engine.notDownloaded()).toEqual([]);
    expect(phone.vault.paths()).toEqual([]);
  });

  it('never uploads a file made at its path over the companion’s', async () => {
    t = await buildSyncTestApp({ files: { 'scan.pdf': BIG } });
    const phone = testDevice(t, 'Pixel 8', LIMIT);
    await phone.engine.sync();
    phone.vault.userWrite('scan.pdf', 'something else');
    await phone.engine.sync();
    // The companion's file stays at its path; the phone's is kept beside it.
    expect(onDisk('scan.pdf')).toBe(BIG);
    const copies = (await phone.vault.list())
      .map((stat) => stat.path)
      .filter((p) => p !== 'scan.pdf');
    expect(copies).toHaveLength(1);
    expect(onDisk(copies[0] as string)).toBe('something else');
    expect(phone.vault.text('scan.pdf')).toBe(BIG);
  });

  it('downloads the files that fit when the limit is raised or turned off', async () => {
    t = await buildSyncTestApp({ files: { 'a.bin': BIG, 'b.bin': 'B'.repeat(20_000) } });
    const phone = testDevice(t, 'Pixel 8', LIMIT);
    await phone.engine.sync();
    expect(phone.vault.paths()).toEqual([]);
    await phone.engine.setDownloadLimit(10_000);
    await phone.engine.sync();
    expect(phone.vault.paths()).toEqual(['a.bin']);
    await phone.engine.setDownloadLimit(null);
    await phone.engine.sync();
    expect(phone.vault.paths()).toEqual(['a.bin', 'b.bin']);
  });

  it('counts them apart in the first-sync plan', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n', 'film.mov': BIG } });
    const phone = testDevice(t, 'Pixel 8');
    const api = new CompanionSyncClient(
      new InjectTransport(() => t.app),
      () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
      () => 'Pixel 8',
    );
    const plan = await firstSyncPlan(
      phone.vault,
      api,
      undefined,
      syncScope({ excludedFolders: [], settingsCategories: [] }),
      1000,
    );
    expect(plan.download).toMatchObject({ count: 1, paths: ['a.md'] });
    expect(plan.onDemand).toMatchObject({ count: 1, bytes: 5000, paths: ['film.mov'] });
  });
});
