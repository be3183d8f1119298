import { afterEach, describe, expect, it } from 'vitest';
import { conflictCopy, withoutConflictKeys } from '../../../plugin/sync/conflict-copies';
import { firstSyncPlan, formatBytes } from '../../../plugin/sync/first-sync-plan';
import { SyncArchiveClient } from '../../../plugin/sync/sync-archive-client';
import { SyncRequestError } from '../../../plugin/sync/sync-client';
import { ObservedSyncApi, SyncStatus } from '../../../plugin/sync/sync-status';
import type { SyncStatusSnapshot } from '../../../plugin/sync/sync-status';
import { TEST_TOKEN } from '../../companion/helpers/app';
import { buildSyncTestApp } from '../../companion/sync/sync-app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import { InjectTransport } from '../../helpers/inject-transport';
import { testDevice } from './sync-device';

let t: SyncTestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function archive(app: SyncTestApp, device = 'Pixel 8'): SyncArchiveClient {
  return new SyncArchiveClient(
    new InjectTransport(() => app.app),
    () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
    () => device,
  );
}

describe('the first-sync plan', () => {
  it('counts what goes up, comes down, is the same, or would conflict, with sizes', async () => {
    t = await buildSyncTestApp({
      files: {
        'Same.md': 'same\n',
        'Both.md': 'the companion wrote this\n',
        'Only there.md': 'from the companion\n',
        'Empty here.md': 'full there\n',
      },
    });
    const phone = testDevice(t, 'Pixel 8');
    phone.vault.userWrite('Same.md', 'same\n');
    phone.vault.userWrite('Both.md', 'the phone wrote that!!!\n');
    phone.vault.userWrite('Only here.md', 'from the phone\n');
    phone.vault.userWrite('Empty here.md', '');
    const progress: number[] = [];
    const plan = await firstSyncPlan(phone.vault, archive(t), (done) => progress.push(done));
    expect(plan.identical).toEqual({ count: 1, bytes: 5, paths: ['Same.md'] });
    expect(plan.conflict).toEqual({ count: 1, bytes: 24, paths: ['Both.md'] });
    expect(plan.upload).toEqual({ count: 1, bytes: 15, paths: ['Only here.md'] });
    expect(plan.download.count).toBe(2);
    expect(plan.download.bytes).toBe(19 + 11);
    expect([...plan.download.paths].sort()).toEqual(['Empty here.md', 'Only there.md']);
    expect(progress).toEqual([1, 2, 3, 4]);

    // The plan is what the first sync then does: the conflict lands as a copy, nothing is lost.
    await phone.engine.sync();
    expect(phone.vault.text('Both.md')).toBe('the companion wrote this\n');
    const copy = phone.vault.paths().find((path) => conflictCopy(path) !== null);
    expect(copy && phone.vault.text(copy)).toContain('the phone wrote that!!!');
    expect(phone.vault.text('Only there.md')).toBe('from the companion\n');
  });

  it('formats sizes', () => {
    expect([formatBytes(812), formatBytes(4_200), formatBytes(13_400_000)]).toEqual([
      '812 B',
      '4.2 KB',
      '13 MB',
    ]);
  });
});

describe('conflict copies', () => {
  it('reads the note, the time and the device of a copy the companion made', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': 'a\nb\n' } });
    const phone = testDevice(t, 'Pixel 8');
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    phone.vault.userWrite('Trip.md', 'a\nphone\n');
    laptop.vault.userWrite('Trip.md', 'a\nlaptop\n');
    await phone.engine.sync();
    await laptop.engine.sync();
    const copyPath = laptop.vault.paths().find((path) => path !== 'Trip.md') as string;
    const info = conflictCopy(copyPath, laptop.vault.text(copyPath));
    expect(info).toMatchObject({ originalPath: 'Trip.md', device: 'MacBook' });
    expect(info?.time).toBe(t.clock.now() - (t.clock.now() % 1000));
    expect(withoutConflictKeys(laptop.vault.text(copyPath) as string)).toBe('a\nlaptop\n');
    expect(conflictCopy('Trip.md')).toBeNull();
    expect(conflictCopy('Folder/Photo.conflict-20261122-100000-2.png')).toMatchObject({
      originalPath: 'Folder/Photo.png',
      device: null,
    });
    expect(
      withoutConflictKeys('---\ntags: [a]\nconflict_of: "[[N]]"\nconflict_device: X\n---\nbody\n'),
    ).toBe('---\ntags: [a]\n---\nbody\n');
  });
});

describe('held deletes', () => {
  it('lists the held paths and, when the user keeps them, brings the files back', async () => {
    t = await buildSyncTestApp({
      files: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n${i}.md`, `note ${i}\n`])),
    });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    for (let index = 0; index < 5; index++) phone.vault.userDelete(`n${index}.md`);
    await phone.engine.sync();
    const [held] = phone.engine.heldDeletes();
    expect(held?.paths.sort()).toEqual(['n0.md', 'n1.md', 'n2.md', 'n3.md', 'n4.md']);
    await phone.engine.cancelHold(held?.hold as string);
    expect(phone.engine.heldDeletes()).toEqual([]);
    expect(phone.vault.text('n3.md')).toBe('note 3\n');
    await phone.engine.sync();
    expect(phone.events.filter((event) => event.kind === 'held')).toHaveLength(1);
    expect(phone.vault.paths()).toHaveLength(20);
  });
});

describe('history and undelete through the plugin client', () => {
  it('lists versions and deleted files, and restores one', async () => {
    t = await buildSyncTestApp({ files: { 'Keep.md': 'v1\n', 'Gone.md': 'bye\n' } });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    phone.vault.userWrite('Keep.md', 'v2\n');
    await phone.engine.sync();
    const client = archive(t);
    const history = await client.history('Keep.md');
    expect(history.versions.map((version) => version.device)).toEqual(['Pixel 8', 'server']);
    phone.vault.userDelete('Gone.md');
    await phone.engine.sync();
    const trash = await client.trash();
    expect(trash.files.map((file) => file.path)).toEqual(['Gone.md']);
    const restored = await client.restore('Pixel 8', {
      fileIds: [trash.files[0]?.file_id as string],
    });
    expect(restored.results).toMatchObject([{ status: 'accepted', path: 'Gone.md' }]);
    await phone.engine.sync();
    expect(phone.vault.text('Gone.md')).toBe('bye\n');
  });
});

describe('the status the user sees', () => {
  it('goes syncing → synced with a time, offline with words, waiting for held deletes', async () => {
    t = await buildSyncTestApp({ files: { 'A.md': 'a\n' } });
    let now = 1_000;
    const status = new SyncStatus(() => now);
    const seen: SyncStatusSnapshot[] = [];
    status.subscribe((snapshot) => seen.push(snapshot));
    status.started();
    const api = new ObservedSyncApi(archive(t), status);
    const change = api.changes(0);
    expect(status.snapshot().title).toBe('Syncing');
    const page = await change;
    now = 2_000;
    await api.getBlob(page.changes[0]?.hash as string);
    expect(seen.map((snapshot) => snapshot.title)).toContain('Syncing 1 file');
    expect(status.snapshot()).toMatchObject({ kind: 'synced', title: 'Synced', lastSynced: 2_000 });

    status.failed(new SyncRequestError('UNREACHABLE', 'http://x is unreachable (timeout)'));
    expect(status.snapshot()).toMatchObject({ kind: 'offline', title: 'Offline' });
    expect(status.snapshot().detail).toMatch(/Edits stay on this device/);
    status.failed(new SyncRequestError('UNAUTHORIZED', 'no', 401));
    expect(status.snapshot().detail).toMatch(/Pair this device again/);
    status.setHeld([{ hold: 'h', paths: ['a.md', 'b.md'], files: 20 }]);
    expect(status.snapshot()).toMatchObject({
      kind: 'waiting',
      title: 'Waiting for you: 2 deletes held',
    });
    status.stopped('paused');
    expect(status.snapshot().kind).toBe('waiting');
    status.setHeld([]);
    expect(status.snapshot().title).toBe('Paused on this device');
  });
});
