import { rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncChangesResponse } from '../../../shared/protocol/sync';
import { authorized, buildSyncTestApp, hashOf } from './sync-app';
import type { SyncTestApp } from './sync-app';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

async function changes(query: string): Promise<SyncChangesResponse> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/v1/sync/changes?${query}`,
    headers: authorized,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as SyncChangesResponse;
}

function files(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`n${i}.md`, `note ${i}\n`]));
}

describe('GET /api/v1/sync/changes', () => {
  it('pages through the vault with next and more', async () => {
    t = await buildSyncTestApp({ files: files(7) });
    const seen: string[] = [];
    let since = 0;
    let pages = 0;
    for (;;) {
      const page = await changes(`since=${since}&limit=3`);
      pages++;
      seen.push(...page.changes.map((change) => change.path));
      since = page.next;
      if (!page.more) break;
    }
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(Object.keys(files(7)).sort());
    expect(since).toBe(7);
    expect((await changes(`since=${since}`)).changes).toEqual([]);
  });

  it('since=0 lists each live file once, at its latest state; later pages list the journal', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n', 'b.md': 'b\n' } });
    const before = await changes('since=0');
    const a = before.changes.find((change) => change.path === 'a.md');
    const hash = await t.upload('a2\n');
    await t.commit('Laptop', [{ path: 'a.md', file_id: a?.file_id, base: a?.hash ?? null, hash }]);
    const b = before.changes.find((change) => change.path === 'b.md');
    await t.commit('Laptop', [
      { file_id: b?.file_id ?? '', base: b?.hash ?? '', rename_to: 'c.md' },
    ]);
    const snapshot = await changes('since=0');
    expect(snapshot.changes.map((change) => [change.path, change.op])).toEqual([
      ['a.md', 'put'],
      ['c.md', 'put'],
    ]);
    const journal = await changes(`since=${before.next}`);
    expect(journal.changes.map((change) => [change.op, change.path, change.from_path])).toEqual([
      ['put', 'a.md', undefined],
      ['rename', 'c.md', 'b.md'],
    ]);
  });

  it('refuses a since ahead of the journal (a companion that lost its database)', async () => {
    t = await buildSyncTestApp({ files: files(1) });
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/changes?since=99',
      headers: authorized,
    });
    expect(response.statusCode).toBe(410);
    expect(response.json()).toMatchObject({ error: { code: 'CURSOR_EXPIRED', field: 'since' } });
  });

  it('validates its query, naming the field', async () => {
    t = await buildSyncTestApp();
    for (const [query, field] of [
      ['since=-1', 'since'],
      ['since=0&wait=31', 'wait'],
      ['since=0&limit=0', 'limit'],
      ['limit=5', 'since'],
    ] as const) {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/sync/changes?${query}`,
        headers: authorized,
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', field } });
    }
  });

  it('long poll: answers as soon as something newer exists', async () => {
    t = await buildSyncTestApp({ files: files(1) });
    const head = (await changes('since=0')).next;
    const polled = changes(`since=${head}&wait=30`);
    let answered = false;
    void polled.then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    const hash = await t.upload('new\n');
    await t.commit('Laptop', [{ path: 'new.md', base: null, hash }]);
    const page = await polled;
    expect(page.changes.map((change) => change.path)).toEqual(['new.md']);
  });

  it('long poll: answers at once when the journal is already ahead, empty when the wait ends', async () => {
    t = await buildSyncTestApp({ files: files(2) });
    expect((await changes('since=1&wait=30')).changes).toHaveLength(1);
    const empty = await changes('since=2&wait=1');
    expect(empty).toEqual({ changes: [], next: 2, more: false });
  });

  it('long poll: closing the app ends it at once', async () => {
    t = await buildSyncTestApp({ files: files(1) });
    const polled = t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/changes?since=1&wait=30',
      headers: authorized,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await t.app.close();
    const response = await polled;
    expect(response.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('changes on the companion disk', () => {
  it('are journalled as device server; an unchanged hash records nothing', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n' } });
    const head = (await changes('since=0')).next;
    t.write('a.md', 'a edited on the server\n');
    await t.sync.journal.recordDiskChange({ type: 'upsert', path: 'a.md' });
    await t.sync.journal.recordDiskChange({ type: 'upsert', path: 'a.md' });
    t.write('img/x.png', 'PNG');
    await t.sync.journal.recordDiskChange({ type: 'upsert', path: 'img/x.png' });
    unlinkSync(join(t.vault, 'a.md'));
    await t.sync.journal.recordDiskChange({ type: 'delete', path: 'a.md' });
    const listed = await changes(`since=${head}`);
    expect(listed.changes.map((change) => [change.op, change.path, change.device])).toEqual([
      ['put', 'a.md', 'server'],
      ['put', 'img/x.png', 'server'],
      ['delete', 'a.md', 'server'],
    ]);
    expect(listed.changes[0]?.hash).toBe(hashOf('a edited on the server\n'));
  });

  it("the companion's own sync writes coming back through the feed record nothing", async () => {
    t = await buildSyncTestApp();
    const hash = await t.upload('from the phone\n');
    await t.commit('Pixel 8', [{ path: 'p.md', base: null, hash }]);
    const head = (await changes('since=0')).next;
    await t.sync.journal.recordDiskChange({ type: 'upsert', path: 'p.md', hash });
    await t.sync.journal.recordDiskChange({ type: 'upsert', path: 'p.md' });
    expect((await changes(`since=${head}`)).changes).toEqual([]);
  });

  it('a delete event for a file still on disk, or hidden files, record nothing', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n' } });
    const head = (await changes('since=0')).next;
    await t.sync.journal.recordDiskChange({ type: 'delete', path: 'a.md' });
    t.write('.obsidian/workspace.json', '{}');
    await t.sync.journal.recordDiskChange({ type: 'upsert', path: '.obsidian/workspace.json' });
    expect((await changes(`since=${head}`)).changes).toEqual([]);
  });

  it('a commit sees an outside edit not yet journalled, and merges with it instead of overwriting it', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'one\ntwo\nthree\n' } });
    const [a] = (await changes('since=0')).changes;
    // An editor on the server changes the file; the feed has not reported it yet.
    writeFileSync(join(t.vault, 'a.md'), 'ONE\ntwo\nthree\n');
    const hash = await t.upload('one\ntwo\nTHREE\n');
    const { results } = await t.commit('Pixel 8', [
      { path: 'a.md', file_id: a?.file_id, base: a?.hash ?? null, hash },
    ]);
    expect(results[0]).toMatchObject({ status: 'merged' });
    const listed = await changes('since=1');
    expect(listed.changes.map((change) => change.device)).toEqual(['server', 'Pixel 8']);
  });

  it('a rescan journals what changed while the companion was down, and no deletes when the vault is gone', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n', 'b.md': 'b\n' } });
    t.write('a.md', 'a changed\n');
    unlinkSync(join(t.vault, 'b.md'));
    t.write('c.md', 'c\n');
    await t.sync.journal.rescan();
    const listed = await changes('since=2');
    expect(listed.changes.map((change) => [change.op, change.path]).sort()).toEqual([
      ['delete', 'b.md'],
      ['put', 'a.md'],
      ['put', 'c.md'],
    ]);
    rmSync(t.vault, { recursive: true, force: true });
    const before = (await changes('since=0')).next;
    expect(await t.sync.journal.rescan()).toEqual({ changed: 0 });
    expect((await changes(`since=${before}`)).changes).toEqual([]);
  });
});
