// @vitest-environment node
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstSyncPlan } from '../../../plugin/sync/first-sync-plan';
import { CompanionSyncClient } from '../../../plugin/sync/sync-client';
import { scopeExcluding, scopeWidened } from '../../../plugin/sync/sync-scope';
import { TEST_TOKEN } from '../../companion/helpers/app';
import { authorized, buildSyncTestApp } from '../../companion/sync/sync-app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import { testDevice } from './sync-device';
import type { TestDevice } from './sync-device';

let t: SyncTestApp;
let opened = false;
afterEach(async () => {
  if (opened) await t.close();
  opened = false;
});

/**
 * The companion with `files` and 40 more notes, so that a few deletes are under the mass-delete
 * guard's limits and would go through (a held batch would hide them).
 */
async function companion(files: Record<string, string>): Promise<SyncTestApp> {
  opened = true;
  const more = Object.fromEntries(
    Array.from({ length: 40 }, (_, index) => [`Daily/${index}.md`, `day ${index}\n`]),
  );
  return buildSyncTestApp({ files: { ...files, ...more } });
}

/** The paths outside `Daily/`. */
function own(device: TestDevice): string[] {
  return device.vault.paths().filter((path) => !path.startsWith('Daily/'));
}

const NOTE = '# Old trip\n\nline one\nline two\n';

function onDisk(path: string): string | undefined {
  const absolute = join(t.vault, path);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : undefined;
}

/** Every delete the companion journalled (the trash), whichever device sent it. */
async function trashed(): Promise<string[]> {
  const response = await t.app.inject({
    method: 'GET',
    url: '/api/v1/sync/trash',
    headers: authorized,
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as { files: { path: string }[] }).files.map((file) => file.path);
}

async function excluding(device: TestDevice, folders: string[], widened = false): Promise<void> {
  await device.engine.setScope(scopeExcluding(folders), { widened });
}

describe('scopeExcluding', () => {
  it('leaves out the files under a folder, whatever the slashes and letter case', () => {
    const scope = scopeExcluding([' /Archive/ ', '', 'Media/Big']);
    expect(scope.includes('Archive/2020/a.md')).toBe(false);
    expect(scope.includes('archive/b.md')).toBe(false);
    expect(scope.includes('Media/Big/v.mp4')).toBe(false);
    expect(scope.includes('Archive.md')).toBe(true);
    expect(scope.includes('Archived/c.md')).toBe(true);
    expect(scope.includes('Media/small.png')).toBe(true);
  });

  it('says when a folder is synced again', () => {
    expect(scopeWidened(['Archive', 'Media'], ['Media'])).toBe(true);
    expect(scopeWidened(['Archive'], ['archive/', 'Media'])).toBe(false);
    expect(scopeWidened([], ['Archive'])).toBe(false);
  });
});

describe('SyncEngine with folders this device does not sync', () => {
  it('neither downloads nor uploads files under an excluded folder', async () => {
    t = await companion({ 'Trip.md': NOTE, 'Archive/2020.md': NOTE });
    const phone = testDevice(t, 'Pixel 8');
    await excluding(phone, ['Archive']);
    phone.vault.userWrite('Archive/phone-only.md', 'kept on the phone\n');
    phone.vault.userWrite('Notes/new.md', 'a new note\n');
    await phone.engine.sync();
    expect(own(phone)).toEqual(['Archive/phone-only.md', 'Notes/new.md', 'Trip.md']);
    expect(onDisk('Notes/new.md')).toBe('a new note\n');
    expect(onDisk('Archive/phone-only.md')).toBeUndefined();
    expect(onDisk('Archive/2020.md')).toBe(NOTE);
  });

  it('keeps excluded folders out of the first-sync plan', async () => {
    t = await companion({ 'Trip.md': NOTE, 'Archive/2020.md': NOTE });
    const phone = testDevice(t, 'Pixel 8');
    phone.vault.userWrite('Archive/phone-only.md', 'kept on the phone\n');
    phone.vault.userWrite('Trip.md', NOTE);
    const api = new CompanionSyncClient(
      phone.transport,
      () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
      () => phone.name,
    );
    const plan = await firstSyncPlan(phone.vault, api, undefined, scopeExcluding(['Archive']));
    expect(plan.identical.paths).toEqual(['Trip.md']);
    expect(plan.download.count).toBe(40);
    expect(plan.upload.count).toBe(0);
    expect(plan.conflict.count).toBe(0);
  });

  it('never turns a left-out folder into deletes, here or anywhere', async () => {
    const files = { 'Trip.md': NOTE, 'Archive/a.md': NOTE, 'Archive/b.md': NOTE };
    t = await companion({ ...files, 'Archive/c.md': NOTE });
    const phone = testDevice(t, 'Pixel 8');
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    expect(phone.vault.has('Archive/a.md')).toBe(true);

    // The phone leaves Archive out, then frees space by removing files there.
    await excluding(phone, ['Archive']);
    expect(phone.vault.userDelete('Archive/a.md')).toBe(true);
    expect(phone.vault.userDelete('Archive/c.md')).toBe(true);
    // Meanwhile the laptop edits and deletes there.
    laptop.vault.userWrite('Archive/b.md', `${NOTE}from the laptop\n`);
    laptop.vault.userWrite('Trip.md', `${NOTE}trip edit\n`);
    await laptop.engine.sync();
    await phone.engine.sync();
    await phone.engine.sync();

    expect(await trashed()).toEqual([]);
    expect(onDisk('Archive/a.md')).toBe(NOTE);
    expect(onDisk('Archive/c.md')).toBe(NOTE);
    // What happens in Archive does not reach the phone; the rest does.
    expect(phone.vault.text('Archive/b.md')).toBe(NOTE);
    expect(phone.vault.text('Trip.md')).toBe(`${NOTE}trip edit\n`);
    await laptop.engine.sync();
    expect(own(laptop)).toEqual(['Archive/a.md', 'Archive/b.md', 'Archive/c.md', 'Trip.md']);

    // A delete on the laptop does not reach the phone's left-out copy either.
    expect(laptop.vault.userDelete('Archive/b.md')).toBe(true);
    await laptop.engine.sync();
    await phone.engine.sync();
    expect(phone.vault.text('Archive/b.md')).toBe(NOTE);
    expect(await trashed()).toEqual(['Archive/b.md']);
  });

  it('leaves a file moved into a left-out folder where it was on the companion', async () => {
    t = await companion({ 'Trip.md': NOTE, 'Done/old.md': NOTE });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    await excluding(phone, ['Archive']);
    expect(phone.vault.userRename('Done/old.md', 'Archive/old.md')).toBe(true);
    await phone.engine.sync();
    expect(onDisk('Done/old.md')).toBe(NOTE);
    expect(onDisk('Archive/old.md')).toBeUndefined();
    expect(await trashed()).toEqual([]);
    expect(phone.vault.text('Archive/old.md')).toBe(NOTE);
    expect(phone.vault.has('Done/old.md')).toBe(false);
  });

  it('brings a folder back when it is synced again, deleting nothing', async () => {
    const files = { 'Trip.md': NOTE, 'Archive/a.md': NOTE, 'Archive/b.md': NOTE };
    t = await companion({ ...files, 'Archive/c.md': NOTE });
    const phone = testDevice(t, 'Pixel 8');
    const laptop = testDevice(t, 'MacBook');
    await phone.engine.sync();
    await laptop.engine.sync();
    await excluding(phone, ['Archive']);
    phone.vault.userDelete('Archive/a.md');
    phone.vault.userWrite('Archive/b.md', `${NOTE}from the phone\n`);
    phone.vault.userWrite('Archive/new.md', 'written while left out\n');
    laptop.vault.userWrite('Archive/c.md', `${NOTE}from the laptop\n`);
    laptop.vault.userWrite('Archive/laptop.md', 'new on the laptop\n');
    await laptop.engine.sync();
    await phone.engine.sync();

    await excluding(phone, [], true);
    await phone.engine.sync();
    await laptop.engine.sync();

    expect(await trashed()).toEqual([]);
    const expected = {
      'Archive/a.md': NOTE,
      'Archive/b.md': `${NOTE}from the phone\n`,
      'Archive/c.md': `${NOTE}from the laptop\n`,
      'Archive/laptop.md': 'new on the laptop\n',
      'Archive/new.md': 'written while left out\n',
      'Trip.md': NOTE,
    };
    for (const [path, text] of Object.entries(expected)) {
      expect(phone.vault.text(path), path).toBe(text);
      expect(laptop.vault.text(path), path).toBe(text);
      expect(onDisk(path), path).toBe(text);
    }
    expect(own(phone)).toEqual(Object.keys(expected));
    expect(phone.events.some((event) => event.kind === 'conflict')).toBe(false);
  });
});
