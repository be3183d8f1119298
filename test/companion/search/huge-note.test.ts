import { afterEach, expect, it } from 'vitest';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

// Its own file so that it runs in parallel with the other bad-input cases.
it('a 10 MB note is indexed whole', async () => {
  const paragraph =
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ';
  const sections: string[] = [];
  let size = 0;
  for (let i = 0; size < 10 * 1024 * 1024; i++) {
    const section = `## Section ${i}\n\n${paragraph.repeat(20)}\n\n`;
    sections.push(section);
    size += section.length;
  }
  sections.push('## Last\n\nThe needle is a narwhal.\n');
  fixture = await startIndexer({ files: { 'Huge.md': sections.join('') } });
  await fixture.indexer.whenIdle();
  const f = fixture;
  expect(f.indexer.indexStatus()).toMatchObject({ files: 1, failed: [] });
  expect(f.indexer.indexStatus().chunks).toBeGreaterThan(5000);
  const [hit] = f.indexer.queries.keyword('narwhal', {}, 5);
  expect(f.indexer.queries.chunks([hit!.chunkId])[0]).toMatchObject({ heading: 'Last' });
}, 30_000);
