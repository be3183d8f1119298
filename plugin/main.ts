import { Notice, Platform, Plugin } from 'obsidian';
import { CompanionClient } from './connection/client';
import { ConnectionMonitor } from './connection/connection-monitor';
import { describeConnection } from './connection/connection-state';
import type { ConnectionState } from './connection/connection-state';
import { CAIRN_VIEW_TYPE, CairnView } from './chat/obsidian/chat-view';
import { ChatServicesSlot } from './chat/chat-session';
import { CHAT_HOVER_SOURCE, createChatServices } from './chat/obsidian/chat-services';
import { registerMemoryImportCommand } from './chat/obsidian/memory-import-command';
import { registerMemoriesCommand } from './chat/obsidian/memories-modal';
import { registerNoteCommands } from './notes/obsidian/note-commands';
import { setUpReminders } from './reminders/obsidian/reminder-setup';
import { setUpWeek } from './week/obsidian/week-setup';
import { setUpKnowledgeHealth } from './health/obsidian/knowledge-health-view';
import { setUpScheduledTasks } from './tasks/obsidian/scheduled-tasks-view';
import { ObsidianHttpTransport } from './connection/obsidian/request-url-transport';
import { SEARCH_HOVER_SOURCE, SearchModal } from './search/obsidian/search-modal';
import { CairnSettingTab } from './settings/obsidian/settings-tab';
import { builtinModelHost, setUpBuiltinModel } from './embeddings/obsidian/builtin-model-commands';
import { COMPANION_COMMAND_NAME } from './embeddings/obsidian/builtin-model-commands';
import type {
  BuiltinModelDownloads,
  ModelRoute,
} from './embeddings/obsidian/builtin-model-commands';
import { ObsidianVaultSource, watchVault } from './search/obsidian/vault-source';
import { selectEmbedder } from './embeddings/select-embedder';
import { browserTimeSlicer } from './search/time-slicer';
import { SearchService } from './search/search-service';
import { indexExclusions } from './search/index-exclusions';
import { CompanionVaultSearch } from './search/companion-search';
import { INDEX_ON_DEVICE_KEY } from './settings/obsidian/settings-tab';
import { SearchRunner } from './search/search-runner';
import { deleteSearchStores, searchStoreName } from './search/search-store';
import { deleteSyncStore, syncStoreName } from './sync/idb-state-store';
import { describeIndexProgress } from './search/index-progress';
import { createSearchStatus } from './search/search-status';
import { createFirstRunStore, firstRunCard } from './search/first-run';
import type { FirstRunActions, FirstRunDownload } from './search/first-run';
import { setUpRelatedNotes } from './related/obsidian/related-notes-view';
import type { RelatedController } from './related/related-controller';
import { textHash } from '../shared/search/hash';
import { formatProblem, loadSettings, toStoredData } from '../shared/settings/load-settings';
import type { SettingsProblem } from '../shared/settings/load-settings';
import type { CairnSettings } from '../shared/settings/cairn-settings';
import type { SettingsHost } from './settings/settings-host';
import { systemTimeZone } from '../shared/settings/validation';
import { registerAuditView } from './audit/obsidian/audit-setup';
import { setUpSync } from './sync/obsidian/sync-setup';
import type { SyncControl } from './sync/obsidian/sync-setup';

/** Obsidian local-storage key (per device): the first-run card was dismissed. */
const FIRST_RUN_DISMISSED_KEY = 'cairn-first-run-dismissed';

/** How often the companion's status is re-checked while Obsidian is open. */
const CONNECTION_CHECK_INTERVAL_MS = 5 * 60 * 1000;

/**
 * Composition root: builds the adapters and services, registers them with Obsidian and
 * leaves the rest to them. onload only registers things; anything that costs time waits
 * for the layout to be ready (docs/principles.md, docs/search.md), and every listener and timer goes through
 * `register*` so disabling the plugin releases all of it.
 */
export default class CairnPlugin extends Plugin implements SettingsHost {
  declare settings: CairnSettings;
  settingsProblems: readonly SettingsProblem[] = [];
  /** data.json as last read or written, so keys this version does not know survive a save. */
  private storedData: unknown = null;
  private connection!: ConnectionMonitor;
  private connectionChecked = '';
  /** The in-vault search (docs/search.md); built after layout-ready, null until then. */
  vaultSearch: SearchService | CompanionVaultSearch | null = null;
  /** Open while shown, so disabling the plugin can close it (and unmount its component). */
  private searchModal: SearchModal | null = null;
  /** The chat pane's session and callbacks; empty until layout-ready. */
  private readonly chat = new ChatServicesSlot();
  /** What search can do right now, for the status bar and every pane that shows it. */
  private readonly searchStatus = createSearchStatus();
  private related: RelatedController | null = null;
  private builtinModel!: BuiltinModelDownloads;
  /** Holds the search service and replaces it when the built-in model arrives; null until layout-ready. */
  private searchRunner: SearchRunner | null = null;
  /** The status bar item showing indexing progress (desktop). */
  /** The one status bar item: the index's progress while it works, else the companion's state. */
  private statusItem: HTMLElement | null = null;
  private indexStatusText = '';
  private client!: CompanionClient;
  /** Cairn Sync (docs/sync.md), off unless enabled in settings. */
  private sync: SyncControl | null = null;
  /** The first-run card in search and related notes; null once there is nothing to ask. */
  private readonly firstRun = createFirstRunStore();
  private readonly firstRunActions: FirstRunActions = {
    download: async (route) => {
      const done = await this.builtinModel.download(route);
      await this.refreshFirstRun();
      return done;
    },
    dismiss: () => {
      this.app.saveLocalStorage(FIRST_RUN_DISMISSED_KEY, true);
      void this.refreshFirstRun();
    },
    openSettings: () => this.openSettings(),
  };
  /** The excluded-files patterns the running search was built with. */
  private searchExcludeKey = '';

  override async onload(): Promise<void> {
    await this.restoreSettings();
    // First: when sync is on, note creation (the daily note on open) waits for its first pull.
    this.sync = setUpSync(this, {
      settings: () => this.settings,
      vaultKey: () => this.vaultKey(),
      updateSettings: (change) => this.updateSettings(change),
      settingsApplied: () => this.settingsClosed(),
    });

    const client = (this.client = new CompanionClient(new ObsidianHttpTransport(), () => ({
      url: this.settings.companion.url,
      token: this.settings.companion.token,
      offlineMode: this.settings.privacy.offlineMode,
    })));
    this.connection = new ConnectionMonitor(client);

    this.registerView(
      CAIRN_VIEW_TYPE,
      (leaf) =>
        new CairnView(leaf, {
          connection: this.connection,
          chat: this.chat,
          onRetryConnection: () => void this.refreshConnection(),
          onOpenSettings: () => this.openSettings(),
        }),
    );
    this.addRibbonIcon('messages-square', 'Open chat pane', () => void this.openChatPane());
    this.addCommand({
      id: 'open-chat-pane',
      name: 'Open chat pane',
      callback: () => void this.openChatPane(),
    });
    this.builtinModel = setUpBuiltinModel(this, {
      settings: () => this.settings,
      onInstalled: () => this.builtinModelInstalled(),
    });
    this.addSettingTab(new CairnSettingTab(this.app, this, this, this.builtinModel));
    this.setUpStatusBar();
    const reminders = setUpReminders(this, {
      settings: () => this.settings,
      isPaired: () => this.connection.current.kind === 'connected',
      companionReminders: () => client.companionReminders(),
    });
    registerAuditView(this, {
      transport: new ObsidianHttpTransport(),
      endpoint: () => ({
        url: this.settings.companion.url,
        token: this.settings.companion.token,
        offlineMode: this.settings.privacy.offlineMode,
      }),
    });
    setUpWeek(this, {
      settings: () => this.settings,
      isPaired: () => this.connection.current.kind === 'connected',
      client,
      localEntries: () => reminders.entries(),
      readReminders: reminders.read,
    });
    setUpKnowledgeHealth(this, { client, companionUrl: () => this.settings.companion.url });
    setUpScheduledTasks(this, { client, companionUrl: () => this.settings.companion.url });
    this.related = setUpRelatedNotes(this, {
      // A phone without its own index asks the companion (searchesThroughCompanion).
      relatedChunks: (path, limit) =>
        this.vaultSearch instanceof SearchService ||
        this.vaultSearch instanceof CompanionVaultSearch
          ? this.vaultSearch.relatedChunks(path, limit)
          : null,
      searchStatus: () => this.searchStatus.current,
      excluded: () => this.indexExcluded(),
      firstRun: { card: this.firstRun, actions: this.firstRunActions },
    });

    this.app.workspace.onLayoutReady(() => this.onLayoutReady());
  }

  /** Work that may touch the network or the vault starts only once Obsidian has drawn itself. */
  private onLayoutReady(): void {
    void this.startSearch();
    void this.refreshFirstRun();
    this.startChat();
    void this.refreshConnection();
    this.registerInterval(
      window.setInterval(
        () => void this.refreshConnection({ quiet: true }),
        CONNECTION_CHECK_INTERVAL_MS,
      ),
    );
  }

  /** The chat runs over the vault and its search; built now so start-up stays quick. */
  private startChat(): void {
    const { services, notes, files, memories, tools } = createChatServices({
      app: this.app,
      settings: () => this.settings,
      vaultSearch: () => this.vaultSearch,
      transport: new ObsidianHttpTransport(),
    });
    this.chat.set(services);
    this.registerHoverLinkSource(CHAT_HOVER_SOURCE, { display: 'Cairn chat', defaultMod: true });
    registerNoteCommands(this, {
      notes,
      titleOf: (file) => files.titleOf(file),
      ask: async (text) => {
        await this.openChatPane();
        services.session.prefill(text);
      },
    });
    registerMemoryImportCommand(this, memories);
    registerMemoriesCommand(this, memories);
    void services.session.refreshConversations();
    this.register(() => {
      this.chat.set(null);
      services.session.dispose();
      tools.close();
    });
  }

  /**
   * Builds the search service, registers "Search vault" and the indexing progress item, and
   * starts indexing in time slices. Registered here rather than in onload: nothing about
   * search costs start-up time.
   */
  private async startSearch(): Promise<void> {
    if (this.searchesThroughCompanion()) {
      // A phone with a companion: no index, vectors or model worker on the device.
      this.vaultSearch = new CompanionVaultSearch(this.client);
      this.searchStatus.update({
        ready: true,
        mode: 'keyword',
        modeLabel: 'through the companion',
        progress: '',
        unavailable: undefined,
      });
      this.addCommand({
        id: 'search-vault',
        name: 'Search vault',
        callback: () => this.openSearch(),
      });
      this.registerHoverLinkSource(SEARCH_HOVER_SOURCE, {
        display: 'Cairn search',
        defaultMod: true,
      });
      return;
    }
    // The status item now speaks for the index too (tests find its progress by this class).
    this.statusItem?.addClass('cairn-index-status');
    const runner: SearchRunner = new SearchRunner({
      chooseEmbedder: () =>
        selectEmbedder(this.settings, new ObsidianHttpTransport(), builtinModelHost(this)),
      createService: (choice) => {
        this.searchExcludeKey = JSON.stringify(this.settings.search.excludeGlobs);
        const service: SearchService = new SearchService({
          vaultKey: this.vaultKey(),
          source: new ObsidianVaultSource(this.app.vault),
          scheduler: browserTimeSlicer(window),
          excludeGlobs: this.settings.search.excludeGlobs,
          alsoExcludes: this.indexExcluded(),
          embedder: choice.kind === 'active' ? choice.embedder : null,
          ...(choice.kind === 'none' ? { keywordOnlyReason: choice.reason } : {}),
          onProgress: (progress) => {
            // A service replaced or closed since reports nothing more.
            if (runner.current !== service) return;
            const text = describeIndexProgress(progress);
            this.showIndexStatus(text);
            this.searchStatus.update({ ready: service.ready, progress: text });
            if (progress.phase === 'idle') this.related?.refresh();
          },
          onProblem: (problem) =>
            console.warn(
              `Cairn search: ${problem.path}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`,
            ),
        });
        return service;
      },
      onService: (service) => {
        this.vaultSearch = service;
        this.searchStatus.update({
          ready: service.ready,
          mode: service.mode,
          modeLabel: service.modeLabel,
          unavailable: undefined,
        });
      },
    });
    this.searchRunner = runner;
    // Closes the service and releases the built-in model's worker; a provider check still
    // running when the plugin is disabled starts nothing after.
    this.register(() => {
      runner.close();
      this.searchModal?.close();
    });
    this.addCommand({
      id: 'search-vault',
      name: 'Search vault',
      callback: () => this.openSearch(),
    });
    this.registerHoverLinkSource(SEARCH_HOVER_SOURCE, {
      display: 'Cairn search',
      defaultMod: true,
    });
    watchVault(this.app.vault, runner, (ref) => this.registerEvent(ref));
    await this.runSearch();
  }

  /** (Re)starts search over the provider chosen now; reports a start that failed. */
  private async runSearch(): Promise<void> {
    const runner = this.searchRunner;
    if (!runner) return;
    try {
      await runner.start();
    } catch (error) {
      // A start cut short by unloading the plugin is not a failure worth reporting.
      if (runner.isClosed) return;
      this.showIndexStatus('Cairn: search unavailable');
      this.searchStatus.update({
        unavailable: 'the search index could not start (details in the developer console)',
      });
      // Phones have no status bar: say it where it can be seen.
      if (Platform.isMobile) new Notice('Cairn: search is unavailable; the index could not start.');
      console.warn('Cairn: the search index could not start', error);
    }
  }

  /**
   * A download just completed the built-in model's folder: when search is set to use it and
   * does not yet, search restarts over it (no plugin reload). Before layout-ready there is no
   * search yet; it will find the model when it starts.
   */
  private builtinModelInstalled(): void {
    void this.refreshFirstRun();
    if (this.settings.embeddings.provider !== 'builtin') return;
    if (!this.searchRunner || this.vaultSearch?.mode === 'hybrid') return;
    void this.runSearch();
  }

  /**
   * On a phone with a companion set, search (and the chat's sources) go through the companion
   * unless this device was switched to index on its own (per device: Obsidian's local storage,
   * not data.json, which syncs). Read at start: a change applies after a reload.
   */
  private searchesThroughCompanion(): boolean {
    return (
      Platform.isMobile &&
      this.settings.search.delegateToCompanionOnMobile &&
      this.settings.companion.url.trim() !== '' &&
      this.app.loadLocalStorage(INDEX_ON_DEVICE_KEY) !== true
    );
  }

  /** Saved chats and Obsidian's own Excluded files: never searched nor related. */
  private indexExcluded(): (path: string) => boolean {
    let userIgnoreFilters: unknown;
    try {
      // `getConfig` is not in the public typings; a future Obsidian without it excludes nothing.
      const vault = this.app.vault as unknown as { getConfig?: (key: string) => unknown };
      userIgnoreFilters = vault.getConfig?.('userIgnoreFilters');
    } catch {
      userIgnoreFilters = undefined;
    }
    return indexExclusions({ chatsFolder: this.settings.folders.chats, userIgnoreFilters });
  }

  /**
   * Tells this vault's IndexedDB store from other vaults': Obsidian's per-vault `appId` (not
   * in the public typings, so read defensively), else a hash of the vault's name.
   */
  private vaultKey(): string {
    let appId: unknown;
    try {
      appId = (this.app as unknown as { appId?: unknown }).appId;
    } catch {
      appId = undefined;
    }
    return typeof appId === 'string' && /^[\w.-]{1,128}$/.test(appId)
      ? appId
      : textHash(this.app.vault.getName());
  }

  /**
   * Opens even before the index is loaded: the modal says so and answers as soon as it can
   * (keyword results first while a model loads).
   */
  private openSearch(): void {
    this.searchModal?.close();
    this.searchModal = new SearchModal(this.app, {
      search: (query, options) => this.vaultSearch?.search(query, options) ?? Promise.resolve([]),
      status: this.searchStatus,
      // The plugin's own index holds notes and reminder notes; PDFs are the companion's.
      types: ['note', 'reminder'],
      onClosed: () => (this.searchModal = null),
      firstRun: { card: this.firstRun, actions: this.firstRunActions },
    });
    this.searchModal.open();
  }

  async updateSettings(change: (settings: CairnSettings) => void): Promise<void> {
    change(this.settings);
    this.storedData = toStoredData(this.settings, this.storedData);
    await this.saveData(this.storedData);
    // The file now holds valid values for every field, so earlier problems are repaired.
    this.settingsProblems = [];
  }

  /** data.json changed on disk (Obsidian Sync, Syncthing, the companion): re-read it. */
  override async onExternalSettingsChange(): Promise<void> {
    await this.restoreSettings();
    this.settingsClosed();
  }

  testConnection(): Promise<ConnectionState> {
    return this.refreshConnection();
  }

  openSyncPairing(): void {
    this.sync?.openPairing();
  }

  openSyncUnpairing(): void {
    this.sync?.openUnpairing();
  }

  applySearchSettings(): void {
    void this.runSearch();
    void this.refreshFirstRun();
  }

  /**
   * Shows the first-run card while the built-in model is the provider, is missing and the card
   * was not dismissed on this device; its downloads come from the companion first when one is set.
   */
  private async refreshFirstRun(): Promise<void> {
    const check = await this.builtinModel.check().catch(() => ({ complete: false }));
    const routes: ModelRoute[] =
      this.settings.companion.url.trim() !== '' ? ['companion', 'url'] : ['url'];
    const downloads: FirstRunDownload[] = routes.map((route) => ({
      route,
      label: route === 'url' ? this.builtinModel.urlLabel() : COMPANION_COMMAND_NAME,
      blocked: this.builtinModel.blocked(route),
    }));
    this.firstRun.set(
      firstRunCard({
        provider: this.settings.embeddings.provider,
        modelInstalled: check.complete,
        dismissed: this.app.loadLocalStorage(FIRST_RUN_DISMISSED_KEY) === true,
        throughCompanion: this.searchesThroughCompanion(),
        notes: this.app.vault.getMarkdownFiles().length,
        downloads,
      }),
    );
  }

  async rebuildIndex(): Promise<string> {
    const runner = this.searchRunner;
    if (!runner) return 'Search goes through the companion on this device: there is no index here.';
    const vaultKey = this.vaultKey();
    this.showIndexStatus('Cairn: rebuilding the index');
    await runner.rebuild(() => deleteSearchStores(vaultKey));
    return 'The index was cleared and is being built again (progress in the status bar).';
  }

  localDataItems(): string[] {
    const vaultKey = this.vaultKey();
    const items = [
      `The search index of this vault (IndexedDB database ${searchStoreName(vaultKey)}).`,
      `The built-in model's files (${this.builtinModel.dir}, about 25 MB).`,
      'This device’s choice to index the vault itself.',
    ];
    items.push(
      this.settings.sync.enabled
        ? 'Not the sync state: sync is on. Turn sync off first to remove it too.'
        : `The sync state of this vault (IndexedDB database ${syncStoreName(vaultKey)}).`,
    );
    return items;
  }

  async removeLocalData(): Promise<string> {
    const vaultKey = this.vaultKey();
    // Search stops first: IndexedDB deletes a database only once its connections are closed.
    this.searchRunner?.stop();
    this.vaultSearch = null;
    this.showIndexStatus('');
    this.searchStatus.update({
      ready: false,
      unavailable:
        'Cairn’s data on this device was removed; search starts again when the plugin is reloaded',
    });
    const removed: string[] = [];
    await deleteSearchStores(vaultKey);
    removed.push('the search index');
    if (await this.builtinModel.remove()) removed.push('the built-in model');
    this.app.saveLocalStorage(INDEX_ON_DEVICE_KEY, null);
    if (!this.settings.sync.enabled) {
      await deleteSyncStore(vaultKey);
      removed.push('the sync state');
    }
    void this.refreshFirstRun();
    return `Removed ${removed.join(', ')}. Search starts again, from nothing, when the plugin is reloaded.`;
  }

  settingsClosed(): void {
    this.builtinModel.refreshCommandName();
    void this.refreshFirstRun();
    // Excluded files changed: search restarts over the new patterns (no reload).
    if (
      this.searchRunner &&
      !this.searchRunner.isClosed &&
      this.vaultSearch !== null &&
      JSON.stringify(this.settings.search.excludeGlobs) !== this.searchExcludeKey
    )
      void this.runSearch();
    this.sync?.refresh();
    if (this.endpointKey() !== this.connectionChecked) void this.refreshConnection();
  }

  private async restoreSettings(): Promise<void> {
    const raw: unknown = await this.loadData();
    // The system zone is looked up when first needed, not while Obsidian waits for onload.
    const loaded = loadSettings(raw, systemTimeZone);
    this.settings = loaded.settings;
    this.settingsProblems = loaded.problems;
    this.storedData = raw;
    for (const migration of loaded.migrations)
      console.debug(`Cairn: settings migrated (${migration})`);
    for (const problem of loaded.problems) console.warn(formatProblem(problem));
    if (loaded.problems.length > 0) {
      new Notice(
        `Cairn: ${loaded.problems.length} setting(s) in data.json were invalid and use their defaults; see Cairn's settings for which.`,
      );
    }
    // Repairs are written back only after a migration: a file with a typo is left for the
    // user to see (and fix in the settings tab) rather than silently rewritten.
    if (loaded.migrations.length > 0) {
      this.storedData = toStoredData(this.settings, raw);
      await this.saveData(this.storedData);
    }
  }

  /**
   * One status bar item: the index's progress while it loads or works, otherwise the
   * companion's state when one is configured, otherwise nothing (hidden: working on its own
   * is the normal case, not news). Click opens the chat.
   */
  private setUpStatusBar(): void {
    const item = this.addStatusBarItem();
    item.addClass('cairn-status', 'mod-clickable');
    this.statusItem = item;
    const unsubscribe = this.connection.subscribe(() => this.drawStatus());
    this.register(unsubscribe);
    this.registerDomEvent(item, 'click', () => void this.openChatPane());
  }

  private showIndexStatus(text: string): void {
    this.indexStatusText = text;
    this.drawStatus();
  }

  private drawStatus(): void {
    const item = this.statusItem;
    if (!item) return;
    const description = describeConnection(this.connection.current);
    const companionSet = this.settings.companion.url.trim() !== '';
    const text = this.indexStatusText || (companionSet ? description.label : '');
    item.setText(text);
    item.setAttribute('aria-label', description.detail);
    item.dataset.tone = this.indexStatusText ? 'pending' : description.tone;
    if (text === '') item.hide();
    else item.show();
  }

  private refreshConnection(options: { quiet?: boolean } = {}): Promise<ConnectionState> {
    this.connectionChecked = this.endpointKey();
    return this.connection.refresh(options);
  }

  private endpointKey(): string {
    const { companion, privacy } = this.settings;
    return JSON.stringify([companion.url, companion.token, privacy.offlineMode]);
  }

  private async openChatPane(): Promise<void> {
    const { workspace } = this.app;
    let leaf = workspace.getLeavesOfType(CAIRN_VIEW_TYPE)[0] ?? null;
    if (!leaf) {
      leaf = workspace.getRightLeaf(false);
      if (!leaf) return;
      await leaf.setViewState({ type: CAIRN_VIEW_TYPE, active: true });
    }
    await workspace.revealLeaf(leaf);
  }

  /**
   * Opens this plugin's settings tab. `app.setting` is not in the public API, so it is
   * reached through a guarded cast; if a future Obsidian drops it, the button does nothing.
   */
  private openSettings(): void {
    const setting = (this.app as unknown as { setting?: InternalSettingModal }).setting;
    if (!setting) return;
    setting.open();
    setting.openTabById(this.manifest.id);
  }
}

interface InternalSettingModal {
  open(): void;
  openTabById(id: string): void;
}
