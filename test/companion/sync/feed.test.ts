import { mkdirSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../companion/db/open';
import { createLogger } from '../../../companion/logging';
import { SyncService } from '../../../companion/sync';
import { VaultChangeFeed } from '../../../companion/vault/change-feed';
import { VaultExcludes } from '../../../companion/vault/exclude-settings';
import { ManualClock } from '../../fakes/clock';
import { tempDir } from '../helpers/app';
import { hashOf } from './sync-app';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The real feed (watching real files) feeding a real SyncService, as server.ts wires them. */
async function wired(files: Record<string, string>) {
  const dir = tempDir('sync-feed');
  cleanup.push(() => dir.remove());
  const vault = join(realpathSync(dir.path), 'vault');
  mkdirSync(vault);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(vault, path)), { recursive: true });
    writeFileSync(join(vault, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  const db = openDatabase(join(dir.path, 'cairn.db'));
  const logger = createLogger('silent');
  const clock = ManualClock.at('2026-11-22T10:00:00Z');
  const feed = new VaultChangeFeed({
    vault,
    db,
    logger,
    // The plugin excludes Archive/ from search: sync still carries it.
    excludes: new VaultExcludes(['Archive/**']),
    watch: true,
    debounceMs: 20,
    rescanIntervalMs: 0,
  });
  const sync = new SyncService({ vault, dataDir: join(dir.path, 'data'), db, clock, logger });
  sync.follow(feed);
  feed.start();
  await sync.start();
  await feed.whenIdle();
  cleanup.push(async () => {
    await sync.close();
    await feed.close();
    db.close();
  });
  const journal = () =>
    db.prepare('SELECT op, path, device, hash FROM sync_journal ORDER BY seq').all() as Array<{
      op: string;
      path: string;
      device: string;
      hash: string;
    }>;
  const settle = async () => {
    await feed.refresh([]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await feed.whenIdle();
    await sync.journal.serial.idle();
  };
  return { vault, write, feed, sync, journal, settle };
}

describe('sync follows the real vault change feed', () => {
  it('journals edits, new files and deletes made on the disk as device server, once each', async () => {
    const w = await wired({ 'a.md': 'a\n', 'Archive/old.md': 'old\n' });
    expect(
      w
        .journal()
        .map((row) => [row.op, row.path, row.device])
        .sort(),
    ).toEqual([
      ['put', 'Archive/old.md', 'server'],
      ['put', 'a.md', 'server'],
    ]);
    w.write('a.md', 'a edited\n');
    w.write('img/pic.png', 'PNG bytes');
    await w.settle();
    await w.feed.refresh(['a.md', 'img/pic.png']);
    await w.sync.journal.serial.idle();
    unlinkSync(join(w.vault, 'a.md'));
    await w.feed.refresh(['a.md']);
    await w.settle();
    const after = w.journal().slice(2);
    expect(after.map((row) => [row.op, row.path, row.device])).toEqual([
      ['put', 'a.md', 'server'],
      ['put', 'img/pic.png', 'server'],
      ['delete', 'a.md', 'server'],
    ]);
    expect(after[0]?.hash).toBe(hashOf('a edited\n'));
  });

  it("the companion's own sync writes come back through the feed and record nothing", async () => {
    const w = await wired({ 'a.md': 'one\n' });
    const hash = await w.sync.blobs.putBytes(Buffer.from('from the phone\n'));
    const [a] = w.journal();
    const fileId = (w.sync.store.liveAt('a.md') as { file_id: string }).file_id;
    const { results } = await w.sync.committer.commit(
      {
        device: 'Pixel 8',
        ops: [
          { path: 'a.md', file_id: fileId, base: a?.hash ?? null, hash: hash.hash },
          { path: 'n/new.md', base: null, hash: hash.hash },
        ],
      },
      { tokenName: 'owner', client: 'api' },
    );
    expect(results.map((result) => result.status)).toEqual(['accepted', 'accepted']);
    await w.feed.refresh(['a.md', 'n/new.md']);
    await w.settle();
    expect(w.journal().map((row) => [row.op, row.path, row.device])).toEqual([
      ['put', 'a.md', 'server'],
      ['put', 'a.md', 'Pixel 8'],
      ['put', 'n/new.md', 'Pixel 8'],
    ]);
  });

  it('a file the index stops following (newly excluded) stays; one gone from disk is deleted', async () => {
    const w = await wired({ 'Notes/x.md': 'x\n', 'Notes/y.md': 'y\n' });
    w.feed.excludes.setPluginGlobs(['Notes/x.md']);
    unlinkSync(join(w.vault, 'Notes/y.md'));
    await w.feed.rescan();
    await w.settle();
    expect(
      w
        .journal()
        .slice(2)
        .map((row) => [row.op, row.path]),
    ).toEqual([['delete', 'Notes/y.md']]);
    expect(w.sync.store.liveAt('Notes/x.md')).toMatchObject({ hash: hashOf('x\n') });
  });
});
