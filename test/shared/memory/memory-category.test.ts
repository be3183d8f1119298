import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MEMORY_CATEGORIES,
  addMemory,
  classifyMemoryByRules,
  classifyMemoryWithModel,
  parseMemoryFile,
  setMemoryCategory,
  splitCategoryTag,
} from '../../../shared/memory';
import type { MemoryCategory } from '../../../shared/memory';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { repoRoot } from '../../helpers/corpora';
import { NodeOllamaHttp } from '../chat/node-ollama-http';

/** The 50 hand-filed memories: the fixture's words and the category each was filed under. */
const FIFTY = readFileSync(join(repoRoot, 'test/fixtures/memory/fifty-memories.md'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('- '))
  .map((line) => {
    const { text, tagged } = splitCategoryTag(line.slice(2));
    if (tagged === null) throw new Error(`fixture line without a category: ${line}`);
    return { text, label: tagged };
  });

const ids = () => {
  let n = 0;
  return () => ((n++ * 7919) % 1000) / 1000;
};

describe('classifyMemoryByRules', () => {
  it.each([
    ['Great pizza at Mario’s on Main St', 'food'],
    ['Need to watch Inception', 'movies'],
    ['https://example.org/some-tool', 'websites'],
    ['TIL octopuses have three hearts', 'learnings'],
    ['"The best way out is always through" — Robert Frost', 'quotes'],
    ['Read Project Hail Mary', 'books'],
    ['Visit the Rijksmuseum', 'places'],
    ['Buy new headphones', 'products'],
    ["Sarah's birthday is March 14", 'people'],
    ['Idea: a plant-watering app', 'ideas'],
    ['Passport expires 2032-05', 'uncategorized'],
  ] as const)('%s → %s', (text, category) => {
    expect(classifyMemoryByRules(text)).toBe(category);
  });

  it('does not read "already" or "ready" as reading, nor "teammate" as eating', () => {
    expect(classifyMemoryByRules('The report is already ready')).toBe('uncategorized');
    expect(classifyMemoryByRules('Ask my teammate about the release')).toBe('uncategorized');
  });

  it('files the 50 hand-filed memories mostly as a person would, every category used', () => {
    const agree = FIFTY.filter(({ text, label }) => classifyMemoryByRules(text) === label);
    expect(FIFTY).toHaveLength(50);
    expect(new Set(FIFTY.map(({ text }) => classifyMemoryByRules(text)))).toEqual(
      new Set(MEMORY_CATEGORIES),
    );
    // Measured 2026-11-27: see the report in docs/memory-digest-calendar.md.
    expect(agree.length).toBeGreaterThanOrEqual(42);
  });
});

describe('category tags in Cairn/Memory.md', () => {
  it('writes the rules’ tag before (added …), reads it back, and keeps it out of the text', () => {
    const { text, memory } = addMemory(undefined, 'Need to watch Inception', '2026-11-27', ids());
    expect(text).toContain(
      `- Need to watch Inception #memory/movies (added 2026-11-27) ^${memory.id}\n`,
    );
    const [read] = parseMemoryFile(text).memories;
    expect(read).toMatchObject({
      text: 'Need to watch Inception',
      category: 'movies',
      categorySource: 'tag',
    });
  });

  it('a tag the user typed wins over the rules; null writes none (the LLM’s comes later)', () => {
    const typed = addMemory(undefined, 'Watch out for ice #memory/learnings', '2026-11-27', ids());
    expect(typed.memory).toMatchObject({ text: 'Watch out for ice', category: 'learnings' });
    const pending = addMemory(undefined, 'Need to watch Inception', '2026-11-27', ids(), null);
    expect(pending.text).toContain('- Need to watch Inception (added 2026-11-27) ^');
    expect(pending.memory).toMatchObject({ category: 'movies', categorySource: 'rules' });
  });

  it('a hand-edited tag wins over a late LLM answer; a user’s choice replaces any tag', () => {
    const file = `# Memory\n\n- Need to watch Inception #memory/books (added 2026-11-27) ^m-aaaa\n- Dune (added 2026-11-27) ^m-bbbb\n`;
    const late = setMemoryCategory(file, 'm-aaaa', 'movies', { onlyIfUntagged: true });
    expect(late.changed).toBe(false);
    expect(late.text).toBe(file);
    const untagged = setMemoryCategory(file, 'm-bbbb', 'books', { onlyIfUntagged: true });
    expect(untagged.text).toBe(file.replace('- Dune (added', '- Dune #memory/books (added'));
    const chosen = setMemoryCategory(file, 'm-aaaa', 'movies');
    expect(chosen.text).toContain(
      '- Need to watch Inception #memory/movies (added 2026-11-27) ^m-aaaa\n',
    );
    expect(chosen.text.replace(/#memory\/movies/, '#memory/books')).toBe(file);
  });

  it('an unknown #memory/ word stays in the text and the rules place the fact', () => {
    const [memory] = parseMemoryFile('- Sushi night #memory/snacks ^m-cccc\n').memories;
    expect(memory).toMatchObject({
      text: 'Sushi night #memory/snacks',
      category: 'food',
      categorySource: 'rules',
    });
  });

  it('dedup and contradictions ignore the tag, and a struck-through line keeps its tag', () => {
    const first = addMemory(undefined, 'Passport expires 2031-05', '2026-11-20', ids());
    const same = addMemory(
      first.text,
      'passport expires 2031-05 #memory/people',
      '2026-11-21',
      ids(),
    );
    expect(same.duplicate).toBe(true);
    const next = addMemory(first.text, 'Passport expires 2032-05', '2026-11-21', () => 0.5);
    expect(next.text).toContain(
      `- ~~Passport expires 2031-05 #memory/uncategorized (added 2026-11-20)~~ (replaced 2026-11-21 by ^${next.memory.id}) ^${first.memory.id}`,
    );
    expect(parseMemoryFile(next.text).replaced[0]).toMatchObject({ category: 'uncategorized' });
  });
});

describe('classifyMemoryWithModel (tool calling against the fake Ollama)', () => {
  let ollama: FakeOllamaServer;
  const http = new NodeOllamaHttp();
  const labels = new Map(FIFTY.map(({ text, label }) => [text, label]));
  beforeAll(async () => {
    ollama = await FakeOllamaServer.start();
    // The fake model files each fixture memory where the person did, by its tool call.
    ollama.chatReplyFor = (body) => {
      const messages = (body as { messages: Array<{ role: string; content: string }> }).messages;
      const label = labels.get(messages.at(-1)!.content);
      return label === undefined
        ? undefined
        : {
            content: '',
            toolCalls: [
              { function: { name: 'set_memory_category', arguments: { category: label } } },
            ],
          };
    };
  });
  afterAll(() => ollama.close());
  const options = () => ({ http, baseUrl: ollama.url, model: 'llama3.2', timeoutMs: 2_000 });

  it('sends one non-streaming /api/chat with the one tool and its 11-value enum', async () => {
    const before = ollama.requests.length;
    await expect(classifyMemoryWithModel(options(), 'Need to watch Inception')).resolves.toEqual({
      ok: true,
      category: 'movies',
    });
    const sent = ollama.requests.slice(before);
    expect(sent).toHaveLength(1);
    const body = sent[0]!.body as {
      stream: boolean;
      tools: Array<{
        function: { name: string; parameters: { properties: { category: { enum: string[] } } } };
      }>;
    };
    expect(body.stream).toBe(false);
    expect(body.tools.map((tool) => tool.function.name)).toEqual(['set_memory_category']);
    expect(body.tools[0]!.function.parameters.properties.category.enum).toEqual([
      ...MEMORY_CATEGORIES,
    ]);
  });

  it('agrees with the rules on most of the 50 (the rate is reported in the docs)', async () => {
    let agree = 0;
    const disagreements: string[] = [];
    for (const { text } of FIFTY) {
      const answer = await classifyMemoryWithModel(options(), text);
      if (!answer.ok) throw new Error(answer.reason);
      const rules: MemoryCategory = classifyMemoryByRules(text);
      if (answer.category === rules) agree++;
      else disagreements.push(`${text}: llm ${answer.category}, rules ${rules}`);
    }
    console.info(
      `rules vs LLM (fake) on 50 memories: ${agree}/50 agree\n${disagreements.join('\n')}`,
    );
    expect(agree).toBeGreaterThanOrEqual(42);
  });

  it.each([
    ['no tool call', { content: 'movies' }, 'did not call'],
    [
      'another tool',
      { content: '', toolCalls: [{ function: { name: 'search', arguments: { query: 'x' } } }] },
      'called search',
    ],
    [
      'an unknown category',
      {
        content: '',
        toolCalls: [
          { function: { name: 'set_memory_category', arguments: { category: 'music' } } },
        ],
      },
      'unknown category (music)',
    ],
  ])('fails with the reason on %s', async (_name, reply, reason) => {
    const saved = ollama.chatReplyFor;
    ollama.chatReplyFor = () => reply;
    try {
      const answer = await classifyMemoryWithModel(options(), 'anything');
      expect(answer.ok).toBe(false);
      expect(answer.ok ? '' : answer.reason).toContain(reason);
    } finally {
      ollama.chatReplyFor = saved;
    }
  });

  it('fails (never throws) when the server errs, is slow, or is down', async () => {
    ollama.failWith('/api/chat', { kind: 'status-500' });
    expect(await classifyMemoryWithModel(options(), 'x')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('500'),
    });
    ollama.failWith('/api/chat', { kind: 'slow', delayMs: 1_000 });
    expect(await classifyMemoryWithModel({ ...options(), timeoutMs: 100 }, 'x')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('did not answer'),
    });
    ollama.clearFailures();
    expect(
      await classifyMemoryWithModel({ ...options(), baseUrl: 'http://127.0.0.1:9' }, 'x'),
    ).toMatchObject({ ok: false, reason: expect.stringContaining('not reachable') });
  });
});
