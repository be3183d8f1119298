/**
 * "Upcoming reminders": an ItemView listing the vault's upcoming reminders (soonest first),
 * the one-offs missed while Obsidian was closed, and the reminders that do not read, each
 * opening its note at the line. Re-renders when the scheduler's files change and every minute
 * (labels such as "today 17:00" age).
 */
import { ItemView } from 'obsidian';
import type { WorkspaceLeaf } from 'obsidian';
import { describeNextFire } from '../../../shared/reminders';
import type { MissedReminder, Reminder } from '../../../shared/protocol/reminders';
import type { LocalReminders } from './reminder-runtime';

export const REMINDERS_VIEW_TYPE = 'cairn-reminders';

export interface UpcomingViewDeps {
  reminders: () => LocalReminders | null;
  now: () => number;
  /** Shown above the list, e.g. "The companion fires these (paired)". */
  status: () => string;
  open: (path: string, line: number) => void;
  /** While paired: the companion's upcoming and missed reminders, or why they are unavailable. */
  companion?: () => Promise<CompanionReminders | string> | null;
}

export interface CompanionReminders {
  reminders: Reminder[];
  missed: MissedReminder[];
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
    this.renderCount++;
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
    this.companionSection(root);
    const problems = reminders.problems();
    if (problems.length > 0) {
      root.createEl('h4', { text: 'Needs attention' });
      const problemList = root.createEl('ul', { cls: 'cairn-reminders-problems' });
      for (const problem of problems.slice(0, 200)) problemList.createEl('li', { text: problem });
    }
  }

  /** The companion's view of the same vault (it also sees what this device has not synced). */
  private companionSection(root: HTMLElement): void {
    const request = this.deps.companion?.() ?? null;
    if (request === null) return;
    const section = root.createDiv({ cls: 'cairn-reminders-companion' });
    section.createEl('h4', { text: 'On the companion' });
    const status = section.createEl('p', { text: 'Asking the companion…' });
    const render = this.renderCount;
    void request.then((answer) => {
      if (render !== this.renderCount || !section.isConnected) return;
      if (typeof answer === 'string') {
        status.setText(`Companion reminders unavailable: ${answer}`);
        return;
      }
      status.setText(`${answer.reminders.length} active, ${answer.missed.length} missed`);
      const missed = section.createEl('ul', { cls: 'cairn-reminders-missed' });
      for (const item of answer.missed) {
        const when = item.occurrence ?? item.detail ?? item.reason;
        this.item(missed, item.title, when, item.path, item.line ?? 1);
      }
      const list = section.createEl('ul', { cls: 'cairn-reminders-upcoming' });
      for (const reminder of answer.reminders) {
        const next = reminder.next_fire ? Date.parse(reminder.next_fire) : null;
        const when =
          next === null ? 'nothing left' : describeSafe(next, reminder.timezone, this.deps.now());
        this.item(list, reminder.title, when, reminder.path, reminder.line ?? 1);
      }
    });
  }

  private renderCount = 0;

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
