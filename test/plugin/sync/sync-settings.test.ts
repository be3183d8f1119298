// @vitest-environment node
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CompanionSyncClient } from '../../../plugin/sync/sync-client';
import { SyncRunner } from '../../../plugin/sync/sync-runner';
import { syncScope } from '../../../plugin/sync/sync-scope';
import { TEST_TOKEN } from '../../companion/helpers/app';
import type { SettingsCategory } from '../../../shared/protocol/sync-settings';
import { buildSyncTestApp } from '../../companion/sync/sync-app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import { testDevice } from './sync-device';

/*
 * `.obsidian/` settings, opt-in by category per device (docs/sync.md "Settings"): the real
 * engine on in-memory vaults against the real companion.
 */
let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const scope = (...settingsCategories: SettingsCategory[]) => ({
  engine: { scope: syncScope({ excludedFolders: [], settingsCategories }) },
});

function onDisk(path: string): string | undefined {
  const absolute = join(t.vault, path);
  return existsSync(absolute) ? readFileSync(absolute, 'utf8') : undefined;
}

describe('settings sync by category', () => {
  it('carries only the enabled categories, never the never-list, only to devices that enabled them', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n' } });
    const laptop = testDevice(t, 'MacBook', scope('appearance', 'community-plugins'));
    const phone = testDevice(t, 'Pixel 8', scope('appearance'));
    const tablet = testDevice(t, 'iPad');
    for (const [path, text] of [
      ['.obsidian/appearance.json', '{"theme":"moonstone"}'],
      ['.obsidian/snippets/wide.css', '.x{}'],
      ['.obsidian/hotkeys.json', '{}'],
      ['.obsidian/workspace.json', '{"main":{}}'],
      ['.obsidian/plugins/cairn/data.json', '{"token":"laptop-secret"}'],
      ['.obsidian/plugins/dataview/main.js', 'code'],
      ['.trash/old.md', 'old'],
    ] as const)
      laptop.vault.userWrite(path, text);
    await laptop.engine.sync();
    expect(onDisk('.obsidian/appearance.json')).toBe('{"theme":"moonstone"}');
    expect(onDisk('.obsidian/snippets/wide.css')).toBe('.x{}');
    expect(onDisk('.obsidian/plugins/dataview/main.js')).toBe('code');
    for (const path of [
      '.obsidian/hotkeys.json',
      '.obsidian/workspace.json',
      '.obsidian/plugins/cairn/data.json',
      '.trash/old.md',
    ])
      expect(onDisk(path), path).toBeUndefined();
    expect(JSON.stringify(laptop.events.filter((event) => event.kind === 'problem'))).toBe('[]');

    await phone.engine.sync();
    expect(phone.vault.paths()).toEqual([
      '.obsidian/appearance.json',
      '.obsidian/snippets/wide.css',
      'a.md',
    ]);
    await tablet.engine.sync();
    expect(tablet.vault.paths()).toEqual(['a.md']);

    // An edit on the phone reaches the laptop; the tablet's own appearance stays its own.
    tablet.vault.userWrite('.obsidian/appearance.json', '{"theme":"tablet"}');
    phone.vault.userWrite('.obsidian/appearance.json', '{"theme":"obsidian"}');
    await phone.engine.sync();
    await tablet.engine.sync();
    await laptop.engine.sync();
    expect(laptop.vault.text('.obsidian/appearance.json')).toBe('{"theme":"obsidian"}');
    expect(tablet.vault.text('.obsidian/appearance.json')).toBe('{"theme":"tablet"}');
    expect(onDisk('.obsidian/appearance.json')).toBe('{"theme":"obsidian"}');
  });

  it('a device that turns a category off keeps its files and deletes nothing anywhere', async () => {
    t = await buildSyncTestApp({ files: { '.obsidian/hotkeys.json': '{"a":1}' } });
    const phone = testDevice(t, 'Pixel 8', scope('hotkeys'));
    await phone.engine.sync();
    expect(phone.vault.text('.obsidian/hotkeys.json')).toBe('{"a":1}');
    await phone.engine.setScope(syncScope({ excludedFolders: [], settingsCategories: [] }), {
      widened: false,
    });
    phone.vault.userDelete('.obsidian/hotkeys.json');
    await phone.engine.sync();
    expect(onDisk('.obsidian/hotkeys.json')).toBe('{"a":1}');
    // Turned on again: listed from the start, the companion's file comes back.
    await phone.engine.setScope(
      syncScope({ excludedFolders: [], settingsCategories: ['hotkeys'] }),
      { widened: true },
    );
    await phone.engine.sync();
    expect(phone.vault.text('.obsidian/hotkeys.json')).toBe('{"a":1}');
  });
});

describe('the long poll of a device that syncs no settings', () => {
  it('moves past settings entries it is not listed instead of asking again at once', async () => {
    t = await buildSyncTestApp({ files: { 'a.md': 'a\n' } });
    const phone = testDevice(t, 'Pixel 8');
    await phone.engine.sync();
    const before = await phone.engine.seq();
    let polls = 0;
    const api = new CompanionSyncClient(
      {
        request: (request) => {
          if (request.url.includes('wait=')) polls++;
          return phone.transport.request(request);
        },
      },
      () => ({ url: 'http://companion.test', token: TEST_TOKEN, offlineMode: false }),
      () => 'Pixel 8',
    );
    const timers = {
      setTimeout: (callback: () => void, ms: number) =>
        setTimeout(callback, ms) as unknown as number,
      clearTimeout: (handle: number) => clearTimeout(handle),
    };
    const runner = new SyncRunner(phone.engine, api, timers, { pollSeconds: 1 });
    runner.start();
    try {
      // The first pass is done and the long poll waits: then a laptop commits a settings file.
      await expect.poll(() => polls, { timeout: 10_000 }).toBeGreaterThan(0);
      const hash = await t.upload('{"theme":"moonstone"}');
      await t.commit('MacBook', [{ path: '.obsidian/appearance.json', base: null, hash }]);
      // Without moving on, every poll would answer at once with nothing, forever.
      await expect.poll(() => phone.engine.seq(), { timeout: 10_000 }).toBe(before + 1);
    } finally {
      runner.stop();
    }
    expect(phone.vault.paths()).toEqual(['a.md']);
  });
});

describe('syncScope', () => {
  it('takes .obsidian/ files of the enabled categories only, never the never-list', () => {
    const phone = syncScope({ excludedFolders: ['Archive'], settingsCategories: ['appearance'] });
    expect(phone.settings).toBe(true);
    expect(phone.includes('.obsidian/appearance.json')).toBe(true);
    expect(phone.includes('.obsidian/themes/Minimal/theme.css')).toBe(true);
    expect(phone.includes('.obsidian/hotkeys.json')).toBe(false);
    expect(phone.includes('.obsidian/workspace.json')).toBe(false);
    expect(phone.includes('.obsidian/plugins/cairn/data.json')).toBe(false);
    expect(phone.includes('.trash/a.md')).toBe(false);
    expect(phone.includes('Archive/a.md')).toBe(false);
    expect(phone.includes('Notes/a.md')).toBe(true);
    const all = syncScope({
      excludedFolders: [],
      settingsCategories: ['community-plugins', 'other'],
    });
    expect(all.includes('.obsidian/plugins/dataview/data.json')).toBe(true);
    expect(all.includes('.obsidian/plugins/cairn/data.json')).toBe(false);
    expect(all.includes('.obsidian/workspace-mobile.json')).toBe(false);
    expect(all.includes('.obsidian/app.json')).toBe(true);
  });

  it('leaves every hidden path out by default, and asks for no settings', () => {
    const none = syncScope({ excludedFolders: [], settingsCategories: [] });
    expect(none.settings).toBeUndefined();
    for (const path of ['.obsidian/app.json', '.trash/a.md', 'a/.git/config'])
      expect(none.includes(path), path).toBe(false);
    expect(none.includes('a.md')).toBe(true);
  });
});
