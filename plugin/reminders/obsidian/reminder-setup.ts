/**
 * Everything reminders add to Obsidian, in one call from main.ts: the `@remind` editor
 * extension, the upcoming view, the commands, and (after layout-ready) the local scheduler.
 * All of it is registered on the plugin, so disabling it releases every listener and timer.
 */
import type { Plugin } from 'obsidian';
import { newBlockId } from '../../../shared/reminders';
import type { Clock } from '../../../shared/ports';
import { remindEditorExtension } from '../editor/remind-extension';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import { registerReminderCommands } from './reminder-commands';
import { editorIsTemplate } from './template-folders';
import { startLocalReminders } from './reminder-runtime';
import type { LocalReminders } from './reminder-runtime';
import { REMINDERS_VIEW_TYPE, UpcomingRemindersView } from './reminder-upcoming-view';
import type { CompanionReminders } from './reminder-upcoming-view';
import { readFileReminders } from '../vault-reminder-entries';
import type { VaultReminderEntry } from '../vault-reminder-entries';
import type { ReadReminders } from './reminder-notice-actions';
import { revealView } from '../../workspace/obsidian/reveal-view';

export interface ReminderSetupDeps {
  settings: () => CairnSettings;
  /** True while a reachable companion is paired: it fires, the plugin stays silent. */
  isPaired: () => boolean;
  clock?: Clock;
  /** The paired companion's reminders for the upcoming view (CompanionClient.companionReminders). */
  companionReminders?: () => Promise<CompanionReminders | string>;
}

/**
 * Returns the vault's reminders as the local scheduler reads them, and the reader itself, for
 * the week view (its Done and Snooze find their reminder again at write time).
 */
export function setUpReminders(
  plugin: Plugin,
  deps: ReminderSetupDeps,
): { entries(): readonly VaultReminderEntry[]; read: ReadReminders } {
  const clock = deps.clock ?? { now: () => Date.now() };
  const app = plugin.app;
  let local: LocalReminders | null = null;

  plugin.registerEditorExtension(
    remindEditorExtension({
      now: () => clock.now(),
      zone: () => deps.settings().timezone,
      newBlockId: (taken) => newBlockId(Math.random, taken),
      isTemplate: editorIsTemplate(app),
      createLabel: () => createSpan(),
    }),
  );

  const renderViews = () => {
    for (const leaf of app.workspace.getLeavesOfType(REMINDERS_VIEW_TYPE)) {
      if (leaf.view instanceof UpcomingRemindersView) leaf.view.changed();
    }
  };

  plugin.registerView(
    REMINDERS_VIEW_TYPE,
    (leaf) =>
      new UpcomingRemindersView(leaf, {
        reminders: () => local,
        now: () => clock.now(),
        status: () =>
          deps.isPaired()
            ? 'Paired: the companion sends these notifications.'
            : 'Not paired: Cairn notifies you while Obsidian is open.',
        companion: () => (deps.isPaired() ? (deps.companionReminders?.() ?? null) : null),
        open: (path, line) => {
          void app.workspace.openLinkText(path, '', false, { eState: { line: line - 1 } });
        },
      }),
  );

  registerReminderCommands({
    plugin,
    clock,
    settings: deps.settings,
    showUpcoming: () => void showUpcoming(plugin),
  });

  app.workspace.onLayoutReady(() => {
    local = startLocalReminders({
      plugin,
      clock,
      settings: deps.settings,
      isPaired: deps.isPaired,
      onChange: renderViews,
    });
  });
  return {
    entries: () => local?.scheduler.entries() ?? [],
    read: (path, text) => {
      const settings = deps.settings();
      return readFileReminders(path, text, {
        zone: settings.timezone,
        syntaxes: settings.reminders.syntaxes,
      }).entries;
    },
  };
}

async function showUpcoming(plugin: Plugin): Promise<void> {
  await revealView(plugin.app, REMINDERS_VIEW_TYPE, 'sidebar');
}
