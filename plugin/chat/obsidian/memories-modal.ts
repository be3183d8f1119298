/**
 * Command "Memories" (docs/memory-digest-calendar.md): the facts of `Cairn/Memory.md` by
 * category, with a picker that narrows the list to one category (counts beside each). A fact
 * opens the memory file at its line. Read afresh each time it opens: the file is the truth.
 */
import { Modal, Notice, Setting } from 'obsidian';
import type { App, Plugin } from 'obsidian';
import { MEMORY_PATH, isMemoryCategory } from '../../../shared/memory';
import type { MemoryCategory } from '../../../shared/memory';
import type { MemoryItem } from '../../../shared/protocol/memories';
import { groupMemories, memoryCategoryCounts } from '../memory-list';
import type { VaultMemories } from '../vault-memories';

const ALL = 'all';

export function registerMemoriesCommand(plugin: Plugin, memories: VaultMemories): void {
  plugin.addCommand({
    id: 'show-memories',
    name: 'Memories',
    callback: () => new MemoriesModal(plugin.app, memories).open(),
  });
}

export class MemoriesModal extends Modal {
  private category: MemoryCategory | undefined;
  private listEl: HTMLElement | undefined;
  private memories: MemoryItem[] = [];

  constructor(
    app: App,
    private readonly store: Pick<VaultMemories, 'list'>,
    category?: MemoryCategory,
  ) {
    super(app);
    this.category = category;
  }

  override onOpen(): void {
    this.setTitle('Memories');
    void this.load();
  }

  override onClose(): void {
    this.contentEl.empty();
  }

  /** Reads the memory file and draws the picker and the list (tests await it). */
  async load(): Promise<void> {
    try {
      this.memories = await this.store.list();
    } catch (error) {
      new Notice(`Cairn: could not read ${MEMORY_PATH}: ${(error as Error).message}`);
      this.memories = [];
    }
    const { contentEl } = this;
    contentEl.empty();
    if (this.memories.length === 0) {
      contentEl.createEl('p', {
        cls: 'cairn-memories-empty',
        text: 'No memories yet. Say "remember that …" in the chat.',
      });
      return;
    }
    const counts = memoryCategoryCounts(this.memories);
    new Setting(contentEl).setName('Category').addDropdown((dropdown) => {
      dropdown.addOption(ALL, `All (${this.memories.length})`);
      for (const entry of counts) {
        if (entry.count > 0 || entry.category === this.category) {
          dropdown.addOption(entry.category, `${entry.label} (${entry.count})`);
        }
      }
      dropdown.setValue(this.category ?? ALL);
      dropdown.onChange((value) => this.show(isMemoryCategory(value) ? value : undefined));
    });
    this.listEl = contentEl.createDiv({ cls: 'cairn-memories-list' });
    this.renderList();
  }

  /** Narrows the list to one category (undefined: all). */
  show(category: MemoryCategory | undefined): void {
    this.category = category;
    this.renderList();
  }

  private renderList(): void {
    const list = this.listEl;
    if (list === undefined) return;
    list.empty();
    const groups = groupMemories(this.memories, this.category);
    if (groups.length === 0) {
      list.createEl('p', { cls: 'cairn-memories-empty', text: 'Nothing in this category.' });
      return;
    }
    for (const group of groups) {
      list.createEl('h4', { cls: 'cairn-memories-heading', text: group.label });
      const items = list.createEl('ul', { cls: 'cairn-memories-items' });
      for (const memory of group.memories) {
        const item = items.createEl('li', { cls: 'cairn-memories-item' });
        item.dataset.memory = memory.id;
        const open = item.createEl('a', { text: memory.text, href: '#' });
        open.addEventListener('click', (event) => {
          event.preventDefault();
          this.close();
          void this.app.workspace.openLinkText(MEMORY_PATH, '', false, {
            eState: { line: memory.line - 1 },
          });
        });
        if (memory.added !== null) {
          item.createSpan({ cls: 'cairn-memories-added', text: ` · ${memory.added}` });
        }
      }
    }
  }
}
