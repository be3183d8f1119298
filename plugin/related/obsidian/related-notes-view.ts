import { ItemView, TFile } from 'obsidian';
import type { App, CachedMetadata, Plugin, WorkspaceLeaf } from 'obsidian';
import { mount, unmount } from 'svelte';
import RelatedNotes from '../ui/RelatedNotes.svelte';
import { RelatedController } from '../related-controller';
import { rankRelated } from '../related-notes';
import type { RelatedNote, RelatedResult } from '../related-notes';
import { VaultGraph } from '../vault-graph';
import { viewTypeOnScreen } from '../../workspace/obsidian/leaf-on-screen';
import type { RelatedChunks } from '../../search/search-engine';
import type { SearchStatus } from '../../search/search-status';
import type { Readable } from 'svelte/store';
import type { FirstRunActions, FirstRunCardState } from '../../search/first-run';
import { revealView } from '../../workspace/obsidian/reveal-view';

export const RELATED_VIEW_TYPE = 'cairn-related';

export interface RelatedNotesDeps {
  /**
   * Content candidates from the index, or null while it is not loaded; a promise when they come
   * from the companion (a phone that keeps no index).
   */
  relatedChunks: (
    path: string,
    limit: number,
  ) => RelatedChunks | null | Promise<RelatedChunks | null>;
  searchStatus: () => SearchStatus;
  /** Notes never shown nor counted as links (saved chats, Obsidian's Excluded files). */
  excluded?: () => (path: string) => boolean;
  /** The first-run card (what Cairn is, the model download), while it has something to ask. */
  firstRun?: { card: Readable<FirstRunCardState | null>; actions: FirstRunActions };
}

/** Content candidates asked of the index per note shown (more than shown: links re-rank). */
const CHUNK_POOL = 60;
const SHOWN = 20;

/**
 * Registers the "Related notes" view, its command, and the events that keep it on the active
 * note. Returns the controller so the composition root can re-rank when the index changes.
 */
export function setUpRelatedNotes(plugin: Plugin, deps: RelatedNotesDeps): RelatedController {
  const { app } = plugin;
  // Built on the first switch after the metadata cache changed, not on every switch.
  let graph: VaultGraph | null = null;
  const vaultGraph = () =>
    (graph ??= VaultGraph.build({
      resolvedLinks: app.metadataCache.resolvedLinks,
      paths: app.vault.getMarkdownFiles().map((file) => file.path),
      tagsOf: (path) => tagsOf(app, path),
      ...(deps.excluded ? { excluded: deps.excluded() } : {}),
    }));
  const dropGraph = () => {
    graph = null;
  };
  plugin.registerEvent(app.metadataCache.on('resolved', dropGraph));
  plugin.registerEvent(app.metadataCache.on('changed', dropGraph));
  const rank = (path: string, chunks: RelatedChunks | null): RelatedResult | null => {
    if (chunks === null) return null;
    const links = vaultGraph();
    return rankRelated({
      path,
      chunks,
      links: links.neighbourhood(path),
      tagsOf: (other) => links.tagsOf(other),
      sharingTags: links.notesSharingTags(path),
      titleOf: (other) => basename(other),
      limit: SHOWN,
    });
  };
  const controller = new RelatedController({
    compute: (path) => {
      const chunks = deps.relatedChunks(path, CHUNK_POOL);
      return chunks instanceof Promise
        ? chunks.then((answered) => rank(path, answered))
        : rank(path, chunks);
    },
    titleOf: basename,
    status: (result) => describeRelatedStatus(deps.searchStatus(), result),
    defer: (task, delayMs) => {
      const timer = window.setTimeout(task, delayMs);
      return () => window.clearTimeout(timer);
    },
    visible: () => viewTypeOnScreen(app, RELATED_VIEW_TYPE),
  });
  // A hidden view ranks nothing; these are the moments it may have come on screen.
  const shown = () => controller.shown();
  plugin.registerEvent(app.workspace.on('layout-change', shown));
  plugin.registerEvent(app.workspace.on('active-leaf-change', shown));
  plugin.register(() => controller.dispose());
  plugin.registerHoverLinkSource(RELATED_VIEW_TYPE, {
    display: 'Cairn related notes',
    defaultMod: true,
  });
  plugin.registerView(
    RELATED_VIEW_TYPE,
    (leaf) => new RelatedNotesView(leaf, controller, deps.firstRun),
  );
  plugin.addCommand({
    id: 'open-related-notes',
    name: 'Open related notes',
    callback: () => void openRelatedView(app),
  });
  const follow = () => {
    const file = app.workspace.getActiveFile();
    controller.show(file && file.extension === 'md' ? file.path : null);
  };
  plugin.registerEvent(app.workspace.on('file-open', follow));
  app.workspace.onLayoutReady(follow);
  return controller;
}

async function openRelatedView(app: App): Promise<void> {
  await revealView(app, RELATED_VIEW_TYPE, 'sidebar');
}

/** The line under the note's title: why the list may be thin, in the user's words. */
export function describeRelatedStatus(status: SearchStatus, result: RelatedResult | null): string {
  if (status.unavailable) return `Search unavailable: ${status.unavailable}`;
  if (!status.ready) return status.progress || 'Loading the search index…';
  if (result?.mode === 'keyword') {
    return status.mode === 'hybrid'
      ? 'By words and links: this note has no vectors yet'
      : `By words and links only: ${status.modeLabel}`;
  }
  return status.progress;
}

class RelatedNotesView extends ItemView {
  private component: ReturnType<typeof mount> | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly controller: RelatedController,
    private readonly firstRun?: RelatedNotesDeps['firstRun'],
  ) {
    super(leaf);
  }

  override getViewType(): string {
    return RELATED_VIEW_TYPE;
  }

  override getDisplayText(): string {
    return 'Related notes';
  }

  override getIcon(): string {
    return 'waypoints';
  }

  override async onOpen(): Promise<void> {
    this.contentEl.empty();
    this.contentEl.addClass('cairn-related-view');
    this.component = mount(RelatedNotes, {
      target: this.contentEl,
      props: {
        view: this.controller.state,
        onOpen: (note: RelatedNote, newTab: boolean) => void this.openNote(note, newTab),
        onHover: (event: MouseEvent, note: RelatedNote) => this.preview(event, note),
        onDragStart: (event: DragEvent, note: RelatedNote) => this.drag(event, note),
        ...(this.firstRun ? { firstRun: this.firstRun } : {}),
      },
    });
    this.controller.refresh();
  }

  /** Obsidian calls this when the view's size changes, coming on screen included. */
  override onResize(): void {
    this.controller.shown();
  }

  override async onClose(): Promise<void> {
    if (this.component) {
      await unmount(this.component);
      this.component = null;
    }
    this.contentEl.empty();
  }

  private async openNote(note: RelatedNote, newTab: boolean): Promise<void> {
    const file = this.app.vault.getAbstractFileByPath(note.path);
    if (!(file instanceof TFile)) return;
    const line = note.section?.line;
    // eState.line is 0-based; citations count lines from 1.
    await this.app.workspace
      .getLeaf(newTab ? 'tab' : false)
      .openFile(file, line === undefined ? {} : { eState: { line: line - 1 } });
  }

  /** Obsidian's page preview (core plugin), shown with Mod held as in the backlinks pane. */
  private preview(event: MouseEvent, note: RelatedNote): void {
    this.app.workspace.trigger('hover-link', {
      event,
      source: RELATED_VIEW_TYPE,
      hoverParent: this,
      targetEl: event.currentTarget,
      linktext: note.path,
      sourcePath: this.app.workspace.getActiveFile()?.path ?? '',
      ...(note.section ? { state: { scroll: note.section.line - 1 } } : {}),
    });
  }

  /** Dropping the result into a note inserts a link to it (in the vault's link style). */
  private drag(event: DragEvent, note: RelatedNote): void {
    const file = this.app.vault.getAbstractFileByPath(note.path);
    if (!(file instanceof TFile) || !event.dataTransfer) return;
    const from = this.app.workspace.getActiveFile()?.path ?? '';
    event.dataTransfer.setData('text/plain', this.app.fileManager.generateMarkdownLink(file, from));
    event.dataTransfer.effectAllowed = 'copyLink';
  }
}

/** Tags of a note, lower case without `#`: front matter `tags` and inline tags. */
function tagsOf(app: App, path: string): string[] {
  const file = app.vault.getAbstractFileByPath(path);
  if (!(file instanceof TFile)) return [];
  const cache: CachedMetadata | null = app.metadataCache.getFileCache(file);
  if (!cache) return [];
  const tags = new Set<string>();
  const front: unknown = cache.frontmatter?.tags ?? cache.frontmatter?.tag;
  const list = Array.isArray(front)
    ? front
    : typeof front === 'string'
      ? front.split(/[,\s]+/)
      : [];
  for (const tag of list) if (typeof tag === 'string' && tag) tags.add(normaliseTag(tag));
  for (const tag of cache.tags ?? []) tags.add(normaliseTag(tag.tag));
  return [...tags];
}

function normaliseTag(tag: string): string {
  return tag.replace(/^#/, '').toLowerCase();
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}
