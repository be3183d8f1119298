import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexAfterWrite } from '../../../companion/search/index-after-write';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';

/*
 * A write's answer waits for its own file to be indexed, not for the whole index to be idle:
 * a note that keeps changing elsewhere (a sync client writing every few ms) would otherwise hold
 * every chat append and MCP write without end (issue #25, item 6).
 */

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('indexAfterWrite', () => {
  it('answers once the written file is indexed while another file keeps the index busy', async () => {
    // A watcher whose debounce outlasts the test: one change elsewhere keeps the index from
    // ever being idle while the write waits.
    fixture = await startIndexer({
      files: { 'Busy.md': '# Busy\n', 'Inbox.md': '# Inbox\n' },
      watch: true,
      debounceMs: 60_000,
    });
    await fixture.indexer.whenIdle();
    appendFileSync(join(fixture.vault, 'Busy.md'), 'changed\n');
    await vi.waitFor(() => expect(fixture!.indexer.pending).toBeGreaterThan(0));

    writeFileSync(join(fixture.vault, 'Inbox.md'), '# Inbox\n\nwritten by Cairn about owls\n');
    const outcome = await indexAfterWrite(fixture.indexer)('Inbox.md');
    expect(outcome).toEqual({ indexed: true });
    expect(fixture.indexer.queries.keyword('owls', {}, 10)).toHaveLength(1);
    expect(fixture.indexer.pending).toBeGreaterThan(0); // Busy.md still waits: not idle
  });

  it('gives up waiting after its bound and says the file is indexed later', async () => {
    fixture = await startIndexer({
      files: { 'Busy.md': '# Busy\n', 'Inbox.md': '# Inbox\n' },
      watch: true,
      debounceMs: 60_000,
    });
    await fixture.indexer.whenIdle();
    appendFileSync(join(fixture.vault, 'Busy.md'), 'changed\n');
    await vi.waitFor(() => expect(fixture!.indexer.pending).toBeGreaterThan(0));
    // Unchanged content: indexing it publishes nothing, so only the bound ends the wait.
    const outcome = await indexAfterWrite(fixture.indexer, 50)('Inbox.md');
    expect(outcome).toEqual({ indexed: true });
  });
});
