import { Modal, TFile } from 'obsidian';
import type { App } from 'obsidian';
import { mount, unmount } from 'svelte';
import SearchPanel from '../ui/SearchPanel.svelte';
import type { SearchHit, VaultSearchOptions } from '../search/vault-search';

/** What the modal needs: a search to run and words describing how it ranks. */
export interface SearchModalDeps {
  search: (query: string, options: VaultSearchOptions) => Promise<SearchHit[]>;
  /** Read at open: "hybrid: …" or "keyword only (…)". */
  modeLabel: () => string;
  /** Read at open: e.g. "indexing 1,240/10,000", or empty when the index is current. */
  indexStatus: () => string;
  /** Told when the modal closed, however it closed. */
  onClosed?: () => void;
}

/**
 * "Search vault": a Svelte panel mounted in onOpen and unmounted in onClose (Omnisearch's
 * pattern). Choosing a hit opens its note scrolled to the cited line.
 */
export class SearchModal extends Modal {
  private component: ReturnType<typeof mount> | null = null;

  constructor(
    app: App,
    private readonly deps: SearchModalDeps,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass('cairn-search-modal');
    this.titleEl.setText('Search vault');
    this.component = mount(SearchPanel, {
      target: this.contentEl,
      props: {
        search: this.deps.search,
        onOpen: (hit: SearchHit) => void this.openHit(hit),
        modeLabel: this.deps.modeLabel(),
        indexStatus: this.deps.indexStatus(),
      },
    });
    this.contentEl.querySelector<HTMLInputElement>('.cairn-search-input')?.focus();
  }

  override onClose(): void {
    if (this.component) {
      void unmount(this.component);
      this.component = null;
    }
    this.contentEl.empty();
    this.deps.onClosed?.();
  }

  private async openHit(hit: SearchHit): Promise<void> {
    this.close();
    const citation = hit.citation;
    if (citation.type === 'pdf') {
      await this.app.workspace.openLinkText(`${citation.path}#page=${citation.page}`, '', false);
      return;
    }
    const file = this.app.vault.getAbstractFileByPath(citation.path);
    if (!(file instanceof TFile)) return;
    // eState.line is 0-based; citations count lines from 1.
    await this.app.workspace
      .getLeaf(false)
      .openFile(file, { eState: { line: citation.lines[0] - 1 } });
  }
}
