import { MarkdownView, TFile, TFolder, normalizePath } from 'obsidian';
import type { App, Editor, EventRef } from 'obsidian';
import { sha256Hex } from '../sync-hash';
import type { GuardedOutcome, SyncVault, VaultFileStat, WriteExpectation } from '../sync-ports';

/**
 * The sync engine's vault port over Obsidian's Vault API (desktop and mobile, nothing Node-only).
 * Bytes are read through `vault.adapter` (the file as it is on disk, never a cached string) and
 * written with `createBinary` / `modifyBinary`, so what the companion holds and what is on disk
 * stay byte-identical. Renames use `vault.rename`, which moves the file and keeps open views on
 * it but, unlike `fileManager.renameFile`, edits no links: link edits arrive as content changes.
 * A note open in an editor is changed through that editor first, as the smallest replacement, so
 * the cursor and scroll position stay where the person left them. `close()` releases its vault
 * event listeners.
 */
export class ObsidianSyncVault implements SyncVault {
  readonly caseInsensitive: boolean;
  /**
   * Case-folded path → the paths of files with that form, for the port's case-variant lookup
   * (a first sync makes two per new file: a scan of `getFiles()` each grew with the square of
   * the vault). Built on the first lookup that needs it, kept by vault events; a folder moved or
   * deleted (its files' events are not relied on) has it built again. Entries are only
   * candidates: each is checked against the vault's own file map when used.
   */
  private folded: Map<string, Set<string>> | null = null;
  private readonly refs: EventRef[];

  constructor(
    private readonly app: App,
    options: { caseInsensitive: boolean },
  ) {
    this.caseInsensitive = options.caseInsensitive;
    const vault = app.vault;
    this.refs = [
      vault.on('create', (file) => {
        if (file instanceof TFile) this.indexAdd(file.path);
      }),
      vault.on('delete', (file) => {
        if (file instanceof TFile) this.indexRemove(file.path);
        else this.folded = null;
      }),
      vault.on('rename', (file, oldPath) => {
        if (file instanceof TFile) {
          this.indexRemove(oldPath);
          this.indexAdd(file.path);
        } else {
          this.folded = null;
        }
      }),
    ];
  }

  /** Releases the vault event listeners (the session, or the first-sync plan, is done). */
  close(): void {
    for (const ref of this.refs.splice(0)) this.app.vault.offref(ref);
    this.folded = null;
  }

  async list(): Promise<VaultFileStat[]> {
    // Throws when the root is gone or unreadable, so a missing mount never reads as "all deleted".
    await this.app.vault.adapter.list('/');
    return this.app.vault.getFiles().map(statOf);
  }

  stat(path: string): Promise<VaultFileStat | null> {
    const file = this.find(path);
    return Promise.resolve(file ? statOf(file) : null);
  }

  async read(path: string): Promise<Uint8Array> {
    const target = normalizePath(path);
    const file = this.find(path);
    // Exactly this path (the port's contract): a case variant is another file, moved onto it.
    if (file && file.path !== target) throw new Error(`ENOENT: ${target} (${file.path} is there)`);
    return new Uint8Array(await this.app.vault.adapter.readBinary(file?.path ?? target));
  }

  async write(
    path: string,
    bytes: Uint8Array,
    expect: WriteExpectation,
  ): Promise<VaultFileStat | 'changed'> {
    const existing = this.find(path);
    const data = toArrayBuffer(bytes);
    if ('absent' in expect) {
      const target = normalizePath(path);
      if (existing || (await this.app.vault.adapter.exists(target))) return 'changed';
      await this.ensureFolder(parentOf(target));
      const created = await this.app.vault.createBinary(target, data);
      return statOf(created);
    }
    if (!existing) return 'changed';
    const current = new Uint8Array(await this.app.vault.adapter.readBinary(existing.path));
    if ((await sha256Hex(current)) !== expect.hash) return 'changed';
    const editors = this.openEditors(existing);
    if (editors.length > 0) {
      const before = decodeText(current);
      const after = decodeText(bytes);
      // Unsaved typing in an editor is a local change too: then nothing is written.
      if (before !== null && editors.some((editor) => editor.getValue() !== before)) {
        return 'changed';
      }
      if (before !== null && after !== null) {
        for (const editor of editors) replaceSmallest(editor, before, after);
      }
    }
    await this.app.vault.modifyBinary(existing, data);
    return statOf(existing);
  }

  async rename(from: string, to: string): Promise<GuardedOutcome> {
    const file = this.find(from);
    const target = normalizePath(to);
    if (!file) return 'changed';
    const taken = this.find(target);
    if (taken && taken !== file) return 'changed';
    if (file.path === target) return 'done';
    await this.ensureFolder(parentOf(target));
    if (file.path.toLowerCase() === target.toLowerCase()) {
      // A case-only rename: through a temporary name, which case-insensitive file systems need.
      await this.app.vault.rename(file, `${target}.cairn-rename`);
    }
    await this.app.vault.rename(file, target);
    return 'done';
  }

  async delete(path: string, hash: string): Promise<GuardedOutcome> {
    const file = this.find(path);
    if (!file) return 'changed';
    const current = new Uint8Array(await this.app.vault.adapter.readBinary(file.path));
    if ((await sha256Hex(current)) !== hash) return 'changed';
    // To the trash the user chose (system, .trash or none): a remote delete stays recoverable here.
    await this.app.fileManager.trashFile(file);
    return 'done';
  }

  /**
   * The file at `path`, else one under another spelling (the port's rule on every file system:
   * the companion holds one file per case-folded path).
   */
  private find(path: string): TFile | null {
    const normalized = normalizePath(path);
    const exact = this.app.vault.getFileByPath(normalized);
    if (exact) return exact;
    const folded = normalized.toLowerCase();
    for (const candidate of this.variants().get(folded) ?? []) {
      const file = this.app.vault.getFileByPath(candidate);
      if (file && file.path.toLowerCase() === folded) return file;
    }
    return null;
  }

  private variants(): Map<string, Set<string>> {
    if (this.folded === null) {
      this.folded = new Map();
      for (const file of this.app.vault.getFiles()) this.indexAdd(file.path);
    }
    return this.folded;
  }

  private indexAdd(path: string): void {
    if (this.folded === null) return;
    const folded = path.toLowerCase();
    const paths = this.folded.get(folded);
    if (paths) paths.add(path);
    else this.folded.set(folded, new Set([path]));
  }

  private indexRemove(path: string): void {
    const folded = path.toLowerCase();
    const paths = this.folded?.get(folded);
    paths?.delete(path);
    if (paths?.size === 0) this.folded?.delete(folded);
  }

  private async ensureFolder(path: string): Promise<void> {
    if (path === '' || this.app.vault.getAbstractFileByPath(path) instanceof TFolder) return;
    if (await this.app.vault.adapter.exists(path)) return;
    await this.app.vault.createFolder(path);
  }

  private openEditors(file: TFile): Editor[] {
    const editors: Editor[] = [];
    for (const leaf of this.app.workspace.getLeavesOfType('markdown')) {
      const view = leaf.view;
      if (view instanceof MarkdownView && view.file === file) editors.push(view.editor);
    }
    return editors;
  }
}

function statOf(file: TFile): VaultFileStat {
  return { path: file.path, size: file.stat.size, mtime: file.stat.mtime };
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? (bytes.buffer as ArrayBuffer)
    : bytes.slice().buffer;
}

/** The text of UTF-8 bytes without CR (the editor's form), or null when it is not that. */
function decodeText(bytes: Uint8Array): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return text.includes('\r') ? null : text;
  } catch {
    return null;
  }
}

/**
 * Replaces only the part of the editor's text that differs (common prefix and suffix kept), so
 * CodeMirror maps the cursor through the change instead of resetting it.
 */
export function replaceSmallest(editor: Editor, before: string, after: string): void {
  let start = 0;
  const limit = Math.min(before.length, after.length);
  while (start < limit && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (
    endBefore > start &&
    endAfter > start &&
    before.charCodeAt(endBefore - 1) === after.charCodeAt(endAfter - 1)
  ) {
    endBefore--;
    endAfter--;
  }
  if (start === endBefore && start === endAfter) return;
  editor.replaceRange(
    after.slice(start, endAfter),
    editor.offsetToPos(start),
    editor.offsetToPos(endBefore),
  );
}
