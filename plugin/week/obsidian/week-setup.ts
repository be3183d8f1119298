/**
 * The week view and the digest command (docs/memory-digest-calendar.md), registered from main.ts in one call
 * (the component and its pure data live in plugin/week/; this is their Obsidian adapter):
 * the `ItemView`, its ribbon icon and command, and "Write this week's digest". When a companion
 * is paired, both go through it (`GET /api/v1/calendar/week`, `POST /api/v1/digests`, the
 * reminder actions); otherwise they work from the vault with the same shared builders.
 */
import { Notice, TFolder } from 'obsidian';
import type { Plugin } from 'obsidian';
import { formatIsoWeek } from '../../../shared/calendar';
import { MS_PER_DAY, formatDay } from '../../../shared/chat/zone-calendar';
import { DEFAULT_DIGEST_FOLDER, buildDigest } from '../../../shared/digest';
import type { DigestNote } from '../../../shared/digest';
import { CalendarWeek, DigestWritten } from '../../../shared/protocol/calendar';
import type { CalendarItem } from '../../../shared/protocol/calendar';
import { Reminder } from '../../../shared/protocol/reminders';
import { formatInZone, instantToWall } from '../../../shared/reminders';
import type { CompanionClient } from '../../connection/client';
import { completeLine, snoozeLine } from '../../reminders/line-commands';
import { editReminder } from '../../reminders/obsidian/reminder-notice-actions';
import type { ReadReminders } from '../../reminders/obsidian/reminder-notice-actions';
import type { VaultReminderEntry } from '../../reminders/vault-reminder-entries';
import type { CairnSettings } from '../../../shared/settings/cairn-settings';
import { calendarReminder, localWeek, noteEvents, weekAt } from '../week-data';
import { WEEK_VIEW_TYPE, WeekItemView } from './week-view';
import type { WeekViewDeps } from './week-view';
import type { ReadOnlyActions } from '../week-data';
import { revealView } from '../../workspace/obsidian/reveal-view';

/** The week view's Snooze: the phone's "snooze 15 min". */
const SNOOZE_MINUTES = 15;

export interface WeekSetupDeps {
  settings: () => CairnSettings;
  isPaired: () => boolean;
  client: CompanionClient;
  /** The vault's reminders as the plugin's scheduler read them (empty before layout-ready). */
  localEntries: () => readonly VaultReminderEntry[];
  /** Reads one file's reminders as the scheduler does: Done and Snooze find theirs again. */
  readReminders: ReadReminders;
  clock?: { now(): number };
}

export function setUpWeek(plugin: Plugin, deps: WeekSetupDeps): void {
  const app = plugin.app;
  const clock = deps.clock ?? { now: () => Date.now() };
  const zone = () => deps.settings().timezone;

  const viewDeps: WeekViewDeps = {
    load: async (offset) => {
      const week = weekAt(clock.now(), zone(), offset);
      if (deps.isPaired()) {
        const answer = await deps.client.call(
          'GET',
          `/api/v1/calendar/week?week=${formatIsoWeek(week)}`,
          CalendarWeek,
        );
        if (typeof answer !== 'string') return { week: answer, source: 'From the companion' };
        // Fall through to the vault, saying why.
        const local = vaultWeek(offset);
        return {
          week: local,
          source: `From this vault (companion: ${answer})`,
          readOnly: await readOnlyReminders(local),
        };
      }
      const local = vaultWeek(offset);
      return { week: local, source: 'From this vault', readOnly: await readOnlyReminders(local) };
    },
    today: () => formatDay(Math.floor(instantToWall(clock.now(), zone()) / MS_PER_DAY)),
    open: (item) => {
      void app.workspace.openLinkText(
        item.path,
        '',
        false,
        item.line === null ? {} : { eState: { line: item.line - 1 } },
      );
    },
    done: (item) => act(item, 'done'),
    snooze: (item) => act(item, 'snooze'),
  };

  /**
   * What Done and Snooze would refuse, per inline reminder of the week, so the view does not
   * offer them: the same line functions decide, dry-run on the line as the file holds it now
   * (another plugin's format, a recurring Tasks line, a line that is no task).
   */
  async function readOnlyReminders(week: CalendarWeek): Promise<Record<string, ReadOnlyActions>> {
    const refused: Record<string, ReadOnlyActions> = {};
    const items = week.days.flatMap((day) => day.items);
    for (const item of items) {
      if (item.kind !== 'reminder' || item.line === null || item.id in refused) continue;
      const file = app.vault.getFileByPath(item.path);
      if (!file) continue;
      const line = (await app.vault.cachedRead(file)).split('\n')[item.line - 1] ?? '';
      const done = completeLine(line, { today: '2000-01-01' });
      const snooze = snoozeLine(line, clock.now() + SNOOZE_MINUTES * 60_000, zone());
      const actions: ReadOnlyActions = {
        ...(done.ok ? {} : { done: done.problem }),
        ...(snooze.ok ? {} : { snooze: snooze.problem }),
      };
      if (actions.done !== undefined || actions.snooze !== undefined) refused[item.id] = actions;
    }
    return refused;
  }

  function vaultWeek(offset: number) {
    const files = app.vault.getMarkdownFiles();
    const events = noteEvents(
      files.map((file) => ({
        path: file.path,
        frontMatter: app.metadataCache.getFileCache(file)?.frontmatter,
      })),
      zone(),
    );
    return localWeek({
      week: weekAt(clock.now(), zone(), offset),
      zone: zone(),
      entries: deps.localEntries(),
      events,
      vaultName: app.vault.getName(),
    });
  }

  async function act(item: CalendarItem, action: 'done' | 'snooze'): Promise<string | void> {
    if (deps.isPaired()) {
      const occurrence = item.recurring ? { occurrence: item.start } : {};
      const body = action === 'done' ? occurrence : { minutes: SNOOZE_MINUTES, ...occurrence };
      const answer = await deps.client.call(
        'POST',
        `/api/v1/reminders/${encodeURIComponent(item.id)}/${action}`,
        Reminder,
        body,
      );
      return typeof answer === 'string' ? answer : undefined;
    }
    // The week was loaded minutes ago: the reminder is found again by its id (block id, else
    // the line's text) in the file as it is now, never by the line number it had then.
    const until = clock.now() + SNOOZE_MINUTES * 60_000;
    return editReminder(
      app,
      { path: item.path, id: item.id, kind: item.line === null ? 'note' : 'inline' },
      deps.readReminders,
      action === 'done'
        ? {
            note: (front) => (front.status = 'done'),
            line: (line) =>
              completeLine(line, { today: formatInZone(clock.now(), zone()).slice(0, 10) }),
          }
        : {
            note: (front) => {
              const noteZone = typeof front.timezone === 'string' ? front.timezone : zone();
              front.snoozed_until = formatInZone(until, noteZone);
            },
            line: (line) => snoozeLine(line, until, zone()),
          },
    );
  }

  plugin.registerView(WEEK_VIEW_TYPE, (leaf) => new WeekItemView(leaf, viewDeps));
  const open = () => void openWeek(plugin);
  plugin.addRibbonIcon('calendar-days', 'Open week view', open);
  plugin.addCommand({ id: 'open-week-view', name: 'Open week view', callback: open });
  plugin.addCommand({
    id: 'write-weekly-digest',
    name: "Write this week's digest",
    callback: () => void writeDigest(),
  });

  async function writeDigest(): Promise<void> {
    const week = weekAt(clock.now(), zone(), 0);
    if (deps.isPaired()) {
      const answer = await deps.client.call('POST', '/api/v1/digests', DigestWritten, {
        week: formatIsoWeek(week),
      });
      if (typeof answer !== 'string') {
        await app.workspace.openLinkText(answer.path, '', false);
        return;
      }
      new Notice(`Cairn: the companion could not write the digest (${answer}); writing it here.`);
    }
    const folder = DEFAULT_DIGEST_FOLDER;
    const existing = app.vault.getAbstractFileByPath(folder);
    if (existing && !(existing instanceof TFolder)) {
      new Notice(`Cairn: ${folder} is a file, not a folder; rename it so digests can be written.`);
      return;
    }
    const notes: DigestNote[] = app.vault.getMarkdownFiles().map((file) => {
      const title: unknown = app.metadataCache.getFileCache(file)?.frontmatter?.title;
      return {
        path: file.path,
        title: typeof title === 'string' && title.trim() !== '' ? title : file.basename,
        created: file.stat.ctime,
        modified: file.stat.mtime,
      };
    });
    const digest = buildDigest({
      week,
      zone: zone(),
      now: clock.now(),
      notes,
      reminders: deps
        .localEntries()
        .flatMap((entry) => calendarReminder(entry, app.vault.getName()) ?? []),
      folder,
    });
    if (app.vault.getAbstractFileByPath(digest.path)) {
      new Notice(`Cairn: ${digest.path} already exists; it is left as it is.`);
    } else {
      if (!existing) await app.vault.createFolder(folder);
      await app.vault.create(digest.path, digest.text);
    }
    await app.workspace.openLinkText(digest.path, '', false);
  }
}

async function openWeek(plugin: Plugin): Promise<void> {
  await revealView(plugin.app, WEEK_VIEW_TYPE, 'sidebar');
}
