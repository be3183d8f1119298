import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenStore } from '../../../companion/auth/token-store';
import { authorized, buildSyncTestApp, hashOf } from './sync-app';
import type { SyncTestApp } from './sync-app';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const octets = { ...authorized, 'content-type': 'application/octet-stream' };

function put(hash: string, body: Buffer | string, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'PUT',
    url: `/api/v1/sync/blobs/${hash}`,
    headers: { ...octets, ...headers },
    payload: Buffer.from(body),
  });
}

describe('PUT/GET /api/v1/sync/blobs/:hash', () => {
  it('stores bytes under their hash (201), knows them again (200), serves them and ranges of them', async () => {
    t = await buildSyncTestApp();
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const hash = hashOf(bytes);
    const first = await put(hash, bytes);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ hash, received: 1000, complete: true });
    expect(existsSync(join(t.dataDir, 'sync-blobs', hash.slice(0, 2), hash))).toBe(true);
    expect((await put(hash, bytes)).statusCode).toBe(200);

    const whole = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/blobs/${hash}`,
      headers: authorized,
    });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    expect(whole.headers['accept-ranges']).toBe('bytes');

    const part = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/blobs/${hash}`,
      headers: { ...authorized, range: 'bytes=100-199' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(part.rawPayload.equals(bytes.subarray(100, 200))).toBe(true);

    const tail = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/blobs/${hash}`,
      headers: { ...authorized, range: 'bytes=-10' },
    });
    expect(tail.rawPayload.equals(bytes.subarray(990))).toBe(true);

    const outside = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/blobs/${hash}`,
      headers: { ...authorized, range: 'bytes=5000-' },
    });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe('bytes */1000');
  });

  it('answers 404 naming the hash for bytes it does not hold', async () => {
    t = await buildSyncTestApp();
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/blobs/${hashOf('nothing')}`,
      headers: authorized,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'hash' } });
  });

  it('refuses bytes that do not hash to the name, keeping nothing', async () => {
    t = await buildSyncTestApp();
    const response = await put(hashOf('expected'), 'something else');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', field: 'hash' } });
    expect(readdirSync(join(t.dataDir, 'sync-blobs')).sort()).toEqual(['partial', 'tmp']);
    expect(readdirSync(join(t.dataDir, 'sync-blobs', 'tmp'))).toEqual([]);
  });

  it('refuses a malformed hash in the URL', async () => {
    t = await buildSyncTestApp();
    const response = await put('ABC', 'x');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { field: 'hash' } });
  });

  it('refuses a file over the size limit with 413, declared or streamed', async () => {
    t = await buildSyncTestApp({ sync: { maxFileBytes: 4096 } });
    const big = Buffer.alloc(5000, 7);
    const response = await put(hashOf(big), big);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const declared = await put(hashOf(big), big.subarray(0, 10), {
      'content-range': 'bytes 0-9/5000',
    });
    expect(declared.statusCode).toBe(413);
  });

  it('takes bodies above the JSON body limit, streamed', async () => {
    t = await buildSyncTestApp();
    const big = Buffer.alloc(3 * 1024 * 1024, 1);
    const response = await put(hashOf(big), big);
    expect(response.statusCode).toBe(201);
  });

  it('resumes an upload in Content-Range parts and checks the whole at the end', async () => {
    t = await buildSyncTestApp();
    const bytes = Buffer.from('0123456789abcdefghij');
    const hash = hashOf(bytes);
    const first = await put(hash, bytes.subarray(0, 8), { 'content-range': 'bytes 0-7/20' });
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ hash, received: 8, complete: false });

    const status = await put(hash, '', { 'content-range': 'bytes */20' });
    expect(status.statusCode).toBe(202);
    expect(status.json()).toMatchObject({ received: 8 });

    const gap = await put(hash, bytes.subarray(10, 20), { 'content-range': 'bytes 10-19/20' });
    expect(gap.statusCode).toBe(409);
    expect(gap.json()).toMatchObject({ error: { code: 'CONFLICT', field: 'content-range' } });
    expect(gap.headers['upload-offset']).toBe('8');

    const last = await put(hash, bytes.subarray(8), { 'content-range': 'bytes 8-19/20' });
    expect(last.statusCode).toBe(201);
    expect(last.json()).toEqual({ hash, received: 20, complete: true });
    const back = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/blobs/${hash}`,
      headers: authorized,
    });
    expect(back.rawPayload.equals(bytes)).toBe(true);
  });

  it('drops a resumed upload whose whole does not match its hash', async () => {
    t = await buildSyncTestApp();
    const hash = hashOf('the real bytes');
    expect((await put(hash, 'the fake', { 'content-range': 'bytes 0-7/14' })).statusCode).toBe(202);
    const last = await put(hash, ' bytes', { 'content-range': 'bytes 8-13/14' });
    expect(last.statusCode).toBe(400);
    expect(last.json()).toMatchObject({ error: { field: 'hash' } });
    expect((await put(hash, '', { 'content-range': 'bytes */14' })).json()).toMatchObject({
      received: 0,
    });
  });

  it('keeps nothing of an upload cut off mid-way', async () => {
    t = await buildSyncTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const bytes = Buffer.alloc(200_000, 3);
    const hash = hashOf(bytes);
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `PUT /api/v1/sync/blobs/${hash} HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorized.authorization}\r\n` +
            `Content-Type: application/octet-stream\r\nContent-Length: ${bytes.length}\r\n\r\n`,
        );
        socket.write(bytes.subarray(0, 50_000), () => {
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 100);
        });
      });
    });
    // The server notices the cut and cleans up.
    for (let i = 0; i < 50 && readdirSync(join(t.dataDir, 'sync-blobs', 'tmp')).length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(readdirSync(join(t.dataDir, 'sync-blobs', 'tmp'))).toEqual([]);
    expect(existsSync(join(t.dataDir, 'sync-blobs', hash.slice(0, 2), hash))).toBe(false);
  });

  it('needs the sync scope (403 naming it) on every sync route', async () => {
    t = await buildSyncTestApp();
    const { token } = new TokenStore(t.db).create('phone', ['read', 'write'], t.clock.now());
    const phone = { authorization: `Bearer ${token}` };
    const hash = hashOf('x');
    for (const [method, url] of [
      ['GET', '/api/v1/sync/changes?since=0'],
      ['GET', `/api/v1/sync/blobs/${hash}`],
      ['PUT', `/api/v1/sync/blobs/${hash}`],
      ['POST', '/api/v1/sync/commit'],
      ['POST', '/api/v1/sync/confirm'],
      ['GET', '/api/v1/sync/history?path=a.md'],
      ['GET', '/api/v1/sync/trash'],
    ] as const) {
      const response = await t.app.inject({
        method,
        url,
        headers: phone,
        payload: method === 'GET' ? undefined : 'x',
      });
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
      expect((response.json() as { error: { message: string } }).error.message).toMatch(
        /needs the sync scope/,
      );
    }
    const device = new TokenStore(t.db).create('pixel', ['sync'], t.clock.now());
    const ok = await t.app.inject({
      method: 'GET',
      url: '/api/v1/sync/changes?since=0',
      headers: { authorization: `Bearer ${device.token}` },
    });
    expect(ok.statusCode).toBe(200);
  });
});
