import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncChange, SyncChangesResponse, SyncOp } from '../../../shared/protocol/sync';
import { authorized, buildSyncTestApp } from './sync-app';
import type { SyncTestApp } from './sync-app';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

async function listed(since = 0): Promise<SyncChangesResponse> {
  return (
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/changes?since=${since}`,
      headers: authorized,
    })
  ).json() as SyncChangesResponse;
}

async function file(path: string): Promise<SyncChange> {
  const found = (await listed()).changes.find((change) => change.path === path);
  if (!found) throw new Error(`no ${path}`);
  return found;
}

describe('idempotent commits', () => {
  it('the same device sending the same ops twice has the effect of once, and gets the same answer', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'one\n' } });
    const a = await file('a.md');
    const hash = await t.upload('one\ntwo\n');
    const ops: SyncOp[] = [
      { path: 'a.md', file_id: a.file_id, base: a.hash, hash },
      { path: 'b.md', base: null, hash },
    ];
    const first = await t.commit('Pixel 8', ops);
    const head = (await listed()).next;
    const second = await t.commit('Pixel 8', ops);
    expect(second.replayed).toBe(true);
    expect(second.results).toEqual(first.results);
    expect((await listed()).next).toBe(head);
    expect(readFileSync(join(t.vault, 'a.md'), 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(join(t.vault, 'b.conflict-20261122-100000.md'))).toBe(false);
  });

  it('the same ops again after the file changed since are a new batch (an undo redone)', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'v1\n' } });
    const a = await file('a.md');
    const v2 = await t.upload('v2\n');
    const redo: SyncOp[] = [{ path: 'a.md', file_id: a.file_id, base: a.hash, hash: v2 }];
    await t.commit('Pixel 8', redo);
    await t.commit('Pixel 8', [{ path: 'a.md', file_id: a.file_id, base: v2, hash: a.hash }]);
    expect(readFileSync(join(t.vault, 'a.md'), 'utf8')).toBe('v1\n');
    const again = await t.commit('Pixel 8', redo);
    expect(again.replayed).toBe(false);
    expect(again.results[0]).toMatchObject({ status: 'accepted', hash: v2 });
    expect(readFileSync(join(t.vault, 'a.md'), 'utf8')).toBe('v2\n');
  });

  it('with a commit_id, a retry is answered from the record even after later changes', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'v1\n' } });
    const a = await file('a.md');
    const v2 = await t.upload('v2\n');
    const ops: SyncOp[] = [{ path: 'a.md', file_id: a.file_id, base: a.hash, hash: v2 }];
    const first = await t.commit('Pixel 8', ops, 'batch-0001');
    const v3 = await t.upload('v3\n');
    await t.commit('Laptop', [{ path: 'a.md', file_id: a.file_id, base: v2, hash: v3 }]);
    const retry = await t.commit('Pixel 8', ops, 'batch-0001');
    expect(retry).toEqual({ results: first.results, replayed: true });
    expect(readFileSync(join(t.vault, 'a.md'), 'utf8')).toBe('v3\n');
    const misuse = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/commit',
      headers: authorized,
      payload: {
        device: 'Pixel 8',
        commit_id: 'batch-0001',
        ops: [{ path: 'z.md', base: null, hash: v3 }],
      },
    });
    expect(misuse.statusCode).toBe(400);
    expect(misuse.json()).toMatchObject({ error: { field: 'commit_id' } });
  });

  it('replay_only answers a batch applied before, and withdraws one never applied for good', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'v1\n' } });
    const a = await file('a.md');
    const v2 = await t.upload('v2\n');
    const ops: SyncOp[] = [{ path: 'a.md', file_id: a.file_id, base: a.hash, hash: v2 }];
    const post = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/v1/sync/commit', headers: authorized, payload });
    // Applied before: its stored answer, nothing applied again.
    const first = await t.commit('Pixel 8', ops, 'batch-0001');
    const head = (await listed()).next;
    const asked = await post({
      device: 'Pixel 8',
      ops,
      commit_id: 'batch-0001',
      replay_only: true,
    });
    expect(asked.statusCode).toBe(200);
    expect(asked.json()).toEqual({ results: first.results, replayed: true });
    expect((await listed()).next).toBe(head);
    // Never applied (its request lost on the way): withdrawn, and nothing of it is written.
    const note: SyncOp[] = [{ path: 'b.md', base: null, hash: v2 }];
    const unknown = await post({
      device: 'Pixel 8',
      ops: note,
      commit_id: 'batch-0002',
      replay_only: true,
    });
    expect(unknown.statusCode).toBe(409);
    expect(unknown.json()).toMatchObject({
      error: { code: 'COMMIT_WITHDRAWN', field: 'commit_id' },
    });
    expect(existsSync(join(t.vault, 'b.md'))).toBe(false);
    // The lost request arriving late is refused the same way, and asking again too.
    const late = await post({ device: 'Pixel 8', ops: note, commit_id: 'batch-0002' });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ error: { code: 'COMMIT_WITHDRAWN' } });
    const again = await post({
      device: 'Pixel 8',
      ops: note,
      commit_id: 'batch-0002',
      replay_only: true,
    });
    expect(again.statusCode).toBe(409);
    expect(existsSync(join(t.vault, 'b.md'))).toBe(false);
    expect((await listed()).next).toBe(head);
    // replay_only names the batch by its id.
    const nameless = await post({ device: 'Pixel 8', ops: note, replay_only: true });
    expect(nameless.statusCode).toBe(400);
    expect(nameless.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', field: 'commit_id' },
    });
  });

  it('a retry after uploading missing bytes applies those ops, and keeps the other answers', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'one\n' } });
    const a = await file('a.md');
    const late = 'uploaded late\n';
    const { createHash } = await import('node:crypto');
    const lateHash = createHash('sha256').update(late).digest('hex');
    const edited = await t.upload('one\ntwo\n');
    const ops: SyncOp[] = [
      { path: 'a.md', file_id: a.file_id, base: a.hash, hash: edited },
      { path: 'late.md', base: null, hash: lateHash },
    ];
    const first = await t.commit('Pixel 8', ops);
    expect(first.results.map((result) => result.status)).toEqual(['accepted', 'rejected']);
    await t.upload(late);
    const second = await t.commit('Pixel 8', ops);
    expect(second.results[0]).toEqual(first.results[0]);
    expect(second.results[1]).toMatchObject({
      status: 'accepted',
      path: 'late.md',
      hash: lateHash,
    });
    expect(readFileSync(join(t.vault, 'late.md'), 'utf8')).toBe(late);
    expect((await t.commit('Pixel 8', ops)).replayed).toBe(true);
  });

  it('another device sending the same ops is its own commit', async () => {
    t = await buildSyncTestApp();
    const hash = await t.upload('same\n');
    const first = await t.commit('Pixel 8', [{ path: 'x.md', base: null, hash }]);
    const other = await t.commit('Laptop', [{ path: 'x.md', base: null, hash }]);
    expect(other.replayed).toBe(false);
    expect(other.results[0]).toMatchObject({
      status: 'accepted',
      file_id: (first.results[0] as { file_id: string }).file_id,
    });
  });
});

describe('mass-delete guard', () => {
  function vault(count: number): Record<string, string> {
    return Object.fromEntries(Array.from({ length: count }, (_, i) => [`n${i}.md`, `note ${i}\n`]));
  }

  it('holds a batch deleting more than 10% of the vault until the device confirms it', async () => {
    t = await buildSyncTestApp({ files: vault(20) });
    const all = (await listed()).changes;
    const ops: SyncOp[] = all
      .slice(0, 3)
      .map((change) => ({ file_id: change.file_id, base: change.hash, delete: true }));
    const held = await t.commit('Pixel 8', ops);
    expect(held.results).toHaveLength(3);
    for (const result of held.results) {
      expect(result).toMatchObject({
        status: 'held',
        reason: 'mass_delete',
        deletes: 3,
        files: 20,
      });
    }
    const hold = (held.results[0] as { hold: string }).hold;
    expect(existsSync(join(t.vault, 'n0.md'))).toBe(true);
    // A retry of the held batch is the same hold.
    expect((await t.commit('Pixel 8', ops)).results).toEqual(held.results);

    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/confirm',
      headers: authorized,
      payload: { device: 'Laptop', hold },
    });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toMatchObject({ error: { field: 'device' } });

    const confirm = async () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/sync/confirm',
        headers: authorized,
        payload: { device: 'Pixel 8', hold },
      });
    const confirmed = await confirm();
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toMatchObject({
      replayed: false,
      results: [{ status: 'accepted' }, { status: 'accepted' }, { status: 'accepted' }],
    });
    expect(existsSync(join(t.vault, 'n0.md'))).toBe(false);
    // Retries of the confirm and of the original commit answer what was done.
    expect((await confirm()).json()).toMatchObject({ replayed: true });
    expect((await t.commit('Pixel 8', ops)).results).toEqual(
      (confirmed.json() as { results: unknown[] }).results,
    );
  });

  it('holds more than 50 deletes in a large vault, lets 50 through', async () => {
    t = await buildSyncTestApp({ files: vault(600) });
    const all = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/sync/changes?since=0&limit=600',
        headers: authorized,
      })
    ).json() as SyncChangesResponse;
    const deletes = (from: number, count: number): SyncOp[] =>
      all.changes
        .slice(from, from + count)
        .map((change) => ({ file_id: change.file_id, base: change.hash, delete: true }));
    expect((await t.commit('Pixel 8', deletes(0, 51))).results[0]).toMatchObject({
      status: 'held',
    });
    expect(
      (await t.commit('Pixel 8', deletes(100, 50))).results.every((r) => r.status === 'accepted'),
    ).toBe(true);
  });

  it('one delete in a small vault is not held', async () => {
    t = await buildSyncTestApp({ files: vault(3) });
    const [first] = (await listed()).changes;
    const result = await t.commit('Pixel 8', [
      { file_id: first?.file_id ?? '', base: first?.hash ?? '', delete: true },
    ]);
    expect(result.results[0]).toMatchObject({ status: 'accepted' });
  });

  it('an unknown hold is 404 naming the field', async () => {
    t = await buildSyncTestApp();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/confirm',
      headers: authorized,
      payload: { device: 'Pixel 8', hold: 'nosuchhold' },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'hold' } });
  });
});

describe('audit log', () => {
  it('records each commit and each op, without text', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'secret words\n' } });
    const a = await file('a.md');
    const hash = await t.upload('secret words\nmore secret\n');
    await t.commit('Pixel 8', [
      { path: 'a.md', file_id: a.file_id, base: a.hash, hash },
      { file_id: 'unknown-id', base: hash, delete: true },
    ]);
    const rows = t.db
      .prepare('SELECT action, target, outcome, error_code, token_name FROM audit_log ORDER BY id')
      .all();
    expect(rows).toEqual(
      expect.arrayContaining([
        {
          action: 'sync.put',
          target: 'a.md',
          outcome: 'ok',
          error_code: null,
          token_name: 'owner',
        },
        {
          action: 'sync.delete',
          target: null,
          outcome: 'failed',
          error_code: 'UNKNOWN_FILE_ID',
          token_name: 'owner',
        },
        {
          action: 'sync.commit',
          target: null,
          outcome: 'ok',
          error_code: null,
          token_name: 'owner',
        },
      ]),
    );
    expect(JSON.stringify(rows)).not.toContain('secret');
  });
});
