import { normalizePath } from 'obsidian';
import type { DataAdapter } from 'obsidian';
import {
  SETTINGS_FOLDER,
  settingsCategoryOf,
  settingsFolderMayHold,
} from '../../../shared/protocol/sync-settings';
import type { SettingsCategory } from '../../../shared/protocol/sync-settings';
import { sha256Hex } from '../sync-hash';
import type { GuardedOutcome, SyncVault, VaultFileStat, WriteExpectation } from '../sync-ports';

/**
 * The sync engine's port for Obsidian's settings folder (docs/sync.md "Settings"), over
 * `vault.adapter`: the Vault API does not see dot-folders. Paths are the wire's (`.obsidian/…`),
 * mapped to this vault's config folder (`app.vault.configDir`, which a user may have renamed).
 * It lists only the files of the categories this device enabled, and never a file on the
 * never-list (workspace files, Cairn's own folder, caches: shared/protocol/sync-settings.ts).
 *
 * The adapter raises no vault events, so changes are found by listing and `stat` on each pass
 * (size and mtime, then the hash). Writes go to a hidden temporary file beside the target,
 * then replace it, so Obsidian never reads half a settings file. Paths match exactly (no case
 * variants): Obsidian names these files itself. `written` is told each settings file written
 * from the companion (Obsidian applies some of them only after a restart).
 */
export class ObsidianSettingsVault implements SyncVault {
  constructor(
    private readonly adapter: DataAdapter,
    private readonly configDir: string,
    private readonly categories: () => ReadonlySet<SettingsCategory>,
    readonly caseInsensitive: boolean,
    private readonly written: (path: string) => void = () => undefined,
  ) {}

  async list(): Promise<VaultFileStat[]> {
    const categories = this.categories();
    const found: VaultFileStat[] = [];
    if (categories.size === 0 || !(await this.adapter.exists(this.local(SETTINGS_FOLDER)))) {
      return found;
    }
    const pending = [SETTINGS_FOLDER];
    while (pending.length > 0) {
      const folder = pending.pop() as string;
      // Throws when the folder cannot be read: never "every settings file was deleted".
      let listed = await this.adapter.list(this.local(folder));
      if (await this.finishWrites(listed.files))
        listed = await this.adapter.list(this.local(folder));
      for (const file of listed.files) {
        const path = this.wire(file);
        if (path === null) continue;
        const category = settingsCategoryOf(path);
        if (category === null || !categories.has(category)) continue;
        const stat = await this.stat(path);
        if (stat) found.push(stat);
      }
      for (const sub of listed.folders) {
        const path = this.wire(sub);
        if (path !== null && settingsFolderMayHold(path, categories)) pending.push(path);
      }
    }
    return found;
  }

  async stat(path: string): Promise<VaultFileStat | null> {
    const stat = await this.adapter.stat(this.local(path));
    if (stat === null || stat.type !== 'file') return null;
    return { path, size: stat.size, mtime: stat.mtime };
  }

  async read(path: string): Promise<Uint8Array> {
    return new Uint8Array(await this.adapter.readBinary(this.local(path)));
  }

  async write(
    path: string,
    bytes: Uint8Array,
    expect: WriteExpectation,
  ): Promise<VaultFileStat | 'changed'> {
    const target = this.local(path);
    const there = await this.adapter.exists(target);
    if ('absent' in expect) {
      if (there) return 'changed';
    } else {
      if (!there) return 'changed';
      const current = new Uint8Array(await this.adapter.readBinary(target));
      if ((await sha256Hex(current)) !== expect.hash) return 'changed';
    }
    await this.ensureFolder(parentOf(target));
    const temp = `${parentOf(target) === '' ? '' : `${parentOf(target)}/`}.${nameOf(target)}.cairn-sync.tmp`;
    await this.adapter.writeBinary(temp, toArrayBuffer(bytes));
    try {
      // Removed first (an adapter's rename may refuse an existing target); a crash between the
      // two is finished by the next listing (finishWrites), never read as a delete.
      if (there) await this.adapter.remove(target);
      await this.adapter.rename(temp, target);
    } catch (error) {
      if (!there) await this.adapter.remove(temp).catch(() => undefined);
      throw error;
    }
    this.written(path);
    const stat = await this.stat(path);
    if (stat === null) return 'changed';
    return stat;
  }

  async rename(from: string, to: string): Promise<GuardedOutcome> {
    const source = this.local(from);
    const target = this.local(to);
    if (!(await this.adapter.exists(source))) return 'changed';
    if (source === target) return 'done';
    if (await this.adapter.exists(target)) return 'changed';
    await this.ensureFolder(parentOf(target));
    await this.adapter.rename(source, target);
    this.written(to);
    return 'done';
  }

  async delete(path: string, hash: string): Promise<GuardedOutcome> {
    const target = this.local(path);
    if (!(await this.adapter.exists(target))) return 'changed';
    const current = new Uint8Array(await this.adapter.readBinary(target));
    if ((await sha256Hex(current)) !== hash) return 'changed';
    // Its versions stay in the companion's history.
    await this.adapter.remove(target);
    this.written(path);
    return 'done';
  }

  /**
   * A write interrupted between removing the old file and moving the new one in left the whole
   * new file under its temporary name: it is moved in now, so the gap never reads as a delete.
   * A temporary file beside its target is a write that never got that far: dropped.
   */
  private async finishWrites(files: readonly string[]): Promise<boolean> {
    let finished = false;
    for (const file of files) {
      const match = /^(.*\/)?\.(.+)\.cairn-sync\.tmp$/.exec(normalizePath(file));
      if (!match) continue;
      const target = `${match[1] ?? ''}${match[2] as string}`;
      if (await this.adapter.exists(target)) await this.adapter.remove(file);
      else await this.adapter.rename(file, target);
      finished = true;
    }
    return finished;
  }

  /** `.obsidian/x` → `<configDir>/x`. */
  private local(path: string): string {
    return normalizePath(`${this.configDir}${path.slice(SETTINGS_FOLDER.length)}`);
  }

  /** `<configDir>/x` → `.obsidian/x`, or null for a path outside the config folder. */
  private wire(local: string): string | null {
    const normalized = normalizePath(local);
    if (!normalized.startsWith(`${this.configDir}/`)) return null;
    return `${SETTINGS_FOLDER}${normalized.slice(this.configDir.length)}`;
  }

  private async ensureFolder(folder: string): Promise<void> {
    if (folder === '' || (await this.adapter.exists(folder))) return;
    await this.ensureFolder(parentOf(folder));
    await this.adapter.mkdir(folder);
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? (bytes.buffer as ArrayBuffer)
    : bytes.slice().buffer;
}
