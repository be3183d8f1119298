import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../companion/logging';
import { FolderWatcher } from '../../../companion/vault/folder-watcher';
import type { FolderChange } from '../../../companion/vault/folder-watcher';
import { tempDir } from '../helpers/app';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  return { ...actual, watch: vi.fn(actual.watch) };
});

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  vi.mocked(fs.watch).mockClear();
});

/** A vault with these folders (and a note in each), watched; dot-folders and `Private` excluded. */
async function watched(folders: string[]) {
  const dir = tempDir('folder-watch');
  const root = fs.realpathSync(dir.path);
  for (const folder of folders) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, 'note.md'), 'text');
  }
  const changes: FolderChange[] = [];
  const lines: string[] = [];
  const watcher = new FolderWatcher({
    root,
    exclude: {
      excludes: (path) =>
        path.split('/').some((part) => part.startsWith('.') || part === 'Private'),
    },
    logger: createLogger('info', { write: (line: string) => lines.push(line) }),
    onChange: (change) => changes.push(change),
  });
  cleanup.push(() => dir.remove());
  cleanup.push(() => watcher.close());
  await watcher.sync();
  return { root, watcher, changes, lines };
}

const sorted = (paths: string[]) => [...paths].sort();

describe('FolderWatcher', () => {
  it('watches every folder once, the excluded ones never', async () => {
    const { watcher } = await watched(['A', 'A/B', 'C', '.obsidian/plugins', 'Private/Deep']);
    expect(sorted(watcher.watched)).toEqual(['', 'A', 'A/B', 'C']);
    const paths = vi.mocked(fs.watch).mock.calls.map(([path]) => String(path));
    expect(paths).toHaveLength(4);
    expect(paths.some((path) => path.includes('.obsidian') || path.includes('Private'))).toBe(
      false,
    );
    await watcher.sync(); // nothing new: no second watch
    expect(fs.watch).toHaveBeenCalledTimes(4);
  });

  it("reports a file's creation, change and deletion by its folder's watch", async () => {
    const { root, changes } = await watched(['A']);
    writeFileSync(join(root, 'A/new.md'), 'one');
    await vi.waitFor(() => expect(changes).toContainEqual({ type: 'file', path: 'A/new.md' }));
    changes.length = 0;
    rmSync(join(root, 'A/new.md'));
    await vi.waitFor(() => expect(changes).toContainEqual({ type: 'file', path: 'A/new.md' }));
    expect(changes.every((change) => change.type === 'file')).toBe(true);
  });

  it('watches a new folder (and those inside it) and reports it once', async () => {
    const { root, watcher, changes } = await watched([]);
    const outside = join(root, '..', `tree-${process.pid}`);
    mkdirSync(join(outside, 'Sub/Deeper'), { recursive: true });
    cleanup.push(() => rmSync(outside, { recursive: true, force: true }));
    renameSync(outside, join(root, 'Moved in'));
    mkdirSync(join(root, 'Made'));
    await vi.waitFor(() =>
      expect(sorted(watcher.watched)).toEqual([
        '',
        'Made',
        'Moved in',
        'Moved in/Sub',
        'Moved in/Sub/Deeper',
      ]),
    );
    expect(changes.filter((change) => change.type === 'folder')).toEqual([
      { type: 'folder', path: 'Moved in' },
      { type: 'folder', path: 'Made' },
    ]);
    changes.length = 0;
    writeFileSync(join(root, 'Moved in/Sub/Deeper/late.md'), 'late');
    await vi.waitFor(() =>
      expect(changes).toContainEqual({ type: 'file', path: 'Moved in/Sub/Deeper/late.md' }),
    );
  });

  it('releases a removed folder and all under it, and reports it', async () => {
    const { root, watcher, changes } = await watched(['Gone/Deep', 'Stay']);
    const closes = watcherCloses(watcher);
    rmSync(join(root, 'Gone'), { recursive: true });
    await vi.waitFor(() => expect(sorted(watcher.watched)).toEqual(['', 'Stay']));
    expect(changes).toContainEqual({ type: 'folder', path: 'Gone' });
    expect(closes()).toBe(2);
  });

  it('a renamed folder is watched under its new name only, and both names are reported', async () => {
    const { root, watcher, changes } = await watched(['Old/Sub']);
    renameSync(join(root, 'Old'), join(root, 'New'));
    await vi.waitFor(() => expect(sorted(watcher.watched)).toEqual(['', 'New', 'New/Sub']));
    expect(changes).toEqual(
      expect.arrayContaining([
        { type: 'folder', path: 'Old' },
        { type: 'folder', path: 'New' },
      ]),
    );
    changes.length = 0;
    // The old watch followed the folder (inotify watches the inode): it must not report the
    // new file under the old path.
    writeFileSync(join(root, 'New/Sub/after.md'), 'after');
    await vi.waitFor(() =>
      expect(changes).toContainEqual({ type: 'file', path: 'New/Sub/after.md' }),
    );
    expect(changes.some((change) => change.path.startsWith('Old'))).toBe(false);
  });

  it('never reports or watches what is excluded, even when created later', async () => {
    const { root, watcher, changes } = await watched(['A']);
    mkdirSync(join(root, '.trash'));
    writeFileSync(join(root, '.trash/x.md'), 'x');
    mkdirSync(join(root, 'A/Private'));
    writeFileSync(join(root, 'A/marker.md'), 'marker');
    await vi.waitFor(() => expect(changes).toContainEqual({ type: 'file', path: 'A/marker.md' }));
    expect(changes.some((change) => change.path.includes('.trash'))).toBe(false);
    expect(changes.some((change) => change.path.includes('Private'))).toBe(false);
    expect(sorted(watcher.watched)).toEqual(['', 'A']);
  });

  it('sync watches folders the exclude rules no longer skip and releases newly excluded ones', async () => {
    let excluded = 'B';
    const dir = tempDir('folder-watch');
    const root = fs.realpathSync(dir.path);
    mkdirSync(join(root, 'A'));
    mkdirSync(join(root, 'B'));
    const watcher = new FolderWatcher({
      root,
      exclude: { excludes: (path) => path === excluded || path.startsWith(`${excluded}/`) },
      logger: createLogger('silent'),
      onChange: () => undefined,
    });
    cleanup.push(() => dir.remove());
    cleanup.push(() => watcher.close());
    await watcher.sync();
    expect(sorted(watcher.watched)).toEqual(['', 'A']);
    excluded = 'A';
    await watcher.sync();
    expect(sorted(watcher.watched)).toEqual(['', 'B']);
  });

  it('close releases every watcher', async () => {
    const { watcher } = await watched(['A', 'A/B', 'C']);
    const closes = watcherCloses(watcher);
    await watcher.close();
    expect(closes()).toBe(4);
    expect(watcher.watched).toEqual([]);
  });

  it('the watch limit (ENOSPC) is logged once with its code, and the rest goes on', async () => {
    const actual = await vi.importActual<typeof fs>('node:fs');
    vi.mocked(fs.watch).mockImplementation(((path: string, ...rest: unknown[]) => {
      if (path.includes('Full')) {
        throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), {
          code: 'ENOSPC',
        });
      }
      return (actual.watch as (...args: unknown[]) => fs.FSWatcher)(path, ...rest);
    }) as typeof fs.watch);
    try {
      const { watcher, lines } = await watched(['Full 1', 'Full 2', 'Fine']);
      expect(sorted(watcher.watched)).toEqual(['', 'Fine']);
      const limit = lines.filter((line) => line.includes('max_user_watches'));
      expect(limit).toHaveLength(1);
      expect(JSON.parse(limit[0]!).err.code).toBe('ENOSPC');
    } finally {
      vi.mocked(fs.watch).mockImplementation(actual.watch);
    }
  });
});

/** Counts `close()` calls on the watchers held now. */
function watcherCloses(watcher: FolderWatcher): () => number {
  let count = 0;
  const held = (watcher as unknown as { folders: Map<string, fs.FSWatcher> }).folders;
  for (const fsWatcher of held.values()) {
    const close = fsWatcher.close.bind(fsWatcher);
    fsWatcher.close = () => {
      count++;
      close();
    };
  }
  return () => count;
}
