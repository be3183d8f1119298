import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../../shared/protocol/chat';
import type { Citation } from '../../../shared/protocol/citation';
import { startIndexer } from '../search/helpers';
import type { IndexerFixture } from '../search/helpers';
import { SAMPLE_VAULT, authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';
import { chatEvents } from './sse-client';

/* docs/memory-digest-calendar.md memory through POST /api/v1/chat: the shared engine over the real MemoryService. */

let index: IndexerFixture;
let test: TestApp;
const memoryFile = () => join(test.dir, 'vault', 'Cairn/Memory.md');

beforeAll(async () => {
  index = await startIndexer({ source: SAMPLE_VAULT });
});
afterAll(async () => {
  await index?.close();
});
beforeEach(async () => {
  test = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});
afterEach(async () => {
  await test.close();
});

async function chat(message: string): Promise<ChatEvent[]> {
  const response = await test.app.inject({
    method: 'POST',
    url: '/api/v1/chat',
    headers: authorized,
    payload: { message },
  });
  expect(response.statusCode).toBe(200);
  return chatEvents(response.body);
}
const textOf = (events: ChatEvent[]) =>
  events.map((event) => (event.type === 'token' ? event.text : '')).join('');
const citationsOf = (events: ChatEvent[]): Citation[] =>
  events.flatMap((event) => (event.type === 'citations' ? event.citations : []));

describe('chat memory on the companion', () => {
  it('remembers, recalls with line citations, replaces visibly, and forgets one line', async () => {
    const first = await chat('remember that my passport expires 2031-05');
    expect(textOf(first)).toContain("I'll remember that");
    expect(readFileSync(memoryFile(), 'utf8')).toMatch(
      /\n- my passport expires 2031-05 #memory\/uncategorized \(added 2026-11-22\) \^m-[0-9a-z]{4}\n$/,
    );
    await chat('remember: my dentist is Dr Lee');

    const recalled = await chat('what do you remember about my passport?');
    expect(textOf(recalled)).toContain('my passport expires 2031-05 [1]');
    const line =
      readFileSync(memoryFile(), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('passport')) + 1;
    expect(citationsOf(recalled)).toEqual([
      expect.objectContaining({ type: 'note', path: 'Cairn/Memory.md', lines: [line, line] }),
    ]);

    const replaced = await chat('remember that my passport expires 2032-05');
    expect(textOf(replaced)).toContain('replaces');
    const text = readFileSync(memoryFile(), 'utf8');
    expect(text).toMatch(
      /- ~~my passport expires 2031-05 #memory\/uncategorized \(added 2026-11-22\)~~ \(replaced 2026-11-22 by \^m-/,
    );

    const forgot = await chat('forget that my dentist is Dr Lee');
    expect(textOf(forgot)).toContain('Forgotten');
    expect(readFileSync(memoryFile(), 'utf8')).toBe(text.replace(/- my dentist is Dr Lee.*\n/, ''));
  });

  it('answers consult memories first and cite their line; hand edits count at once', async () => {
    await chat('remember that my passport expires 2031-05');
    writeFileSync(
      memoryFile(),
      readFileSync(memoryFile(), 'utf8') + '- Passport number is in the blue folder ^m-hand\n',
    );
    const events = await chat('when does my passport expire?');
    const citations = citationsOf(events);
    expect(citations[0]).toMatchObject({
      path: 'Cairn/Memory.md',
      excerpt: 'my passport expires 2031-05',
    });
    expect(citations[1]).toMatchObject({
      path: 'Cairn/Memory.md',
      excerpt: 'Passport number is in the blue folder',
    });
    expect(textOf(events)).toMatch(
      /^From what you asked me to remember:\n- my passport expires 2031-05 \[1\]/,
    );
  });

  it('"forget" of something not remembered is a clear NOT_FOUND, nothing written', async () => {
    const events = await chat('forget that I like skiing');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'NOT_FOUND' } });
  });
});
