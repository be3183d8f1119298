import { App } from 'obsidian-test-mocks/obsidian';
import { setup, teardown } from 'obsidian-test-mocks/setup';
import type { App as ObsidianApp } from 'obsidian';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ObsidianSyncVault } from '../../../../plugin/sync/obsidian/obsidian-sync-vault';

/*
 * The port's case-variant lookup (sync-ports.ts: a path finds a file differing only in case)
 * through the folded path index kept from vault events, against the Obsidian fake: new files,
 * deletes, renames of files and of folders (whose files' own events are not relied on).
 */
beforeAll(() => setup());
afterAll(() => teardown());

let vault: ObsidianSyncVault | null = null;
afterEach(() => {
  vault?.close();
  vault = null;
});

function open(files: Record<string, string>): { app: ObsidianApp; vault: ObsidianSyncVault } {
  const app = App.createConfigured__({ files }) as unknown as ObsidianApp;
  vault = new ObsidianSyncVault(app, { caseInsensitive: false });
  return { app, vault };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('ObsidianSyncVault: case variants through the folded index', () => {
  it('finds a file under another spelling, and follows creates, deletes and renames', async () => {
    const { app, vault } = open({ 'Notes/Trip.md': 'trip', 'Inbox.md': 'inbox' });
    expect((await vault.stat('notes/trip.md'))?.path).toBe('Notes/Trip.md');
    expect(await vault.stat('notes/none.md')).toBeNull();

    // Made after the index was built: by the engine's port, and by anyone else.
    expect(await vault.write('Notes/New.md', bytes('new'), { absent: true })).not.toBe('changed');
    await app.vault.create('Other.md', 'other');
    expect((await vault.stat('NOTES/NEW.MD'))?.path).toBe('Notes/New.md');
    expect((await vault.stat('other.md'))?.path).toBe('Other.md');
    // A case variant of a file there is not a second file.
    expect(await vault.write('notes/new.md', bytes('x'), { absent: true })).toBe('changed');

    const inbox = app.vault.getFileByPath('Inbox.md');
    await app.vault.rename(inbox!, 'Archive/Inbox.md');
    expect(await vault.stat('inbox.md')).toBeNull();
    expect((await vault.stat('archive/INBOX.md'))?.path).toBe('Archive/Inbox.md');

    await app.vault.delete(app.vault.getFileByPath('Other.md')!);
    expect(await vault.stat('other.md')).toBeNull();
  });

  it('reads exactly the path asked for: a case variant there is another file', async () => {
    const { app, vault } = open({});
    await app.vault.create('Trip.md', 'trip');
    // (Reads of the very path go to the adapter; e2e/sync-two-devices has them on real files.)
    expect((await vault.stat('trip.md'))?.path).toBe('Trip.md');
    // Listed as trip.md, and Trip.md is there now (moved onto it): not that file's bytes.
    await expect(vault.read('trip.md')).rejects.toThrow(/ENOENT/);
  });

  it('a folder moved (one event for the folder) moves its files in the index too', async () => {
    const { app, vault } = open({ 'Notes/Trip.md': 'trip', 'Notes/Deep/Plan.md': 'plan' });
    expect((await vault.stat('notes/trip.md'))?.path).toBe('Notes/Trip.md');
    await app.vault.rename(app.vault.getAbstractFileByPath('Notes')!, 'Travel');
    expect(await vault.stat('notes/trip.md')).toBeNull();
    expect((await vault.stat('travel/deep/plan.MD'))?.path).toBe('Travel/Deep/Plan.md');
  });

  it('after close() (listeners released) a lookup still finds what is there', async () => {
    const { app, vault } = open({ 'A.md': 'a' });
    expect((await vault.stat('a.md'))?.path).toBe('A.md');
    vault.close();
    // The index is dropped with the listeners, so it cannot go stale: built again when used.
    await app.vault.create('B.md', 'b');
    expect((await vault.stat('b.md'))?.path).toBe('B.md');
  });
});
