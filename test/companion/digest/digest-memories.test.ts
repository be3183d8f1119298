import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DigestService } from '../../../companion/digest/digest-service';
import { DigestStore } from '../../../companion/digest/digest-store';
import { MemoryService } from '../../../companion/memory';
import { summarizeMemoriesWithModel } from '../../../shared/memory';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { NodeOllamaHttp } from '../../shared/chat/node-ollama-http';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';

/*
 * The digest's "Memories" section: the week's memories (by their `(added …)` date) grouped by
 * category, with the LLM's summary on top when one is configured (the fake Ollama here).
 */

const BERLIN = 'Europe/Berlin';
let index: IndexerFixture;
let ollama: FakeOllamaServer | undefined;

const MEMORY_FILE = [
  '---',
  'type: memory',
  '---',
  '# Memory',
  '',
  '- Old fact from before #memory/food (added 2026-11-15) ^m-old1',
  '- Great pizza at Mario’s #memory/food (added 2026-11-23) ^m-piz1',
  '- Need to watch Inception #memory/movies (added 2026-11-25) ^m-inc1',
  '- Sushi night with Ana (added 2026-11-29) ^m-sus1',
  '- Next week’s thing #memory/ideas (added 2026-11-30) ^m-nxt1',
  '- A hand-written fact without a date ^m-hand',
  '',
].join('\n');

beforeEach(async () => {
  index = await startIndexer({ files: { 'Cairn/Memory.md': MEMORY_FILE } });
  index.clock.set('2026-11-30T07:30:00Z');
});
afterEach(async () => {
  await index.close();
  await ollama?.close();
  ollama = undefined;
});

function digestService(withModel: boolean): DigestService {
  const memories = new MemoryService({ vault: index.vault, zone: BERLIN, clock: index.clock });
  return new DigestService({
    vault: index.vault,
    folder: 'Cairn/Digests',
    zone: BERLIN,
    clock: index.clock,
    store: new DigestStore(index.db),
    sources: {
      notesSince: (since) => index.indexer.store.notesTouchedSince(since),
      reminders: () => [],
      missed: async () => [],
      memories: async () => (await memories.list()).memories,
      ...(withModel
        ? {
            summarizeMemories: (groups) =>
              summarizeMemoriesWithModel(
                { http: new NodeOllamaHttp(), baseUrl: ollama!.url, model: 'llama3.2' },
                groups,
              ),
          }
        : {}),
    },
  });
}

const digestText = () => readFileSync(join(index.vault, 'Cairn/Digests/2026-W48.md'), 'utf8');

describe('the digest’s memories section', () => {
  it('lists the week’s memories by category (tag or rules), linking each line', async () => {
    await digestService(false).writeOnDemand('2026-W48');
    const text = digestText();
    const section = text.slice(text.indexOf('## Memories'), text.indexOf('## Reminders done'));
    expect(section).toBe(
      [
        '## Memories',
        '### Food',
        '- Great pizza at Mario’s ([[Cairn/Memory#^m-piz1|memory]])',
        '- Sushi night with Ana ([[Cairn/Memory#^m-sus1|memory]])',
        '### Movies',
        '- Need to watch Inception ([[Cairn/Memory#^m-inc1|memory]])',
        '',
        '',
      ].join('\n'),
    );
  });

  it('puts the LLM’s summary on top, sent the week’s memories by category', async () => {
    ollama = await FakeOllamaServer.start();
    ollama.chatReply = { content: 'A food-heavy week: pizza and sushi, and a film to watch.' };
    await digestService(true).writeOnDemand('2026-W48');
    expect(digestText()).toContain(
      '## Memories\nA food-heavy week: pizza and sushi, and a film to watch.\n\n### Food\n',
    );
    const sent = ollama.requests.find((r) => r.path === '/api/chat')!.body as {
      messages: Array<{ content: string }>;
    };
    expect(sent.messages.at(-1)!.content).toBe(
      'Food:\n- Great pizza at Mario’s\n- Sushi night with Ana\n\nMovies:\n- Need to watch Inception',
    );
  });

  it('is written without a summary when the model fails, and says None for a quiet week', async () => {
    ollama = await FakeOllamaServer.start();
    ollama.failWith('/api/chat', { kind: 'status-500' });
    await digestService(true).writeOnDemand('2026-W48');
    expect(digestText()).toContain('## Memories\n### Food\n');
    mkdirSync(join(index.vault, 'Cairn'), { recursive: true });
    writeFileSync(
      join(index.vault, 'Cairn/Memory.md'),
      '- Old #memory/food (added 2026-01-01) ^m-old1\n',
    );
    await digestService(true).writeOnDemand('2026-W47');
    expect(readFileSync(join(index.vault, 'Cairn/Digests/2026-W47.md'), 'utf8')).toContain(
      '## Memories\n- None\n',
    );
  });
});
