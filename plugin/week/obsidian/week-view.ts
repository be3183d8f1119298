/**
 * The week view's Obsidian adapter (an ItemView): mounts WeekView.svelte and hands it the
 * callbacks of `WeekViewDeps`. Lives in plugin/week/obsidian/ like every runtime `obsidian`
 * import of the week feature (with week-setup.ts); the component is in ../ui/, its data in ../.
 */
import { ItemView } from 'obsidian';
import type { WorkspaceLeaf } from 'obsidian';
import { mount, unmount } from 'svelte';
import type { ReadOnlyActions } from '../week-data';
import type { CalendarItem, CalendarWeek } from '../../../shared/protocol/calendar';
import WeekView from '../ui/WeekView.svelte';

export const WEEK_VIEW_TYPE = 'cairn-week';

export interface WeekViewDeps {
  load(
    offset: number,
  ): Promise<
    | { week: CalendarWeek; source: string; readOnly?: Record<string, ReadOnlyActions> }
    | { error: string }
  >;
  today(): string;
  open(item: CalendarItem): void;
  done(item: CalendarItem): Promise<string | void>;
  snooze(item: CalendarItem): Promise<string | void>;
}

export class WeekItemView extends ItemView {
  private component: { refresh(): void } | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: WeekViewDeps,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return WEEK_VIEW_TYPE;
  }

  getDisplayText(): string {
    return 'Week';
  }

  override getIcon(): string {
    return 'calendar-days';
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.component = mount(WeekView, {
      target: this.contentEl,
      props: {
        load: (offset: number) => this.deps.load(offset),
        today: () => this.deps.today(),
        onOpen: (item: CalendarItem) => this.deps.open(item),
        onDone: (item: CalendarItem) => this.deps.done(item),
        onSnooze: (item: CalendarItem) => this.deps.snooze(item),
      },
    }) as { refresh(): void };
  }

  override async onClose(): Promise<void> {
    if (this.component) await unmount(this.component);
    this.component = null;
  }

  /** Reloads the week shown (the vault or the pairing changed). */
  refresh(): void {
    this.component?.refresh();
  }
}
