import { afterEach, describe, expect, it } from 'vitest';
import {
  SYNC_BLOB_BATCH_MAX_BYTES,
  SYNC_BLOB_BATCH_MAX_HASHES,
} from '../../../shared/protocol/sync';
import { parseBlobBatch } from '../../../shared/protocol/sync-blob-batch';
import { authorized, buildSyncTestApp, hashOf } from './sync-app';
import type { SyncTestApp } from './sync-app';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

function batch(body: unknown, headers: Record<string, string> = authorized) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/sync/blobs/batch',
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

const unknownHash = 'f'.repeat(64);

describe('POST /api/v1/sync/blobs/batch', () => {
  it('answers every hash asked for, in order, framed: the bytes, or "-" for a version not held', async () => {
    t = await buildSyncTestApp();
    const empty = await t.upload('');
    const trip = await t.upload('# Trip\n\nflight\n');
    const binary = await t.upload(new Uint8Array([0, 10, 13, 255, 45, 10]));
    const hashes = [trip, unknownHash, empty, binary];
    const response = await batch({ hashes });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    const body = response.rawPayload;
    expect(Number(response.headers['content-length'])).toBe(body.length);
    // The frames exactly as docs/sync.md spells them.
    const expected = Buffer.concat([
      Buffer.from(`${trip} 15\n# Trip\n\nflight\n`),
      Buffer.from(`${unknownHash} -\n`),
      Buffer.from(`${empty} 0\n`),
      Buffer.from(`${binary} 6\n`),
      Buffer.from([0, 10, 13, 255, 45, 10]),
    ]);
    expect(body.equals(expected)).toBe(true);
    const parsed = parseBlobBatch(new Uint8Array(body), hashes);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.blobs.get(unknownHash)).toBeNull();
    expect(hashOf(parsed.blobs.get(binary) as Uint8Array)).toBe(binary);
    expect(parsed.blobs.get(empty)?.length).toBe(0);
  });

  it('refuses a bad hash, a repeated one, none and too many, naming the field', async () => {
    t = await buildSyncTestApp();
    const good = await t.upload('a');
    for (const hashes of [
      [good, 'ABC'],
      [good, good],
      [],
      Array.from({ length: SYNC_BLOB_BATCH_MAX_HASHES + 1 }, (_, i) =>
        i.toString(16).padStart(64, '0'),
      ),
    ]) {
      const response = await batch({ hashes });
      expect(response.statusCode, JSON.stringify(hashes).slice(0, 80)).toBe(400);
      const error = (response.json() as { error: { code: string; field?: string } }).error;
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.field).toMatch(/^hashes/);
    }
    const extra = await batch({ hashes: [good], more: 1 });
    expect(extra.statusCode).toBe(400);
    expect(await batch({ hash: good })).toMatchObject({ statusCode: 400 });
  });

  it('refuses (413) blobs that add up to more than one batch answers, sending none of them', async () => {
    t = await buildSyncTestApp();
    const half = Math.floor(SYNC_BLOB_BATCH_MAX_BYTES / 2) + 1;
    const first = await t.upload(new Uint8Array(half).fill(1));
    const second = await t.upload(new Uint8Array(half).fill(2));
    expect((await batch({ hashes: [first] })).statusCode).toBe(200);
    const response = await batch({ hashes: [first, second] });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({
      error: { code: 'PAYLOAD_TOO_LARGE', field: 'hashes' },
    });
  });

  it('is a read: the audit log of writes has the upload, not the batch', async () => {
    t = await buildSyncTestApp();
    const good = await t.upload('a');
    expect((await batch({ hashes: [good] })).statusCode).toBe(200);
    const actions = t.db.prepare('SELECT action FROM audit_log ORDER BY id').all() as {
      action: string;
    }[];
    expect(actions.map((row) => row.action)).toEqual(['sync.blob']);
  });

  it('needs the sync scope', async () => {
    t = await buildSyncTestApp();
    const good = await t.upload('a');
    const response = await batch({ hashes: [good] }, {});
    expect(response.statusCode).toBe(401);
  });
});
