import type { App as AppOriginal, PluginManifest, WorkspaceLeaf } from 'obsidian';
import { App, Notice, Platform, Plugin, Workspace } from 'obsidian-test-mocks/obsidian';
import { CompanionVaultSearch } from '../../plugin/search/companion-search';
import { SearchService } from '../../plugin/search/search-service';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import CairnPlugin from '../../plugin/main';
import { CAIRN_VIEW_TYPE } from '../../plugin/chat/obsidian/chat-view';
import { REMINDERS_VIEW_TYPE } from '../../plugin/reminders/obsidian/reminder-upcoming-view';
import { AUDIT_VIEW_TYPE } from '../../plugin/audit/obsidian/audit-view';
import { RELATED_VIEW_TYPE } from '../../plugin/related/obsidian/related-notes-view';

// Count every network call the plugin makes through Obsidian's requestUrl.
const requestUrl = vi.hoisted(() => vi.fn());
vi.mock('obsidian', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  requestUrl,
}));

const manifest: PluginManifest = {
  id: 'cairn',
  name: 'Cairn',
  version: '0.1.0',
  minAppVersion: '1.8.7',
  description: 'test',
  author: 'test',
};

beforeAll(() => setup());
afterAll(() => teardown());

interface Loaded {
  app: App;
  plugin: CairnPlugin;
  mock: Plugin;
}

async function loadPlugin(data: unknown = null): Promise<Loaded> {
  const app = App.createConfigured__({ files: { 'Note.md': '# A note' } });
  const plugin = new CairnPlugin(app.asOriginalType__() as AppOriginal, manifest);
  const mock = Plugin.fromOriginalType2__(plugin);
  mock.data__ = data;
  await loadLikeObsidian(plugin);
  return { app, plugin, mock };
}

/**
 * Obsidian calls load(), which calls onload() without awaiting it; unload() then runs the
 * registered cleanups only for a loaded component. Wait for onload's promise ourselves.
 */
async function loadLikeObsidian(plugin: CairnPlugin): Promise<void> {
  const onload = vi.spyOn(plugin, 'onload');
  plugin.load();
  await onload.mock.results[0]?.value;
  onload.mockRestore();
}

/** The connection's status bar item (the other one is Cairn Sync's, hidden while it is off). */
function connectionItem(mock: Plugin): HTMLElement | undefined {
  return mock.statusBarItems__.find((item) => !item.classList.contains('cairn-sync-status'));
}

function statusBarText(mock: Plugin): string | null {
  return connectionItem(mock)?.textContent ?? null;
}

beforeEach(() => {
  requestUrl.mockReset();
  requestUrl.mockResolvedValue({ status: 200, text: '{"status":"ok"}', headers: {}, json: null });
});

describe('CairnPlugin.onload', () => {
  it('registers the view, the command, the ribbon icon, the status bar item and the settings tab', async () => {
    const { mock } = await loadPlugin();
    expect([...mock.views__.keys()]).toEqual([
      'cairn-sync',
      CAIRN_VIEW_TYPE,
      REMINDERS_VIEW_TYPE,
      AUDIT_VIEW_TYPE,
      'cairn-week',
      'cairn-knowledge-health',
      'cairn-scheduled-tasks',
      RELATED_VIEW_TYPE,
    ]);
    // Sync's commands are registered first (offered only while sync is on: checkCallback).
    expect([...mock.commands__.keys()]).toEqual([
      'sync-now',
      'sync-confirm-deletes',
      'sync-pair',
      'sync-unpair',
      'sync-open-view',
      'sync-pause',
      'sync-resume',
      'sync-download-kept',
      'sync-conflicts',
      'sync-note-history',
      'sync-deleted-files',
      'sync-restore-folder',
      'open-chat-pane',
      'download-builtin-model',
      'download-builtin-model-from-url',
      'new-reminder',
      'add-reminder-to-line',
      'show-upcoming-reminders',
      'snooze-reminder',
      'complete-reminder',
      'open-audit-log',
      'open-week-view',
      'write-weekly-digest',
      'open-knowledge-health',
      'open-scheduled-tasks',
      'new-scheduled-task',
      'open-related-notes',
    ]);
    // The chat pane's and the week view's.
    expect(mock.ribbonActions__).toHaveLength(2);
    expect(mock.statusBarItems__).toHaveLength(2);
    expect(mock.settingTabs__).toHaveLength(1);
  });

  it('touches neither the vault nor the network and starts no timer before the layout is ready', async () => {
    const app = App.createConfigured__({ files: { 'Note.md': '# A note' } });
    const reads = [
      vi.spyOn(app.vault, 'read'),
      vi.spyOn(app.vault, 'cachedRead'),
      vi.spyOn(app.vault, 'getMarkdownFiles'),
      vi.spyOn(app.vault, 'getFiles'),
    ];
    const setInterval = vi.spyOn(window, 'setInterval');
    const plugin = new CairnPlugin(app.asOriginalType__() as AppOriginal, manifest);
    Plugin.fromOriginalType2__(plugin).data__ = {
      settingsVersion: 1,
      companion: { url: 'http://127.0.0.1:8787', token: 't' },
    };
    await loadLikeObsidian(plugin);
    for (const read of reads) expect(read).not.toHaveBeenCalled();
    expect(requestUrl).not.toHaveBeenCalled();
    expect(setInterval).not.toHaveBeenCalled();

    Workspace.fromOriginalType2__(plugin.app.workspace).setLayoutReady__();
    expect(requestUrl).toHaveBeenCalledTimes(1);
    expect(requestUrl.mock.calls[0]?.[0]).toMatchObject({ url: 'http://127.0.0.1:8787/health' });
    // With the layout: the settings sync's pass (30 s) and the connection check (5 min).
    expect(setInterval.mock.calls.map((call) => call[1]).sort()).toEqual([30_000, 300_000]);
    setInterval.mockRestore();
    plugin.unload();
  });

  it('keeps one status bar item, silent when working on its own', async () => {
    const { plugin, mock } = await loadPlugin();
    Workspace.fromOriginalType2__(plugin.app.workspace).setLayoutReady__();
    // No companion: no permanent "local only"; the one item speaks when there is news.
    await vi.waitFor(() => expect(connectionItem(mock)?.style.display).toBe('none'));
    expect(statusBarText(mock)).not.toContain('local only');
    expect(mock.statusBarItems__).toHaveLength(2);
    plugin.unload();
  });

  it('shows the companion state in that item when one is configured', async () => {
    const { plugin, mock } = await loadPlugin({
      settingsVersion: 1,
      companion: { url: 'http://127.0.0.1:8787', token: 't' },
    });
    expect(statusBarText(mock)).toBe('Cairn: connecting…');
    requestUrl.mockResolvedValue({ status: 500, text: '', headers: {}, json: null });
    Workspace.fromOriginalType2__(plugin.app.workspace).setLayoutReady__();
    await vi.waitFor(() => expect(statusBarText(mock)).not.toBe('Cairn: connecting…'));
    expect(statusBarText(mock)).toMatch(/^Cairn: /);
    expect(mock.statusBarItems__).toHaveLength(2);
    plugin.unload();
  });
});

describe('settings on load', () => {
  it('migrates a v0 data.json and saves it, keeping unknown keys', async () => {
    const { plugin, mock } = await loadPlugin({
      companionUrl: 'http://nas:8787',
      somethingElse: 1,
    });
    expect(plugin.settings.companion.url).toBe('http://nas:8787');
    expect(mock.data__).toMatchObject({
      settingsVersion: 1,
      companion: { url: 'http://nas:8787' },
      somethingElse: 1,
    });
  });

  it('reports invalid fields with a notice and leaves the file for the user to fix', async () => {
    const notices: string[] = [];
    const create = vi.spyOn(Notice.prototype, 'constructor__').mockImplementation(function (
      this: Notice,
      message,
    ) {
      notices.push(String(message));
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const stored = { settingsVersion: 1, companion: { url: 12 }, folders: { notes: '../x' } };
    const { plugin, mock } = await loadPlugin(stored);
    expect(plugin.settings.companion.url).toBe('');
    expect(notices).toEqual([expect.stringContaining('2 setting(s) in data.json were invalid')]);
    expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
      expect.stringContaining('companion.url'),
      expect.stringContaining('folders.notes'),
    ]);
    expect(mock.data__).toBe(stored);
    expect(plugin.settingsProblems.map((problem) => problem.field)).toEqual([
      'companion.url',
      'folders.notes',
    ]);

    // Saving any setting writes valid values for every field: the problems are repaired.
    await plugin.updateSettings((settings) => {
      settings.timezone = 'UTC';
    });
    expect(plugin.settingsProblems).toEqual([]);
    expect(mock.data__).toMatchObject({
      companion: { url: '' },
      folders: { notes: 'Cairn/Notes' },
    });
    create.mockRestore();
    warn.mockRestore();
  });

  it('persists changes made through updateSettings on top of the stored file', async () => {
    const { plugin, mock } = await loadPlugin({ settingsVersion: 1, fromTheFuture: true });
    await plugin.updateSettings((settings) => {
      settings.folders.notes = 'Inbox';
    });
    expect(mock.data__).toMatchObject({ fromTheFuture: true, folders: { notes: 'Inbox' } });
  });
});

describe('opening the chat pane', () => {
  it('puts the view in a right-side leaf once and reveals the same leaf afterwards', async () => {
    const { app, plugin, mock } = await loadPlugin();
    const reveal = vi.spyOn(app.workspace, 'revealLeaf');
    const open = mock.commands__.get('open-chat-pane')?.callback;
    expect(open).toBeDefined();
    open?.();
    await vi.waitFor(() => expect(reveal).toHaveBeenCalledTimes(1));
    open?.();
    await vi.waitFor(() => expect(reveal).toHaveBeenCalledTimes(2));
    const leaves = plugin.app.workspace.getLeavesOfType(CAIRN_VIEW_TYPE);
    expect(leaves).toHaveLength(1);
    expect(reveal.mock.calls[0]?.[0]).toBe(reveal.mock.calls[1]?.[0] as unknown as WorkspaceLeaf);
  });
});

describe('CairnPlugin.onunload', () => {
  it('clears every timer it started: the connection check and the settings pass', async () => {
    const { plugin } = await loadPlugin();
    const setInterval = vi.spyOn(window, 'setInterval');
    // Obsidian's Component clears registered intervals with the global clearInterval.
    const clearInterval = vi.spyOn(globalThis, 'clearInterval');
    Workspace.fromOriginalType2__(plugin.app.workspace).setLayoutReady__();
    // The mock's workspace is one for the file: the layout also wakes the plugins of the tests
    // above, whose timers come first. This plugin's two are the last.
    const ids = setInterval.mock.results.slice(-2).map((result) => result.value as number);
    expect(setInterval.mock.calls.slice(-2).map((call) => call[1])).toEqual([30_000, 300_000]);
    plugin.unload();
    for (const id of ids) expect(clearInterval).toHaveBeenCalledWith(id);
    setInterval.mockRestore();
    clearInterval.mockRestore();
  });
});

describe('downloading the built-in model from a URL', () => {
  it('names the size and host, and downloads nothing while offline mode blocks the host', async () => {
    const notices: string[] = [];
    const create = vi.spyOn(Notice.prototype, 'constructor__').mockImplementation(function (
      this: Notice,
      message,
    ) {
      notices.push(String(message));
    });
    const { plugin, mock } = await loadPlugin();
    const command = mock.commands__.get('download-builtin-model-from-url');
    expect(command?.name).toContain('Download the built-in model (28 MB) from github.com');
    // Offered (the model is not installed); the companion's download is not: none is set.
    expect(command?.checkCallback?.(true)).toBe(true);
    expect(mock.commands__.get('download-builtin-model')?.checkCallback?.(true)).toBe(false);
    command?.checkCallback?.(false);
    await vi.waitFor(() => expect(notices).toHaveLength(1));
    expect(notices[0]).toContain(
      'Cairn: the built-in model was not downloaded: Offline mode only contacts this device and your local network; github.com looks like an internet host.',
    );
    expect(notices[0]).toContain('Settings → Cairn → Privacy and data');
    expect(requestUrl).not.toHaveBeenCalled();

    // The palette shows the host of the URL set in the settings once the tab closes.
    await plugin.updateSettings((settings) => {
      settings.embeddings.modelDownloadUrl = 'http://192.168.1.20:8080/cairn';
    });
    plugin.settingsClosed();
    expect(command?.name).toContain('Download the built-in model (28 MB) from 192.168.1.20');
    expect(command?.name).not.toContain('github.com');
    create.mockRestore();
    plugin.unload();
  });
});

describe('search on a phone', () => {
  const paired = { settingsVersion: 1, companion: { url: 'http://192.168.1.20:8787', token: 't' } };

  it('goes through the companion when one is set, unless this device indexes on its own', async () => {
    const wasMobile = Platform.isMobile;
    Platform.isMobile = true;
    try {
      const phone = await loadPlugin(paired);
      Workspace.fromOriginalType2__(phone.plugin.app.workspace).setLayoutReady__();
      await vi.waitFor(() => expect(phone.plugin.vaultSearch).toBeInstanceOf(CompanionVaultSearch));
      phone.plugin.unload();

      const indexing = await loadPlugin(paired);
      indexing.plugin.app.saveLocalStorage('cairn-index-on-device', true);
      Workspace.fromOriginalType2__(indexing.plugin.app.workspace).setLayoutReady__();
      await vi.waitFor(() => expect(indexing.plugin.vaultSearch).toBeInstanceOf(SearchService));
      indexing.plugin.app.saveLocalStorage('cairn-index-on-device', null);
      indexing.plugin.unload();
    } finally {
      Platform.isMobile = wasMobile;
    }
  });
});

describe('the settings tab for a newcomer', () => {
  /** The tab drawn as Obsidian would, and which settings in it are visible. */
  async function drawn(data: unknown) {
    const { plugin, mock } = await loadPlugin(data);
    const tab = mock.settingTabs__[0]!;
    tab.display();
    const visible = (name: string) =>
      // The mocks' Setting draws its name in an unclassed div: find it by its text.
      [...tab.containerEl.querySelectorAll<HTMLElement>('div')]
        .filter((el) => el.children.length === 0 && el.textContent === name)
        .some((el) => {
          for (let node: HTMLElement | null = el; node; node = node.parentElement)
            if (node.style.display === 'none') return false;
          return true;
        });
    return { plugin, visible };
  }

  it('shows the token, pairing and test only with a companion, provider fields only for it', async () => {
    const alone = await drawn({ settingsVersion: 1, embeddings: { provider: 'none' } });
    expect(alone.visible('Companion URL')).toBe(true);
    expect(alone.visible('API token')).toBe(false);
    expect(alone.visible('Test connection')).toBe(false);
    expect(alone.visible('Ollama embedding model')).toBe(false);
    alone.plugin.unload();

    const paired = await drawn({
      settingsVersion: 1,
      companion: { url: 'http://127.0.0.1:8787', token: 't' },
      embeddings: { provider: 'ollama' },
    });
    expect(paired.visible('API token')).toBe(true);
    expect(paired.visible('Test connection')).toBe(true);
    expect(paired.visible('Ollama embedding model')).toBe(true);
    paired.plugin.unload();
  });
});
