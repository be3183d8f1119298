import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { NodeOllamaHttp } from '../../shared/chat/node-ollama-http';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

let testApp: TestApp | undefined;
let ollama: FakeOllamaServer | undefined;
afterEach(async () => {
  await testApp?.close();
  await ollama?.close();
  testApp = undefined;
  ollama = undefined;
});

const memoryFile = () => join(testApp!.dir, 'vault/Cairn/Memory.md');
const inject = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  testApp!.app.inject(
    payload === undefined
      ? { method, url, headers: authorized }
      : { method, url, headers: authorized, payload },
  );
const remember = (text: string) => inject('POST', '/api/v1/memories', { text });

describe('memory categories (rules, no LLM configured)', () => {
  it('tags each new fact, filters by category, and counts every category', async () => {
    testApp = await buildTestApp();
    for (const text of [
      'Great pizza at Mario’s on Main St',
      'Need to watch Inception',
      'https://example.org/some-tool',
      'TIL octopuses have three hearts',
      'Passport expires 2032-05',
    ]) {
      expect((await remember(text)).statusCode).toBe(201);
    }
    const file = readFileSync(memoryFile(), 'utf8');
    expect(file).toContain(
      '- Great pizza at Mario’s on Main St #memory/food (added 2026-11-22) ^m-',
    );
    expect(file).toContain('- https://example.org/some-tool #memory/websites (added');

    const food = (await inject('GET', '/api/v1/memories?category=food')).json() as {
      memories: Array<{ text: string; category: string; category_source: string }>;
    };
    expect(food.memories).toEqual([
      expect.objectContaining({
        text: 'Great pizza at Mario’s on Main St',
        category: 'food',
        category_source: 'tag',
      }),
    ]);

    const counts = (await inject('GET', '/api/v1/memories/categories')).json() as {
      categories: Array<{ category: string; label: string; count: number }>;
    };
    expect(counts.categories).toHaveLength(11);
    expect(Object.fromEntries(counts.categories.map((c) => [c.category, c.count]))).toEqual({
      websites: 1,
      food: 1,
      movies: 1,
      books: 0,
      ideas: 0,
      places: 0,
      products: 0,
      people: 0,
      learnings: 1,
      quotes: 0,
      uncategorized: 1,
    });
    expect(counts.categories.find((c) => c.category === 'food')!.label).toBe('Food');
  });

  it('a hand-edited tag wins, an untagged hand-written line is placed by the rules', async () => {
    testApp = await buildTestApp();
    mkdirSync(join(testApp.dir, 'vault/Cairn'), { recursive: true });
    writeFileSync(
      memoryFile(),
      '- Need to watch Inception #memory/books ^m-aaaa\n- Sushi with Ana ^m-bbbb\n',
    );
    const listed = (await inject('GET', '/api/v1/memories')).json() as {
      memories: Array<{ id: string; category: string; category_source: string }>;
    };
    expect(listed.memories.map((m) => [m.id, m.category, m.category_source])).toEqual([
      ['m-aaaa', 'books', 'tag'],
      ['m-bbbb', 'food', 'rules'],
    ]);
    const before = readFileSync(memoryFile(), 'utf8');
    const patched = await inject('PATCH', '/api/v1/memories/m-aaaa', { category: 'movies' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      id: 'm-aaaa',
      category: 'movies',
      category_source: 'tag',
    });
    expect(readFileSync(memoryFile(), 'utf8')).toBe(
      before.replace('#memory/books', '#memory/movies'),
    );
  });

  it('refuses a bad category, an unknown id, empty and 10,000-character facts, writing nothing', async () => {
    testApp = await buildTestApp();
    await remember('Need to watch Inception');
    const before = readFileSync(memoryFile(), 'utf8');
    const badFilter = await inject('GET', '/api/v1/memories?category=music');
    expect(badFilter.statusCode).toBe(400);
    expect(badFilter.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', field: expect.stringContaining('category') },
    });
    const badPatch = await inject('PATCH', '/api/v1/memories/m-zzzz', { category: 'music' });
    expect(badPatch.statusCode).toBe(400);
    const unknown = await inject('PATCH', '/api/v1/memories/m-zzzz', { category: 'food' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'id' } });
    for (const text of ['', '   ', 'x'.repeat(10_000)]) {
      const refused = await remember(text);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        error: { code: 'VALIDATION_ERROR', field: expect.stringContaining('text') },
      });
    }
    expect(readFileSync(memoryFile(), 'utf8')).toBe(before);
  });
});

describe('memory categories from the LLM (fake Ollama, tool calling)', () => {
  async function withOllama(reply: (text: string) => string | undefined) {
    ollama = await FakeOllamaServer.start();
    ollama.chatReplyFor = (body) => {
      const messages = body as {
        messages: Array<{ content: string }>;
        tools?: Array<{ function: { name: string } }>;
      };
      if (messages.tools?.[0]?.function.name !== 'set_memory_category') return undefined;
      const category = reply(messages.messages.at(-1)!.content);
      return category === undefined
        ? { content: 'no idea' }
        : {
            content: '',
            toolCalls: [{ function: { name: 'set_memory_category', arguments: { category } } }],
          };
    };
    testApp = await buildTestApp({
      deps: {
        chat: {
          ollama: { baseUrl: ollama.url, model: 'llama3.2', route: false },
          ollamaHttp: new NodeOllamaHttp(),
        },
      },
    });
  }
  it('writes the fact untagged at once, then the model’s tag on the same line', async () => {
    await withOllama(() => 'ideas');
    const created = await remember('Need to watch Inception');
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ category: 'movies', category_source: 'rules' });
    await testApp!.app.close();
    expect(readFileSync(memoryFile(), 'utf8')).toMatch(
      /- Need to watch Inception #memory\/ideas \(added 2026-11-22\) \^m-[a-z0-9]{4}\n/,
    );
  });

  it('falls back to the rules’ tag when the model does not answer with the tool', async () => {
    await withOllama(() => undefined);
    await remember('Need to watch Inception');
    await testApp!.app.close();
    expect(readFileSync(memoryFile(), 'utf8')).toContain(
      '- Need to watch Inception #memory/movies (added',
    );
  });

  it('a tag the user wrote before the model answered is kept', async () => {
    await withOllama(() => 'ideas');
    ollama!.failWith('/api/chat', { kind: 'slow', delayMs: 300 });
    const created = (await remember('Need to watch Inception')).json() as { id: string };
    const file = readFileSync(memoryFile(), 'utf8');
    writeFileSync(
      memoryFile(),
      file.replace(
        'Need to watch Inception (added',
        'Need to watch Inception #memory/books (added',
      ),
    );
    await testApp!.app.close();
    const after = readFileSync(memoryFile(), 'utf8');
    expect(after).toContain(
      `- Need to watch Inception #memory/books (added 2026-11-22) ^${created.id}`,
    );
    expect(after).not.toContain('#memory/ideas');
  });
});
