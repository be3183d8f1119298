/*
 * The page scripts/bench/sync.mjs loads into headless Chromium: a device running the plugin's
 * real sync engine with its real IndexedDB state store (IdbSyncStateStore) over a vault on the
 * browser's own disk (the origin private file system, OPFS: like Obsidian's vault, the notes'
 * bytes live in files, not in the page's memory), against the real companion. Requests go
 * through `fetch` to the page's own origin, which the Node side proxies to the companion (as
 * Obsidian's `requestUrl` goes through the app, without CORS).
 *
 * `?phase=first` (a fresh profile: empty vault, empty store) and `?phase=reopen` (the same
 * profile loaded again: Obsidian reopened with nothing changed) each set `window.benchStart`;
 * the Node side weighs the idle page, calls it, and samples memory until it resolves with
 * `{ ms, requests, files }`.
 */
import type {
  HttpRequest,
  HttpResponse,
  HttpTransport,
} from '../../plugin/connection/http-transport';
import { IdbSyncStateStore } from '../../plugin/sync/idb-state-store';
import { sha256Hex } from '../../plugin/sync/sync-hash';
import type {
  GuardedOutcome,
  SyncVault,
  VaultFileStat,
  WriteExpectation,
} from '../../plugin/sync/sync-ports';
import { openDevice } from './sync-device';

interface DirectoryHandle {
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<DirectoryHandle>;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandle>;
  removeEntry(name: string): Promise<void>;
  entries(): AsyncIterable<[string, DirectoryHandle | FileHandle]>;
  readonly kind: 'directory';
}
interface FileHandle {
  getFile(): Promise<File>;
  createWritable(): Promise<{ write(data: Uint8Array): Promise<void>; close(): Promise<void> }>;
  readonly kind: 'file';
}

/**
 * A vault in OPFS, one file per note. Case-sensitive like Linux; `stat` still finds a case
 * variant (the port's contract) through a lower-cased index of the paths.
 *
 * Sizes and mtimes are kept in memory, walked from OPFS once when the page loads (`load`) and
 * updated by every write, as Obsidian's vault does: it reads the folder tree at start-up, before
 * any plugin runs, and `ObsidianSyncVault.list()`/`stat()` answer from `getFiles()` and
 * `TFile.stat` without touching the disk. Reading a `File` per stat instead measured OPFS, not
 * the engine (19 of 21 s of an open with nothing changed at 10,000 notes).
 */
class OpfsVault implements SyncVault {
  readonly caseInsensitive = false;
  private readonly stats = new Map<string, VaultFileStat>();
  private readonly folded = new Map<string, string>();

  private constructor(private readonly root: DirectoryHandle) {}

  /** The vault's file list, as Obsidian has it when plugins load. */
  static async load(root: DirectoryHandle): Promise<OpfsVault> {
    const vault = new OpfsVault(root);
    const walk = async (dir: DirectoryHandle, prefix: string): Promise<void> => {
      for await (const [name, handle] of dir.entries()) {
        const path = prefix === '' ? name : `${prefix}/${name}`;
        if (handle.kind === 'directory') await walk(handle, path);
        else {
          const file = await handle.getFile();
          vault.remember({ path, size: file.size, mtime: file.lastModified });
        }
      }
    };
    await walk(root, '');
    return vault;
  }

  list(): Promise<VaultFileStat[]> {
    return Promise.resolve(
      [...this.stats.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    );
  }

  stat(path: string): Promise<VaultFileStat | null> {
    return Promise.resolve(this.stats.get(this.known(path) ?? '') ?? null);
  }

  async read(path: string): Promise<Uint8Array> {
    const found = await this.handle(path);
    // Exactly this path (the port's contract): a case variant is another file.
    if (!found || found.path !== path) throw new Error(`ENOENT: ${path}`);
    return new Uint8Array(await (await found.handle.getFile()).arrayBuffer());
  }

  private remember(stat: VaultFileStat): void {
    this.stats.set(stat.path, stat);
    this.folded.set(stat.path.toLowerCase(), stat.path);
  }

  private forget(path: string): void {
    this.stats.delete(path);
    if (this.folded.get(path.toLowerCase()) === path) this.folded.delete(path.toLowerCase());
  }

  /** The path the vault holds for `path` or its case variant, if any. */
  private known(path: string): string | undefined {
    if (this.stats.has(path)) return path;
    return this.folded.get(path.toLowerCase());
  }

  async write(
    path: string,
    bytes: Uint8Array,
    expect: WriteExpectation,
  ): Promise<VaultFileStat | 'changed'> {
    const found = await this.handle(path);
    if ('absent' in expect) {
      if (found) return 'changed';
    } else if (!found || (await sha256Hex(await this.read(found.path))) !== expect.hash) {
      return 'changed';
    }
    const target = found?.path ?? path;
    const handle = await this.fileHandle(target, true);
    const writable = await handle.createWritable();
    await writable.write(bytes);
    await writable.close();
    const file = await handle.getFile();
    const stat = { path: target, size: file.size, mtime: file.lastModified };
    this.remember(stat);
    return stat;
  }

  async rename(from: string, to: string): Promise<GuardedOutcome> {
    const found = await this.handle(from);
    const taken = await this.handle(to);
    if (!found || (taken && taken.path !== found.path)) return 'changed';
    const bytes = await this.read(found.path);
    await this.removeFile(found.path);
    const handle = await this.fileHandle(to, true);
    const writable = await handle.createWritable();
    await writable.write(bytes);
    await writable.close();
    const file = await handle.getFile();
    this.remember({ path: to, size: file.size, mtime: file.lastModified });
    return 'done';
  }

  async delete(path: string, hash: string): Promise<GuardedOutcome> {
    const found = await this.handle(path);
    if (!found || (await sha256Hex(await this.read(found.path))) !== hash) return 'changed';
    await this.removeFile(found.path);
    return 'done';
  }

  private async removeFile(path: string): Promise<void> {
    const parts = path.split('/');
    const name = parts.pop()!;
    let dir = this.root;
    for (const part of parts) dir = await dir.getDirectoryHandle(part);
    await dir.removeEntry(name);
    this.forget(path);
  }

  private async handle(path: string): Promise<{ path: string; handle: FileHandle } | null> {
    const known = this.known(path);
    return known === undefined
      ? null
      : { path: known, handle: await this.fileHandle(known, false) };
  }

  private async fileHandle(path: string, create: boolean): Promise<FileHandle> {
    const parts = path.split('/');
    const name = parts.pop()!;
    let dir = this.root;
    for (const part of parts) dir = await dir.getDirectoryHandle(part, { create });
    return dir.getFileHandle(name, { create });
  }
}

/** `fetch` to this origin (proxied to the companion by the bench's server). */
const fetchTransport: HttpTransport = {
  async request(request: HttpRequest): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) {
      headers['Content-Type'] =
        typeof request.body === 'string' ? 'application/json' : 'application/octet-stream';
    }
    const response = await fetch(request.url, {
      method: request.method,
      headers,
      body: request.body,
    });
    if (request.responseType === 'bytes') {
      const bytes = await response.arrayBuffer();
      return {
        status: response.status,
        text: response.ok ? '' : new TextDecoder().decode(bytes),
        bytes,
      };
    }
    return { status: response.status, text: await response.text() };
  },
};

declare global {
  var benchStart:
    | (() => Promise<{
        ms: number;
        requests: number;
        files: number;
        kinds: Record<string, number>;
        peakPerMinute: number;
        times: string;
      }>)
    | undefined;
}

const params = new URLSearchParams(location.search);
const phase = params.get('phase');
const token = params.get('token') ?? '';
if (phase === 'first' || phase === 'reopen') {
  // Obsidian has read the vault's folder tree before a plugin loads: so does this page, before
  // the Node side weighs it idle and starts the clock.
  void (async () => {
    const root = (await (
      navigator.storage as unknown as { getDirectory(): Promise<DirectoryHandle> }
    ).getDirectory()) as DirectoryHandle;
    const vault = await OpfsVault.load(await root.getDirectoryHandle('vault', { create: true }));
    globalThis.benchStart = async () => {
      const started = performance.now();
      const store = await IdbSyncStateStore.open('bench');
      const device = openDevice({
        url: location.origin,
        token,
        name: 'Chromium',
        vault,
        store,
        transport: fetchTransport,
      });
      await device.engine.sync();
      const ms = performance.now() - started;
      const files = (await store.allFiles()).length;
      store.close();
      return {
        ms,
        requests: device.log.count,
        files,
        kinds: Object.fromEntries(device.log.kinds),
        peakPerMinute: device.log.peakPerMinute(),
        times: device.times.summary(),
      };
    };
  })();
}
