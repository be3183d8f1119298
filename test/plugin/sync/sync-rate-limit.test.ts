// @vitest-environment node
/*
 * The sync routes' rate limits (companion/http/rate-limits.ts, docs/sync.md "Rate limits") as a
 * device meets them: the real engine and runner against the real app with small limits, on the
 * app's injected clock (the limiter counts on it). A 429 stops the pass; nothing is lost, sent
 * twice or reordered; the runner waits the Retry-After the companion gave, without growing its
 * back-off.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CompanionSyncClient, SyncRequestError } from '../../../plugin/sync/sync-client';
import { SyncRunner } from '../../../plugin/sync/sync-runner';
import type { SyncTimers } from '../../../plugin/sync/sync-runner';
import { TEST_TOKEN } from '../../companion/helpers/app';
import { buildSyncTestApp } from '../../companion/sync/sync-app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import { testDevice } from './sync-device';
import type { TestDevice } from './sync-device';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const NOTES = Object.fromEntries(
  Array.from({ length: 8 }, (_, i) => [`Notes/N${i}.md`, `# Note ${i}\n\nline of ${i}\n`]),
);

/** One pass; the RATE_LIMITED error it stopped on, or null when it went through. */
async function passOrLimit(device: TestDevice): Promise<SyncRequestError | null> {
  try {
    await device.engine.sync();
    return null;
  } catch (error) {
    if (error instanceof SyncRequestError && error.code === 'RATE_LIMITED') return error;
    throw error;
  }
}

/** How long the runner's passes may take on a loaded machine (they are real requests). */
const WAIT = { timeout: 20_000, interval: 20 };

function companionText(path: string): string {
  return readFileSync(join(t.vault, path), 'utf8');
}

describe('a device meeting the sync rate limits', () => {
  it('a first sync cut by the blob limit resumes after Retry-After with every file once', async () => {
    t = await buildSyncTestApp({
      files: NOTES,
      rateLimits: { syncBlobs: { perToken: 1, perAddress: 100, windowMs: 60_000 } },
    });
    // Three batches (`POST blobs/batch` of 3, 3 and 2 blobs), one a minute.
    const phone = testDevice(t, 'Pixel 8', { engine: { blobsPerBatch: 3 } });
    const limited: SyncRequestError[] = [];
    for (let pass = 0; pass < 10; pass++) {
      const error = await passOrLimit(phone);
      if (error === null) break;
      limited.push(error);
      // What it has so far is the companion's, byte for byte.
      for (const path of phone.vault.paths()) expect(phone.vault.text(path)).toBe(NOTES[path]);
      t.clock.advance(error.retryAfterMs ?? 0);
    }
    expect(limited.length).toBe(2);
    expect(limited[0]!.status).toBe(429);
    expect(limited[0]!.apiCode).toBe('RATE_LIMITED');
    expect(limited[0]!.retryAfterMs).toBe(60_000);
    expect(phone.vault.paths()).toEqual(Object.keys(NOTES).sort());
    for (const [path, text] of Object.entries(NOTES)) expect(phone.vault.text(path)).toBe(text);
    // Nothing was committed by the device: a download is never an edit.
    expect(t.sync.store.head()).toBe(Object.keys(NOTES).length);
  });

  it('a commit answered 429 is sent again as it was: applied once, in order', async () => {
    t = await buildSyncTestApp({
      files: { 'Trip.md': '# Trip\n\nflight\n' },
      rateLimits: { sync: { perToken: 1, perAddress: 100, windowMs: 60_000 } },
    });
    const phone = testDevice(t, 'Pixel 8');
    expect(await passOrLimit(phone)).toBeNull(); // one GET changes
    t.clock.advance(60_000);
    phone.vault.userWrite('Trip.md', '# Trip\n\nflight\nhotel\n');
    phone.vault.userWrite('Packing.md', '- passport\n');
    const headBefore = t.sync.store.head();
    // GET changes, the uploads (their own budget), then POST commit: 429.
    const first = await passOrLimit(phone);
    expect(first?.retryAfterMs).toBe(60_000);
    expect(t.sync.store.head()).toBe(headBefore);
    const pending = await phone.store.getPendingCommit();
    expect(pending?.items.map((item) => item.record.path).sort()).toEqual([
      'Packing.md',
      'Trip.md',
    ]);
    // Refused, so known to be unapplied: sent again whole, not only asked for.
    expect(pending?.refused).toBe(true);
    t.clock.advance(60_000);
    let passes = 0;
    let limited = 1;
    for (; passes < 10; passes++) {
      const error = await passOrLimit(phone);
      if (error === null) break;
      limited++;
      t.clock.advance(error.retryAfterMs ?? 0);
    }
    expect(limited).toBeGreaterThan(0);
    expect(passes).toBeLessThan(10);
    expect(companionText('Trip.md')).toBe('# Trip\n\nflight\nhotel\n');
    expect(companionText('Packing.md')).toBe('- passport\n');
    // One commit of two ops: two journal entries, whatever the retries.
    expect(t.sync.store.head()).toBe(headBefore + 2);
    expect(await phone.store.getPendingCommit()).toBeUndefined();
  });

  it('the runner waits the Retry-After the companion gave, and does not grow it', async () => {
    t = await buildSyncTestApp({
      files: NOTES,
      rateLimits: { syncBlobs: { perToken: 1, perAddress: 100, windowMs: 30_000 } },
    });
    const phone = testDevice(t, 'Pixel 8', { engine: { blobsPerBatch: 3 } });
    const scheduled: { callback: () => void; ms: number; id: number }[] = [];
    let ids = 0;
    const timers: SyncTimers = {
      setTimeout: (callback, ms) => {
        scheduled.push({ callback, ms, id: ++ids });
        return ids;
      },
      clearTimeout: (id) => {
        const at = scheduled.findIndex((timer) => timer.id === id);
        if (at >= 0) scheduled.splice(at, 1);
      },
    };
    const retried: unknown[] = [];
    const api = new CompanionSyncClient(
      phone.transport,
      () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
      () => phone.name,
    );
    const runner = new SyncRunner(phone.engine, api, timers, {
      backoffMs: 5000,
      onRetry: (error) => retried.push(error),
    });
    try {
      runner.start();
      const delays: number[] = [];
      for (let round = 0; round < 2; round++) {
        await vi.waitFor(() => expect(scheduled.length).toBe(1), WAIT);
        const timer = scheduled.shift()!;
        delays.push(timer.ms);
        t.clock.advance(timer.ms);
        timer.callback();
      }
      await vi.waitFor(() => expect(phone.vault.paths().length).toBe(8), WAIT);
      expect(delays).toEqual([30_000, 30_000]);
      expect(retried.every((error) => (error as SyncRequestError).code === 'RATE_LIMITED')).toBe(
        true,
      );
    } finally {
      runner.stop();
    }
  });
});
