import type { PluginManifest } from 'obsidian';
import { App, Plugin } from 'obsidian-test-mocks/obsidian';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalReminders } from '../../../../plugin/reminders/obsidian/reminder-runtime';
import { defaultSettings } from '../../../../shared/settings/cairn-settings';
import { ManualClock } from '../../../fakes/clock';

beforeAll(() => setup());
afterAll(() => teardown());

const manifest: PluginManifest = {
  id: 'cairn',
  name: 'Cairn',
  version: '0.1.0',
  minAppVersion: '1.8.7',
  description: 'test',
  author: 'test',
};

class TestPlugin extends Plugin {}

const notes: Record<string, string> = {
  'Tasks.md': '- [ ] Call the bank @remind(2026-12-01 09:00) ^r-bank\n',
  'Plain.md': '# Nothing to remind\n',
  'Other.md': 'Just words about a reminder.\n',
};

/** Starts the local reminders as the plugin does, and waits for the launch scan to finish. */
async function launch(app: App) {
  const plugin = new TestPlugin(app, manifest);
  // Loaded, so unloading runs the registered cleanups (the scan state's last save among them).
  plugin.load();
  const changes = vi.fn();
  const local = startLocalReminders({
    plugin: plugin.asOriginalType__() as never,
    clock: ManualClock.at('2026-11-27T10:00:00Z'),
    settings: () => defaultSettings('Europe/Berlin'),
    isPaired: () => true,
    onChange: changes,
  });
  await vi.waitFor(() => expect(changes).toHaveBeenCalled());
  return { plugin, local, changes };
}

describe('the launch reminder scan', () => {
  it('reads only the files changed since the last session', async () => {
    const app = App.createConfigured__({ files: { ...notes, '.obsidian/plugins/cairn/': '' } });
    const reads = vi.spyOn(app.vault, 'cachedRead');
    const first = await launch(app);
    expect(reads.mock.calls.map(([file]) => file.path).sort()).toEqual([
      'Other.md',
      'Plain.md',
      'Tasks.md',
    ]);
    expect(first.local.scheduler.entries().map((entry) => entry.id)).toEqual(['r-bank']);
    first.plugin.unload();

    reads.mockClear();
    const second = await launch(app);
    expect(reads.mock.calls.map(([file]) => file.path)).toEqual([]);
    expect(second.local.scheduler.entries().map((entry) => entry.id)).toEqual(['r-bank']);
    second.plugin.unload();

    const plain = app.vault.getFileByPath('Plain.md')!;
    const edited = '# Now it has one\n\n- [ ] Pay rent @remind(2026-12-02 09:00) ^r-rent\n';
    await app.vault.modify(plain, edited);
    // Obsidian updates the file's stat on a write; the mock leaves that to the test.
    plain.stat.mtime += 1_000;
    plain.stat.size = edited.length;
    reads.mockClear();
    const third = await launch(app);
    expect(reads.mock.calls.map(([file]) => file.path)).toEqual(['Plain.md']);
    expect(
      third.local.scheduler
        .entries()
        .map((entry) => entry.id)
        .sort(),
    ).toEqual(['r-bank', 'r-rent']);
    third.plugin.unload();
  });

  it('tells the views only about edits that changed a reminder', async () => {
    const app = App.createConfigured__({ files: { ...notes, '.obsidian/plugins/cairn/': '' } });
    const { plugin, changes } = await launch(app);
    changes.mockClear();
    const plain = app.vault.getFileByPath('Plain.md')!;
    app.metadataCache.trigger('changed', plain, '# Nothing to remind, still\n', {});
    expect(changes).not.toHaveBeenCalled();
    const tasks = app.vault.getFileByPath('Tasks.md')!;
    app.metadataCache.trigger(
      'changed',
      tasks,
      '- [ ] Call the bank @remind(2026-12-01 10:00) ^r-bank\n',
      {},
    );
    expect(changes).toHaveBeenCalledTimes(1);
    plugin.unload();
  });
});
