/**
 * "Upcoming reminders": an ItemView listing the vault's upcoming reminders (soonest first),
 * the one-offs missed while Obsidian was closed, and the reminders that do not read, each
 * opening its note at the line.
 *
 * It works only while on screen: a change (the scheduler's reminders, the minute that ages
 * "today 17:00") redraws a visible view and only marks a hidden one, which redraws when it
 * comes back. One click listener on the view serves every item (items carry their path and
 * line), so a redraw registers nothing. While paired, the companion's list is asked at most
 * once a minute with one request in flight, and every redraw in between reuses its answer.
 */
import { ItemView } from 'obsidian';
import { leafOnScreen } from '../../workspace/obsidian/leaf-on-screen';
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
  /** A change arrived while hidden: redraw when shown. */
  private stale = false;
  private companionAnswer: CompanionReminders | string | null = null;
  private companionAskedAt = -Infinity;
  private companionInFlight = false;

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
    this.contentEl.addClass('cairn-reminders-view');
    this.registerDomEvent(this.contentEl, 'click', (event) => this.clicked(event));
    this.stale = true;
    this.shown();
    this.registerInterval(window.setInterval(() => this.changed(), COMPANION_REFRESH_MS));
    const shown = () => this.shown();
    this.registerEvent(this.app.workspace.on('layout-change', shown));
    this.registerEvent(this.app.workspace.on('active-leaf-change', shown));
  }

  /** Obsidian calls this when the view's size changes, coming on screen included. */
  override onResize(): void {
    this.shown();
  }

  /** What it shows may have changed: redraw now if on screen, else when it comes back. */
  changed(): void {
    this.stale = true;
    this.shown();
  }

  /** Redraws when a change arrived while hidden and the view is on screen now. */
  shown(): void {
    if (!this.stale || !this.onScreen()) return;
    this.stale = false;
    this.askCompanion();
    this.render();
  }

  /** Whether the view can be seen; tests of the view alone may stand in for the workspace. */
  protected onScreen(): boolean {
    return leafOnScreen(this.app, this.leaf);
  }

  render(): void {
    const root = this.contentEl;
    root.empty();
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
        item(
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
      item(list, entry.title, describeSafe(next, entry.schedule.zone, now), entry.path, entry.line);
    }
    this.companionSection(root);
    const problems = reminders.problems();
    if (problems.length > 0) {
      root.createEl('h4', { text: 'Needs attention' });
      const problemList = root.createEl('ul', { cls: 'cairn-reminders-problems' });
      for (const problem of problems.slice(0, 200)) problemList.createEl('li', { text: problem });
    }
  }

  /** Asks the companion again when its answer is a minute old and no request is running. */
  private askCompanion(): void {
    const now = this.deps.now();
    if (this.companionInFlight || now - this.companionAskedAt < COMPANION_REFRESH_MS) return;
    const request = this.deps.companion?.() ?? null;
    if (request === null) {
      this.companionAnswer = null;
      return;
    }
    this.companionAskedAt = now;
    this.companionInFlight = true;
    void request.then((answer) => {
      this.companionInFlight = false;
      this.companionAnswer = answer;
      this.changed();
    });
  }

  /** The companion's view of the same vault (it also sees what this device has not synced). */
  private companionSection(root: HTMLElement): void {
    if (this.companionAnswer === null && !this.companionInFlight) return;
    const section = root.createDiv({ cls: 'cairn-reminders-companion' });
    section.createEl('h4', { text: 'On the companion' });
    const answer = this.companionAnswer;
    if (answer === null) {
      section.createEl('p', { text: 'Asking the companion…' });
      return;
    }
    if (typeof answer === 'string') {
      section.createEl('p', { text: `Companion reminders unavailable: ${answer}` });
      return;
    }
    section.createEl('p', {
      text: `${answer.reminders.length} active, ${answer.missed.length} missed`,
    });
    const missed = section.createEl('ul', { cls: 'cairn-reminders-missed' });
    for (const entry of answer.missed) {
      const when = entry.occurrence ?? entry.detail ?? entry.reason;
      item(missed, entry.title, when, entry.path, entry.line ?? 1);
    }
    const list = section.createEl('ul', { cls: 'cairn-reminders-upcoming' });
    for (const reminder of answer.reminders) {
      const next = reminder.next_fire ? Date.parse(reminder.next_fire) : null;
      const when =
        next === null ? 'nothing left' : describeSafe(next, reminder.timezone, this.deps.now());
      item(list, reminder.title, when, reminder.path, reminder.line ?? 1);
    }
  }

  /** The one listener: a click on an item's link opens its note at its line. */
  private clicked(event: MouseEvent): void {
    const target = event.target;
    if (!(target instanceof HTMLElement)) return;
    const link = target.closest<HTMLElement>('a.cairn-reminder-link');
    if (link === null || !this.contentEl.contains(link)) return;
    event.preventDefault();
    const path = link.dataset.path;
    const line = Number(link.dataset.line);
    if (path !== undefined) this.deps.open(path, Number.isInteger(line) && line > 0 ? line : 1);
  }
}

/** How often the companion's list (and the labels' "today 17:00") is refreshed. */
const COMPANION_REFRESH_MS = 60_000;

function item(list: HTMLElement, title: string, when: string, path: string, line: number): void {
  const entry = list.createEl('li', { cls: 'cairn-reminder-item' });
  const link = entry.createEl('a', { cls: 'cairn-reminder-link', text: title || path, href: '#' });
  link.dataset.path = path;
  link.dataset.line = String(line);
  entry.createSpan({ cls: 'cairn-reminder-when', text: ` ${when}` });
  entry.createSpan({ cls: 'cairn-reminder-path', text: ` · ${path}` });
}

function describeSafe(instant: number, zone: string, now: number): string {
  try {
    return describeNextFire(instant, zone, now);
  } catch {
    return new Date(instant).toISOString();
  }
}
