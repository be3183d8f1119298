// @vitest-environment node
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSyncTestApp } from '../../companion/sync/sync-app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../../plugin/connection/http-transport';
import { InjectTransport } from '../../helpers/inject-transport';
import { TEST_TOKEN } from '../../companion/helpers/app';
import { CompanionSyncClient } from '../../../plugin/sync/sync-client';
import { SyncRunner } from '../../../plugin/sync/sync-runner';
import { intercept, testDevice } from './sync-device';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const NOTE = '# Trip\n\nline one\nline two\nline three\nline four\nline five\n';

function onDisk(path: string): string | undefined {
  const absolute = join(t.vault, path);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : undefined;
}

describe('SyncEngine against the real companion', () => {
  it('brings the companion’s files to an empty device on its first pull', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE, 'img/a.png': 'PNG' } });
    const phone = testDevice(t, 'Pixel 8');
    let landed = false;
    void phone.engine.firstPullDone.then(() => (landed = true));
    await phone.engine.sync();
    expect(landed).toBe(true);
    expect(phone.vault.paths()).toEqual(['Trip.md', 'img/a.png']);
    expect(phone.vault.text('Trip.md')).toBe(NOTE);
    expect(await phone.engine.seq()).toBe(2);
  });

  it('commits a local edit, which reaches the companion’s disk and another device', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const phone = testDevice(t, 'Pixel 8');
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    phone.vault.userWrite('Trip.md', `${NOTE}from the phone\n`);
    phone.vault.userWrite('New.md', 'a new note\n');
    await phone.engine.sync();
    expect(onDisk('Trip.md')).toBe(`${NOTE}from the phone\n`);
    expect(onDisk('New.md')).toBe('a new note\n');
    await laptop.engine.sync();
    expect(laptop.vault.text('Trip.md')).toBe(`${NOTE}from the phone\n`);
    expect(laptop.vault.text('New.md')).toBe('a new note\n');
  });

  it('merges edits of different lines made on two devices, with no conflict copy', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const phone = testDevice(t, 'Pixel 8');
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    phone.vault.userWrite('Trip.md', NOTE.replace('line one', 'line ONE'));
    laptop.vault.userWrite('Trip.md', NOTE.replace('line five', 'line FIVE'));
    await phone.engine.sync();
    await laptop.engine.sync();
    await phone.engine.sync();
    const merged = NOTE.replace('line one', 'line ONE').replace('line five', 'line FIVE');
    expect(onDisk('Trip.md')).toBe(merged);
    expect(laptop.vault.text('Trip.md')).toBe(merged);
    expect(phone.vault.text('Trip.md')).toBe(merged);
    expect(laptop.vault.paths()).toEqual(['Trip.md']);
    expect(laptop.events.some((event) => event.kind === 'conflict')).toBe(false);
  });

  it('keeps both versions of an overlapping edit: the companion’s at the path, ours beside it', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const phone = testDevice(t, 'Pixel 8');
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    phone.vault.userWrite('Trip.md', NOTE.replace('line two', 'line two, the phone'));
    laptop.vault.userWrite('Trip.md', NOTE.replace('line two', 'line two, the laptop'));
    await phone.engine.sync();
    await laptop.engine.sync();
    await phone.engine.sync();
    expect(laptop.vault.text('Trip.md')).toContain('line two, the phone');
    const copy = laptop.vault.paths().find((path) => path.includes('conflict'));
    expect(copy).toBeDefined();
    expect(laptop.vault.text(copy as string)).toContain('line two, the laptop');
    expect(phone.vault.paths()).toEqual(laptop.vault.paths());
    expect(phone.vault.text(copy as string)).toBe(laptop.vault.text(copy as string));
    expect(laptop.events).toContainEqual(expect.objectContaining({ kind: 'conflict' }));
  });

  it('never overwrites a file with local changes; the commit merges instead', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    t.write('Trip.md', `${NOTE}written on the server\n`);
    await t.sync.journal.rescan();
    phone.vault.userWrite('Trip.md', `from the phone\n${NOTE}`);
    // Pull only: the local edit must survive it untouched.
    await phone.engine.pull();
    expect(phone.vault.text('Trip.md')).toBe(`from the phone\n${NOTE}`);
    await phone.engine.sync();
    const merged = `from the phone\n${NOTE}written on the server\n`;
    expect(phone.vault.text('Trip.md')).toBe(merged);
    expect(onDisk('Trip.md')).toBe(merged);
  });

  it('applies a remote delete to an unchanged copy, and lets a local edit win over it', async () => {
    // Beside 20 others, so two deletes are not a mass delete (held: see below).
    const others = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`n${index}.md`, `${index}\n`]),
    );
    t = await buildSyncTestApp({ files: { 'Keep.md': NOTE, 'Gone.md': NOTE, ...others } });
    const phone = testDevice(t, 'Pixel 8');
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    phone.vault.userDelete('Gone.md');
    phone.vault.userDelete('Keep.md');
    await phone.engine.sync();
    expect(onDisk('Gone.md')).toBeUndefined();
    laptop.vault.userWrite('Keep.md', `${NOTE}edited while the phone deleted it\n`);
    await laptop.engine.sync();
    expect(laptop.vault.has('Gone.md')).toBe(false);
    expect(laptop.vault.has('n0.md')).toBe(true);
    expect(laptop.vault.text('Keep.md')).toBe(`${NOTE}edited while the phone deleted it\n`);
    expect(onDisk('Keep.md')).toBe(`${NOTE}edited while the phone deleted it\n`);
    await phone.engine.sync();
    expect(phone.vault.text('Keep.md')).toBe(`${NOTE}edited while the phone deleted it\n`);
  });

  it('moves files by file_id, case-only renames included, on a case-insensitive device', async () => {
    t = await buildSyncTestApp({ files: { 'notes/trip.md': NOTE } });
    const phone = testDevice(t, 'iPhone', { caseInsensitive: true });
    const laptop = testDevice(t, 'Linux laptop');
    await phone.engine.sync();
    await laptop.engine.sync();
    laptop.vault.userRename('notes/trip.md', 'notes/Trip.md');
    await laptop.engine.sync();
    expect(onDisk('notes/Trip.md')).toBe(NOTE);
    await phone.engine.sync();
    expect(phone.vault.paths()).toEqual(['notes/Trip.md']);
    phone.vault.userRename('notes/Trip.md', 'travel/Trip 2026.md');
    await phone.engine.sync();
    await laptop.engine.sync();
    expect(laptop.vault.paths()).toEqual(['travel/Trip 2026.md']);
    expect(laptop.vault.text('travel/Trip 2026.md')).toBe(NOTE);
  });

  it('finds a rename made while it was not watching by the moved file’s bytes', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': NOTE } });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    phone.vault.userRename('a.md', 'b.md', { silent: true });
    phone.restart();
    await phone.engine.sync();
    expect(onDisk('a.md')).toBeUndefined();
    expect(onDisk('b.md')).toBe(NOTE);
  });

  it('is harmless to retry: a commit whose answer was lost is sent again and applied once', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const inner = new InjectTransport(() => t.app);
    let dropNextCommitAnswer = true;
    const lossy: HttpTransport = {
      async request(request: HttpRequest): Promise<HttpResponse> {
        const response = await inner.request(request);
        if (dropNextCommitAnswer && request.url.endsWith('/commit')) {
          dropNextCommitAnswer = false;
          throw new Error('connection reset');
        }
        return response;
      },
    };
    const phone = testDevice(t, 'Pixel 8', { transport: lossy });
    await phone.engine.sync();
    phone.vault.userWrite('Trip.md', `${NOTE}once\n`);
    await phone.engine.sync();
    expect(onDisk('Trip.md')).toBe(`${NOTE}once\n`);
    expect(phone.vault.paths()).toEqual(['Trip.md']);
  });

  it('recovers from a crash between "the companion committed" and "the device recorded it"', async () => {
    t = await buildSyncTestApp({ files: { 'Trip.md': NOTE } });
    const inner = new InjectTransport(() => t.app);
    let crashAfterCommit = false;
    const crashing: HttpTransport = {
      async request(request: HttpRequest): Promise<HttpResponse> {
        const response = await inner.request(request);
        if (crashAfterCommit && request.url.endsWith('/commit')) {
          crashAfterCommit = false;
          throw new Error('the app was killed');
        }
        return response;
      },
    };
    const phone = testDevice(t, 'Pixel 8', { transport: crashing });
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    phone.vault.userWrite('Trip.md', NOTE.replace('line one', 'line one, phone'));
    phone.vault.userWrite('New.md', 'new\n');
    crashAfterCommit = true;
    // Three attempts are made with one commit id; the first answer is lost, the retry is replayed.
    await phone.engine.sync();
    phone.restart();
    laptop.vault.userWrite('Trip.md', NOTE.replace('line five', 'line five, laptop'));
    await laptop.engine.sync();
    await phone.engine.sync();
    await laptop.engine.sync();
    const merged = NOTE.replace('line one', 'line one, phone').replace(
      'line five',
      'line five, laptop',
    );
    expect(onDisk('Trip.md')).toBe(merged);
    expect(phone.vault.text('Trip.md')).toBe(merged);
    expect(laptop.vault.paths()).toEqual(['New.md', 'Trip.md']);
  });

  it('holds a mass delete until the device confirms it', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 20; index++) files[`n${index}.md`] = `note ${index}\n`;
    t = await buildSyncTestApp({ files });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    for (let index = 0; index < 5; index++) phone.vault.userDelete(`n${index}.md`);
    await phone.engine.sync();
    expect(onDisk('n0.md')).toBe('note 0\n');
    const held = phone.events.find((event) => event.kind === 'held');
    expect(held).toMatchObject({ deletes: 5, files: 20 });
    // Held deletes are not sent again on every pass.
    await phone.engine.sync();
    expect(phone.events.filter((event) => event.kind === 'held')).toHaveLength(1);
    await phone.engine.confirmHold(phone.engine.pendingHolds[0] as string);
    expect(onDisk('n0.md')).toBeUndefined();
    expect(onDisk('n5.md')).toBe('note 5\n');
  });

  it('a daily note made on open after the first pull finds the one another device wrote', async () => {
    t = await buildSyncTestApp({
      files: { 'Daily/2026-11-22.md': '# Today\n\n- wrote this on the laptop\n' },
    });
    const phone = testDevice(t, 'Pixel 8');
    const opening = phone.engine.sync();
    await phone.engine.firstPullDone;
    // What the held daily-note creation does once the pull landed: create only if absent.
    if (!phone.vault.has('Daily/2026-11-22.md'))
      phone.vault.userWrite('Daily/2026-11-22.md', '# Today\n');
    await opening;
    await phone.engine.sync();
    expect(phone.vault.text('Daily/2026-11-22.md')).toBe('# Today\n\n- wrote this on the laptop\n');
    expect(phone.vault.paths()).toEqual(['Daily/2026-11-22.md']);
  });

  it('an empty daily note made before the pull gives way to the other device’s', async () => {
    t = await buildSyncTestApp({ files: { 'Daily/2026-11-22.md': '- from the laptop\n' } });
    const phone = testDevice(t, 'Pixel 8');
    phone.vault.userWrite('Daily/2026-11-22.md', '');
    await phone.engine.sync();
    await phone.engine.sync();
    expect(phone.vault.text('Daily/2026-11-22.md')).toBe('- from the laptop\n');
    expect(onDisk('Daily/2026-11-22.md')).toBe('- from the laptop\n');
    expect(phone.vault.paths()).toEqual(['Daily/2026-11-22.md']);
  });

  it('hashes a file only when an event, its size or its mtime say it may have changed', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': NOTE, 'b.md': NOTE } });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    let reads = 0;
    const read = phone.vault.read.bind(phone.vault);
    phone.vault.read = (path: string) => {
      reads++;
      return read(path);
    };
    await phone.engine.sync();
    expect(reads).toBe(0);
    // Same size, and (no event) only the mtime tells: it is read, hashed and committed.
    phone.vault.userWrite('a.md', NOTE.replace('line one', 'LINE ONE'), { silent: true });
    await phone.engine.sync();
    expect(onDisk('a.md')).toBe(NOTE.replace('line one', 'LINE ONE'));
    expect(reads).toBeGreaterThan(0);
  });

  it('a file changed on the companion’s disk by another program reaches the device', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': NOTE } });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    writeFileSync(join(t.vault, 'a.md'), `${NOTE}edited on the server\n`);
    await t.sync.journal.rescan();
    await phone.engine.sync();
    expect(phone.vault.text('a.md')).toBe(`${NOTE}edited on the server\n`);
  });
});

describe('the long poll past an entry that waits for a path', () => {
  it('waits from the end of what was listed, not from the saved position before it', async () => {
    // A remote move onto a path another file holds here waits (PATH_TAKEN), and the saved
    // position stays before it, so a crash cannot skip it. Polled from there, the companion
    // would answer at once, again and again, as long as the path stayed taken.
    t = await buildSyncTestApp({ files: { 'Meeting.md': '# Meeting\n- L1 server\n~1\n' } });
    const laptop = testDevice(t, 'MacBook');
    const phone = testDevice(t, 'Pixel 8');
    await laptop.engine.sync();
    await phone.engine.sync();
    laptop.vault.userRename('Meeting.md', 'Plan.md');
    await laptop.engine.sync();
    phone.vault.userWrite('Plan.md', '# Mine\n- L2 phone\n~2\n');
    await phone.engine.pull();
    expect(phone.vault.text('Meeting.md')).toBe('# Meeting\n- L1 server\n~1\n');
    const saved = await phone.engine.seq();
    const polledFrom = await phone.engine.pollFrom();
    expect(polledFrom).toBeGreaterThan(saved);
    const answer = await t.app.inject({
      method: 'GET',
      url: `/api/v1/sync/changes?since=${polledFrom}&device=Pixel%208&limit=1`,
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(answer.json()).toMatchObject({ changes: [] });
  });

  it('keeps the runner waiting, not asking again and again, while the path stays taken', async () => {
    // Two files whose names differ only in case are never committed (CASE_CLASH), so the
    // remote move onto one of them waits for as long as the user leaves them.
    t = await buildSyncTestApp({ files: { 'Meeting.md': '# Meeting\n- L1 server\n~1\n' } });
    const laptop = testDevice(t, 'MacBook');
    let polls = 0;
    const phone = testDevice(t, 'Linux laptop', {
      transport: intercept(t, (request, send) => {
        if (request.url.includes('wait=')) polls++;
        return send();
      }),
    });
    await laptop.engine.sync();
    await phone.engine.sync();
    laptop.vault.userRename('Meeting.md', 'Plan.md');
    await laptop.engine.sync();
    phone.vault.userWrite('Plan.md', '# Mine\n- L2 phone\n~2\n');
    phone.vault.userWrite('plan.md', '# Also mine\n- L3 phone\n~3\n');
    const api = new CompanionSyncClient(
      phone.transport,
      () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
      () => 'Linux laptop',
    );
    const timers = {
      setTimeout: (callback: () => void, ms: number) =>
        setTimeout(callback, ms) as unknown as number,
      clearTimeout: (handle: number) => clearTimeout(handle),
    };
    const runner = new SyncRunner(phone.engine, api, timers, { pollSeconds: 1 });
    runner.start();
    try {
      await expect.poll(() => polls, { timeout: 10_000 }).toBeGreaterThan(0);
      await new Promise((done) => setTimeout(done, 1_500));
    } finally {
      runner.stop();
    }
    expect(phone.vault.text('Meeting.md')).toBe('# Meeting\n- L1 server\n~1\n');
    // Each poll waits its second: two or three in 1.5 s, not one per round trip.
    expect(polls).toBeLessThanOrEqual(4);
  });
});
