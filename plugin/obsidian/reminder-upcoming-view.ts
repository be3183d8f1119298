/**
 * "Upcoming reminders": an ItemView listing the vault's upcoming reminders (soonest first),
 * the one-offs missed while Obsidian was closed, and the reminders that do not read, each
 * opening its note at the line. Re-renders when the scheduler's files change and every minute
 * (labels such as "today 17:00" age).
 */
import { ItemView } from 'obsidian';
import type { WorkspaceLeaf } from 'obsidian';
import { describeNextFire } from '../../shared/reminders';
import type { LocalReminders } from './reminder-runtime';

export const REMINDERS_VIEW_TYPE = 'cairn-reminders';

export interface UpcomingViewDeps {
  reminders: () => LocalReminders | null;
  now: () => number;
  /** Shown above the list, e.g. "The companion fires these (paired)". */
  status: () => string;
  open: (path: string, line: number) => void;
}

export class UpcomingRemindersView extends ItemView {
  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: UpcomingViewDeps,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return REMINDERS_VIEW_TYPE;
  }

  getDisplayText(): string {
    return 'Upcoming reminders';
  }

  override getIcon(): string {
    return 'alarm-clock';
  }

  override async onOpen(): Promise<void> {
    this.render();
    this.registerInterval(window.setInterval(() => this.render(), 60_000));
  }

  render(): void {
    const root = this.contentEl;
    root.empty();
    root.addClass('cairn-reminders-view');
    root.createEl('p', { cls: 'cairn-reminders-status', text: this.deps.status() });
    const reminders = this.deps.reminders();
    if (reminders === null) {
      root.createEl('p', { text: 'Reading reminders…' });
      return;
    }
    const now = this.deps.now();
    const missed = reminders.scheduler.missed();
    if (missed.length > 0) {
      root.createEl('h4', { text: 'Missed' });
      const list = root.createEl('ul', { cls: 'cairn-reminders-missed' });
      for (const { entry, occurrence } of missed) {
        this.item(
          list,
          entry.title,
          describeSafe(occurrence, entry.schedule.zone, now),
          entry.path,
          entry.line,
        );
      }
    }
    root.createEl('h4', { text: 'Upcoming' });
    const upcoming = reminders.scheduler.upcoming(100);
    if (upcoming.length === 0) root.createEl('p', { text: 'Nothing scheduled.' });
    const list = root.createEl('ul', { cls: 'cairn-reminders-upcoming' });
    for (const { entry, next } of upcoming) {
      this.item(
        list,
        entry.title,
        describeSafe(next, entry.schedule.zone, now),
        entry.path,
        entry.line,
      );
    }
    const problems = reminders.problems();
    if (problems.length > 0) {
      root.createEl('h4', { text: 'Needs attention' });
      const problemList = root.createEl('ul', { cls: 'cairn-reminders-problems' });
      for (const problem of problems.slice(0, 200)) problemList.createEl('li', { text: problem });
    }
  }

  private item(list: HTMLElement, title: string, when: string, path: string, line: number): void {
    const item = list.createEl('li', { cls: 'cairn-reminder-item' });
    const link = item.createEl('a', { text: title || path, href: '#' });
    item.createSpan({ cls: 'cairn-reminder-when', text: ` ${when}` });
    item.createSpan({ cls: 'cairn-reminder-path', text: ` · ${path}` });
    this.registerDomEvent(link, 'click', (event) => {
      event.preventDefault();
      this.deps.open(path, line);
    });
  }
}

function describeSafe(instant: number, zone: string, now: number): string {
  try {
    return describeNextFire(instant, zone, now);
  } catch {
    return new Date(instant).toISOString();
  }
}
