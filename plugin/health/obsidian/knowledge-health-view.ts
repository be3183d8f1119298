/**
 * The knowledge health view's Obsidian adapter (docs/search.md, "Knowledge health"): the
 * `ItemView` mounting KnowledgeHealth.svelte and the "Knowledge health" command opening it.
 * The report comes from the companion through the plugin's one client (../knowledge-health.ts).
 */
import { ItemView } from 'obsidian';
import type { Plugin, WorkspaceLeaf } from 'obsidian';
import { mount, unmount } from 'svelte';
import { loadKnowledgeHealth } from '../knowledge-health';
import type { HealthSource } from '../knowledge-health';
import KnowledgeHealth from '../ui/KnowledgeHealth.svelte';
import { revealView } from '../../workspace/obsidian/reveal-view';

export const KNOWLEDGE_HEALTH_VIEW_TYPE = 'cairn-knowledge-health';

export function setUpKnowledgeHealth(plugin: Plugin, source: HealthSource): void {
  plugin.registerView(KNOWLEDGE_HEALTH_VIEW_TYPE, (leaf) => new KnowledgeHealthView(leaf, source));
  plugin.addCommand({
    id: 'open-knowledge-health',
    name: 'Knowledge health',
    callback: () => void openKnowledgeHealth(plugin),
  });
}

async function openKnowledgeHealth(plugin: Plugin): Promise<void> {
  await revealView(plugin.app, KNOWLEDGE_HEALTH_VIEW_TYPE, 'tab', (leaf) => {
    if (leaf.view instanceof KnowledgeHealthView) leaf.view.refresh();
  });
}

class KnowledgeHealthView extends ItemView {
  private component: { refresh(): Promise<void> } | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly source: HealthSource,
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return KNOWLEDGE_HEALTH_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return 'Knowledge health';
  }

  override getIcon(): string {
    return 'heart-pulse';
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.component = mount(KnowledgeHealth, {
      target: this.contentEl,
      props: {
        load: () => loadKnowledgeHealth(this.source),
        onOpen: (path: string, newTab: boolean) =>
          void this.app.workspace.openLinkText(path, '', newTab),
      },
    }) as { refresh(): Promise<void> };
  }

  override async onClose(): Promise<void> {
    if (this.component) await unmount(this.component);
    this.component = null;
    this.contentEl.empty();
  }

  refresh(): void {
    void this.component?.refresh();
  }
}
