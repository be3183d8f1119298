import { createHash } from 'node:crypto';
import {
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { VaultChangeFeed } from '../../../companion/vault/change-feed';
import { VaultExcludes } from '../../../companion/vault/exclude-settings';
import type {
  VaultChange,
  VaultChangeSubscriber,
  VaultFileState,
} from '../../../companion/vault/vault-change';
import { tempDir } from '../helpers/app';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** What a subscriber saw, as `type path` lines (upserts with their text when small). */
class Recorder implements VaultChangeSubscriber {
  readonly seen: VaultChange[] = [];
  constructor(
    readonly name = 'recorder',
    readonly kinds?: VaultChangeSubscriber['kinds'],
  ) {}
  onChange(change: VaultChange): void {
    this.seen.push(change);
  }
  lines(): string[] {
    return this.seen.map((change) =>
      change.type === 'upsert'
        ? `upsert ${change.path} ${change.bytes?.toString('utf8') ?? '(no bytes)'}`
        : `${change.type} ${change.path}`,
    );
  }
  clear(): void {
    this.seen.length = 0;
  }
}

interface Fixture {
  vault: string;
  dbFile: string;
  db: SqliteDatabase;
  feed: VaultChangeFeed;
  write(path: string, text: string): void;
  open(subscribers: VaultChangeSubscriber[], options?: { watch?: boolean }): Promise<void>;
}

async function fixture(files: Record<string, string>): Promise<Fixture> {
  const dir = tempDir('feed');
  cleanup.push(() => dir.remove());
  const vault = join(realpathSync(dir.path), 'vault');
  mkdirSync(vault);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(vault, path)), { recursive: true });
    writeFileSync(join(vault, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  const dbFile = join(dir.path, 'cairn.db');
  const f = {
    vault,
    dbFile,
    write,
    db: undefined as unknown as SqliteDatabase,
    feed: undefined as unknown as VaultChangeFeed,
    async open(subscribers: VaultChangeSubscriber[], options: { watch?: boolean } = {}) {
      if (f.feed) {
        await f.feed.close();
        f.db.close();
      }
      f.db = openDatabase(dbFile);
      f.feed = new VaultChangeFeed({
        vault,
        db: f.db,
        logger: createLogger('silent'),
        excludes: new VaultExcludes(['Private/**']),
        watch: options.watch ?? false,
        debounceMs: 20,
        rescanIntervalMs: 0,
      });
      for (const subscriber of subscribers) f.feed.subscribe(subscriber);
      f.feed.start();
      await f.feed.whenIdle();
    },
  };
  cleanup.push(async () => {
    await f.feed?.close();
    f.db?.close();
  });
  return f;
}

describe('the vault change feed', () => {
  it('reports every file once on the first scan, with its hash and bytes, by kind', async () => {
    const f = await fixture({
      'A.md': 'alpha',
      'Sub/B.txt': 'bravo',
      'Files/pic.png': 'PNG',
      'Files/paper.pdf': '%PDF-1.4 paper',
      'Private/secret.md': 'hidden',
      '.obsidian/app.json': '{}',
    });
    const all = new Recorder('all');
    const notes = new Recorder('notes', ['markdown']);
    await f.open([all, notes]);
    expect(all.lines().sort()).toEqual([
      'upsert A.md alpha',
      // A PDF is read by the PDF reader's child process, never held here (issue #25).
      'upsert Files/paper.pdf (no bytes)',
      'upsert Files/pic.png (no bytes)',
      'upsert Sub/B.txt bravo',
    ]);
    expect(all.seen.find((change) => change.path === 'Files/paper.pdf')).toMatchObject({
      kind: 'pdf',
      hash: sha('%PDF-1.4 paper'),
    });
    expect(f.feed.absolutePath('Files/paper.pdf')).toBe(
      join(realpathSync(f.vault), 'Files/paper.pdf'),
    );
    expect(notes.lines()).toEqual(['upsert A.md alpha']);
    const a = all.seen.find((change) => change.path === 'A.md');
    expect(a).toMatchObject({ type: 'upsert', kind: 'markdown', hash: sha('alpha'), size: 5 });
    expect([...f.feed.files().keys()].sort()).toEqual([
      'A.md',
      'Files/paper.pdf',
      'Files/pic.png',
      'Sub/B.txt',
    ]);
  });

  it('after a restart reports only what changed while it was down, and reads nothing else', async () => {
    const f = await fixture({ 'A.md': 'alpha', 'B.md': 'bravo', 'C.md': 'charlie' });
    await f.open([new Recorder()]);
    f.write('A.md', 'alpha two');
    rmSync(join(f.vault, 'B.md'));
    // Touched, same bytes: read once (its time moved) but no change.
    utimesSync(join(f.vault, 'C.md'), new Date('2030-01-01'), new Date('2030-01-01'));
    const recorder = new Recorder();
    await f.open([recorder]);
    expect(recorder.lines().sort()).toEqual(['delete B.md', 'upsert A.md alpha two']);

    const third = new Recorder();
    await f.open([third]);
    expect(third.lines()).toEqual([]);
  });

  it('reports nothing deleted when the vault folder is gone at a scan', async () => {
    const f = await fixture({ 'A.md': 'alpha' });
    await f.open([new Recorder()]);
    const moved = `${f.vault}-unmounted`;
    renameSync(f.vault, moved);
    cleanup.push(() => rmSync(moved, { recursive: true, force: true }));
    const recorder = new Recorder();
    await f.open([recorder]);
    expect(recorder.lines()).toEqual([]);
    expect([...f.feed.files().keys()]).toEqual(['A.md']);
  });

  it('catches a subscriber up in reconcile, delivering to it alone', async () => {
    const f = await fixture({ 'A.md': 'alpha', 'B.md': 'bravo' });
    await f.open([new Recorder()]);
    const other = new Recorder('other');
    // Holds only A.md, at an older version: it wants A.md again and B.md.
    const behind: VaultChangeSubscriber & { seen: VaultChange[] } = {
      name: 'behind',
      seen: [],
      onChange(change) {
        this.seen.push(change);
      },
      reconcile(files: ReadonlyMap<string, VaultFileState>) {
        expect([...files.keys()].sort()).toEqual(['A.md', 'B.md']);
        return ['A.md', 'B.md'];
      },
    };
    await f.open([other, behind]);
    expect(other.lines()).toEqual([]);
    expect(behind.seen.map((change) => `${change.type} ${change.path}`).sort()).toEqual([
      'upsert A.md',
      'upsert B.md',
    ]);
  });

  it('follows a sync tool writing by temp file and rename: one change, the final bytes', async () => {
    const f = await fixture({ 'Note.md': 'one\n' });
    const recorder = new Recorder();
    await f.open([recorder], { watch: true });
    recorder.clear();
    writeFileSync(join(f.vault, '.Note.md.tmp'), 'one\ntwo\n');
    renameSync(join(f.vault, '.Note.md.tmp'), join(f.vault, 'Note.md'));
    await vi.waitFor(() => expect(recorder.lines()).toEqual(['upsert Note.md one\ntwo\n']), {
      timeout: 5_000,
    });
    f.write('Later.md', 'new');
    await vi.waitFor(() => expect(recorder.lines()).toContain('upsert Later.md new'), {
      timeout: 5_000,
    });
    rmSync(join(f.vault, 'Later.md'));
    await vi.waitFor(() => expect(recorder.lines()).toContain('delete Later.md'), {
      timeout: 5_000,
    });
  });

  it('refuses a symlink leading out of the vault, and resolves refresh once subscribers have it', async () => {
    const f = await fixture({ 'A.md': 'alpha' });
    const outside = join(dirname(f.vault), 'outside.md');
    writeFileSync(outside, 'secret');
    symlinkSync(outside, join(f.vault, 'Link.md'));
    let handled = 0;
    const slow: VaultChangeSubscriber & { seen: VaultChange[] } = {
      name: 'slow',
      seen: [],
      async onChange(change) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        this.seen.push(change);
        handled++;
      },
    };
    await f.open([slow]);
    const refused = slow.seen.find((change) => change.path === 'Link.md');
    expect(refused).toMatchObject({ type: 'refused', reason: expect.stringContaining('outside') });
    expect(f.feed.files().has('Link.md')).toBe(false);

    f.write('A.md', 'alpha two');
    const before = handled;
    await f.feed.refresh(['A.md']);
    expect(handled).toBe(before + 1);
  });
});
