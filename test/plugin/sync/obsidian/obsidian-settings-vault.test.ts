import { describe, expect, it } from 'vitest';
import type { DataAdapter } from 'obsidian';
import { ObsidianSettingsVault } from '../../../../plugin/sync/obsidian/obsidian-settings-vault';
import { sha256Hex } from '../../../../plugin/sync/sync-hash';
import type { SettingsCategory } from '../../../../shared/protocol/sync-settings';

/** Obsidian's file system adapter, in memory (the fake of the Obsidian app). */
class MemoryAdapter {
  readonly files = new Map<string, { bytes: Uint8Array; mtime: number }>();
  private clock = 1;

  put(path: string, text: string): void {
    this.files.set(path, { bytes: new TextEncoder().encode(text), mtime: this.clock++ });
  }
  text(path: string): string | undefined {
    const file = this.files.get(path);
    return file && new TextDecoder().decode(file.bytes);
  }
  exists(path: string): Promise<boolean> {
    return Promise.resolve(
      this.files.has(path) || [...this.files.keys()].some((key) => key.startsWith(`${path}/`)),
    );
  }
  stat(path: string) {
    const file = this.files.get(path);
    if (file)
      return Promise.resolve({
        type: 'file',
        size: file.bytes.length,
        mtime: file.mtime,
        ctime: 0,
      });
    return Promise.resolve(null);
  }
  list(folder: string): Promise<{ files: string[]; folders: string[] }> {
    const files: string[] = [];
    const folders = new Set<string>();
    for (const key of this.files.keys()) {
      if (!key.startsWith(`${folder}/`)) continue;
      const rest = key.slice(folder.length + 1);
      const slash = rest.indexOf('/');
      if (slash < 0) files.push(key);
      else folders.add(`${folder}/${rest.slice(0, slash)}`);
    }
    return Promise.resolve({ files, folders: [...folders] });
  }
  readBinary(path: string): Promise<ArrayBuffer> {
    const file = this.files.get(path);
    if (!file) return Promise.reject(new Error(`ENOENT ${path}`));
    return Promise.resolve(file.bytes.slice().buffer);
  }
  writeBinary(path: string, data: ArrayBuffer): Promise<void> {
    this.files.set(path, { bytes: new Uint8Array(data.slice(0)), mtime: this.clock++ });
    return Promise.resolve();
  }
  remove(path: string): Promise<void> {
    this.files.delete(path);
    return Promise.resolve();
  }
  rename(from: string, to: string): Promise<void> {
    if (this.files.has(to)) return Promise.reject(new Error('Destination file already exists!'));
    const file = this.files.get(from);
    if (!file) return Promise.reject(new Error(`ENOENT ${from}`));
    this.files.delete(from);
    this.files.set(to, file);
    return Promise.resolve();
  }
  mkdir(): Promise<void> {
    return Promise.resolve();
  }
}

function settingsVault(
  adapter: MemoryAdapter,
  categories: SettingsCategory[],
  configDir = '.obsidian',
) {
  const written: string[] = [];
  const vault = new ObsidianSettingsVault(
    adapter as unknown as DataAdapter,
    configDir,
    () => new Set(categories),
    false,
    (path) => written.push(path),
  );
  return { vault, written };
}

describe('ObsidianSettingsVault', () => {
  it('lists only the enabled categories, never the never-list, under the wire name', async () => {
    const adapter = new MemoryAdapter();
    for (const path of [
      '.obsidian-phone/appearance.json',
      '.obsidian-phone/snippets/wide.css',
      '.obsidian-phone/hotkeys.json',
      '.obsidian-phone/workspace-mobile.json',
      '.obsidian-phone/plugins/cairn/data.json',
      '.obsidian-phone/plugins/dataview/main.js',
      '.obsidian-phone/plugins/dataview/node_modules/x.js',
      'Notes/a.md',
    ])
      adapter.put(path, 'x');
    const phone = settingsVault(adapter, ['appearance', 'community-plugins'], '.obsidian-phone');
    expect((await phone.vault.list()).map((stat) => stat.path).sort()).toEqual([
      '.obsidian/appearance.json',
      '.obsidian/plugins/dataview/main.js',
      '.obsidian/snippets/wide.css',
    ]);
    expect(await settingsVault(adapter, [], '.obsidian-phone').vault.list()).toEqual([]);
  });

  it('writes whole files only when the expectation holds, and says which arrived', async () => {
    const adapter = new MemoryAdapter();
    adapter.put('.obsidian/app.json', '{"a":1}');
    const { vault, written } = settingsVault(adapter, ['other']);
    const bytes = new TextEncoder().encode('{"a":2}');
    expect(await vault.write('.obsidian/app.json', bytes, { absent: true })).toBe('changed');
    expect(await vault.write('.obsidian/app.json', bytes, { hash: 'f'.repeat(64) })).toBe(
      'changed',
    );
    const before = await sha256Hex(new TextEncoder().encode('{"a":1}'));
    expect(await vault.write('.obsidian/app.json', bytes, { hash: before })).toMatchObject({
      path: '.obsidian/app.json',
      size: 7,
    });
    expect(adapter.text('.obsidian/app.json')).toBe('{"a":2}');
    expect([...adapter.files.keys()]).toEqual(['.obsidian/app.json']);
    expect(written).toEqual(['.obsidian/app.json']);
  });

  it('finishes a replacement a crash cut short instead of reading it as a delete', async () => {
    const adapter = new MemoryAdapter();
    // The old file was removed; the new one waits under its temporary name.
    adapter.put('.obsidian/.hotkeys.json.cairn-sync.tmp', '{"new":true}');
    adapter.put('.obsidian/.app.json.cairn-sync.tmp', 'stale');
    adapter.put('.obsidian/app.json', '{"kept":true}');
    const { vault } = settingsVault(adapter, ['hotkeys', 'other']);
    expect((await vault.list()).map((stat) => stat.path).sort()).toEqual([
      '.obsidian/app.json',
      '.obsidian/hotkeys.json',
    ]);
    expect(adapter.text('.obsidian/hotkeys.json')).toBe('{"new":true}');
    expect(adapter.text('.obsidian/app.json')).toBe('{"kept":true}');
    expect([...adapter.files.keys()].some((key) => key.endsWith('.tmp'))).toBe(false);
  });
});
