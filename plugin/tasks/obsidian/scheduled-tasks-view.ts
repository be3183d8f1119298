/**
 * The scheduled tasks view's Obsidian adapter (docs/tasks.md): the `ItemView` mounting
 * ScheduledTasks.svelte, the "Scheduled tasks" command opening it and "New scheduled task"
 * opening its form. Tasks run on the companion; everything goes through the plugin's one
 * client (../scheduled-tasks.ts). Without a paired companion the view says so.
 */
import { ItemView, Notice } from 'obsidian';
import type { Plugin, WorkspaceLeaf } from 'obsidian';
import { mount, unmount } from 'svelte';
import {
  NEEDS_COMPANION,
  createTask,
  deviceZone,
  formatWhen,
  loadTasks,
  setTaskEnabled,
} from '../scheduled-tasks';
import type { TaskDraft, TasksSource } from '../scheduled-tasks';
import ScheduledTasks from '../ui/ScheduledTasks.svelte';
import { revealView } from '../../workspace/obsidian/reveal-view';

export const SCHEDULED_TASKS_VIEW_TYPE = 'cairn-scheduled-tasks';

interface MountedTasks {
  refresh(): Promise<void>;
  openForm(): void;
}

export function setUpScheduledTasks(plugin: Plugin, source: TasksSource): void {
  plugin.registerView(SCHEDULED_TASKS_VIEW_TYPE, (leaf) => new ScheduledTasksView(leaf, source));
  plugin.addCommand({
    id: 'open-scheduled-tasks',
    name: 'Scheduled tasks',
    callback: () => void openScheduledTasks(plugin, source, false),
  });
  plugin.addCommand({
    id: 'new-scheduled-task',
    name: 'New scheduled task',
    callback: () => void openScheduledTasks(plugin, source, true),
  });
}

async function openScheduledTasks(
  plugin: Plugin,
  source: TasksSource,
  withForm: boolean,
): Promise<void> {
  if (source.companionUrl().trim() === '') new Notice(NEEDS_COMPANION);
  const leaf = await revealView(plugin.app, SCHEDULED_TASKS_VIEW_TYPE, 'tab', (open) => {
    if (open.view instanceof ScheduledTasksView) open.view.refresh();
  });
  if (withForm && source.companionUrl().trim() !== '' && leaf?.view instanceof ScheduledTasksView) {
    leaf.view.openForm();
  }
}

class ScheduledTasksView extends ItemView {
  private component: MountedTasks | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly source: TasksSource,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return SCHEDULED_TASKS_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return 'Scheduled tasks';
  }

  override getIcon(): string {
    return 'list-checks';
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.component = mount(ScheduledTasks, {
      target: this.contentEl,
      props: {
        load: () => loadTasks(this.source),
        setEnabled: (id: string, enabled: boolean) => setTaskEnabled(this.source, id, enabled),
        create: (draft: TaskDraft) => createTask(this.source, draft),
        zone: deviceZone(),
        formatWhen,
        onOpen: (path: string, newTab: boolean) =>
          void this.app.workspace.openLinkText(path, '', newTab),
      },
    }) as MountedTasks;
  }

  override async onClose(): Promise<void> {
    if (this.component) await unmount(this.component);
    this.component = null;
    this.contentEl.empty();
  }

  refresh(): void {
    void this.component?.refresh();
  }

  openForm(): void {
    this.component?.openForm();
  }
}
