/**
 * Obsidian side of the local reminder scheduler (docs/delivery.md, not paired): once the layout
 * is ready, reads the Markdown files changed since the last session (all of them the first
 * time; reminder-scan-state.ts keeps what the others held), then follows `metadataCache`
 * 'changed' (which hands over the file's text, so nothing is read twice), vault 'delete' and
 * 'rename'. Fires with a Notice and,
 * when the user allowed it, a system Notification. What fired is kept in
 * `<plugin dir>/fired-reminders.json` so a restart never fires twice. Everything is released
 * through the plugin's `register*`.
 */
import { Notice, TFile } from 'obsidian';
import { snoozeChoices } from '../line-commands';
import { completeFiredReminder, snoozeFiredReminder } from './reminder-notice-actions';
import type { ReadReminders } from './reminder-notice-actions';
import type { App, Plugin } from 'obsidian';
import { describeNextFire, formatInZone } from '../../../shared/reminders';
import type { Clock } from '../../../shared/ports';
import { LocalReminderScheduler } from '../local-scheduler';
import type { FiredReminderStore, ReminderNotifier } from '../local-scheduler';
import { ReminderScanState } from '../reminder-scan-state';
import { readFileReminders } from '../vault-reminder-entries';
import type { VaultReminderEntry } from '../vault-reminder-entries';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';

export interface LocalRemindersDeps {
  plugin: Plugin;
  clock: Clock;
  settings: () => CairnSettings;
  /** True while a reachable companion is paired. */
  isPaired: () => boolean;
  /** Told when the reminders or the problems changed (the upcoming view re-renders). */
  onChange?: () => void;
}

export interface LocalReminders {
  scheduler: LocalReminderScheduler;
  /** Problems per file, e.g. `Daily.md: line 3: …`. */
  problems(): string[];
}

export function startLocalReminders(deps: LocalRemindersDeps): LocalReminders {
  const { plugin, clock } = deps;
  const app = plugin.app;
  const problems = new Map<string, string[]>();
  const scheduler = new LocalReminderScheduler({
    clock,
    timers: {
      set: (callback, delayMs) => window.setTimeout(callback, delayMs),
      clear: (handle) => window.clearTimeout(handle),
    },
    store: firedStore(app, plugin),
    notifier: obsidianNotifier(app, clock, deps.settings, (path, text) => readQuietly(path, text)),
    isPaired: deps.isPaired,
    onError: (message) => console.warn(`Cairn reminders: ${message}`),
  });
  plugin.register(() => scheduler.stop());

  const readQuietly = (path: string, text: string): readonly VaultReminderEntry[] => {
    const settings = deps.settings();
    return readFileReminders(path, text, {
      zone: settings.timezone,
      syntaxes: settings.reminders.syntaxes,
    }).entries;
  };
  const read = (path: string, text: string): readonly VaultReminderEntry[] => {
    const settings = deps.settings();
    const result = readFileReminders(path, text, {
      zone: settings.timezone,
      syntaxes: settings.reminders.syntaxes,
    });
    if (result.problems.length > 0) problems.set(path, result.problems);
    else problems.delete(path);
    return result.entries;
  };

  /** A file's reminders and problems, to tell an edit that changed them from one that did not. */
  const fileState = (
    path: string,
    entries: readonly VaultReminderEntry[] = scheduler.entriesOf(path),
  ): string => JSON.stringify([entries, problems.get(path) ?? []]);

  let released = false;
  plugin.register(() => (released = true));

  // What the launch scan found per file, kept in the plugin's folder (reminder-scan-state.ts).
  const scanPath = `${pluginDir(plugin)}/reminder-scan.json`;
  const scanKey = () => {
    const settings = deps.settings();
    return JSON.stringify([settings.timezone, settings.reminders.syntaxes]);
  };
  let scan: ReminderScanState | null = null;
  const record = (file: TFile, entries: readonly VaultReminderEntry[]) => {
    if (scan === null) return;
    scan.set(file.path, {
      mtime: file.stat.mtime,
      size: file.stat.size,
      entries,
      problems: problems.get(file.path) ?? [],
    });
    saveScanSoon();
  };
  let saveTimer: number | null = null;
  const saveScan = () => {
    saveTimer = null;
    if (scan === null) return;
    app.vault.adapter
      .write(scanPath, JSON.stringify(scan))
      .catch((error: unknown) =>
        console.warn(`Cairn reminders: could not save ${scanPath}: ${String(error)}`),
      );
  };
  const saveScanSoon = () => {
    if (saveTimer === null) saveTimer = window.setTimeout(saveScan, SCAN_SAVE_DELAY_MS);
  };
  plugin.register(() => {
    if (saveTimer !== null) {
      window.clearTimeout(saveTimer);
      saveScan();
    }
  });
  plugin.registerEvent(
    app.metadataCache.on('changed', (file, data) => {
      if (file.extension !== 'md') return;
      const before = fileState(file.path);
      const entries = read(file.path, data);
      scheduler.setFile(file.path, entries);
      record(file, entries);
      // Most edits touch no reminder: the views hear only of those that did.
      if (fileState(file.path, entries) !== before) deps.onChange?.();
    }),
  );
  plugin.registerEvent(
    app.vault.on('delete', (file) => {
      problems.delete(file.path);
      scan?.delete(file.path);
      saveScanSoon();
      scheduler.removeFile(file.path);
      deps.onChange?.();
    }),
  );
  plugin.registerEvent(
    app.vault.on('rename', (file, oldPath) => {
      scheduler.renameFile(oldPath, file.path);
      scan?.rename(oldPath, file.path);
      saveScanSoon();
      const moved = problems.get(oldPath);
      problems.delete(oldPath);
      if (moved !== undefined) problems.set(file.path, moved);
      deps.onChange?.();
    }),
  );

  void (async () => {
    const state = await loadScanState(app, scanPath, scanKey());
    scan = state;
    const files: Array<[string, readonly VaultReminderEntry[]]> = [];
    const present = new Set<string>();
    for (const file of app.vault.getMarkdownFiles()) {
      if (released) return;
      present.add(file.path);
      // Unchanged since the last session: what was found then still holds, nothing is read.
      const known = state.unchanged(file.path, file.stat.mtime, file.stat.size);
      if (known !== undefined) {
        if (known.problems.length > 0) problems.set(file.path, [...known.problems]);
        if (known.entries.length > 0) files.push([file.path, known.entries]);
        continue;
      }
      try {
        const text = await app.vault.cachedRead(file);
        const entries =
          text.includes('@') || text.includes('⏰') || text.includes('reminder')
            ? read(file.path, text)
            : [];
        if (entries.length > 0) files.push([file.path, entries]);
        record(file, entries);
      } catch (error) {
        problems.set(file.path, [`${file.path}: could not be read: ${String(error)}`]);
      }
    }
    if (released) return;
    state.keepOnly(present);
    saveScanSoon();
    await scheduler.start(files);
    deps.onChange?.();
  })();

  return { scheduler, problems: () => [...problems.values()].flat() };
}

/** Edits in a burst are saved once, this long after the first. */
const SCAN_SAVE_DELAY_MS = 2_000;

function pluginDir(plugin: Plugin): string {
  return plugin.manifest.dir ?? `.obsidian/plugins/${plugin.manifest.id}`;
}

/** The last session's scan, or an empty one when there is none or it does not read. */
async function loadScanState(app: App, path: string, key: string): Promise<ReminderScanState> {
  try {
    if (!(await app.vault.adapter.exists(path))) return new ReminderScanState(key);
    return ReminderScanState.parse(JSON.parse(await app.vault.adapter.read(path)), key);
  } catch {
    return new ReminderScanState(key);
  }
}

function firedStore(app: App, plugin: Plugin): FiredReminderStore {
  const path = `${pluginDir(plugin)}/fired-reminders.json`;
  return {
    async load() {
      if (!(await app.vault.adapter.exists(path))) return [];
      const parsed: unknown = JSON.parse(await app.vault.adapter.read(path));
      if (!Array.isArray(parsed)) throw new Error(`${path}: expected a JSON array of keys`);
      return parsed.filter((key): key is string => typeof key === 'string');
    },
    async save(keys) {
      await app.vault.adapter.write(path, JSON.stringify(keys));
    },
  };
}

function obsidianNotifier(
  app: App,
  clock: Clock,
  settings: () => CairnSettings,
  read: ReadReminders,
): ReminderNotifier {
  return {
    notify(entry, occurrence) {
      let when: string;
      try {
        when = describeNextFire(
          occurrence,
          entry.schedule.zone || settings().timezone,
          clock.now(),
        );
      } catch {
        when = new Date(occurrence).toISOString();
      }
      showReminderNotice(app, entry, when, clock, settings().timezone, read);
      const NotificationApi = (window as { Notification?: typeof Notification }).Notification;
      if (NotificationApi !== undefined && NotificationApi.permission === 'granted') {
        new NotificationApi(entry.title, { body: `${when} · ${entry.path}`, tag: entry.id });
      }
    },
  };
}

/**
 * The notice a fired reminder shows: title, when and where, and Open / Done / Snooze 1 hour
 * buttons (on phones this notice is the only place to act on it). It stays until dismissed.
 */
function showReminderNotice(
  app: App,
  entry: VaultReminderEntry,
  when: string,
  clock: Clock,
  zone: string,
  read: ReadReminders,
): void {
  const body = createFragment();
  body.createDiv({ cls: 'cairn-reminder-notice-title', text: `⏰ ${entry.title}` });
  body.createDiv({ cls: 'cairn-reminder-notice-when', text: `${when} · ${entry.path}` });
  const actions = body.createDiv({ cls: 'cairn-reminder-notice-actions' });
  const notice = new Notice(body, 0);
  const button = (text: string, run: () => void) => {
    const el = actions.createEl('button', { text });
    // A property, not a listener: the notice's element (and this with it) goes when it hides.
    el.onclick = (event) => {
      // A click on the notice would dismiss it anyway; run the action first, then hide.
      event.stopPropagation();
      run();
      notice.hide();
    };
  };
  button('Open', () => {
    const file = app.vault.getAbstractFileByPath(entry.path);
    if (file instanceof TFile)
      void app.workspace.getLeaf(false).openFile(file, { eState: { line: entry.line - 1 } });
  });
  button(
    'Done',
    () =>
      void completeFiredReminder(app, entry, read, formatInZone(clock.now(), zone).slice(0, 10)),
  );
  const hour = snoozeChoices(clock.now(), zone).find((choice) => choice.label === '1 hour');
  if (hour) button('Snooze 1 hour', () => void snoozeFiredReminder(app, entry, hour, zone, read));
}
