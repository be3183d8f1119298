// @vitest-environment node
/**
 * Builds main.js exactly as a release does and runs it in plain Node against a
 * hand-written `obsidian` shim (test/helpers/obsidian-shim) and happy-dom: load, layout
 * ready, open the pane, use the settings tab, unload. Whatever the bundle registered
 * (listeners, intervals, event refs, DOM nodes) must be gone after onunload.
 */
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import { buildPluginBundle } from '../helpers/plugin-bundle';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CairnSettings } from '../../shared/settings/cairn-settings';
import { FakeCompanionServer } from '../helpers/fake-companion-server';
import { NodeHttpTransport } from '../helpers/node-http-transport';
import { createObsidianEnvironment } from '../helpers/obsidian-shim';
import type { AppShimInstance, ObsidianEnvironment } from '../helpers/obsidian-shim';
import type { ToolListResponse } from '../../shared/protocol/tools';
import { TEST_TOKEN, authorized, buildTestApp } from '../companion/helpers/app';

const TOKEN = 'smoke-test-token-0123456789';
const OUTFILE = resolve('test-output/bundle-smoke/main.js');
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8')) as {
  id: string;
  name: string;
  version: string;
  minAppVersion: string;
  description: string;
  author: string;
};

interface LoadedPlugin {
  load(): unknown;
  unload(): void;
}

let source = '';
let server: FakeCompanionServer;
let env: ObsidianEnvironment;
let app: AppShimInstance;
let baseUrl = '';

/** Lets pending promise chains and I/O callbacks run, without creating timers of our own. */
async function settle(until: () => boolean, rounds = 200): Promise<void> {
  for (let round = 0; round < rounds && !until(); round++) {
    await new Promise((done) => setImmediate(done));
  }
}

function text(selector: string): string {
  return env.window.document.querySelector(selector)?.textContent?.trim() ?? '';
}

beforeAll(async () => {
  ({ source } = await buildPluginBundle('bundle-smoke'));

  server = FakeCompanionServer.healthy(TOKEN);
  baseUrl = await server.start();
}, 60_000);

beforeEach(() => {
  server.seen.length = 0;
  const transport = new NodeHttpTransport();
  env = createObsidianEnvironment((request) =>
    transport.request({
      url: request.url,
      method: (request.method ?? 'GET') as 'GET',
      headers: request.headers,
      body: request.body,
    }),
  );
  app = env.api.createApp();
  app.pluginData.set(
    manifest.id,
    JSON.stringify({ settingsVersion: 1, companion: { url: baseUrl, token: TOKEN } }),
  );
});

afterEach(async () => {
  await env.close();
});

afterAll(async () => {
  await server?.stop();
});

/** Counts Intl.DateTimeFormat objects created (with or without `new`) until stop(). */
function countDateTimeFormats(): { readonly created: number; stop(): void } {
  const original = Intl.DateTimeFormat;
  const counter = {
    created: 0,
    stop: () => Object.defineProperty(Intl, 'DateTimeFormat', { value: original }),
  };
  const counting = new Proxy(original, {
    construct(target, args: Parameters<typeof Intl.DateTimeFormat>) {
      counter.created++;
      return new target(...args);
    },
    apply(target, _this, args: Parameters<typeof Intl.DateTimeFormat>) {
      counter.created++;
      return target(...args);
    },
  });
  Object.defineProperty(Intl, 'DateTimeFormat', { value: counting });
  return counter;
}

/** Evaluates the bundle in the current environment and constructs the plugin like Obsidian. */
function instantiatePlugin(): LoadedPlugin {
  const exports = env.loadBundle(source, OUTFILE);
  const PluginClass = (exports.default ?? exports) as new (
    app: AppShimInstance,
    manifest: unknown,
  ) => LoadedPlugin;
  expect(typeof PluginClass).toBe('function');
  return new PluginClass(app, manifest);
}

describe('the built main.js', () => {
  it('requires only what Obsidian provides: no Node built-ins, so it can load on mobile', () => {
    const requires = [...source.matchAll(/require\(["'`]([^"'`]+)["'`]\)/g)].map(
      (match) => match[1],
    );
    // CodeMirror comes from Obsidian at run time (one copy, shared with the editor), on mobile too.
    expect(new Set(requires)).toEqual(
      new Set(['obsidian', '@codemirror/state', '@codemirror/view']),
    );
  });

  it('loads, opens its pane, serves its settings tab and releases everything on unload', async () => {
    // data.json as the settings tab saves it: the zone is there and gets checked at load.
    const saved = JSON.parse(app.pluginData.get(manifest.id) ?? '{}') as Record<string, unknown>;
    app.pluginData.set(manifest.id, JSON.stringify({ ...saved, timezone: 'Europe/Berlin' }));
    const requireStarted = performance.now();
    const plugin = instantiatePlugin();
    const requireMs = performance.now() - requireStarted;

    const dateTimeFormats = countDateTimeFormats();
    const started = performance.now();
    try {
      await plugin.load();
    } finally {
      dateTimeFormats.stop();
    }
    const onloadMs = performance.now() - started;
    console.info(
      `bundle-smoke: onload took ${onloadMs.toFixed(1)} ms, require ${requireMs.toFixed(1)} ms (built main.js, ${source.length} bytes; p50/p95: node scripts/bench/plugin-onload.mjs)`,
    );
    // The first Intl.DateTimeFormat of a process loads ICU's date data (20-90 ms here): more
    // than onload's whole 30 ms budget (issue #5), so loading must not create one.
    expect(dateTimeFormats.created).toBe(0);

    // onload registers and nothing else: no request, no timer.
    expect(app.ribbonEl.children).toHaveLength(2);
    // The connection, and sync's (hidden while sync is off).
    expect(app.statusBarEl.children).toHaveLength(2);
    expect(app.statusBarEl.querySelector('.cairn-sync-status.cairn-hidden')).not.toBeNull();
    expect([...app.commands.keys()]).toEqual([
      // Registered always; offered (checkCallback) only while sync runs.
      'cairn:sync-now',
      'cairn:sync-confirm-deletes',
      'cairn:sync-pair',
      'cairn:sync-unpair',
      'cairn:sync-open-view',
      'cairn:sync-pause',
      'cairn:sync-resume',
      'cairn:sync-download-kept',
      'cairn:sync-conflicts',
      'cairn:sync-note-history',
      'cairn:sync-deleted-files',
      'cairn:sync-restore-folder',
      'cairn:open-chat-pane',
      'cairn:download-builtin-model',
      'cairn:download-builtin-model-from-url',
      'cairn:new-reminder',
      'cairn:add-reminder-to-line',
      'cairn:show-upcoming-reminders',
      'cairn:snooze-reminder',
      'cairn:complete-reminder',
      'cairn:open-audit-log',
      'cairn:open-week-view',
      'cairn:write-weekly-digest',
      'cairn:open-knowledge-health',
      'cairn:open-scheduled-tasks',
      'cairn:new-scheduled-task',
      'cairn:open-related-notes',
    ]);
    expect([...app.viewRegistry.keys()]).toEqual([
      'cairn-sync',
      'cairn-chat',
      'cairn-reminders',
      'cairn-audit',
      'cairn-week',
      'cairn-knowledge-health',
      'cairn-scheduled-tasks',
      'cairn-related',
    ]);
    expect(app.settingTabs).toHaveLength(1);
    expect(server.seen).toEqual([]);
    expect(env.tracker.held().intervals).toBe(0);

    app.workspace.triggerLayoutReady();
    await settle(() => text('.cairn-status') === 'Cairn: connected');
    expect(text('.cairn-status')).toBe('Cairn: connected');
    expect(server.seen.map((request) => request.path)).toEqual(['/health', '/api/v1/status']);
    // The connection check and the settings sync's pass (it does nothing while sync is off).
    expect(env.tracker.held().intervals).toBe(2);

    await app.commands.get('cairn:open-chat-pane')?.callback?.();
    await settle(() => text('.cairn-connection-detail') !== '');
    expect(app.workspace.getLeavesOfType('cairn-chat')).toHaveLength(1);
    expect(text('.cairn-connection-detail')).toContain('Connected to companion 0.1.0: 120 files');
    const composer = env.window.document.querySelector(
      '.cairn-composer-input',
    ) as unknown as HTMLTextAreaElement;
    // The chat is built at layout-ready, so the composer is live.
    expect(composer.disabled).toBe(false);

    const tab = app.settingTabs[0] as unknown as { display(): void; containerEl: HTMLElement };
    tab.display();
    const headings = [
      ...tab.containerEl.querySelectorAll('.setting-item-heading .setting-item-name'),
    ].map((el) => el.textContent);
    expect(headings).toEqual([
      'Search and related notes',
      'Chat answers',
      'Reminders',
      'Companion (optional)',
      'Folders',
      'Sync',
      'Privacy and data',
    ]);
    const inputs = [...tab.containerEl.querySelectorAll('input')] as HTMLInputElement[];
    expect(inputs.find((input) => input.value === TOKEN)?.type).toBe('password');
    const testButton = [...tab.containerEl.querySelectorAll('button')].find(
      (button) => button.textContent === 'Test connection',
    );
    testButton?.dispatchEvent(new env.window.MouseEvent('click') as unknown as Event);
    await settle(() => tab.containerEl.textContent?.includes('Connected to companion') ?? false);
    expect(tab.containerEl.textContent).toContain('Connected to companion 0.1.0');

    const before = env.tracker.totals;
    expect(before.listeners).toBeGreaterThan(0);
    expect(before.intervals).toBeGreaterThan(0);

    plugin.unload();
    // Closing views is asynchronous (onClose returns a promise), as in Obsidian.
    const cairnNodes = () => [...env.window.document.querySelectorAll('[class*="cairn-"]')];
    await settle(() => cairnNodes().length === 0);

    expect(env.tracker.held()).toEqual({ intervals: 0, timeouts: 0, eventRefs: 0, listeners: [] });
    expect(app.ribbonEl.children).toHaveLength(0);
    expect(app.statusBarEl.children).toHaveLength(0);
    expect(app.commands.size).toBe(0);
    expect(app.viewRegistry.size).toBe(0);
    expect(app.settingTabs).toHaveLength(0);
    expect(cairnNodes().map((el) => el.outerHTML.slice(0, 200))).toEqual([]);
    // At run time too: Obsidian and the CodeMirror it ships (whose own imports come along), never
    // a Node built-in that a phone does not have.
    expect([...env.required].filter((name) => isBuiltin(name))).toEqual([]);
    expect(env.required).toContain('obsidian');
  });

  it('settings tab: validates inline, saves only valid values, re-checks the companion on close', async () => {
    const plugin = instantiatePlugin();
    await plugin.load();
    const tab = app.settingTabs[0] as unknown as {
      display(): void;
      hide(): void;
      containerEl: HTMLElement;
    };
    tab.display();

    const setting = (name: string) => {
      const item = [...tab.containerEl.querySelectorAll('.setting-item')].find(
        (el) => el.querySelector('.setting-item-name')?.textContent === name,
      );
      if (!item) throw new Error(`no setting named "${name}"`);
      return item as HTMLElement;
    };
    const message = (name: string) => {
      const el = setting(name).querySelector<HTMLElement>('.cairn-setting-message');
      return el && el.style.display !== 'none' ? (el.textContent ?? '') : '';
    };
    const type = async (name: string, value: string) => {
      const input = setting(name).querySelector('input') as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new env.window.Event('input') as unknown as Event);
      await settle(() => false, 5);
    };
    const stored = () => JSON.parse(app.pluginData.get(manifest.id) ?? '{}') as CairnSettings;

    await type('Companion URL', 'ftp://nas');
    expect(message('Companion URL')).toContain('Only http:// and https://');
    expect(stored().companion.url).toBe(baseUrl);

    await type('Companion URL', 'https://cairn.example.org');
    expect(message('Companion URL')).toContain('looks like an internet host');
    expect(stored().companion.url).toBe('https://cairn.example.org');

    setting('Offline mode').querySelector<HTMLElement>('.checkbox-container')?.click();
    await settle(() => false, 5);
    expect(stored().privacy.offlineMode).toBe(false);
    expect(message('Companion URL')).toBe('');

    await type('Notes folder', '../outside');
    expect(message('Notes folder')).toContain('inside the vault');
    expect(stored().folders.notes).toBe('Cairn/Notes');
    await type('Notes folder', '/Inbox/');
    expect(message('Notes folder')).toBe('');
    expect(stored().folders.notes).toBe('Inbox');

    // Folder fields suggest the vault's folders; picking one saves it.
    const vault = app.vault as unknown as { writeFile(path: string, content: string): unknown };
    vault.writeFile('Projects/Inbox ideas/a.md', '# a\n');
    vault.writeFile('Journal/2026/b.md', '# b\n');
    await type('Reminders folder', 'inbox');
    await settle(() => env.window.document.querySelectorAll('.suggestion-item').length > 0);
    const suggestions = [
      ...env.window.document.querySelectorAll('.suggestion-item'),
    ] as unknown as HTMLElement[];
    expect(suggestions.map((el) => el.textContent)).toEqual(['Projects/Inbox ideas']);
    suggestions[0]!.click();
    await settle(() => stored().folders.reminders === 'Projects/Inbox ideas');
    expect(stored().folders.reminders).toBe('Projects/Inbox ideas');
    expect(suggestions[0]!.isConnected).toBe(false);

    await type('Default time zone', 'Mars/Olympus');
    expect(message('Default time zone')).toContain('not a time zone');
    await type('Default time zone', 'Asia/Tokyo');
    expect(stored().timezone).toBe('Asia/Tokyo');
    // The zone field is a picker over the runtime's zone names: "new york" finds it.
    await type('Default time zone', 'new york');
    await settle(() =>
      [...env.window.document.querySelectorAll('.suggestion-item')].some(
        (el) => el.textContent === 'America/New_York',
      ),
    );
    const zone = [...env.window.document.querySelectorAll('.suggestion-item')].find(
      (el) => el.textContent === 'America/New_York',
    ) as unknown as HTMLElement;
    zone.click();
    await settle(() => stored().timezone === 'America/New_York');
    expect(stored().timezone).toBe('America/New_York');

    const provider = setting('Embedding provider').querySelector('select') as HTMLSelectElement;
    provider.value = 'ollama';
    provider.dispatchEvent(new env.window.Event('change') as unknown as Event);
    await settle(() => false, 5);
    expect(stored().embeddings.provider).toBe('ollama');

    // Connection edits take effect once, when the tab closes, not on every keystroke.
    await type('Companion URL', `${baseUrl}/`);
    expect(server.seen).toEqual([]);
    tab.hide();
    await settle(() => server.seen.length >= 2);
    expect(server.seen.map((request) => request.path)).toEqual(['/health', '/api/v1/status']);

    plugin.unload();
  });

  it('settings: Obsidian 1.13 renders the same rows, each with its control; rows follow the settings', async () => {
    app.pluginData.set(manifest.id, JSON.stringify({ settingsVersion: 1 }));
    const plugin = instantiatePlugin();
    await plugin.load();
    type Row = { name: string; render?: (setting: unknown) => void; visible?: () => boolean };
    const tab = app.settingTabs[0] as unknown as {
      getSettingDefinitions(): { type: string; heading: string; items: Row[] }[];
      display(): void;
      containerEl: HTMLElement;
    };
    const groups = tab.getSettingDefinitions();
    expect(groups.map((group) => group.heading)).toEqual([
      'Search and related notes',
      'Chat answers',
      'Reminders',
      'Companion (optional)',
      'Folders',
      'Sync',
      'Privacy and data',
    ]);
    // Every row draws its own control: a row with a name and no control cannot be used.
    const rows = groups.flatMap((group) => group.items);
    expect(rows.filter((row) => typeof row.render !== 'function')).toEqual([]);
    expect(rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(['Embedding provider', 'Search index', 'Remove local data']),
    );
    // A declarative row renders into the Setting Obsidian gives it, and saves.
    const { Setting } = env.api.module as unknown as {
      Setting: new (el: HTMLElement) => { settingEl: HTMLElement };
    };
    const offline = rows.find((row) => row.name === 'Offline mode')!;
    const host = env.window.document.createElement('div') as unknown as HTMLElement;
    const setting = new Setting(host);
    offline.render!(setting);
    setting.settingEl.querySelector<HTMLElement>('.checkbox-container')?.click();
    await settle(() => false, 5);
    expect(
      (JSON.parse(app.pluginData.get(manifest.id) ?? '{}') as CairnSettings).privacy.offlineMode,
    ).toBe(false);
    // Without a companion its token, pairing and test rows are hidden, in both paths.
    const token = rows.find((row) => row.name === 'API token')!;
    expect(token.visible?.()).toBe(false);

    tab.display();
    const item = (name: string) =>
      [...tab.containerEl.querySelectorAll('.setting-item')].find(
        (el) => el.querySelector('.setting-item-name')?.textContent === name,
      ) as HTMLElement;
    expect(item('API token').style.display).toBe('none');
    expect(item('Ollama embedding model').style.display).toBe('none');
    const url = item('Companion URL').querySelector('input') as HTMLInputElement;
    url.value = 'http://192.168.1.20:8787';
    url.dispatchEvent(new env.window.Event('input') as unknown as Event);
    await settle(() => item('API token').style.display !== 'none');
    expect(item('API token').style.display).not.toBe('none');
    expect(token.visible?.()).toBe(true);

    // The pane's own chat lists its tools without a request; a permission set there is saved.
    const localTools = item('Tools this device’s chat may use');
    const localNote = localTools.querySelector<HTMLElement>('.cairn-tool[data-tool="create_note"]');
    expect(localNote?.textContent).toContain('Changes notes (Undo can revert) · Default');
    const localSelect = localNote?.querySelector('select') as HTMLSelectElement;
    expect(localSelect.value).toBe('allow');
    localSelect.value = 'ask';
    localSelect.dispatchEvent(new env.window.Event('change') as unknown as Event);
    await settle(
      () =>
        (JSON.parse(app.pluginData.get(manifest.id) ?? '{}') as CairnSettings).chatTools
          ?.permissions.create_note === 'ask',
      2_000,
    );
    expect(
      (JSON.parse(app.pluginData.get(manifest.id) ?? '{}') as CairnSettings).chatTools,
    ).toEqual({ permissions: { create_note: 'ask' }, disabled: [] });
    plugin.unload();
  });

  it('settings: tools the chat may use load from the companion; a permission set there is stored', async () => {
    const companion = await buildTestApp({ deps: { tools: { offline: () => true } } });
    try {
      const url = await companion.app.listen({ port: 0, host: '127.0.0.1' });
      app.pluginData.set(
        manifest.id,
        JSON.stringify({ settingsVersion: 1, companion: { url, token: TEST_TOKEN } }),
      );
      const plugin = instantiatePlugin();
      await plugin.load();
      const tab = app.settingTabs[0] as unknown as { display(): void; containerEl: HTMLElement };
      tab.display();
      const item = (name: string) =>
        [...tab.containerEl.querySelectorAll('.setting-item')].find(
          (el) => el.querySelector('.setting-item-name')?.textContent === name,
        ) as HTMLElement;
      const section = item('Tools the chat may use');
      expect(section.style.display).not.toBe('none');
      expect(item('Add an MCP server').style.display).not.toBe('none');
      expect(section.querySelector('.cairn-tools-list')?.children.length).toBe(0);

      section.querySelector('button')!.click();
      const toolRow = (name: string) =>
        section.querySelector<HTMLElement>(`.cairn-tool[data-tool="${name}"]`);
      await settle(() => toolRow('create_note') !== null, 2_000);
      expect(toolRow('create_note'), section.textContent ?? '').not.toBeNull();
      const createNote = toolRow('create_note')!;
      expect(createNote.querySelector('.setting-item-description')?.textContent).toContain(
        'Cairn · Changes notes (Undo can revert) · Stays on this device and network',
      );
      expect(section.textContent).toContain('No MCP servers yet: add one below.');

      const select = createNote.querySelector('select') as HTMLSelectElement;
      expect(select.value).toBe('allow');
      select.value = 'ask';
      select.dispatchEvent(new env.window.Event('change') as unknown as Event);
      await settle(() => createNote.textContent?.includes('Saved.') === true, 2_000);
      const stored = await companion.app.inject({
        method: 'GET',
        url: '/api/v1/tools',
        headers: authorized,
      });
      const tools = (stored.json() as ToolListResponse).tools;
      expect(tools.find((tool) => tool.name === 'create_note')?.permission).toBe('ask');

      // A change the companion refuses (here: a wrong token) says why and is put back.
      const token = item('API token').querySelector('input') as HTMLInputElement;
      token.value = 'wrong-token';
      token.dispatchEvent(new env.window.Event('input') as unknown as Event);
      await settle(() => false, 5);
      select.value = 'deny';
      select.dispatchEvent(new env.window.Event('change') as unknown as Event);
      await settle(() => createNote.textContent?.includes('rejected the token') === true, 2_000);
      expect(createNote.textContent).toContain('The companion rejected the token (401).');
      expect(select.value).toBe('ask');
      plugin.unload();
    } finally {
      await companion.close();
    }
  });

  it('settings: rebuilds the index, and removes local data only after saying what goes', async () => {
    app.pluginData.set(manifest.id, JSON.stringify({ settingsVersion: 1 }));
    const exports = env.loadBundle(source, OUTFILE);
    const PluginClass = (exports.default ?? exports) as new (
      app: AppShimInstance,
      manifest: unknown,
    ) => LoadedPlugin;
    const plugin = new PluginClass(app, { ...manifest, dir: '.obsidian/plugins/cairn' });
    const adapter = (app.vault as unknown as { adapter: { files: Map<string, string> } }).adapter;
    adapter.files.set('.obsidian/plugins/cairn/models/use-lite/model.json', '{}');
    adapter.files.set('.obsidian/plugins/cairn/data-other.json', '{}');
    const vault = app.vault as unknown as { writeFile(path: string, content: string): unknown };
    vault.writeFile('Visa.md', '# Visa\n\nThe visa fee is 80 euros.\n');
    await plugin.load();
    app.workspace.triggerLayoutReady();
    const databases = async () =>
      (await indexedDB.databases()).map((info) => info.name ?? '').filter((name) => name !== '');
    const searchDb = 'cairn-search-shimvault0001-v1';
    const untilDatabases = async (holds: (names: string[]) => boolean) => {
      for (let round = 0; round < 200 && !holds(await databases()); round++)
        await settle(() => false, 5);
    };
    await untilDatabases((names) => names.includes(searchDb));
    expect(await databases()).toContain(searchDb);

    const tab = app.settingTabs[0] as unknown as { display(): void; containerEl: HTMLElement };
    tab.display();
    const button = (label: string, within: ParentNode = tab.containerEl) =>
      [...within.querySelectorAll('button')].find(
        (el) => el.textContent === label,
      ) as unknown as HTMLElement;
    button('Rebuild index').click();
    await settle(() => tab.containerEl.textContent?.includes('is being built again') ?? false);
    expect(tab.containerEl.textContent).toContain('The index was cleared and is being built again');
    await untilDatabases((names) => names.includes(searchDb));

    button('Remove data').click();
    const modal = env.window.document.querySelector('.modal') as unknown as HTMLElement;
    expect(modal.textContent).toContain(`IndexedDB database ${searchDb}`);
    expect(modal.textContent).toContain('.obsidian/plugins/cairn/models/use-lite');
    expect(modal.textContent).toContain('Your notes, saved chats, reminders and settings stay');
    // Nothing is removed before the confirmation.
    expect(await databases()).toContain(searchDb);
    button('Remove', modal).click();
    await settle(() => tab.containerEl.textContent?.includes('Removed the search index') ?? false);
    expect(tab.containerEl.textContent).toContain(
      'Removed the search index, the built-in model, the sync state.',
    );
    expect(await databases()).not.toContain(searchDb);
    expect(adapter.files.has('.obsidian/plugins/cairn/models/use-lite/model.json')).toBe(false);
    expect(adapter.files.has('.obsidian/plugins/cairn/data-other.json')).toBe(true);
    expect(app.vault.getAbstractFileByPath('Visa.md')).not.toBeNull();
    plugin.unload();
  });

  it('shows data.json fields that were invalid in a notice and atop the settings tab', async () => {
    app.pluginData.set(
      manifest.id,
      JSON.stringify({
        settingsVersion: 1,
        companion: { url: 'ftp://nas' },
        privacy: { offlineMode: 'yes' },
      }),
    );
    const warn = console.warn;
    const warnings: string[] = [];
    console.warn = (message: string) => warnings.push(message);
    const plugin = instantiatePlugin();
    try {
      await plugin.load();
    } finally {
      console.warn = warn;
    }
    expect(env.api.notices).toEqual([
      expect.stringContaining('2 setting(s) in data.json were invalid'),
    ]);
    expect(warnings).toEqual([
      expect.stringContaining('companion.url'),
      expect.stringContaining('privacy.offlineMode'),
    ]);

    const tab = app.settingTabs[0] as unknown as { display(): void; containerEl: HTMLElement };
    tab.display();
    const items = [...tab.containerEl.querySelectorAll('.cairn-settings-problems li')].map(
      (li) => li.textContent,
    );
    expect(items).toEqual([
      expect.stringMatching(/^companion\.url: Only http:\/\/ and https:\/\//),
      expect.stringMatching(/^privacy\.offlineMode: expected true or false, found text "yes"/),
    ]);
    plugin.unload();
  });
});
