import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { MAX_SLEEP_MS } from '../../../companion/reminders';
import { PRUNE_EVERY_MS } from '../../../companion/sync/history-pruning';
import { SyncService } from '../../../companion/sync';
import type {
  SyncChangesResponse,
  SyncHistoryResponse,
  SyncTrashResponse,
} from '../../../shared/protocol/sync';
import { ManualClock } from '../../fakes/clock';
import { tempDir } from '../helpers/app';
import { ManualTimer } from '../reminders/helpers';
import { authorized, buildSyncTestApp, hashOf } from './sync-app';
import type { SyncTestApp } from './sync-app';

const DAY = 24 * 60 * 60 * 1000;

let t: SyncTestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function get<T>(url: string): Promise<T> {
  const response = await (t as SyncTestApp).app.inject({ method: 'GET', url, headers: authorized });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as T;
}

/** Commits `versions` of `path` one after another, `gapMs` apart; returns their hashes. */
async function edit(
  app: SyncTestApp,
  path: string,
  versions: string[],
  gapMs: number,
  device = 'Laptop',
): Promise<{ fileId: string; hashes: string[] }> {
  let fileId: string | undefined;
  let base: string | null = null;
  const hashes: string[] = [];
  for (const text of versions) {
    const hash = await app.upload(text);
    const { results } = await app.commit(device, [
      fileId === undefined ? { path, base, hash } : { path, file_id: fileId, base, hash },
    ]);
    const result = results[0] as { status: string; file_id: string };
    expect(result.status).toBe('accepted');
    fileId = result.file_id;
    base = hash;
    hashes.push(hash);
    app.clock.advance(gapMs);
  }
  return { fileId: fileId as string, hashes };
}

describe('GET history and trash', () => {
  it('lists a file’s versions newest first, by path or file_id, across a rename', async () => {
    t = await buildSyncTestApp();
    const { fileId, hashes } = await edit(t, 'Trip.md', ['v1\n', 'v2\n', 'v3\n'], 60_000);
    await t.commit('Pixel 8', [
      { file_id: fileId, base: hashes[2] as string, rename_to: 'Travel/Trip.md' },
    ]);
    const history = await get<SyncHistoryResponse>(
      `/api/v1/sync/history?path=${encodeURIComponent('Travel/Trip.md')}`,
    );
    expect(history.file_id).toBe(fileId);
    expect(history.versions.map((version) => [version.hash, version.device, version.path])).toEqual(
      [
        [hashes[2], 'Pixel 8', 'Travel/Trip.md'],
        [hashes[2], 'Laptop', 'Trip.md'],
        [hashes[1], 'Laptop', 'Trip.md'],
        [hashes[0], 'Laptop', 'Trip.md'],
      ],
    );
    expect(history.versions[3]?.time).toBe('2026-11-22T10:00:00.000Z');
    expect(
      (await get<SyncHistoryResponse>(`/api/v1/sync/history?file_id=${fileId}`)).versions,
    ).toHaveLength(4);
    // The old path still finds the file.
    expect((await get<SyncHistoryResponse>('/api/v1/sync/history?path=Trip.md')).file_id).toBe(
      fileId,
    );
    const missing = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/history?path=Nope.md',
      headers: authorized,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'path' } });
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/history?path=../x.md',
      headers: authorized,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { field: 'path' } });
  });

  it('lists deleted files in the trash, newest first, paged, and a put restores one', async () => {
    t = await buildSyncTestApp({
      files: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n${i}.md`, `note ${i}\n`])),
    });
    const all = await get<SyncChangesResponse>('/api/v1/sync/changes?since=0');
    for (const change of all.changes.slice(0, 3)) {
      await t.commit('Pixel 8', [{ file_id: change.file_id, base: change.hash, delete: true }]);
    }
    const first = await get<SyncTrashResponse>('/api/v1/sync/trash?limit=2');
    expect(first.files).toHaveLength(2);
    expect(first.files[0]?.path).toBe(all.changes[2]?.path);
    const second = await get<SyncTrashResponse>(
      `/api/v1/sync/trash?limit=2&cursor=${first.next_cursor ?? ''}`,
    );
    expect(second).toMatchObject({ files: [{ path: all.changes[0]?.path }], next_cursor: null });

    const gone = first.files[0];
    const { results } = await t.commit('Pixel 8', [
      {
        path: gone?.path ?? '',
        file_id: gone?.file_id,
        base: gone?.hash ?? null,
        hash: gone?.hash ?? '',
      },
    ]);
    expect(results[0]).toMatchObject({ status: 'accepted', file_id: gone?.file_id });
    expect((await get<SyncTrashResponse>('/api/v1/sync/trash')).files).toHaveLength(2);
  });
});

describe('history pruning', () => {
  it('keeps Markdown 30 days, then one a day for a year; other files and the trash 90 days', async () => {
    t = await buildSyncTestApp();
    const note = await edit(t, 'Note.md', ['a\n', 'b\n'], 60 * 60 * 1000); // day 0, 10:00 and 11:00
    t.clock.set('2026-11-23T10:00:00Z');
    const day1 = await t.upload('c\n');
    await t.commit('Laptop', [
      { path: 'Note.md', file_id: note.fileId, base: note.hashes[1] as string, hash: day1 },
    ]);
    const image = await edit(t, 'photo.png', ['p1', 'p2'], 60_000);
    const doomed = await edit(t, 'Doomed.md', ['doomed\n'], 0);
    await t.commit('Laptop', [
      { file_id: doomed.fileId, base: doomed.hashes[0] as string, delete: true },
    ]);
    t.clock.set('2027-01-01T10:00:00Z');
    const day40 = await t.upload('d\n');
    await t.commit('Laptop', [{ path: 'Note.md', file_id: note.fileId, base: day1, hash: day40 }]);
    const held = () =>
      new Set(
        t?.sync.store.db
          .prepare('SELECT hash FROM sync_blobs')
          .all()
          .map((row) => (row as { hash: string }).hash),
      );

    t.clock.set('2027-01-06T10:00:00Z'); // day 45
    await t.sync.pruner.prune();
    let kept = held();
    expect(kept.has(note.hashes[0] as string)).toBe(false); // day 0, not the day's last
    expect(kept.has(note.hashes[1] as string)).toBe(true); // day 0's last
    expect(kept.has(day1)).toBe(true);
    expect(kept.has(day40)).toBe(true);
    expect(kept.has(image.hashes[0] as string)).toBe(true); // 45 days < 90
    expect(kept.has(doomed.hashes[0] as string)).toBe(true);
    const history = await get<SyncHistoryResponse>('/api/v1/sync/history?path=Note.md');
    expect(history.versions.map((version) => version.hash)).toEqual([day40, day1, note.hashes[1]]);

    t.clock.set('2027-02-22T10:00:00Z'); // day 92
    await t.sync.pruner.prune();
    kept = held();
    expect(kept.has(image.hashes[0] as string)).toBe(false);
    expect(kept.has(image.hashes[1] as string)).toBe(true); // current
    expect(kept.has(doomed.hashes[0] as string)).toBe(false);
    expect((await get<SyncTrashResponse>('/api/v1/sync/trash')).files).toEqual([]);
    expect(kept.has(note.hashes[1] as string)).toBe(true);

    t.clock.set('2027-11-24T10:00:00Z'); // a year and two days
    await t.sync.pruner.prune();
    kept = held();
    expect([...kept].sort()).toEqual([day40, image.hashes[1] as string].sort());
  });

  it('never prunes a version a paired device holds as its base, until it moves on or is unpaired', async () => {
    t = await buildSyncTestApp();
    const note = await edit(t, 'Note.md', ['one\ntwo\nthree\n'], 0);
    // The old phone reads the changes up to here, then goes quiet.
    const seen = await get<SyncChangesResponse>('/api/v1/sync/changes?since=0&device=Old%20phone');
    await get<SyncChangesResponse>(`/api/v1/sync/changes?since=${seen.next}&device=Old%20phone`);
    t.clock.advance(DAY);
    const later = await t.upload('ONE\ntwo\nthree\n');
    await t.commit('Laptop', [
      { path: 'Note.md', file_id: note.fileId, base: note.hashes[0] as string, hash: later },
    ]);
    t.clock.advance(2 * 365 * DAY);
    await t.sync.pruner.prune();
    expect(t.sync.blobs.has(note.hashes[0] as string)).toBe(true);
    // Back after two years, it still merges against its base instead of conflicting.
    const phone = await t.upload('one\ntwo\nTHREE\n');
    const { results } = await t.commit('Old phone', [
      { path: 'Note.md', file_id: note.fileId, base: note.hashes[0] as string, hash: phone },
    ]);
    expect(results[0]).toMatchObject({ status: 'merged' });
    t.sync.store.forgetDevice('Old phone');
    t.sync.store.forgetDevice('Laptop');
    await t.sync.pruner.prune();
    expect(t.sync.blobs.has(note.hashes[0] as string)).toBe(false);
  });

  it('drops uploads no commit used after a week, not before', async () => {
    t = await buildSyncTestApp();
    const stray = await t.upload('uploaded, never committed');
    t.clock.advance(6 * DAY);
    await t.sync.pruner.prune();
    expect(t.sync.blobs.has(stray)).toBe(true);
    t.clock.advance(2 * DAY);
    await t.sync.pruner.prune();
    expect(t.sync.blobs.has(stray)).toBe(false);
    expect(hashOf('uploaded, never committed')).toBe(stray);
  });

  it('runs on its timer (pruning every 6 hours, rescans between) and releases it on close', async () => {
    const dir = tempDir('sync-timer');
    const clock = ManualClock.at('2026-11-22T10:00:00Z');
    const timer = new ManualTimer(clock);
    const db = openDatabase(join(dir.path, 'cairn.db'));
    const vault = join(dir.path, 'vault');
    mkdirSync(vault);
    const sync = new SyncService({
      vault,
      dataDir: join(dir.path, 'data'),
      db,
      clock,
      logger: createLogger('silent'),
      timer,
    });
    let prunes = 0;
    const prune = sync.pruner.prune.bind(sync.pruner);
    sync.pruner.prune = () => {
      prunes++;
      return prune();
    };
    await sync.start();
    const idle = () => new Promise<void>((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 20 && timer.armed < 2; i++) await idle();
    expect(timer.armed).toBe(2); // the pruner's tick and the rescan
    expect(prunes).toBe(1);
    expect(timer.delays.every((delay) => delay <= MAX_SLEEP_MS)).toBe(true);
    // A file an excluded folder holds appears through the periodic rescan.
    writeFileSync(join(vault, 'late.md'), 'late\n');
    await timer.advanceTo(clock.now() + PRUNE_EVERY_MS, idle);
    expect(prunes).toBe(2);
    await sync.journal.serial.idle();
    expect(sync.store.liveAt('late.md')).toBeDefined();
    await sync.close();
    expect(timer.armed).toBe(0);
    db.close();
    dir.remove();
  });
});
