/**
 * Obsidian side of the local reminder scheduler (docs/delivery.md, not paired): reads every Markdown
 * file once the layout is ready, then follows `metadataCache` 'changed' (which hands over the
 * file's text, so nothing is read twice), vault 'delete' and 'rename'. Fires with a Notice and,
 * when the user allowed it, a system Notification. What fired is kept in
 * `<plugin dir>/fired-reminders.json` so a restart never fires twice. Everything is released
 * through the plugin's `register*`.
 */
import { Notice, TFile } from 'obsidian';
import { snoozeChoices } from '../line-commands';
import { completeFiredReminder, snoozeFiredReminder } from './reminder-notice-actions';
import type { ReadReminders } from './reminder-notice-actions';
import type { App, Plugin } from 'obsidian';
import { describeNextFire } from '../../../shared/reminders';
import type { Clock } from '../../../shared/ports';
import { LocalReminderScheduler } from '../local-scheduler';
import type { FiredReminderStore, ReminderNotifier } from '../local-scheduler';
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

  let released = false;
  plugin.register(() => (released = true));
  plugin.registerEvent(
    app.metadataCache.on('changed', (file, data) => {
      if (file.extension !== 'md') return;
      scheduler.setFile(file.path, read(file.path, data));
      deps.onChange?.();
    }),
  );
  plugin.registerEvent(
    app.vault.on('delete', (file) => {
      problems.delete(file.path);
      scheduler.removeFile(file.path);
      deps.onChange?.();
    }),
  );
  plugin.registerEvent(
    app.vault.on('rename', (file, oldPath) => {
      scheduler.renameFile(oldPath, file.path);
      const moved = problems.get(oldPath);
      problems.delete(oldPath);
      if (moved !== undefined) problems.set(file.path, moved);
      deps.onChange?.();
    }),
  );

  void (async () => {
    const files: Array<[string, readonly VaultReminderEntry[]]> = [];
    for (const file of app.vault.getMarkdownFiles()) {
      if (released) return;
      try {
        const text = await app.vault.cachedRead(file);
        if (text.includes('@') || text.includes('⏰') || text.includes('reminder')) {
          files.push([file.path, read(file.path, text)]);
        }
      } catch (error) {
        problems.set(file.path, [`${file.path}: could not be read: ${String(error)}`]);
      }
    }
    if (released) return;
    await scheduler.start(files);
    deps.onChange?.();
  })();

  return { scheduler, problems: () => [...problems.values()].flat() };
}

function firedStore(app: App, plugin: Plugin): FiredReminderStore {
  const path = `${plugin.manifest.dir ?? `.obsidian/plugins/${plugin.manifest.id}`}/fired-reminders.json`;
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
  button('Done', () => void completeFiredReminder(app, entry, read));
  const hour = snoozeChoices(clock.now(), zone).find((choice) => choice.label === '1 hour');
  if (hour) button('Snooze 1 hour', () => void snoozeFiredReminder(app, entry, hour, zone, read));
}
