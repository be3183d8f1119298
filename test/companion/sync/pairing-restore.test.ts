import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../companion/auth/token-store';
import type { SyncChangesResponse, SyncCommitResponse } from '../../../shared/protocol/sync';
import { parseSyncPairingLink } from '../../../shared/protocol/sync-pairing';
import type { SyncPairResponse } from '../../../shared/protocol/sync-pairing';
import { authorized, buildSyncTestApp } from './sync-app';
import type { SyncTestApp } from './sync-app';

let t: SyncTestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function pair(app: SyncTestApp, body: object, headers = authorized) {
  return app.app.inject({ method: 'POST', url: '/api/v1/sync/devices', headers, payload: body });
}

describe('POST /api/v1/sync/devices (pairing)', () => {
  it('mints a sync token named after the device and a link that carries it', async () => {
    t = await buildSyncTestApp({ files: { 'Note.md': 'hello\n' } });
    const response = await pair(t, { device: 'Pixel 8', url: 'https://nas.tail1234.ts.net/' });
    expect(response.statusCode, response.body).toBe(201);
    const answer = response.json() as SyncPairResponse;
    expect(answer).toMatchObject({
      device: 'Pixel 8',
      token_name: 'sync-Pixel-8',
      url: 'https://nas.tail1234.ts.net',
    });
    expect(answer.warning).toBeUndefined();
    expect(answer.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const parsed = parseSyncPairingLink(answer.link);
    expect(parsed).toEqual({
      ok: true,
      pairing: { url: 'https://nas.tail1234.ts.net', token: answer.token, device: 'Pixel 8' },
    });
    // The new token syncs …
    const changes = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/changes?since=0',
      headers: { authorization: `Bearer ${answer.token}` },
    });
    expect(changes.statusCode).toBe(200);
    expect((changes.json() as SyncChangesResponse).changes.map((c) => c.path)).toEqual(['Note.md']);
    // … but cannot pair others (admin).
    const again = await pair(t, { device: 'Mallory' }, { authorization: `Bearer ${answer.token}` });
    expect(again.statusCode).toBe(403);
    expect(new TokenStore(t.db).list().map((token) => token.scopes)).toEqual([
      ['read', 'write', 'sync'],
    ]);
  });

  it('names a second device of the same name -2, and warns about plain http off this machine', async () => {
    t = await buildSyncTestApp();
    await pair(t, { device: 'Pixel 8', url: 'https://a.example' });
    const second = (
      await pair(t, { device: 'Pixel 8', url: 'http://192.168.1.20:8787' })
    ).json() as SyncPairResponse;
    expect(second.token_name).toBe('sync-Pixel-8-2');
    expect(second.warning).toMatch(/plain http.*tailscale serve/is);
    const local = (await pair(t, { device: 'Laptop' })).json() as SyncPairResponse;
    // Default: the address the request came to (inject's is localhost: no warning).
    expect(local.url).toBe('http://localhost:80');
    expect(local.warning).toBeUndefined();
  });

  it('refuses the reserved device name and unknown fields, naming the field', async () => {
    t = await buildSyncTestApp();
    const bad = await pair(t, { device: '', url: 'https://a.example' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'device' } });
  });
});

describe('POST /api/v1/sync/restore', () => {
  it('brings deleted files back with their last version, as a new commit', async () => {
    t = await buildSyncTestApp({ files: { 'A.md': 'a\n', 'Folder/B.md': 'b\n' } });
    const all = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/sync/changes?since=0',
        headers: authorized,
      })
    ).json() as SyncChangesResponse;
    const a = all.changes.find((c) => c.path === 'A.md');
    if (!a) throw new Error('A.md not journalled');
    await t.commit('Laptop', [{ file_id: a.file_id, base: a.hash, delete: true }]);
    expect(existsSync(join(t.vault, 'A.md'))).toBe(false);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/restore',
      headers: authorized,
      payload: { device: 'Pixel 8', file_ids: [a.file_id] },
    });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json() as SyncCommitResponse;
    expect(answer.results).toMatchObject([
      { status: 'accepted', file_id: a.file_id, path: 'A.md' },
    ]);
    expect(readFileSync(join(t.vault, 'A.md'), 'utf8')).toBe('a\n');
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/restore',
      headers: authorized,
      payload: { device: 'Pixel 8', file_ids: ['nope'] },
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { field: 'file_ids[0]' } });
  });

  it('puts a folder back as it was at a time, leaving files made since and other folders', async () => {
    t = await buildSyncTestApp();
    const put = async (path: string, text: string, fileId?: string, base: string | null = null) => {
      const hash = await (t as SyncTestApp).upload(text);
      const { results } = await (t as SyncTestApp).commit('Laptop', [
        fileId ? { path, file_id: fileId, base, hash } : { path, base, hash },
      ]);
      return { ...(results[0] as { file_id: string }), hash };
    };
    const b = await put('Trip/B.md', 'b1\n');
    const c = await put('Trip/C.md', 'c1\n');
    const other = await put('Home/D.md', 'd1\n');
    t.clock.advance(60_000);
    const at = new Date(t.clock.now()).toISOString();
    t.clock.advance(60_000);
    const b2 = await put('Trip/B.md', 'b2\n', b.file_id, b.hash);
    await t.commit('Laptop', [{ file_id: c.file_id, base: c.hash, delete: true }]);
    await put('Trip/New.md', 'new\n');
    await put('Home/D.md', 'd2\n', other.file_id, other.hash);
    expect(b2.hash).not.toBe(b.hash);

    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/restore',
      headers: authorized,
      payload: { device: 'Laptop', folder: 'Trip', at },
    });
    expect(response.statusCode, response.body).toBe(200);
    const read = (path: string) => readFileSync(join((t as SyncTestApp).vault, path), 'utf8');
    expect(read('Trip/B.md')).toBe('b1\n');
    expect(read('Trip/C.md')).toBe('c1\n');
    expect(read('Trip/New.md')).toBe('new\n');
    expect(read('Home/D.md')).toBe('d2\n');
    const missingAt = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/restore',
      headers: authorized,
      payload: { device: 'Laptop', folder: 'Trip' },
    });
    expect(missingAt.statusCode).toBe(400);
    expect(missingAt.json()).toMatchObject({ error: { field: 'at' } });
  });
});

describe('POST /api/v1/sync/unpair', () => {
  it('revokes the device’s own token and forgets its bases; the token then stops working', async () => {
    t = await buildSyncTestApp({ files: { 'Note.md': 'hello\n' } });
    const paired = (await pair(t, { device: 'Pixel 8' })).json() as SyncPairResponse;
    const device = { authorization: `Bearer ${paired.token}` };
    // The device syncs, so the companion keeps what it holds as merge bases.
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/changes?since=0&device=Pixel%208',
      headers: device,
    });
    t.sync.store.touchDevice('Pixel 8');
    const devices = () =>
      t!.db.prepare('SELECT name FROM sync_devices ORDER BY name').all() as { name: string }[];
    expect(devices()).toEqual([{ name: 'Pixel 8' }]);

    const unpair = () =>
      t!.app.inject({
        method: 'POST',
        url: '/api/v1/sync/unpair',
        headers: device,
        payload: { device: 'Pixel 8' },
      });
    const first = await unpair();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({
      device: 'Pixel 8',
      token_name: 'sync-Pixel-8',
      token_revoked: true,
    });
    expect(new TokenStore(t.db).list()).toEqual([]);
    expect(devices()).toEqual([]);
    // The token no longer works, so its retry is refused like any revoked token.
    expect((await unpair()).statusCode).toBe(401);
    const audit = t.db
      .prepare(`SELECT action, token_name, outcome FROM audit_log WHERE action = 'sync.unpair'`)
      .all();
    expect(audit).toEqual([{ action: 'sync.unpair', token_name: 'sync-Pixel-8', outcome: 'ok' }]);
  });

  it('keeps the owner token: the companion stands on it', async () => {
    t = await buildSyncTestApp();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/unpair',
      headers: authorized,
      payload: { device: 'MacBook' },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      device: 'MacBook',
      token_name: 'owner',
      token_revoked: false,
    });
    const still = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/changes?since=0',
      headers: authorized,
    });
    expect(still.statusCode).toBe(200);
  });

  it('needs the sync scope and a device name', async () => {
    t = await buildSyncTestApp();
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/unpair',
      headers: authorized,
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect((missing.json() as { error: { field?: string } }).error.field).toBe('device');
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sync/unpair',
      payload: { device: 'MacBook' },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
