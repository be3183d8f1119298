/**
 * A hand-written stand-in for the `obsidian` module, enough to load and run Cairn's built
 * main.js in plain Node. It follows Obsidian's documented lifecycle (Component.register*
 * cleanups run on unload; unloading a plugin closes its views and removes its ribbon icon,
 * status bar item, commands and settings tab) and reports every listener, timer and event
 * reference to a ResourceTracker so a test can prove they were all released.
 */
import type { ResourceTracker } from './resource-tracker';

export interface RequestUrlParam {
  url: string;
  method?: string;
  contentType?: string;
  /** Text, or raw bytes (Obsidian sends an ArrayBuffer as it is). */
  body?: string | ArrayBuffer;
  headers?: Record<string, string>;
  throw?: boolean;
}

export interface RequestUrlResponse {
  status: number;
  text: string;
  /** The body's bytes, as Obsidian's `requestUrl` gives them. */
  readonly arrayBuffer: ArrayBuffer;
  headers: Record<string, string>;
  readonly json: unknown;
}

/** What a shim `fetch` answers: the text, and the raw bytes when the body is not text. */
export interface ShimFetchAnswer {
  status: number;
  text: string;
  bytes?: ArrayBuffer;
}

export interface ShimContext {
  document: Document;
  tracker: ResourceTracker;
  /** Performs the HTTP request for requestUrl; rejects like Obsidian when nothing answers. */
  fetch(request: RequestUrlParam): Promise<ShimFetchAnswer>;
}

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  minAppVersion: string;
  description: string;
  author: string;
}

interface EditorPosition {
  line: number;
  ch: number;
}

interface EventRef {
  e: { offref(ref: EventRef): void };
  name: string;
  fn: (...args: unknown[]) => unknown;
}

interface Command {
  id: string;
  name: string;
  callback?: () => unknown;
}

/** Classes are built per context so two tests never share registries or trackers. */
export function createObsidianApi(context: ShimContext) {
  const { document, tracker } = context;
  type ViewCreator = (leaf: WorkspaceLeafShim) => ViewShim;

  class Events {
    private readonly handlers = new Map<string, EventRef[]>();

    on(name: string, fn: (...args: unknown[]) => unknown): EventRef {
      const ref: EventRef = { e: this, name, fn };
      this.handlers.set(name, [...(this.handlers.get(name) ?? []), ref]);
      tracker.eventRefAdded(ref);
      return ref;
    }

    offref(ref: EventRef): void {
      this.handlers.set(
        ref.name,
        (this.handlers.get(ref.name) ?? []).filter((candidate) => candidate !== ref),
      );
      tracker.eventRefRemoved(ref);
    }

    trigger(name: string, ...args: unknown[]): void {
      for (const ref of [...(this.handlers.get(name) ?? [])]) ref.fn(...args);
    }
  }

  class Component {
    private loadedFlag = false;
    private readonly cleanups: (() => unknown)[] = [];
    private readonly children: Component[] = [];

    /** Returns onload's promise (Obsidian does not await it; tests do). */
    load(): unknown {
      if (this.loadedFlag) return undefined;
      this.loadedFlag = true;
      const result = this.onload();
      for (const child of this.children) child.load();
      return result;
    }

    unload(): void {
      if (!this.loadedFlag) return;
      this.loadedFlag = false;
      for (const child of this.children.splice(0)) child.unload();
      for (const cleanup of this.cleanups.splice(0)) cleanup();
      this.onunload();
    }

    onload(): unknown {
      return undefined;
    }

    onunload(): void {}

    addChild<T extends Component>(child: T): T {
      this.children.push(child);
      if (this.loadedFlag) child.load();
      return child;
    }

    register(cleanup: () => unknown): void {
      this.cleanups.push(cleanup);
    }

    registerEvent(ref: EventRef): void {
      this.register(() => ref.e.offref(ref));
    }

    registerDomEvent(
      el: EventTarget,
      type: string,
      callback: EventListener,
      options?: boolean | AddEventListenerOptions,
    ): void {
      el.addEventListener(type, callback, options);
      this.register(() => el.removeEventListener(type, callback, options));
    }

    registerInterval(id: number): number {
      this.register(() => (document.defaultView as Window).clearInterval(id));
      return id;
    }
  }

  class ViewShim extends Component {
    readonly app: AppShim;
    readonly containerEl: HTMLElement;
    constructor(readonly leaf: WorkspaceLeafShim) {
      super();
      this.app = leaf.app;
      this.containerEl = document.createElement('div');
      this.containerEl.className = 'workspace-leaf-content';
    }
    getViewType(): string {
      return '';
    }
    getDisplayText(): string {
      return '';
    }
    getIcon(): string {
      return '';
    }
    async onOpen(): Promise<void> {}
    async onClose(): Promise<void> {}
    async open(parent: HTMLElement): Promise<void> {
      parent.appendChild(this.containerEl);
      this.load();
      await this.onOpen();
    }
    async close(): Promise<void> {
      await this.onClose();
      this.unload();
      this.containerEl.remove();
    }
  }

  class ItemView extends ViewShim {
    readonly contentEl: HTMLElement;
    constructor(leaf: WorkspaceLeafShim) {
      super(leaf);
      this.containerEl.createDiv({ cls: 'view-header' });
      this.contentEl = this.containerEl.createDiv({ cls: 'view-content' });
    }
  }

  /** Enough of CodeMirror's Editor for plugins that select and scroll (lines 0-based). */
  class EditorShim {
    text = '';
    /** Test record: the last selection set, and whether it was scrolled into view. */
    selection: { from: EditorPosition; to: EditorPosition } | null = null;
    scrolledTo: { from: EditorPosition; to: EditorPosition } | null = null;
    lineCount(): number {
      return this.text.split('\n').length;
    }
    getLine(line: number): string {
      return this.text.split('\n')[line] ?? '';
    }
    setSelection(from: EditorPosition, to: EditorPosition = from): void {
      this.selection = { from, to };
    }
    scrollIntoView(range: { from: EditorPosition; to: EditorPosition }): void {
      this.scrolledTo = range;
    }
  }

  class MarkdownView extends ItemView {
    readonly editor = new EditorShim();
    file: TFile | null = null;
    override getViewType(): string {
      return 'markdown';
    }
  }

  class WorkspaceLeafShim extends Events {
    view: ViewShim | null = null;
    readonly containerEl: HTMLElement;
    constructor(
      readonly app: AppShim,
      parent: HTMLElement,
    ) {
      super();
      this.containerEl = parent.createDiv({ cls: 'workspace-leaf' });
    }
    async setViewState(state: { type: string; active?: boolean }): Promise<void> {
      if (this.view) await this.view.close();
      const creator = this.app.viewRegistry.get(state.type);
      if (!creator) throw new Error(`shim: no view registered for type "${state.type}"`);
      this.view = creator(this);
      await this.view.open(this.containerEl);
    }
    /** Opens a file in this leaf; `openState.eState` (e.g. `{ line }`) scrolls the editor. */
    async openFile(
      file: TFile,
      openState: { eState?: Record<string, unknown> } = {},
    ): Promise<void> {
      this.app.workspace.opened.push({
        path: file.path,
        eState: openState.eState ?? {},
        ...(this.placement ? { placement: this.placement } : {}),
      });
      if (file.extension === 'md') {
        const view = new MarkdownView(this);
        view.editor.text = await this.app.vault.cachedRead(file);
        view.file = file;
        this.view = view;
      }
    }
    /** How getLeaf made this leaf ('tab', 'split', …); unset for the main leaf. */
    placement: string | undefined;
    /** What Obsidian does when a view type is unregistered: close it, leave an empty leaf. */
    async closeView(): Promise<void> {
      const view = this.view;
      this.view = null;
      if (view) await view.close();
    }
    /** The split holding the leaf: the right sidebar's for getRightLeaf, else the main area. */
    getRoot(): { collapsed: boolean } {
      const { workspace } = this.app;
      return this.containerEl.parentElement === this.app.rightSplitEl
        ? workspace.rightSplit
        : workspace.rootSplit;
    }
    async detach(): Promise<void> {
      await this.closeView();
      this.containerEl.remove();
      this.app.workspace.leaves = this.app.workspace.leaves.filter((leaf) => leaf !== this);
    }
  }

  class Workspace extends Events {
    leaves: WorkspaceLeafShim[] = [];
    /** Sidebars as Obsidian's WorkspaceSidedock: a test collapses one by setting `collapsed`. */
    readonly rightSplit = { collapsed: false };
    readonly leftSplit = { collapsed: false };
    readonly rootSplit = { collapsed: false };
    /** Test record of files opened (openFile / openLinkText), in order. */
    readonly opened: { path: string; eState: Record<string, unknown>; placement?: string }[] = [];
    private activeFile: TFile | null = null;
    getActiveFile(): TFile | null {
      return this.activeFile;
    }
    /** Test hook: the user opened `file` in the main area (Obsidian fires 'file-open'). */
    setActiveFile(file: TFile | null): void {
      this.activeFile = file;
      this.trigger('file-open', file);
    }
    layoutReady = false;
    private readonly readyCallbacks: (() => unknown)[] = [];
    constructor(private readonly app: AppShim) {
      super();
    }
    onLayoutReady(callback: () => unknown): void {
      if (this.layoutReady) callback();
      else this.readyCallbacks.push(callback);
    }
    /** Test hook: Obsidian has finished restoring the layout. */
    triggerLayoutReady(): void {
      this.layoutReady = true;
      for (const callback of this.readyCallbacks.splice(0)) callback();
    }
    getLeavesOfType(type: string): WorkspaceLeafShim[] {
      return this.leaves.filter((leaf) => leaf.view?.getViewType() === type);
    }
    getRightLeaf(_split: boolean): WorkspaceLeafShim {
      const leaf = new WorkspaceLeafShim(this.app, this.app.rightSplitEl);
      this.leaves.push(leaf);
      return leaf;
    }
    async revealLeaf(_leaf: WorkspaceLeafShim): Promise<void> {}
    /** The active main-area leaf, or a new one when `newLeaf` is truthy. */
    getLeaf(newLeaf?: boolean | 'tab' | 'split' | 'window'): WorkspaceLeafShim {
      let leaf = newLeaf ? undefined : this.mainLeaf;
      if (!leaf) {
        leaf = new WorkspaceLeafShim(this.app, this.app.rootEl);
        this.leaves.push(leaf);
        if (newLeaf) leaf.placement = newLeaf === true ? 'tab' : newLeaf;
        else this.mainLeaf = leaf;
      }
      return leaf;
    }
    private mainLeaf: WorkspaceLeafShim | undefined;
    async openLinkText(linktext: string, _sourcePath: string, _newLeaf?: boolean): Promise<void> {
      this.opened.push({ path: linktext, eState: {} });
    }
  }

  class TAbstractFile {
    constructor(public path: string) {}
    get name(): string {
      return this.path.slice(this.path.lastIndexOf('/') + 1);
    }
  }

  class TFolder extends TAbstractFile {}

  class TFile extends TAbstractFile {
    stat = { ctime: 0, mtime: 0, size: 0 };
    get extension(): string {
      const dot = this.name.lastIndexOf('.');
      return dot < 0 ? '' : this.name.slice(dot + 1);
    }
    get basename(): string {
      const dot = this.name.lastIndexOf('.');
      return dot < 0 ? this.name : this.name.slice(0, dot);
    }
  }

  /** A file's content: text, or bytes for what was written as binary (an image, a PDF). */
  type FileContent = string | ArrayBuffer;
  const textOf = (content: FileContent): string =>
    typeof content === 'string' ? content : new TextDecoder().decode(content);
  const bytesOf = (content: FileContent): ArrayBuffer => {
    if (typeof content !== 'string') return content.slice(0);
    const bytes = new TextEncoder().encode(content);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  };
  const sizeOf = (content: FileContent): number =>
    typeof content === 'string' ? new TextEncoder().encode(content).byteLength : content.byteLength;

  /** Files in memory; `create`/`modify`/`delete`/`rename` events as Obsidian fires them. */
  class Vault extends Events {
    private readonly files = new Map<string, { file: TFile; content: FileContent }>();
    private clock = 1_700_000_000_000;
    /** Obsidian's config folder (`.obsidian` unless the user chose another). */
    readonly configDir = '.obsidian';
    getName(): string {
      return 'Shim vault';
    }
    getMarkdownFiles(): TFile[] {
      return [...this.files.values()].map(({ file }) => file).filter((f) => f.extension === 'md');
    }
    getAbstractFileByPath(path: string): TAbstractFile | null {
      return this.files.get(path)?.file ?? null;
    }
    getFiles(): TFile[] {
      return [...this.files.values()].map(({ file }) => file);
    }
    /** Folders are implicit here: every parent folder of a file. */
    getAllFolders(_includeRoot?: boolean): TFolder[] {
      const paths = new Set<string>();
      for (const path of this.files.keys()) {
        const parts = path.split('/').slice(0, -1);
        for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('/'));
      }
      return [...paths].sort().map((path) => new TFolder(path));
    }
    /** Atomic read-modify-write, as `vault.process` is. */
    async process(file: TFile, update: (data: string) => string): Promise<string> {
      const entry = this.files.get(file.path);
      if (!entry) throw new Error(`ENOENT: ${file.path}`);
      const next = update(textOf(entry.content));
      this.writeFile(file.path, next);
      return next;
    }
    getFileByPath(path: string): TFile | null {
      return this.files.get(path)?.file ?? null;
    }
    /** The file's bytes: as written when binary, else the text's UTF-8. */
    async readBinary(file: TFile): Promise<ArrayBuffer> {
      const entry = this.files.get(file.path);
      if (!entry) throw new Error(`ENOENT: ${file.path}`);
      return bytesOf(entry.content);
    }
    async cachedRead(file: TFile): Promise<string> {
      const entry = this.files.get(file.path);
      if (!entry) throw new Error(`ENOENT: ${file.path}`);
      return textOf(entry.content);
    }
    /** The content as stored, for the adapter (which reads the file as it is "on disk"). */
    contentAt(path: string): FileContent | undefined {
      return this.files.get(path)?.content;
    }
    async createBinary(path: string, data: ArrayBuffer): Promise<TFile> {
      if (this.files.has(path)) throw new Error('File already exists.');
      return this.writeFile(path, data.slice(0));
    }
    async modify(file: TFile, data: string): Promise<void> {
      if (!this.files.has(file.path)) throw new Error(`ENOENT: ${file.path}`);
      this.writeFile(file.path, data);
    }
    async modifyBinary(file: TFile, data: ArrayBuffer): Promise<void> {
      if (!this.files.has(file.path)) throw new Error(`ENOENT: ${file.path}`);
      this.writeFile(file.path, data.slice(0));
    }
    /** Removes the file and fires 'delete' (what the user's delete or a trash move does). */
    async delete(file: TFile): Promise<void> {
      if (!this.files.delete(file.path)) throw new Error(`ENOENT: ${file.path}`);
      this.trigger('delete', file);
    }
    async trash(file: TFile, _system: boolean): Promise<void> {
      await this.delete(file);
    }
    /** Moves the file (same TFile object, new path) and fires 'rename' with the old path. */
    async rename(file: TFile, newPath: string): Promise<void> {
      const entry = this.files.get(file.path);
      if (!entry) throw new Error(`ENOENT: ${file.path}`);
      if (this.files.has(newPath)) throw new Error('Destination file already exists!');
      const oldPath = file.path;
      this.files.delete(oldPath);
      file.path = newPath;
      this.files.set(newPath, entry);
      this.trigger('rename', file, oldPath);
    }
    read(file: TFile): Promise<string> {
      return this.cachedRead(file);
    }
    /** Like Obsidian: refuses to overwrite an existing file. */
    async create(path: string, data: string): Promise<TFile> {
      if (this.files.has(path)) throw new Error('File already exists.');
      return this.writeFile(path, data);
    }
    /** Folders are implicit in this in-memory vault; creating one is accepted. */
    async createFolder(_path: string): Promise<void> {}
    /** Test hook: writes a file (create or modify) and fires the event Obsidian would. */
    writeFile(path: string, content: FileContent): TFile {
      const existing = this.files.get(path);
      const file = existing?.file ?? new TFile(path);
      file.stat = {
        ctime: file.stat.ctime || ++this.clock,
        mtime: ++this.clock,
        size: sizeOf(content),
      };
      this.files.set(path, { file, content });
      this.trigger(existing ? 'modify' : 'create', file);
      this.metadataCache?.fileWritten(file, textOf(content));
      return file;
    }
    /** Test hook: the file's bytes, or null when there is no such file. */
    bytes(path: string): Uint8Array | null {
      const content = this.files.get(path)?.content;
      return content === undefined ? null : new Uint8Array(bytesOf(content));
    }
    /** Set by the app: Obsidian's metadata cache re-parses every file the vault writes. */
    metadataCache: MetadataCache | null = null;
    /** Files outside the vault's notes (the plugin's folder), as `vault.adapter` reaches them. */
    readonly adapter: DataAdapter = new DataAdapter(this);
  }

  /**
   * `vault.adapter`: raw paths, both the vault's files (as they are "on disk") and files
   * outside its notes such as `.obsidian/plugins/cairn/fired-reminders.json` (`files`).
   */
  class DataAdapter {
    readonly files = new Map<string, string>();
    constructor(private readonly vault: Vault) {}
    private allPaths(): string[] {
      return [...this.files.keys(), ...this.vault.getFiles().map((file) => file.path)];
    }
    async exists(path: string): Promise<boolean> {
      // A folder exists while something is inside it.
      return this.allPaths().some((key) => key === path || key.startsWith(`${path}/`));
    }
    async read(path: string): Promise<string> {
      const content = this.vault.contentAt(path);
      if (content !== undefined) return textOf(content);
      const text = this.files.get(path);
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    }
    async readBinary(path: string): Promise<ArrayBuffer> {
      const content = this.vault.contentAt(path) ?? this.files.get(path);
      if (content === undefined) throw new Error(`ENOENT: ${path}`);
      return bytesOf(content);
    }
    /** The files and folders directly inside `path` ('/' or '' for the vault's root). */
    async list(path: string): Promise<{ files: string[]; folders: string[] }> {
      const prefix = path === '/' || path === '' ? '' : `${path}/`;
      const files = new Set<string>();
      const folders = new Set<string>();
      for (const key of this.allPaths()) {
        if (!key.startsWith(prefix)) continue;
        const rest = key.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash < 0) files.add(key);
        else folders.add(prefix + rest.slice(0, slash));
      }
      return { files: [...files], folders: [...folders] };
    }
    async write(path: string, data: string): Promise<void> {
      this.files.set(path, data);
    }
    async rmdir(path: string, recursive: boolean): Promise<void> {
      const inside = [...this.files.keys()].filter((key) => key.startsWith(`${path}/`));
      if (inside.length > 0 && !recursive) throw new Error(`ENOTEMPTY: ${path}`);
      for (const key of inside) this.files.delete(key);
    }
  }

  /**
   * Obsidian's metadata cache: after the vault writes a Markdown file it parses it and fires
   * 'changed' with (file, data, cache); `getFileCache` answers with the front matter.
   */
  class MetadataCache extends Events {
    private readonly caches = new Map<string, FileCacheShim>();
    /** source path → target path → count, for `[[Name]]` links to notes named Name.md. */
    readonly resolvedLinks: Record<string, Record<string, number>> = {};
    private readonly linkTexts = new Map<string, string[]>();
    fileWritten(file: TFile, data: string): void {
      if (file.extension !== 'md') return;
      const cache: FileCacheShim = {};
      const front = /^---\n([\s\S]*?)^---$/m.exec(data)?.[1] ?? '';
      const type = /^type:\s*(\S+)\s*$/m.exec(front)?.[1];
      const tags = /^tags:\s*\[([^\]]*)\]\s*$/m.exec(front)?.[1];
      if (type !== undefined || tags !== undefined) {
        cache.frontmatter = {
          ...(type !== undefined ? { type } : {}),
          ...(tags !== undefined ? { tags: tags.split(',').map((tag) => tag.trim()) } : {}),
        };
      }
      const body = data.slice(front ? data.indexOf('---', 3) + 3 : 0);
      const inline = [...body.matchAll(/(?:^|\s)(#[\w/-]+)/g)].map((match) => ({ tag: match[1]! }));
      if (inline.length > 0) cache.tags = inline;
      this.caches.set(file.path, cache);
      this.linkTexts.set(
        file.path,
        [...data.matchAll(/\[\[([^\]|#]+)/g)].map((match) => match[1]!.trim()),
      );
      this.resolveLinks();
      this.trigger('changed', file, data, cache);
    }
    getFileCache(file: TFile): FileCacheShim | null {
      return this.caches.get(file.path) ?? null;
    }
    private resolveLinks(): void {
      const byName = new Map<string, string>();
      for (const path of this.linkTexts.keys())
        byName.set(path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, ''), path);
      for (const key of Object.keys(this.resolvedLinks)) delete this.resolvedLinks[key];
      for (const [source, names] of this.linkTexts) {
        const targets: Record<string, number> = {};
        for (const name of names) {
          const target = byName.get(name);
          if (target) targets[target] = (targets[target] ?? 0) + 1;
        }
        this.resolvedLinks[source] = targets;
      }
    }
  }

  interface FileCacheShim {
    frontmatter?: Record<string, unknown>;
    tags?: { tag: string }[];
  }

  /** Link text the way Obsidian writes it with wikilinks on: [[basename]]. */
  class FileManager {
    constructor(private readonly vault: Vault) {}
    generateMarkdownLink(file: TFile, _sourcePath: string): string {
      return `[[${file.basename}]]`;
    }
    /** To the trash the user chose; here the file is gone from the vault ('delete' fires). */
    async trashFile(file: TFile): Promise<void> {
      await this.vault.delete(file);
    }
    /** Obsidian also edits links to the file; this shim's notes keep theirs. */
    async renameFile(file: TFile, newPath: string): Promise<void> {
      await this.vault.rename(file, newPath);
    }
  }

  /** Obsidian's keymap scope: handlers by key; `press` is the test hook a keydown would be. */
  class Scope {
    private readonly handlers: Array<{
      modifiers: string[];
      key: string;
      run: (event: KeyboardEvent) => unknown;
    }> = [];
    register(modifiers: string[], key: string, run: (event: KeyboardEvent) => unknown): void {
      this.handlers.push({ modifiers, key, run });
    }
    /** Runs the handler for `key` with exactly `modifiers`; false when none matched. */
    press(key: string, modifiers: string[] = [], target?: HTMLElement): boolean {
      const handler = this.handlers.find(
        (h) =>
          h.key === key &&
          h.modifiers.length === modifiers.length &&
          h.modifiers.every((m) => modifiers.includes(m)),
      );
      if (!handler) return false;
      const view = document.defaultView as unknown as { KeyboardEvent: typeof KeyboardEvent };
      const event = new view.KeyboardEvent('keydown', { key });
      if (target) Object.defineProperty(event, 'target', { value: target });
      handler.run(event);
      return true;
    }
  }

  /**
   * Obsidian's suggestion popover under a text input: on each input event it asks
   * getSuggestions and renders them into `.suggestion-container` (a click selects one).
   */
  abstract class AbstractInputSuggest<T> {
    limit = 100;
    readonly suggestEl: HTMLElement;
    constructor(
      readonly app: AppShim,
      private readonly textInputEl: HTMLInputElement,
    ) {
      this.suggestEl = document.createElement('div');
      this.suggestEl.className = 'suggestion-container';
      textInputEl.addEventListener('input', () => void this.show());
    }
    private async show(): Promise<void> {
      this.suggestEl.empty();
      const items = await this.getSuggestions(this.textInputEl.value);
      for (const item of items.slice(0, this.limit || undefined)) {
        const el = this.suggestEl.createDiv({ cls: 'suggestion-item' });
        this.renderSuggestion(item, el);
        el.addEventListener('click', () => this.selectSuggestion(item, new MouseEvent('click')));
      }
      document.body.appendChild(this.suggestEl);
    }
    setValue(value: string): void {
      this.textInputEl.value = value;
    }
    getValue(): string {
      return this.textInputEl.value;
    }
    close(): void {
      this.suggestEl.remove();
    }
    protected abstract getSuggestions(query: string): T[] | Promise<T[]>;
    abstract renderSuggestion(value: T, el: HTMLElement): void;
    abstract selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void;
  }

  const openModals: Modal[] = [];
  /** Test hook: a key pressed in the top open modal (its scope's handler runs), else false. */
  const pressInOpenModal = (key: string, modifiers: string[] = [], target?: HTMLElement) =>
    openModals.at(-1)?.scope.press(key, modifiers, target) ?? false;

  /** A dialog over the workspace: onOpen after attaching, onClose before detaching. */
  class Modal {
    readonly scope = new Scope();
    readonly containerEl: HTMLElement;
    readonly modalEl: HTMLElement;
    readonly titleEl: HTMLElement;
    readonly contentEl: HTMLElement;
    constructor(readonly app: AppShim) {
      this.containerEl = document.createElement('div');
      this.containerEl.className = 'modal-container';
      this.modalEl = this.containerEl.createDiv({ cls: 'modal' });
      this.titleEl = this.modalEl.createDiv({ cls: 'modal-title' });
      this.contentEl = this.modalEl.createDiv({ cls: 'modal-content' });
    }
    setTitle(title: string): this {
      this.titleEl.setText(title);
      return this;
    }
    open(): void {
      document.body.appendChild(this.containerEl);
      openModals.push(this);
      this.onOpen();
    }
    close(): void {
      this.onClose();
      this.containerEl.remove();
      openModals.splice(openModals.indexOf(this), 1);
    }
    onOpen(): void {}
    onClose(): void {}
  }

  /** Obsidian's fuzzy picker: a prompt input over `getItems()`; choosing calls onChooseItem. */
  abstract class FuzzySuggestModal<T> extends Modal {
    readonly inputEl: HTMLInputElement;
    constructor(app: AppShim) {
      super(app);
      this.inputEl = this.modalEl.createEl('input') as HTMLInputElement;
    }
    setPlaceholder(placeholder: string): void {
      this.inputEl.placeholder = placeholder;
    }
    abstract getItems(): T[];
    abstract getItemText(item: T): string;
    abstract onChooseItem(item: T, event: MouseEvent | KeyboardEvent): void;
  }

  /** Stands in for Obsidian's Markdown rendering: the text in a paragraph, nothing parsed. */
  const MarkdownRenderer = {
    async render(
      _app: AppShim,
      markdown: string,
      el: HTMLElement,
      _sourcePath: string,
      _component: Component,
    ): Promise<void> {
      el.createEl('p', { text: markdown });
    },
  };

  /** Obsidian's path clean-up: forward slashes, no doubled, leading or trailing slash. */
  function normalizePath(path: string): string {
    const cleaned = path
      .replace(/\\/g, '/')
      .replace(/\/+/g, '/')
      .replace(/^\/+|\/+$/g, '')
      .replace(/\u00a0|\u202f/g, ' ')
      .normalize('NFC');
    return cleaned === '' ? '/' : cleaned;
  }

  class AppShim {
    readonly rootEl: HTMLElement;
    readonly ribbonEl: HTMLElement;
    readonly statusBarEl: HTMLElement;
    readonly rightSplitEl: HTMLElement;
    readonly workspace: Workspace;
    readonly vault = new Vault();
    readonly metadataCache = new MetadataCache();
    readonly fileManager = new FileManager(this.vault);
    /** Hover-link sources plugins registered (Obsidian lists them in Page preview's settings). */
    readonly hoverLinkSources = new Map<string, { display: string; defaultMod: boolean }>();
    /** Obsidian's per-vault id (not in the public typings; plugins read it for storage keys). */
    readonly appId = 'shimvault0001';
    readonly viewRegistry = new Map<string, ViewCreator>();
    readonly commands = new Map<string, Command>();
    readonly settingTabs: PluginSettingTab[] = [];
    readonly pluginData = new Map<string, string>();
    readonly protocolHandlers = new Map<string, (params: Record<string, string>) => unknown>();
    /**
     * `app.loadLocalStorage`: per-device values, kept in this page's localStorage, or in memory
     * once the test's DOM is gone (a plugin's late async work may still ask after teardown).
     */
    private readonly localValues = new Map<string, string>();
    private localStore(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
      if (typeof window !== 'undefined') return window.localStorage;
      const values = this.localValues;
      return {
        getItem: (key) => values.get(key) ?? null,
        setItem: (key, value) => void values.set(key, value),
        removeItem: (key) => void values.delete(key),
      };
    }
    loadLocalStorage(key: string): unknown {
      const text = this.localStore().getItem(`shimvault0001-${key}`);
      return text === null ? null : (JSON.parse(text) as unknown);
    }
    saveLocalStorage(key: string, value: unknown): void {
      if (value === null || value === undefined) {
        this.localStore().removeItem(`shimvault0001-${key}`);
      } else {
        this.localStore().setItem(`shimvault0001-${key}`, JSON.stringify(value));
      }
    }
    constructor() {
      this.rootEl = document.body.createDiv({ cls: 'app-container' });
      this.ribbonEl = this.rootEl.createDiv({ cls: 'side-dock-ribbon' });
      this.rightSplitEl = this.rootEl.createDiv({ cls: 'mod-right-split' });
      this.statusBarEl = this.rootEl.createDiv({ cls: 'status-bar' });
      this.workspace = new Workspace(this);
      this.vault.metadataCache = this.metadataCache;
    }
    /** CodeMirror extensions plugins registered, as `registerEditorExtension` adds them. */
    readonly editorExtensions: unknown[] = [];
  }

  class Plugin extends Component {
    constructor(
      readonly app: AppShim,
      readonly manifest: PluginManifest,
    ) {
      super();
    }
    addRibbonIcon(
      icon: string,
      title: string,
      callback: (event: MouseEvent) => unknown,
    ): HTMLElement {
      const el = this.app.ribbonEl.createDiv({
        cls: 'side-dock-ribbon-action',
        attr: { 'aria-label': title, 'data-icon': icon },
      });
      this.registerDomEvent(el, 'click', (event) => callback(event as MouseEvent));
      this.register(() => el.remove());
      return el;
    }
    addStatusBarItem(): HTMLElement {
      const el = this.app.statusBarEl.createDiv({
        cls: ['status-bar-item', `plugin-${this.manifest.id}`],
      });
      this.register(() => el.remove());
      return el;
    }
    addCommand(command: Command): Command {
      const id = `${this.manifest.id}:${command.id}`;
      const registered = { ...command, id };
      this.app.commands.set(id, registered);
      this.register(() => this.app.commands.delete(id));
      return registered;
    }
    addSettingTab(tab: PluginSettingTab): void {
      this.app.settingTabs.push(tab);
      this.register(() => {
        tab.hide();
        this.app.settingTabs.splice(this.app.settingTabs.indexOf(tab), 1);
      });
    }
    /** Adds a CodeMirror 6 extension to every editor; removed again on unload. */
    registerEditorExtension(extension: unknown): void {
      this.app.editorExtensions.push(extension);
      this.register(() => {
        const index = this.app.editorExtensions.indexOf(extension);
        if (index >= 0) this.app.editorExtensions.splice(index, 1);
      });
    }
    registerHoverLinkSource(id: string, info: { display: string; defaultMod: boolean }): void {
      this.app.hoverLinkSources.set(id, info);
      this.register(() => this.app.hoverLinkSources.delete(id));
    }
    /** `obsidian://ACTION?…` handlers (tests call them as Obsidian would). */
    registerObsidianProtocolHandler(
      action: string,
      handler: (params: Record<string, string>) => unknown,
    ): void {
      this.app.protocolHandlers.set(action, handler);
      this.register(() => this.app.protocolHandlers.delete(action));
    }
    registerView(type: string, creator: ViewCreator): void {
      this.app.viewRegistry.set(type, creator);
      this.register(() => {
        this.app.viewRegistry.delete(type);
        for (const leaf of this.app.workspace.getLeavesOfType(type)) void leaf.closeView();
      });
    }
    async loadData(): Promise<unknown> {
      const text = this.app.pluginData.get(this.manifest.id);
      return text === undefined ? null : (JSON.parse(text) as unknown);
    }
    async saveData(data: unknown): Promise<void> {
      this.app.pluginData.set(this.manifest.id, JSON.stringify(data));
    }
  }

  class PluginSettingTab {
    readonly containerEl: HTMLElement;
    constructor(
      readonly app: AppShim,
      readonly plugin: Plugin,
    ) {
      this.containerEl = document.createElement('div');
      this.containerEl.className = 'vertical-tab-content';
    }
    display(): void {}
    hide(): void {
      this.containerEl.empty();
    }
  }

  class ValueComponent<T> {
    protected changeHandler: ((value: T) => unknown) | null = null;
    onChange(handler: (value: T) => unknown): this {
      this.changeHandler = handler;
      return this;
    }
  }

  class TextComponent extends ValueComponent<string> {
    readonly inputEl: HTMLInputElement | HTMLTextAreaElement;
    constructor(parent: HTMLElement, tag: 'input' | 'textarea' = 'input') {
      super();
      this.inputEl = parent.createEl(tag) as HTMLInputElement | HTMLTextAreaElement;
      if (tag === 'input') this.inputEl.setAttribute('type', 'text');
      this.inputEl.addEventListener('input', () => void this.changeHandler?.(this.inputEl.value));
    }
    setValue(value: string): this {
      this.inputEl.value = value;
      return this;
    }
    getValue(): string {
      return this.inputEl.value;
    }
    setPlaceholder(placeholder: string): this {
      this.inputEl.placeholder = placeholder;
      return this;
    }
  }

  class ToggleComponent extends ValueComponent<boolean> {
    readonly toggleEl: HTMLElement;
    private value = false;
    constructor(parent: HTMLElement) {
      super();
      this.toggleEl = parent.createDiv({ cls: 'checkbox-container' });
      this.toggleEl.addEventListener('click', () => {
        this.setValue(!this.value);
        void this.changeHandler?.(this.value);
      });
    }
    setValue(value: boolean): this {
      this.value = value;
      this.toggleEl.toggleClass('is-enabled', value);
      return this;
    }
    getValue(): boolean {
      return this.value;
    }
  }

  class DropdownComponent extends ValueComponent<string> {
    readonly selectEl: HTMLSelectElement;
    constructor(parent: HTMLElement) {
      super();
      this.selectEl = parent.createEl('select') as HTMLSelectElement;
      this.selectEl.addEventListener(
        'change',
        () => void this.changeHandler?.(this.selectEl.value),
      );
    }
    addOption(value: string, display: string): this {
      this.selectEl.createEl('option', { text: display, value });
      return this;
    }
    setValue(value: string): this {
      this.selectEl.value = value;
      return this;
    }
    getValue(): string {
      return this.selectEl.value;
    }
  }

  class ButtonComponent {
    readonly buttonEl: HTMLButtonElement;
    constructor(parent: HTMLElement) {
      this.buttonEl = parent.createEl('button') as HTMLButtonElement;
    }
    setButtonText(text: string): this {
      this.buttonEl.setText(text);
      return this;
    }
    setDisabled(disabled: boolean): this {
      this.buttonEl.disabled = disabled;
      return this;
    }
    setCta(): this {
      this.buttonEl.addClass('mod-cta');
      return this;
    }
    setClass(cls: string): this {
      this.buttonEl.addClass(cls);
      return this;
    }
    onClick(handler: (event: MouseEvent) => unknown): this {
      this.buttonEl.addEventListener('click', (event) => void handler(event as MouseEvent));
      return this;
    }
  }

  class Setting {
    readonly settingEl: HTMLElement;
    readonly infoEl: HTMLElement;
    readonly nameEl: HTMLElement;
    readonly descEl: HTMLElement;
    readonly controlEl: HTMLElement;
    constructor(containerEl: HTMLElement) {
      this.settingEl = containerEl.createDiv({ cls: 'setting-item' });
      this.infoEl = this.settingEl.createDiv({ cls: 'setting-item-info' });
      this.nameEl = this.infoEl.createDiv({ cls: 'setting-item-name' });
      this.descEl = this.infoEl.createDiv({ cls: 'setting-item-description' });
      this.controlEl = this.settingEl.createDiv({ cls: 'setting-item-control' });
    }
    setName(name: string): this {
      this.nameEl.setText(name);
      return this;
    }
    setDesc(desc: string): this {
      // Obsidian replaces the description text but keeps elements added to descEl.
      const text = Array.from(this.descEl.childNodes).find((node) => node.nodeType === 3);
      if (text) text.textContent = desc;
      else this.descEl.prepend(document.createTextNode(desc));
      return this;
    }
    setHeading(): this {
      this.settingEl.addClass('setting-item-heading');
      return this;
    }
    setClass(cls: string): this {
      this.settingEl.addClass(cls);
      return this;
    }
    addText(cb: (component: TextComponent) => unknown): this {
      cb(new TextComponent(this.controlEl));
      return this;
    }
    addTextArea(cb: (component: TextComponent) => unknown): this {
      cb(new TextComponent(this.controlEl, 'textarea'));
      return this;
    }
    addToggle(cb: (component: ToggleComponent) => unknown): this {
      cb(new ToggleComponent(this.controlEl));
      return this;
    }
    addDropdown(cb: (component: DropdownComponent) => unknown): this {
      cb(new DropdownComponent(this.controlEl));
      return this;
    }
    addButton(cb: (component: ButtonComponent) => unknown): this {
      cb(new ButtonComponent(this.controlEl));
      return this;
    }
  }

  const notices: string[] = [];
  /** The notices' elements, for tests that click their buttons; `hidden` once hidden. */
  const noticeElements: Array<{ el: HTMLElement; hidden: boolean }> = [];
  class Notice {
    private readonly entry: { el: HTMLElement; hidden: boolean };
    constructor(message: string | DocumentFragment, _duration?: number) {
      const el = document.createElement('div');
      el.className = 'notice';
      if (typeof message === 'string') el.textContent = message;
      else el.append(message);
      notices.push(typeof message === 'string' ? message : (el.textContent ?? ''));
      this.entry = { el, hidden: false };
      noticeElements.push(this.entry);
    }
    hide(): void {
      this.entry.hidden = true;
    }
  }

  function requestUrl(request: RequestUrlParam | string): Promise<RequestUrlResponse> {
    const param = typeof request === 'string' ? { url: request } : request;
    return context.fetch(param).then(({ status, text, bytes }) => {
      if (status >= 400 && param.throw !== false) {
        throw new Error(`Request failed, status ${status}`);
      }
      return {
        status,
        text,
        headers: {},
        get arrayBuffer(): ArrayBuffer {
          return bytes !== undefined ? bytes.slice(0) : bytesOf(text);
        },
        get json(): unknown {
          return JSON.parse(text) as unknown;
        },
      };
    });
  }

  const Platform = {
    isDesktop: true,
    isMobile: false,
    isDesktopApp: true,
    isMobileApp: false,
    isIosApp: false,
    isAndroidApp: false,
    isPhone: false,
    isTablet: false,
    isMacOS: false,
    isWin: false,
    isLinux: true,
    isSafari: false,
  };

  /** Obsidian draws a Lucide SVG; the shim marks the element with the icon's name. */
  function setIcon(el: HTMLElement, icon: string): void {
    el.setAttribute('data-icon', icon);
  }

  const module = {
    AbstractInputSuggest,
    setIcon,
    Component,
    Events,
    FuzzySuggestModal,
    ItemView,
    MarkdownRenderer,
    MarkdownView,
    Modal,
    Notice,
    Platform,
    Plugin,
    PluginSettingTab,
    Setting,
    TAbstractFile,
    TFile,
    TFolder,
    Vault,
    normalizePath,
    View: ViewShim,
    requestUrl,
  };

  return {
    module,
    notices,
    noticeElements,
    pressInOpenModal,
    createApp: () => new AppShim(),
    Plugin,
  };
}

export type ObsidianApi = ReturnType<typeof createObsidianApi>;
export type AppShimInstance = ReturnType<ObsidianApi['createApp']>;
