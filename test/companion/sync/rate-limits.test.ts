import { afterEach, describe, expect, it } from 'vitest';
import { buildSyncTestApp, hashOf } from './sync-app';
import type { SyncTestApp } from './sync-app';
import { authorized } from '../helpers/app';

/*
 * The sync routes' rate limits (companion/http/rate-limits.ts, docs/sync.md "Rate limits"): the
 * blobs on one budget, every other sync route on another, per token and per address, answered
 * 429 in Cairn's envelope with Retry-After, on the app's clock.
 */
let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const NOTE = '# Trip\n\nflight\n';

function changes(remoteAddress = '127.0.0.1') {
  return t.app.inject({
    method: 'GET',
    url: '/api/v1/sync/changes?since=0',
    headers: authorized,
    remoteAddress,
  });
}

function blob(remoteAddress = '127.0.0.1') {
  return t.app.inject({
    method: 'GET',
    url: `/api/v1/sync/blobs/${hashOf(NOTE)}`,
    headers: authorized,
    remoteAddress,
  });
}

describe('rate limits on /api/v1/sync', () => {
  it('limits a token on each budget with 429, RATE_LIMITED and Retry-After, until the window ends', async () => {
    t = await buildSyncTestApp({
      files: { 'Trip.md': NOTE },
      rateLimits: {
        sync: { perToken: 2, perAddress: 100, windowMs: 60_000 },
        syncBlobs: { perToken: 3, perAddress: 100, windowMs: 60_000 },
      },
    });
    expect((await changes('10.0.0.1')).statusCode).toBe(200);
    expect((await changes('10.0.0.2')).statusCode).toBe(200);
    const limited = await changes('10.0.0.3');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/sync requests from this token/) as unknown,
      },
    });
    expect(limited.headers['retry-after']).toBe('60');
    // The blobs have a budget of their own.
    for (let i = 0; i < 3; i++) expect((await blob()).statusCode).toBe(200);
    const blobLimited = await blob();
    expect(blobLimited.statusCode).toBe(429);
    expect(blobLimited.json().error.message).toMatch(/syncBlobs requests from this token/);
    t.clock.advance(30_000);
    expect((await changes()).headers['retry-after']).toBe('30');
    t.clock.advance(30_000);
    expect((await changes()).statusCode).toBe(200);
    expect((await blob()).statusCode).toBe(200);
  });

  it('limits one address whatever its tokens, leaving other addresses alone', async () => {
    t = await buildSyncTestApp({
      files: { 'Trip.md': NOTE },
      rateLimits: { sync: { perToken: 100, perAddress: 2, windowMs: 60_000 } },
    });
    expect((await changes('10.0.0.1')).statusCode).toBe(200);
    expect((await changes('10.0.0.1')).statusCode).toBe(200);
    const limited = await changes('10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.message).toMatch(/sync requests from this address/);
    expect((await changes('10.0.0.2')).statusCode).toBe(200);
  });

  it('a commit past the limit applies nothing', async () => {
    t = await buildSyncTestApp({
      files: { 'Trip.md': NOTE },
      rateLimits: { sync: { perToken: 1, perAddress: 100, windowMs: 60_000 } },
    });
    const hash = await t.upload('- passport\n');
    expect((await changes()).statusCode).toBe(200);
    const head = t.sync.store.head();
    const commit = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/sync/commit',
        headers: authorized,
        payload: { device: 'Pixel 8', ops: [{ path: 'Packing.md', base: null, hash }] },
      });
    const limited = await commit();
    expect(limited.statusCode).toBe(429);
    expect(t.sync.store.head()).toBe(head);
    t.clock.advance(60_000);
    const accepted = await commit();
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().results[0].status).toBe('accepted');
    expect(t.sync.store.head()).toBe(head + 1);
  });
});
