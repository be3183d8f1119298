import type { Clock } from '../../shared/ports';
import { compareCodeUnits } from '../../shared/protocol/json';
import { sha256Hex } from '../../plugin/sync/sync-hash';
import type {
  GuardedOutcome,
  SyncVault,
  VaultFileStat,
  WriteExpectation,
} from '../../plugin/sync/sync-ports';

/** A vault event as Obsidian fires them, for the engine's `noteChanged` / `noteRenamed`. */
export type MemoryVaultEvent =
  | { readonly kind: 'changed'; readonly path: string }
  | { readonly kind: 'renamed'; readonly from: string; readonly to: string };

interface StoredFile {
  path: string;
  bytes: Uint8Array;
  mtime: number;
}

/**
 * A device's vault in memory (tests, the sync simulation, the sync bench). Case-insensitive
 * like macOS, Windows and iOS when asked: one file per case-folded path, spelled as it was
 * created or last renamed. mtimes come from the device's own clock (which may be skewed).
 * `user*` methods are the person and other plugins editing: they fire events; the engine's
 * port methods do too (Obsidian fires events for every write, the engine's own included).
 */
export class MemoryVault implements SyncVault {
  private readonly files = new Map<string, StoredFile>();
  /**
   * Case-folded path → the keys of `files` with that folded form, in `files`' own order: the
   * port's case-variant lookup without a scan of every file (a first sync makes two per file).
   */
  private readonly byFolded = new Map<string, Set<string>>();
  private readonly listeners = new Set<(event: MemoryVaultEvent) => void>();
  /** When set, list() throws as an unmounted or unreadable vault root would. */
  unreadable = false;

  constructor(
    readonly caseInsensitive: boolean,
    private readonly clock: Clock,
  ) {}

  onEvent(listener: (event: MemoryVaultEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // --- the SyncVault port -------------------------------------------------------------------

  list(): Promise<VaultFileStat[]> {
    if (this.unreadable) return Promise.reject(new Error('vault root is not readable'));
    return Promise.resolve(
      [...this.files.values()]
        .map((file) => statOf(file))
        .sort((a, b) => compareCodeUnits(a.path, b.path)),
    );
  }

  stat(path: string): Promise<VaultFileStat | null> {
    const file = this.find(path)?.file;
    return Promise.resolve(file ? statOf(file) : null);
  }

  read(path: string): Promise<Uint8Array> {
    // Exactly this path (the port's contract): a case variant is another file.
    const file = this.find(path)?.file;
    if (!file || file.path !== path) return Promise.reject(new Error(`ENOENT: ${path}`));
    return Promise.resolve(file.bytes.slice());
  }

  async write(
    path: string,
    bytes: Uint8Array,
    expect: WriteExpectation,
  ): Promise<VaultFileStat | 'changed'> {
    const found = this.find(path);
    const key = found?.key ?? this.key(path);
    const existing = found?.file;
    if ('absent' in expect) {
      if (existing) return 'changed';
    } else if (!existing || (await sha256Hex(existing.bytes)) !== expect.hash) {
      return 'changed';
    }
    // Checked and written in one turn, as the Obsidian adapter's compare-and-write is.
    const current = this.files.get(key);
    if (current !== existing) return 'changed';
    const file = { path: existing?.path ?? path, bytes: bytes.slice(), mtime: this.tick(existing) };
    this.put(key, file);
    this.emit({ kind: 'changed', path: file.path });
    return statOf(file);
  }

  rename(from: string, to: string): Promise<GuardedOutcome> {
    const found = this.find(from);
    const taken = this.find(to);
    if (!found || (taken && taken.file !== found.file)) return Promise.resolve('changed');
    const { key: fromKey, file } = found;
    const toKey = this.key(to);
    this.drop(fromKey);
    this.put(toKey, { ...file, path: to });
    this.emit({ kind: 'renamed', from: file.path, to });
    return Promise.resolve('done');
  }

  async delete(path: string, hash: string): Promise<GuardedOutcome> {
    const found = this.find(path);
    const key = found?.key ?? this.key(path);
    const file = found?.file;
    if (!file || (await sha256Hex(file.bytes)) !== hash) return 'changed';
    if (this.files.get(key) !== file) return 'changed';
    this.drop(key);
    this.emit({ kind: 'changed', path: file.path });
    return 'done';
  }

  // --- the person at the keyboard -----------------------------------------------------------

  userWrite(path: string, text: string | Uint8Array, { silent = false } = {}): void {
    const key = this.key(path);
    const existing = this.files.get(key);
    const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text.slice();
    this.put(key, { path: existing?.path ?? path, bytes, mtime: this.tick(existing) });
    if (!silent) this.emit({ kind: 'changed', path: existing?.path ?? path });
  }

  userDelete(path: string, { silent = false } = {}): boolean {
    const key = this.key(path);
    const file = this.files.get(key);
    if (!file) return false;
    this.drop(key);
    if (!silent) this.emit({ kind: 'changed', path: file.path });
    return true;
  }

  userRename(from: string, to: string, { silent = false } = {}): boolean {
    const fromKey = this.key(from);
    const toKey = this.key(to);
    const file = this.files.get(fromKey);
    if (!file || (toKey !== fromKey && this.files.has(toKey))) return false;
    this.drop(fromKey);
    this.put(toKey, { ...file, path: to });
    if (!silent) this.emit({ kind: 'renamed', from: file.path, to });
    return true;
  }

  text(path: string): string | undefined {
    const file = this.files.get(this.key(path));
    return file ? new TextDecoder().decode(file.bytes) : undefined;
  }

  bytes(path: string): Uint8Array | undefined {
    return this.files.get(this.key(path))?.bytes.slice();
  }

  paths(): string[] {
    return [...this.files.values()].map((file) => file.path).sort(compareCodeUnits);
  }

  has(path: string): boolean {
    return this.files.has(this.key(path));
  }

  private key(path: string): string {
    return this.caseInsensitive ? path.toLowerCase() : path;
  }

  /** The port's lookup: the file at `path`, else (any vault) one differing only in case. */
  private find(path: string): { key: string; file: StoredFile } | undefined {
    const key = this.key(path);
    const exact = this.files.get(key);
    if (exact) return { key, file: exact };
    if (this.caseInsensitive) return undefined;
    const [other] = this.byFolded.get(path.toLowerCase()) ?? [];
    const file = other === undefined ? undefined : this.files.get(other);
    return other === undefined || file === undefined ? undefined : { key: other, file };
  }

  private put(key: string, file: StoredFile): void {
    this.files.set(key, file);
    const folded = key.toLowerCase();
    const keys = this.byFolded.get(folded);
    if (keys) keys.add(key);
    else this.byFolded.set(folded, new Set([key]));
  }

  private drop(key: string): void {
    this.files.delete(key);
    const folded = key.toLowerCase();
    const keys = this.byFolded.get(folded);
    keys?.delete(key);
    if (keys?.size === 0) this.byFolded.delete(folded);
  }

  /** A new mtime: the clock, but never equal to the file's previous one (a coarse clock would). */
  private tick(existing: StoredFile | undefined): number {
    const now = Math.round(this.clock.now());
    return existing && existing.mtime >= now ? existing.mtime + 1 : now;
  }

  private emit(event: MemoryVaultEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

function statOf(file: StoredFile): VaultFileStat {
  return { path: file.path, size: file.bytes.byteLength, mtime: file.mtime };
}
