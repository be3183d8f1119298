import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  VaultExcludes,
  readExcludeGlobs,
  watchExcludeGlobs,
} from '../../../companion/vault/exclude-settings';
import {
  VaultReminderSource,
  connectVaultReminders,
} from '../../../companion/reminders/vault-reminder-source';
import type { ExcludeGlobsWatch } from '../../../companion/vault/exclude-settings';
import { createLogger } from '../../../companion/logging';
import { PLUGIN_DATA_PATH } from '../../../shared/settings';
import { startIndexer, type IndexerFixture } from '../search/helpers';

let fixture: IndexerFixture | undefined;
let watch: ExcludeGlobsWatch | undefined;

afterEach(async () => {
  await watch?.close();
  watch = undefined;
  await fixture?.close();
  fixture = undefined;
});

function indexedPaths(f: IndexerFixture): string[] {
  return f.db
    .prepare<[], { path: string }>('SELECT path FROM index_files WHERE error IS NULL ORDER BY path')
    .all()
    .map((row) => row.path);
}

/** As Obsidian saves it: a temp file renamed over data.json (a new inode). */
function saveSettings(f: IndexerFixture, text: string): void {
  const file = join(f.vault, PLUGIN_DATA_PATH);
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

function settings(excludeGlobs: string[]): string {
  return JSON.stringify({ timezone: 'Europe/Berlin', search: { excludeGlobs } });
}

function capturingLogger() {
  const lines: Array<{ level: number; msg: string; added?: string[]; removed?: string[] }> = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      lines.push(JSON.parse(line) as (typeof lines)[number]);
    },
  });
  return { logger, lines };
}

const WAIT = { timeout: 10_000, interval: 20 };

describe('watchExcludeGlobs with the real indexer', () => {
  it('applies changed globs without a restart: newly excluded files leave the index, freed ones come in and are watched', async () => {
    fixture = await startIndexer({
      watch: true,
      files: {
        'Notes/a.md': '# A\nalpha',
        'Private/secret.md': '# Secret\nbeta',
        'Archive/old.md': '# Old\ngamma',
        [PLUGIN_DATA_PATH]: settings(['Private/**']),
      },
    });
    const f = fixture;
    await f.indexer.whenIdle();
    expect(indexedPaths(f)).toEqual(['Archive/old.md', 'Notes/a.md']);

    const { logger, lines } = capturingLogger();
    watch = watchExcludeGlobs(f.vault, {
      onChange: (globs) => f.indexer.setPluginExcludeGlobs(globs),
      logger,
      intervalMs: 20,
    });
    saveSettings(f, settings(['Archive/**']));
    await vi.waitFor(
      () => expect(indexedPaths(f)).toEqual(['Notes/a.md', 'Private/secret.md']),
      WAIT,
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'exclude globs changed in the plugin settings; rescanning the vault',
        added: ['Archive/**'],
        removed: ['Private/**'],
      }),
    );
    expect(f.indexer.queries.keyword('beta', {}, 10)).toHaveLength(1);
    expect(f.indexer.queries.keyword('gamma', {}, 10)).toEqual([]);

    // The watcher started again under the new rules: the folder it skipped is followed now.
    f.write('Private/later.md', '# Later\ndelta');
    await vi.waitFor(() => expect(indexedPaths(f)).toContain('Private/later.md'), WAIT);
  });

  it('keeps the rules in force while data.json does not read, with a warning', async () => {
    fixture = await startIndexer({
      files: {
        'Notes/a.md': '# A',
        'Private/secret.md': '# Secret',
        [PLUGIN_DATA_PATH]: settings(['Private/**']),
      },
    });
    const f = fixture;
    await f.indexer.whenIdle();
    const { logger, lines } = capturingLogger();
    const onChange = vi.fn((globs: readonly string[]) => f.indexer.setPluginExcludeGlobs(globs));
    watch = watchExcludeGlobs(f.vault, { onChange, logger, intervalMs: 20 });
    saveSettings(f, '{"search": {"excludeGlobs": [');
    await vi.waitFor(
      () => expect(lines.map((line) => line.msg).join('\n')).toMatch(/keeping the rules in force/),
      WAIT,
    );
    expect(onChange).not.toHaveBeenCalled();
    expect(indexedPaths(f)).toEqual(['Notes/a.md']);

    // Fixed again with the same globs: nothing to apply.
    saveSettings(f, settings(['Private/**']));
    await vi.waitFor(() => expect(readExcludeGlobs(f.vault).globs).toEqual(['Private/**']), WAIT);
    saveSettings(f, settings([]));
    await vi.waitFor(
      () => expect(indexedPaths(f)).toEqual(['Notes/a.md', 'Private/secret.md']),
      WAIT,
    );
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith([]);
  });
});

describe('one live rule set for the index and the reminders', () => {
  it('a folder un-excluded at run time is indexed and its reminders scheduled, without a restart', async () => {
    const files = {
      'Notes/a.md': '- [ ] Visible @remind(2026-12-01 09:00) ^r-vis1',
      'Private/todo.md': '- [ ] Hidden until un-excluded @remind(2026-12-02 09:00) ^r-hid1',
      [PLUGIN_DATA_PATH]: settings(['Private/**']),
    };
    // What server.ts does: one VaultExcludes, read from data.json, held by both.
    const excludes = new VaultExcludes(['Private/**']);
    fixture = await startIndexer({ files, excludes });
    const g = fixture;
    expect(readExcludeGlobs(g.vault).globs).toEqual(['Private/**']);
    await g.indexer.whenIdle();
    const source = new VaultReminderSource({ vault: g.vault, defaultZone: 'UTC', excludes });
    await source.load();
    expect(source.all().reminders.map((reminder) => reminder.id)).toEqual(['r-vis1']);

    const replanned: string[] = [];
    const link = connectVaultReminders(
      g.indexer.feed,
      source,
      { replan: async (ids = []) => void replanned.push(...ids) },
      createLogger('silent'),
    );
    try {
      await g.indexer.setPluginExcludeGlobs([]);
      await vi.waitFor(() => expect(replanned).toContain('r-hid1'), WAIT);
      expect(indexedPaths(g)).toContain('Private/todo.md');
      expect(
        source
          .all()
          .reminders.map((reminder) => reminder.id)
          .sort(),
      ).toEqual(['r-hid1', 'r-vis1']);

      // And back: excluded again, its reminders leave with the file's index entry.
      await g.indexer.setPluginExcludeGlobs(['Private/**']);
      await vi.waitFor(
        () => expect(source.all().reminders.map((reminder) => reminder.id)).toEqual(['r-vis1']),
        WAIT,
      );
    } finally {
      await link.close();
    }
  });
});
