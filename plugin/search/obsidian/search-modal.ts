import { MarkdownView, Modal, Platform, TFile } from 'obsidian';
import type { App, PaneType } from 'obsidian';
import type { Readable } from 'svelte/store';
import { mount, unmount } from 'svelte';
import SearchPanel from '../ui/SearchPanel.svelte';
import { firstMatch } from '../highlight';
import type { SearchStatus } from '../search-status';
import type { FirstRunActions, FirstRunCardState } from '../first-run';
import type { SearchDocType, VaultSearchHit, VaultSearchOptions } from '../vault-search';

/** What the modal needs: a search to run and the live state of the index. */
export interface SearchModalDeps {
  search: (query: string, options: VaultSearchOptions) => Promise<VaultSearchHit[]>;
  status: Readable<SearchStatus>;
  /** Type filters the index can answer right now. */
  types: readonly SearchDocType[];
  /** Told when the modal closed, however it closed. */
  onClosed?: () => void;
  /** The first-run card (what Cairn is, the model download), while it has something to ask. */
  firstRun?: { card: Readable<FirstRunCardState | null>; actions: FirstRunActions };
}

export const SEARCH_HOVER_SOURCE = 'cairn-search';

/**
 * "Search vault": a Svelte panel mounted in onOpen and unmounted in onClose (Omnisearch's
 * pattern). Choosing a hit opens its note at the cited line with the matched word selected;
 * Mod opens a new tab, Shift a split.
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
        onOpen: (hit: VaultSearchHit, placement: 'same' | 'tab' | 'split') =>
          void this.openHit(hit, placement),
        onHover: (event: MouseEvent, hit: VaultSearchHit) => this.preview(event, hit),
        status: this.deps.status,
        types: this.deps.types,
        modKey: Platform.isMacOS || Platform.isIosApp ? '⌘' : 'Ctrl',
        showKeys: !Platform.isMobile,
        ...(this.deps.firstRun ? { firstRun: this.deps.firstRun } : {}),
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

  /** Obsidian's page preview of the hit (with Mod held, as for other hover sources). */
  private preview(event: MouseEvent, hit: VaultSearchHit): void {
    const citation = hit.citation;
    this.app.workspace.trigger('hover-link', {
      event,
      source: SEARCH_HOVER_SOURCE,
      hoverParent: this,
      targetEl: event.currentTarget,
      linktext: citation.path,
      sourcePath: '',
      ...(citation.type === 'note' ? { state: { scroll: citation.lines[0] - 1 } } : {}),
    });
  }

  private async openHit(hit: VaultSearchHit, placement: 'same' | 'tab' | 'split'): Promise<void> {
    this.close();
    const citation = hit.citation;
    const paneType: PaneType | false = placement === 'same' ? false : placement;
    if (citation.type === 'pdf') {
      await this.app.workspace.openLinkText(`${citation.path}#page=${citation.page}`, '', paneType);
      return;
    }
    const file = this.app.vault.getAbstractFileByPath(citation.path);
    if (!(file instanceof TFile)) return;
    const leaf = this.app.workspace.getLeaf(paneType);
    // eState.line is 0-based; citations count lines from 1.
    await leaf.openFile(file, { eState: { line: citation.lines[0] - 1 } });
    // Select the first matched word of the cited lines, the way Obsidian's own search does.
    const view = leaf.view;
    if (!(view instanceof MarkdownView)) return;
    const editor = view.editor;
    const last = Math.min(citation.lines[1] - 1, editor.lineCount() - 1);
    const match = firstMatch(
      (line) => editor.getLine(line),
      citation.lines[0] - 1,
      last,
      hit.terms,
    );
    if (!match) return;
    const from = { line: match.line, ch: match.from };
    const to = { line: match.line, ch: match.to };
    editor.setSelection(from, to);
    editor.scrollIntoView({ from, to }, true);
  }
}
