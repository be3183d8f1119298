// @vitest-environment node
/**
 * The reminders part of the built main.js, loaded like Obsidian loads it (the obsidian shim in
 * plain Node + happy-dom), not paired: a due reminder fires once as a Notice after layout-ready,
 * a file changed later is picked up through the metadata cache, the upcoming view lists it, a
 * restart does not fire again, and unloading releases every timer, event ref, listener, view,
 * command and the editor extension.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildPluginBundle } from '../../helpers/plugin-bundle';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createObsidianEnvironment } from '../../helpers/obsidian-shim';
import type { AppShimInstance, ObsidianEnvironment } from '../../helpers/obsidian-shim';

const OUTFILE = resolve('test-output/reminders-bundle/main.js');
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as { id: string };

let source = '';
let env: ObsidianEnvironment;
let app: AppShimInstance;

interface LoadedPlugin {
  load(): unknown;
  unload(): void;
}

async function settle(until: () => boolean, rounds = 300): Promise<void> {
  for (let round = 0; round < rounds && !until(); round++) {
    await new Promise((done) => setImmediate(done));
  }
}

/** `YYYY-MM-DD HH:mm` in UTC, `minutes` from now. */
function utcWall(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString().slice(0, 16).replace('T', ' ');
}

beforeAll(async () => {
  ({ source } = await buildPluginBundle('reminders-bundle'));
}, 60_000);

beforeEach(() => {
  env = createObsidianEnvironment(() => Promise.reject(new Error('no network in this test')));
  app = env.api.createApp();
  // Not paired: no companion URL, so the plugin fires on its own.
  app.pluginData.set(manifest.id, JSON.stringify({ settingsVersion: 1, timezone: 'UTC' }));
});

afterEach(async () => {
  await env.close();
});

function instantiatePlugin(): LoadedPlugin {
  const exports = env.loadBundle(source, OUTFILE);
  const PluginClass = (exports.default ?? exports) as new (
    app: AppShimInstance,
    manifest: unknown,
  ) => LoadedPlugin;
  return new PluginClass(app, { ...manifest, dir: '.obsidian/plugins/cairn' });
}

describe('reminders in the built main.js (not paired)', () => {
  it('fires a due reminder once, follows changes, lists upcoming, and releases everything', async () => {
    const reminderNotices = () => env.api.notices.filter((notice) => notice.startsWith('⏰'));
    app.vault.writeFile('Today.md', `- [ ] Call the bank @remind(${utcWall(-1)}) ^r-bank\n`);
    app.vault.writeFile('Done.md', `- [x] Already done @remind(${utcWall(-2)}) ^r-done\n`);

    const plugin = instantiatePlugin();
    await plugin.load();
    expect(app.editorExtensions).toHaveLength(1);
    expect(reminderNotices()).toEqual([]);

    app.workspace.triggerLayoutReady();
    await settle(() => reminderNotices().length > 0);
    expect(reminderNotices()).toHaveLength(1);
    expect(reminderNotices()[0]).toContain('Call the bank');
    // The notice carries Open / Done / Snooze (phones have no other place to act on it).
    const notice = env.api.noticeElements.find((n) => n.el.textContent?.startsWith('⏰'))!;
    const buttons = [...notice.el.querySelectorAll('button')];
    expect(buttons.map((b) => b.textContent)).toEqual(['Open', 'Done', 'Snooze 1 hour']);
    buttons[1]!.click();
    await settle(() => env.api.notices.includes('Reminder done'));
    const today = app.vault.getAbstractFileByPath('Today.md') as Parameters<
      typeof app.vault.read
    >[0];
    expect(await app.vault.read(today)).toBe(
      `- [x] Call the bank @remind(${utcWall(-1)}) ^r-bank\n`,
    );
    expect(notice.hidden).toBe(true);
    await settle(() => app.vault.adapter.files.size > 0);
    expect(
      JSON.parse(app.vault.adapter.files.get('.obsidian/plugins/cairn/fired-reminders.json')!),
    ).toHaveLength(1);

    // A note written later reaches the scheduler through the metadata cache.
    app.vault.writeFile('Later.md', `Water plants @remind(${utcWall(120)}) ^r-h2o\n`);
    await app.commands.get('cairn:show-upcoming-reminders')?.callback?.();
    await settle(() => (text('.cairn-reminders-upcoming') ?? '').includes('Water plants'));
    expect(text('.cairn-reminders-upcoming')).toContain('Water plants');
    expect(text('.cairn-reminders-upcoming')).not.toContain('Already done');
    expect(env.tracker.held().timeouts).toBeGreaterThan(0);

    plugin.unload();
    const cairnNodes = () => [...env.window.document.querySelectorAll('[class*="cairn-"]')];
    await settle(() => cairnNodes().length === 0);
    expect(env.tracker.held()).toEqual({ intervals: 0, timeouts: 0, eventRefs: 0, listeners: [] });
    expect(app.editorExtensions).toHaveLength(0);
    expect(app.commands.size).toBe(0);
    expect(app.viewRegistry.size).toBe(0);
    expect(cairnNodes()).toEqual([]);

    // A restart remembers what fired: no second notice for the same occurrence.
    const again = instantiatePlugin();
    await again.load();
    await settle(() => false, 50);
    expect(reminderNotices()).toHaveLength(1);
    again.unload();
  });
});

describe('the New reminder command in the built main.js', () => {
  it('keeps Save disabled with the reason shown until title and time read, then writes the note', async () => {
    const plugin = instantiatePlugin();
    await plugin.load();
    app.workspace.triggerLayoutReady();
    await app.commands.get('cairn:new-reminder')?.callback?.();
    const doc = env.window.document;
    const modal = doc.querySelector('.cairn-reminder-modal') as unknown as HTMLElement;
    expect(modal).not.toBeNull();
    const [title, when] = [...modal.querySelectorAll('input')] as unknown as HTMLInputElement[];
    const save = [...modal.querySelectorAll('button')].find(
      (button) => button.textContent === 'Save',
    ) as unknown as HTMLButtonElement;
    const preview = () => modal.querySelector('.cairn-reminder-preview')?.textContent ?? '';
    const type = (input: HTMLInputElement, value: string) => {
      input.value = value;
      input.dispatchEvent(new env.window.Event('input') as unknown as Event);
    };

    expect(save.disabled).toBe(true);
    expect(preview()).toBe('title: a title is required');
    type(title!, 'Call the bank');
    type(when!, 'blurgh o clock');
    expect(save.disabled).toBe(true);
    expect(preview()).toMatch(/^when: /);
    type(when!, 'in 2 hours');
    expect(save.disabled).toBe(false);
    expect(preview()).toMatch(/^Fires today \d\d:\d\d \(UTC\)$|^Fires tomorrow \d\d:\d\d \(UTC\)$/);
    // Enter saves, as the button does.
    expect(env.api.pressInOpenModal('Enter')).toBe(true);
    await settle(() => app.vault.getMarkdownFiles().length > 0 || preview().includes('Could not'));
    expect(preview()).not.toMatch(/Could not save/);
    expect(app.vault.getMarkdownFiles().map((file) => file.path)).toEqual([
      'Cairn/Reminders/call-the-bank.md',
    ]);
    const note = await app.vault.cachedRead(app.vault.getMarkdownFiles()[0]!);
    expect(note).toContain('type: reminder');
    expect(note).toContain('timezone: UTC');
    expect(env.window.document.querySelector('.cairn-reminder-modal')).toBeNull();
    plugin.unload();
  });
});

function text(selector: string): string | undefined {
  return env.window.document.querySelector(selector)?.textContent ?? undefined;
}
