import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncChangesResponse, SyncOpResult } from '../../../shared/protocol/sync';
import { authorized, buildSyncTestApp, hashOf } from './sync-app';
import type { SyncTestApp } from './sync-app';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const NOTE = '---\ntitle: Trip\ntags: [travel]\n---\n# Trip\n\nline one\nline two\nline three\n';

async function changes(since = 0): Promise<SyncChangesResponse> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/v1/sync/changes?since=${since}`,
    headers: authorized,
  });
  expect(response.statusCode).toBe(200);
  return response.json() as SyncChangesResponse;
}

function only<S extends SyncOpResult['status']>(
  results: SyncOpResult[],
  status: S,
): Extract<SyncOpResult, { status: S }> {
  expect(results).toHaveLength(1);
  expect(results[0]?.status).toBe(status);
  return results[0] as Extract<SyncOpResult, { status: S }>;
}

async function existing(path: string): Promise<{ file_id: string; hash: string }> {
  const found = (await changes()).changes.find((change) => change.path === path);
  if (found === undefined) throw new Error(`${path} is not journalled`);
  return found;
}

describe('POST /api/v1/sync/commit', () => {
  it('journals every file found on the first start as device server', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE, 'img/a.png': 'PNG' } });
    const listed = await changes();
    expect(listed.changes.map((change) => [change.path, change.op, change.device]).sort()).toEqual([
      ['Trip.md', 'put', 'server'],
      ['img/a.png', 'put', 'server'],
    ]);
    expect(listed.more).toBe(false);
    expect(listed.next).toBe(2);
    expect((await existing('Trip.md')).hash).toBe(hashOf(NOTE));
  });

  it('accepts a new file, writes it, and lists it as the device change', async () => {
    t = await buildSyncTestApp();
    const hash = await t.upload('# New\n');
    const result = only(
      (await t.commit('Pixel 8', [{ path: 'Notes/New.md', base: null, hash }])).results,
      'accepted',
    );
    expect(result).toMatchObject({ hash, path: 'Notes/New.md', seq: 1 });
    expect(readFileSync(join(t.vault, 'Notes/New.md'), 'utf8')).toBe('# New\n');
    expect((await changes()).changes).toEqual([
      expect.objectContaining({ seq: 1, file_id: result.file_id, op: 'put', device: 'Pixel 8' }),
    ]);
  });

  it('accepts an edit on the current base', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const file = await existing('Trip.md');
    const edited = NOTE.replace('line two', 'line 2');
    const hash = await t.upload(edited);
    const result = only(
      (
        await t.commit('Pixel 8', [
          { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash },
        ])
      ).results,
      'accepted',
    );
    expect(result.hash).toBe(hash);
    expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(edited);
  });

  it('merges edits of different lines made from an older base', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const file = await existing('Trip.md');
    const laptop = NOTE.replace('line one', 'line ONE');
    const first = await t.upload(laptop);
    await t.commit('Laptop', [
      { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: first },
    ]);
    const phone = NOTE.replace('line three', 'line THREE');
    const second = await t.upload(phone);
    const result = only(
      (
        await t.commit('Pixel 8', [
          { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: second },
        ])
      ).results,
      'merged',
    );
    const merged = NOTE.replace('line one', 'line ONE').replace('line three', 'line THREE');
    expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(merged);
    expect(result.hash).toBe(hashOf(merged));
    const blob = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/blobs/${result.hash}`,
      headers: authorized,
    });
    expect(blob.body).toBe(merged);
  });

  it('merges front matter key by key even on neighbouring lines', async () => {
    const base = '---\nstatus: open\npriority: low\n---\nbody\n';
    t = await buildSyncTestApp({ files: { 'Task.md': base } });
    const file = await existing('Task.md');
    const a = await t.upload(base.replace('status: open', 'status: done'));
    await t.commit('Laptop', [
      { path: 'Task.md', file_id: file.file_id, base: file.hash, hash: a },
    ]);
    const b = await t.upload(base.replace('priority: low', 'priority: high'));
    only(
      (
        await t.commit('Pixel 8', [
          { path: 'Task.md', file_id: file.file_id, base: file.hash, hash: b },
        ])
      ).results,
      'merged',
    );
    expect(readFileSync(join(t.vault, 'Task.md'), 'utf8')).toBe(
      '---\nstatus: done\npriority: high\n---\nbody\n',
    );
  });

  it('keeps overlapping edits as a conflict copy naming the device and linking the note', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const file = await existing('Trip.md');
    const laptop = NOTE.replace('line two', 'line two (laptop)');
    const first = await t.upload(laptop);
    await t.commit('Laptop', [
      { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: first },
    ]);
    const phone = NOTE.replace('line two', 'line two (phone)');
    const second = await t.upload(phone);
    const result = only(
      (
        await t.commit('Pixel 8', [
          { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: second },
        ])
      ).results,
      'conflict',
    );
    expect(result).toMatchObject({
      path: 'Trip.md',
      hash: hashOf(laptop),
      copy_path: 'Trip.conflict-20261122-100000.md',
    });
    expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(laptop);
    const copy = readFileSync(join(t.vault, result.copy_path), 'utf8');
    expect(copy).toContain('line two (phone)');
    expect(copy).toContain('conflict_of: "[[Trip]]"');
    expect(copy).toContain('conflict_device: Pixel 8');
    expect(copy).not.toMatch(/<<<<<<<|>>>>>>>/);
    expect(result.copy_hash).toBe(hashOf(copy));
    const listed = (await changes(0)).changes.find((change) => change.path === result.copy_path);
    expect(listed).toMatchObject({ file_id: result.copy_file_id, device: 'Pixel 8' });
  });

  it('gives binary files a conflict copy, never a merge', async () => {
    t = await buildSyncTestApp({ files: { 'img/photo.png': 'v1' } });
    const file = await existing('img/photo.png');
    const a = await t.upload('v2 laptop');
    await t.commit('Laptop', [
      { path: 'img/photo.png', file_id: file.file_id, base: file.hash, hash: a },
    ]);
    const b = await t.upload('v2 phone');
    const result = only(
      (
        await t.commit('Pixel 8', [
          { path: 'img/photo.png', file_id: file.file_id, base: file.hash, hash: b },
        ])
      ).results,
      'conflict',
    );
    expect(result.copy_path).toBe('img/photo.conflict-20261122-100000.png');
    expect(readFileSync(join(t.vault, 'img/photo.png'), 'utf8')).toBe('v2 laptop');
    expect(readFileSync(join(t.vault, result.copy_path), 'utf8')).toBe('v2 phone');
    expect(result.copy_hash).toBe(b);
  });

  describe('two new files at one path', () => {
    it('identical: one file', async () => {
      t = await buildSyncTestApp({ files: { 'Daily/2026-11-22.md': '# Today\n' } });
      const file = await existing('Daily/2026-11-22.md');
      const hash = await t.upload('# Today\n');
      const result = only(
        (await t.commit('Pixel 8', [{ path: 'Daily/2026-11-22.md', base: null, hash }])).results,
        'accepted',
      );
      expect(result.file_id).toBe(file.file_id);
      expect(readdirSync(join(t.vault, 'Daily'))).toEqual(['2026-11-22.md']);
    });

    it('the device one empty: the other stays', async () => {
      t = await buildSyncTestApp({ files: { 'Daily/2026-11-22.md': '# Today\nwrote this\n' } });
      const file = await existing('Daily/2026-11-22.md');
      const hash = await t.upload('');
      const result = only(
        (await t.commit('Pixel 8', [{ path: 'Daily/2026-11-22.md', base: null, hash }])).results,
        'merged',
      );
      expect(result).toMatchObject({ file_id: file.file_id, hash: file.hash });
      expect(readFileSync(join(t.vault, 'Daily/2026-11-22.md'), 'utf8')).toBe(
        '# Today\nwrote this\n',
      );
    });

    it('the companion one empty: the device one replaces it', async () => {
      t = await buildSyncTestApp({ files: { 'Daily/2026-11-22.md': '' } });
      const file = await existing('Daily/2026-11-22.md');
      const hash = await t.upload('# Today\nfrom the phone\n');
      const result = only(
        (await t.commit('Pixel 8', [{ path: 'Daily/2026-11-22.md', base: null, hash }])).results,
        'accepted',
      );
      expect(result).toMatchObject({ file_id: file.file_id, hash });
      expect(readFileSync(join(t.vault, 'Daily/2026-11-22.md'), 'utf8')).toBe(
        '# Today\nfrom the phone\n',
      );
    });

    it('different: a conflict copy; case-insensitively the same path counts', async () => {
      t = await buildSyncTestApp({ files: { 'Ideas.md': 'mine\n' } });
      const hash = await t.upload('theirs\n');
      const result = only(
        (await t.commit('Pixel 8', [{ path: 'ideas.md', base: null, hash }])).results,
        'conflict',
      );
      expect(result.path).toBe('Ideas.md');
      expect(readFileSync(join(t.vault, 'Ideas.md'), 'utf8')).toBe('mine\n');
      expect(readFileSync(join(t.vault, result.copy_path), 'utf8')).toContain('theirs\n');
    });

    it('the device one only lines the companion one has (a template): the other stays', async () => {
      t = await buildSyncTestApp({ files: { 'Daily/2026-11-22.md': '# Daily\n- standup\n' } });
      const file = await existing('Daily/2026-11-22.md');
      const hash = await t.upload('# Daily\n');
      const result = only(
        (await t.commit('Pixel 8', [{ path: 'Daily/2026-11-22.md', base: null, hash }])).results,
        'merged',
      );
      expect(result).toMatchObject({ file_id: file.file_id, hash: file.hash });
      expect(readFileSync(join(t.vault, 'Daily/2026-11-22.md'), 'utf8')).toBe(
        '# Daily\n- standup\n',
      );
    });

    it('the device one an older version with lines added (its record lost): merged', async () => {
      // seed 1012: a device crashed between writing a pulled note and recording it, then the
      // user added a line; the note went up as a new file and became a conflict copy.
      t = await buildSyncTestApp({ files: { 'Ideas.md': '# Ideas\n- one\n' } });
      t.write('Ideas.md', '# Ideas\n- one\n- two (server)\n');
      await t.sync.journal.rescan();
      const hash = await t.upload('# Ideas\n- one\n- three (phone)\n');
      only((await t.commit('Pixel 8', [{ path: 'Ideas.md', base: null, hash }])).results, 'merged');
      expect(readFileSync(join(t.vault, 'Ideas.md'), 'utf8')).toBe(
        '# Ideas\n- one\n- two (server)\n- three (phone)\n',
      );
      expect(readdirSync(t.vault).filter((name) => name.includes('.conflict-'))).toEqual([]);
    });

    it('the device one an older version with lines added, a line since deleted: a conflict copy', async () => {
      // seed 566059936: a device that renamed a note while closed sent it up as a new file; the
      // companion's file had meanwhile lost the note's first line to an "edit" (another note moved
      // onto its path). Merged against the old version, that line was gone from every file.
      t = await buildSyncTestApp({ files: { 'Ideas.md': '# Ideas\n- one (server)\n' } });
      t.write('Ideas.md', '# Meeting\n- agenda\n');
      await t.sync.journal.rescan();
      const hash = await t.upload('# Ideas\n- one (server)\n- two (laptop)\n');
      const result = only(
        (await t.commit('Laptop', [{ path: 'Ideas.md', base: null, hash }])).results,
        'conflict',
      );
      expect(readFileSync(join(t.vault, 'Ideas.md'), 'utf8')).toBe('# Meeting\n- agenda\n');
      const copy = readFileSync(join(t.vault, result.copy_path), 'utf8');
      expect(copy).toContain('- one (server)\n- two (laptop)\n');
    });

    it('meets a file another program made in other letter case, not yet journalled', async () => {
      // seed 1009: the new file was refused (INVALID_PATH, a case clash) and never synced.
      t = await buildSyncTestApp();
      t.write('Inbox.md', '# Inbox\n- from a script\n');
      const hash = await t.upload('# inbox\n- from the phone\n');
      const result = only(
        (await t.commit('Pixel 8', [{ path: 'inbox.md', base: null, hash }])).results,
        'conflict',
      );
      expect(result.path).toBe('Inbox.md');
      expect(readFileSync(join(t.vault, result.copy_path), 'utf8')).toContain('from the phone');
    });

    it('the device one removed a line of every version: still a conflict copy', async () => {
      t = await buildSyncTestApp({ files: { 'Ideas.md': '# Ideas\n- one\n' } });
      const hash = await t.upload('# Ideas\n- two\n');
      only(
        (await t.commit('Pixel 8', [{ path: 'Ideas.md', base: null, hash }])).results,
        'conflict',
      );
      expect(readFileSync(join(t.vault, 'Ideas.md'), 'utf8')).toBe('# Ideas\n- one\n');
    });
  });

  describe('deletes', () => {
    it('deletes the current version; the bytes stay in the trash', async () => {
      t = await buildSyncTestApp({
        files: {
          'Old.md': 'old\n',
          'Keep.md': 'k\n',
          'K2.md': '',
          'K3.md': '',
          'K4.md': '',
          'K5.md': '',
          'K6.md': '',
          'K7.md': '',
          'K8.md': '',
          'K9.md': '',
        },
      });
      const file = await existing('Old.md');
      const result = only(
        (await t.commit('Pixel 8', [{ file_id: file.file_id, base: file.hash, delete: true }]))
          .results,
        'accepted',
      );
      expect(result.hash).toBe(file.hash);
      expect(existsSync(join(t.vault, 'Old.md'))).toBe(false);
      const last = (await changes(result.seq - 1)).changes[0];
      expect(last).toMatchObject({
        op: 'delete',
        path: 'Old.md',
        hash: file.hash,
        device: 'Pixel 8',
      });
      const trash = await t.app.inject({
        method: 'GET',
        url: '/api/v1/sync/trash',
        headers: authorized,
      });
      expect(trash.json()).toMatchObject({
        files: [{ path: 'Old.md', hash: file.hash, device: 'Pixel 8' }],
      });
    });

    it('a delete of an older version loses to the newer edit', async () => {
      t = await buildSyncTestApp({ files: { 'Trip.md': NOTE, ...tenMore() } });
      const file = await existing('Trip.md');
      const edited = await t.upload(NOTE + 'more\n');
      await t.commit('Laptop', [
        { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: edited },
      ]);
      const result = only(
        (await t.commit('Pixel 8', [{ file_id: file.file_id, base: file.hash, delete: true }]))
          .results,
        'merged',
      );
      expect(result).toMatchObject({ kept: true, hash: edited });
      expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(NOTE + 'more\n');
    });

    it('an edit made without seeing a delete brings the file back', async () => {
      t = await buildSyncTestApp({ files: { 'Trip.md': NOTE, ...tenMore() } });
      const file = await existing('Trip.md');
      await t.commit('Laptop', [{ file_id: file.file_id, base: file.hash, delete: true }]);
      const edited = await t.upload(NOTE + 'phone line\n');
      const result = only(
        (
          await t.commit('Pixel 8', [
            { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: edited },
          ])
        ).results,
        'accepted',
      );
      expect(result.file_id).toBe(file.file_id);
      expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(NOTE + 'phone line\n');
    });

    it('an edit bringing back a daily note deleted and made again joins the new one', async () => {
      const DAILY = 'Daily/2026-12-04.md';
      t = await buildSyncTestApp({ files: { [DAILY]: '# Daily\n', ...tenMore() } });
      const file = await existing(DAILY);
      // The laptop deletes today's note and makes it again from the template, then types in it.
      await t.commit('Laptop', [{ file_id: file.file_id, base: file.hash, delete: true }]);
      const laptopDaily = await t.upload('# Daily\n- laptop\n');
      only(
        (await t.commit('Laptop', [{ path: DAILY, base: null, hash: laptopDaily }])).results,
        'accepted',
      );
      // The phone typed in the old one, never seeing either.
      const phoneDaily = await t.upload('# Daily\n\n- phone\n');
      const result = only(
        (
          await t.commit('Pixel 8', [
            { path: DAILY, file_id: file.file_id, base: file.hash, hash: phoneDaily },
          ])
        ).results,
        'merged',
      );
      expect(result.path).toBe(DAILY);
      expect(readdirSync(join(t.vault, 'Daily'))).toEqual(['2026-12-04.md']);
      const text = readFileSync(join(t.vault, DAILY), 'utf8');
      expect(text).toContain('- laptop\n');
      expect(text).toContain('- phone\n');
    });

    it('an edit of an older version brings the deleted one back with the edit merged in', async () => {
      t = await buildSyncTestApp({ files: { 'Trip.md': NOTE, ...tenMore() } });
      const file = await existing('Trip.md');
      const withLaptopLine = NOTE.replace('line one\n', 'line one\nlaptop line\n');
      const laptopLine = await t.upload(withLaptopLine);
      const [laptop] = (
        await t.commit('Laptop', [
          { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: laptopLine },
        ])
      ).results;
      await t.commit('Tablet', [{ file_id: file.file_id, base: laptopLine, delete: true }]);
      expect(existsSync(join(t.vault, 'Trip.md'))).toBe(false);
      // The phone never saw the laptop's line nor the delete.
      const phoneLine = await t.upload(NOTE + 'phone line\n');
      const result = only(
        (
          await t.commit('Pixel 8', [
            { path: 'Trip.md', file_id: file.file_id, base: file.hash, hash: phoneLine },
          ])
        ).results,
        'merged',
      );
      expect(laptop?.status).toBe('accepted');
      expect(result.file_id).toBe(file.file_id);
      const back = withLaptopLine + 'phone line\n';
      expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(back);
      // So the laptop's next edit of the version it had, made before it saw the delete, merges.
      const laptopAgain = await t.upload(withLaptopLine.replace('# Trip\n', '# Trip 2026\n'));
      only(
        (
          await t.commit('Laptop', [
            { path: 'Trip.md', file_id: file.file_id, base: laptopLine, hash: laptopAgain },
          ])
        ).results,
        'merged',
      );
      expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(
        back.replace('# Trip\n', '# Trip 2026\n'),
      );
    });
  });

  describe('renames', () => {
    it('moves the file on its file_id, into a new folder', async () => {
      t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
      const file = await existing('Trip.md');
      const result = only(
        (
          await t.commit('Pixel 8', [
            { file_id: file.file_id, base: file.hash, rename_to: 'Travel/Trip 2026.md' },
          ])
        ).results,
        'accepted',
      );
      expect(result).toMatchObject({ path: 'Travel/Trip 2026.md', file_id: file.file_id });
      expect(existsSync(join(t.vault, 'Trip.md'))).toBe(false);
      expect(readFileSync(join(t.vault, 'Travel/Trip 2026.md'), 'utf8')).toBe(NOTE);
      const entry = (await changes(result.seq - 1)).changes[0];
      expect(entry).toMatchObject({
        op: 'rename',
        from_path: 'Trip.md',
        path: 'Travel/Trip 2026.md',
      });
    });

    it('a case-only rename is a rename, not a delete and a new file', async () => {
      t = await buildSyncTestApp({ files: { 'trip.md': NOTE } });
      const file = await existing('trip.md');
      const result = only(
        (
          await t.commit('Pixel 8', [
            { file_id: file.file_id, base: file.hash, rename_to: 'Trip.md' },
          ])
        ).results,
        'accepted',
      );
      expect(result.path).toBe('Trip.md');
      expect(readdirSync(t.vault)).toEqual(['Trip.md']);
      expect(readFileSync(join(t.vault, 'Trip.md'), 'utf8')).toBe(NOTE);
      const listed = await changes();
      expect(listed.changes).toEqual([
        expect.objectContaining({ path: 'Trip.md', file_id: file.file_id }),
      ]);
    });

    it('a rename onto a taken path lands beside it as a conflict', async () => {
      t = await buildSyncTestApp({ files: { 'A.md': 'a\n', 'B.md': 'b\n' } });
      const a = await existing('A.md');
      const b = await existing('B.md');
      const result = only(
        (await t.commit('Pixel 8', [{ file_id: a.file_id, base: a.hash, rename_to: 'B.md' }]))
          .results,
        'conflict',
      );
      expect(result).toMatchObject({ file_id: b.file_id, path: 'B.md', copy_file_id: a.file_id });
      expect(readFileSync(join(t.vault, 'B.md'), 'utf8')).toBe('b\n');
      expect(readFileSync(join(t.vault, result.copy_path), 'utf8')).toBe('a\n');
    });
  });

  describe('bad input', () => {
    it('rejects an unknown file_id with a code, and goes on with the other ops', async () => {
      t = await buildSyncTestApp();
      const hash = await t.upload('x');
      const { results } = await t.commit('Pixel 8', [
        { path: 'X.md', file_id: 'nosuchfile', base: hash, hash },
        { file_id: 'nosuchfile', base: hash, delete: true },
        { path: 'Y.md', base: null, hash },
      ]);
      expect(results[0]).toMatchObject({
        status: 'rejected',
        error: { code: 'UNKNOWN_FILE_ID', field: 'ops[0].file_id' },
      });
      expect(results[1]).toMatchObject({
        status: 'rejected',
        error: { code: 'UNKNOWN_FILE_ID', field: 'ops[1].file_id' },
      });
      expect(results[2]).toMatchObject({ status: 'accepted', path: 'Y.md' });
    });

    it('rejects a put whose bytes were never uploaded', async () => {
      t = await buildSyncTestApp();
      const hash = hashOf('never sent');
      const { results } = await t.commit('Pixel 8', [{ path: 'X.md', base: null, hash }]);
      expect(results[0]).toMatchObject({
        status: 'rejected',
        error: { code: 'BLOB_MISSING', field: 'ops[0].hash' },
      });
      expect(existsSync(join(t.vault, 'X.md'))).toBe(false);
    });

    it.each([
      ['a/../../escape.md', 'ops[0].path'],
      ['.obsidian/plugins/cairn/data.json', 'ops[0].path'],
      ['Notes/what?.md', 'ops[0].path'],
      ['CON.md', 'ops[0].path'],
    ])('refuses the path %s, naming the field', async (path, field) => {
      t = await buildSyncTestApp();
      const hash = await t.upload('x');
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/sync/commit',
        headers: authorized,
        payload: { device: 'Pixel 8', ops: [{ path, base: null, hash }] },
      });
      if (response.statusCode === 400) {
        expect(response.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
        expect((response.json() as { error: { field: string } }).error.field).toMatch(/^ops/);
      } else {
        expect(response.statusCode).toBe(200);
        expect((response.json() as { results: SyncOpResult[] }).results[0]).toMatchObject({
          status: 'rejected',
          error: { code: 'INVALID_PATH', field },
        });
      }
      expect(readdirSync(t.vault)).toEqual([]);
    });

    it('refuses the device name "server"', async () => {
      t = await buildSyncTestApp();
      const hash = await t.upload('x');
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/sync/commit',
        headers: authorized,
        payload: { device: 'server', ops: [{ path: 'X.md', base: null, hash }] },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        error: { code: 'VALIDATION_ERROR', field: 'device' },
      });
    });
  });
});

function tenMore(): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`Other ${i}.md`, `other ${i}\n`]),
  );
}
