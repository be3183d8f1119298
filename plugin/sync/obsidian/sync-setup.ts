import { Notice, Platform, TFile } from 'obsidian';
import type { App, Plugin } from 'obsidian';
import { ObsidianHttpTransport } from '../../connection/obsidian/request-url-transport';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import { IdbSyncStateStore, deleteSyncStore, syncStoreName } from '../idb-state-store';
import { otherSyncTool } from '../other-sync-tools';
import { CompanionSyncClient, SyncRequestError } from '../sync-client';
import { SyncEngine } from '../sync-engine';
import type { SyncEvent } from '../sync-engine';
import { SyncRunner } from '../sync-runner';
import { categoriesWidened, normalizeFolders, scopeWidened, syncScope } from '../sync-scope';
import { SettingsSplitVault } from '../settings-split-vault';
import { ObsidianSettingsVault } from './obsidian-settings-vault';
import { SyncArchiveClient } from '../sync-archive-client';
import { ObservedSyncApi, SyncStatus } from '../sync-status';
import { holdNoteCreation } from './hold-creations';
import { ObsidianSyncVault } from './obsidian-sync-vault';
import { registerSyncUi } from './sync-ui';
export type { SyncSessionControl } from './sync-session-control';

/** Longest wait of note creation (daily note, templates) for the first pull of a session. */
const FIRST_PULL_HOLD_MS = 15_000;
/** Above the long poll's 25 s wait, so a quiet poll is an answer and not a timeout. */
const SYNC_REQUEST_TIMEOUT_MS = 60_000;
/** Self-hosted LiveSync's plugin id (its folder under the config folder). */
const LIVESYNC_PLUGIN_ID = 'obsidian-livesync';

export interface SyncSetupDeps {
  readonly settings: () => CairnSettings;
  /** Tells this vault's IndexedDB state from other vaults' (as the search store does). */
  readonly vaultKey: () => string;
  /** Pairing saves the companion's address, the device's token and name, and turns sync on. */
  readonly updateSettings: (change: (settings: CairnSettings) => void) => Promise<void>;
  /** After pairing changed the address and token: the rest of the plugin follows (connection). */
  readonly settingsApplied: () => void;
}

/** What the rest of the plugin may ask of sync. */
export interface SyncControl {
  /** Starts, or stops, sync to match the settings now (the settings tab closed). */
  refresh(): void;
  /** "Pair this device" (settings tab button, command, `obsidian://cairn-sync-pair` link). */
  openPairing(): void;
  /** "Unpair this device" (settings tab button, command): the confirmation, then the unpairing. */
  openUnpairing(): void;
}

/** Per device (local storage, not data.json): sync paused on this device. */
const PAUSED_KEY = 'cairn-sync-paused';
/** Per device: the excluded folders the engine last synced with (to notice one synced again). */
const EXCLUDED_KEY = 'cairn-sync-excluded-folders';
/** Per device: the settings categories the engine last synced (to notice one turned on). */
const CATEGORIES_KEY = 'cairn-sync-settings-categories';
/**
 * How often a pass looks at the settings folder when some category is on: the file system
 * adapter raises no vault events, so its files are found changed by listing.
 */
const SETTINGS_PASS_MS = 30_000;
/** Quiet time after settings files arrived before the one notice that says to restart. */
const RESTART_NOTICE_MS = 3_000;

/**
 * Cairn Sync in Obsidian (docs/sync.md): off unless `sync.enabled`. Called from onload, so note
 * creation is held before Obsidian's daily note runs at layout-ready; the engine itself starts
 * at layout-ready, after checking that no other sync tool serves this vault.
 */
export function setUpSync(plugin: Plugin, deps: SyncSetupDeps): SyncControl {
  const { app } = plugin;
  let session: SyncSession | null = null;
  let starting = false;
  const status = new SyncStatus(() => Date.now());
  const isPaused = () => app.loadLocalStorage(PAUSED_KEY) === true;
  const timers = {
    setTimeout: (callback: () => void, ms: number) => window.setTimeout(callback, ms),
    clearTimeout: (id: number) => window.clearTimeout(id),
  };
  // The first pull of this app session: note creation waits for it (or for the hold's limit).
  let firstPullLanded: () => void = () => undefined;
  const firstPull = new Promise<void>((resolve) => (firstPullLanded = resolve));
  if (deps.settings().sync.enabled) {
    plugin.register(holdNoteCreation(app.vault, firstPull, FIRST_PULL_HOLD_MS, timers));
  } else {
    firstPullLanded();
  }

  const start = async (): Promise<void> => {
    if (session || starting) return;
    if (!deps.settings().sync.enabled) {
      status.stopped('off');
      return;
    }
    if (isPaused()) {
      status.stopped('paused', 'Run "Resume sync on this device" to sync again.');
      firstPullLanded();
      return;
    }
    starting = true;
    try {
      const refusal = otherSyncTool(await gatherSyncToolFacts(app));
      if (refusal !== null) {
        new Notice(`Cairn Sync is off: ${refusal}`, 0);
        status.stopped('off', refusal);
        firstPullLanded();
        return;
      }
      session = await openSession(app, deps, timers, status);
      await followScope(app, deps, session.engine);
      status.started();
      void session.engine.firstPullDone.then(firstPullLanded);
      session.runner.start();
    } catch (error) {
      firstPullLanded();
      console.warn('Cairn Sync could not start', error);
      new Notice('Sync could not start (details in the developer console).');
    } finally {
      starting = false;
    }
  };
  const stop = (): void => {
    session?.close();
    session = null;
    status.stopped(isPaused() ? 'paused' : 'off');
  };

  const forward = (path: string): void => session?.runner.noteChanged(path);
  plugin.registerEvent(
    app.vault.on('create', (file) => file instanceof TFile && forward(file.path)),
  );
  plugin.registerEvent(
    app.vault.on('modify', (file) => file instanceof TFile && forward(file.path)),
  );
  plugin.registerEvent(
    app.vault.on('delete', (file) => file instanceof TFile && forward(file.path)),
  );
  plugin.registerEvent(
    app.vault.on('rename', (file, oldPath) => {
      if (file instanceof TFile) session?.runner.noteRenamed(oldPath, file.path);
    }),
  );
  plugin.addCommand({
    id: 'sync-now',
    name: 'Sync vault with the companion now',
    checkCallback: (checking) => {
      if (!session) return false;
      if (!checking) void session.engine.sync().catch((error: unknown) => reportFailure(error));
      return true;
    },
  });
  plugin.addCommand({
    id: 'sync-confirm-deletes',
    name: 'Confirm the held sync deletes',
    checkCallback: (checking) => {
      const holds = session?.engine.pendingHolds ?? [];
      if (holds.length === 0 || !session) return false;
      if (!checking) {
        const engine = session.engine;
        void (async () => {
          for (const hold of holds) await engine.confirmHold(hold);
          new Notice('The held sync deletes are applied.');
        })().catch((error: unknown) => reportFailure(error));
      }
      return true;
    },
  });
  app.workspace.onLayoutReady(() => {
    // Settings files raise no vault events: while a category is on, a pass at least this often.
    // Started with the layout, as every timer of the plugin is (nothing runs before it).
    plugin.registerInterval(
      window.setInterval(() => {
        if (deps.settings().sync.settingsCategories.length > 0) session?.runner.requestPass();
      }, SETTINGS_PASS_MS),
    );
    void start();
  });
  plugin.register(stop);

  const refresh = () => {
    if (deps.settings().sync.enabled && !isPaused()) {
      const running = session;
      if (!running) {
        void start();
        return;
      }
      void followScope(app, deps, running.engine).then((changed) => {
        if (changed) void running.engine.sync().catch((error: unknown) => reportFailure(error));
      });
    } else stop();
  };
  const unpair = async (options: { localOnly: boolean }): Promise<string> => {
    let revoked = false;
    let ownerToken = false;
    if (!options.localOnly) {
      try {
        const answer = await archiveClient(deps).unpair(deviceName(deps.settings()));
        revoked = answer.token_revoked;
        ownerToken = !answer.token_revoked;
      } catch (error) {
        // A token the companion already refuses was revoked there: unpairing goes on.
        if (!(error instanceof SyncRequestError && error.code === 'UNAUTHORIZED')) throw error;
        revoked = true;
      }
    }
    stop();
    await deleteSyncStore(deps.vaultKey());
    app.saveLocalStorage(PAUSED_KEY, null);
    await deps.updateSettings((settings) => {
      settings.sync.enabled = false;
      // The owner token is the companion's own and stays; a device token is of no use now.
      if (!ownerToken) settings.companion.token = '';
    });
    deps.settingsApplied();
    status.stopped('off');
    if (ownerToken) {
      return 'This device is unpaired and its sync state is removed. It used the owner token, which stays valid.';
    }
    return revoked
      ? 'This device is unpaired: its token is revoked on the companion and its sync state removed. Your notes stay.'
      : 'This device is unpaired here and its sync state removed. Revoke its token on the companion’s machine (cairn-companion token list, then token revoke NAME).';
  };
  const running = (): SyncSession => {
    if (!session) throw new Error('Cairn Sync is not running on this device');
    return session;
  };
  const ui = registerSyncUi(plugin, {
    app,
    status,
    settings: deps.settings,
    updateSettings: deps.updateSettings,
    running: () => session !== null,
    syncNow: () => running().engine.sync(),
    pull: () => running().engine.pull(),
    isPaused,
    setPaused: (paused) => {
      app.saveLocalStorage(PAUSED_KEY, paused ? true : null);
      refresh();
    },
    heldDeletes: () => session?.engine.heldDeletes() ?? [],
    confirmHold: async (hold) => {
      await running().engine.confirmHold(hold);
      status.setHeld(running().engine.heldDeletes().map(heldBatch));
    },
    cancelHold: async (hold) => {
      await running().engine.cancelHold(hold);
      status.setHeld(running().engine.heldDeletes().map(heldBatch));
    },
    archive: () => archiveClient(deps),
    deviceName: () => deviceName(deps.settings()),
    refresh: () => {
      refresh();
      deps.settingsApplied();
    },
    otherSyncTool: async () => otherSyncTool(await gatherSyncToolFacts(app)),
    stateStoreName: () => syncStoreName(deps.vaultKey()),
    unpair,
    notDownloaded: async () => (session ? session.engine.notDownloaded() : []),
    downloadNow: (path) => running().engine.downloadNow(path),
  });

  return { refresh, openPairing: ui.openPairing, openUnpairing: ui.openUnpairing };
}

function heldBatch(batch: { hold: string; paths: string[] }) {
  return { hold: batch.hold, paths: batch.paths, files: batch.paths.length };
}

function archiveClient(deps: SyncSetupDeps): SyncArchiveClient {
  return new SyncArchiveClient(
    new ObsidianHttpTransport(SYNC_REQUEST_TIMEOUT_MS),
    () => ({
      url: deps.settings().companion.url,
      token: deps.settings().companion.token,
      offlineMode: deps.settings().privacy.offlineMode,
    }),
    () => deviceName(deps.settings()),
  );
}

interface SyncSession {
  readonly engine: SyncEngine;
  readonly runner: SyncRunner;
  close(): void;
}

async function openSession(
  app: App,
  deps: SyncSetupDeps,
  timers: { setTimeout(callback: () => void, ms: number): number; clearTimeout(id: number): void },
  status: SyncStatus,
): Promise<SyncSession> {
  const store = await IdbSyncStateStore.open(deps.vaultKey());
  // `.OBSIDIAN` resolves to `.obsidian` exactly where the file system ignores case.
  const caseInsensitive = await app.vault.adapter.exists(app.vault.configDir.toUpperCase());
  // Every request is seen by the status the user reads (status bar, sync view).
  const api = new ObservedSyncApi(
    new CompanionSyncClient(
      new ObsidianHttpTransport(SYNC_REQUEST_TIMEOUT_MS),
      () => ({
        url: deps.settings().companion.url,
        token: deps.settings().companion.token,
        offlineMode: deps.settings().privacy.offlineMode,
      }),
      () => deviceName(deps.settings()),
    ),
    status,
  );
  const categories = () => new Set(deps.settings().sync.settingsCategories);
  const settingsVault = new ObsidianSettingsVault(
    app.vault.adapter,
    app.vault.configDir,
    categories,
    caseInsensitive,
    (path) => settingsArrived.add(path),
  );
  // Settings files written from the companion: one notice once they settle, naming them.
  const settingsArrived = new Set<string>();
  let noticeTimer: number | null = null;
  const notesVault = new ObsidianSyncVault(app, { caseInsensitive });
  const engine = new SyncEngine({
    vault: new SettingsSplitVault(notesVault, settingsVault),
    downloadLimitBytes: downloadLimitBytes(deps.settings()),
    store,
    api,
    clock: { now: () => Date.now() },
    onEvent: (event) => {
      if (event.kind === 'held') status.setHeld(engine.heldDeletes().map(heldBatch));
      if (event.kind === 'pulled' && settingsArrived.size > 0) {
        if (noticeTimer !== null) window.clearTimeout(noticeTimer);
        noticeTimer = window.setTimeout(() => {
          noticeTimer = null;
          const paths = [...settingsArrived];
          settingsArrived.clear();
          new Notice(restartNotice(paths), 0);
        }, RESTART_NOTICE_MS);
      }
      showEvent(event);
    },
  });
  const runner = new SyncRunner(engine, api, timers, {
    onStopped: (error) => {
      status.failed(error);
      new Notice(`Cairn Sync stopped: ${error.message}`, 0);
    },
    onRetry: (error) => {
      status.failed(error);
      console.debug('Cairn Sync will retry', error);
    },
  });
  return {
    engine,
    runner,
    close: () => {
      runner.stop();
      if (noticeTimer !== null) window.clearTimeout(noticeTimer);
      notesVault.close();
      store.close();
    },
  };
}

/**
 * The engine syncs what the settings' excluded folders leave in, and the settings categories
 * this device turned on, from its next pass on; when a folder is synced again or a category
 * turned on, from a whole listing. The download limit follows too. True when the scope changed.
 */
async function followScope(app: App, deps: SyncSetupDeps, engine: SyncEngine): Promise<boolean> {
  const settings = deps.settings().sync;
  const folders = normalizeFolders(settings.excludedFolders);
  const categories = settings.settingsCategories;
  const before = savedList(app, EXCLUDED_KEY);
  const categoriesBefore = savedList(app, CATEGORIES_KEY);
  const widened = scopeWidened(before, folders) || categoriesWidened(categoriesBefore, categories);
  await engine.setScope(syncScope({ excludedFolders: folders, settingsCategories: categories }), {
    widened,
  });
  await engine.setDownloadLimit(downloadLimitBytes(deps.settings()));
  app.saveLocalStorage(EXCLUDED_KEY, folders);
  app.saveLocalStorage(CATEGORIES_KEY, [...categories]);
  return (
    widened ||
    scopeWidened(folders, before) ||
    categoriesBefore.some((category) => !(categories as readonly string[]).includes(category))
  );
}

function savedList(app: App, key: string): string[] {
  const saved: unknown = app.loadLocalStorage(key);
  return Array.isArray(saved)
    ? saved.filter((item): item is string => typeof item === 'string')
    : [];
}

/** The setting in bytes; null when off. */
export function downloadLimitBytes(settings: CairnSettings): number | null {
  const mb = settings.sync.downloadOnOpenAboveMB;
  return mb > 0 ? Math.round(mb * 1_000_000) : null;
}

function restartNotice(paths: readonly string[]): string {
  const names = paths.slice(0, 3).join(', ');
  const more = paths.length > 3 ? ` and ${paths.length - 3} more` : '';
  return `Cairn Sync brought settings from your other devices (${names}${more}). Some apply only after Obsidian restarts: close and reopen it.`;
}

/** The device's name for the companion: the one set, else one saying what kind of device. */
export function deviceName(settings: CairnSettings): string {
  const set = settings.sync.deviceName.trim();
  if (set !== '') return set;
  return Platform.isMobile ? 'Obsidian mobile' : 'Obsidian desktop';
}

export async function gatherSyncToolFacts(app: App) {
  const internal = (app as unknown as { internalPlugins?: InternalPlugins }).internalPlugins;
  let obsidianSync = false;
  try {
    obsidianSync = internal?.getPluginById?.('sync')?.enabled === true;
  } catch {
    obsidianSync = false;
  }
  const liveSyncPath = `${app.vault.configDir}/plugins/${LIVESYNC_PLUGIN_ID}`;
  return {
    obsidianSync,
    liveSyncFolder: (await app.vault.adapter.exists(liveSyncPath)) ? liveSyncPath : null,
    syncthingMarker: await app.vault.adapter.exists('.stfolder'),
  };
}

interface InternalPlugins {
  getPluginById?(id: string): { enabled?: boolean } | null | undefined;
}

function showEvent(event: SyncEvent): void {
  switch (event.kind) {
    case 'conflict':
      // No pop-up per conflict: the status bar and "Show sync conflicts" list them.
      console.debug(`Cairn Sync: ${event.path} has a conflict copy ${event.copyPath}`);
      return;
    case 'held':
      new Notice(
        `Cairn Sync is holding ${event.deletes} deletes (of ${event.files} files) until you look at them: click the sync status in the status bar.`,
        0,
      );
      return;
    case 'problem':
      console.warn(`Cairn Sync: ${event.path}: ${event.message} (${event.code})`);
      return;
    default:
      return;
  }
}

function reportFailure(error: unknown): void {
  console.warn('Cairn Sync failed', error);
  new Notice('Sync failed (details in the developer console); it retries on its own.');
}
