import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { AnswerResponse, SearchResponse } from '../../../shared/protocol/search';
import type { Citation } from '../../../shared/protocol/citation';
import { OllamaSummarizer } from '../../../companion/search/ollama-summarizer';
import { FakeOllamaServer } from '../../fakes/ollama-server';
import { HashingEmbedder, startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';
import { SAMPLE_VAULT, authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * The search and answer routes over the real indexer and SQLite index of a copy of the sample
 * vault. The embedder is the indexer tests' deterministic hashing model (the route logic, not
 * USE-lite's quality, is under test here; `npm run eval` measures the real model).
 */

let index: IndexerFixture;
let hybrid: TestApp;
let keywordOnly: TestApp;
let ollama: FakeOllamaServer;

beforeAll(async () => {
  const embedder = new HashingEmbedder();
  index = await startIndexer({ source: SAMPLE_VAULT, embedder });
  await index.indexer.whenEmbedded();
  ollama = await FakeOllamaServer.start();
  hybrid = await buildTestApp({
    deps: {
      search: {
        index: () => index.indexer.queries,
        embedder: () => embedder,
        summarizer: new OllamaSummarizer({ baseUrl: ollama.url, model: 'llama3.2' }),
      },
    },
  });
  keywordOnly = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});

afterAll(async () => {
  await hybrid?.close();
  await keywordOnly?.close();
  await ollama?.close();
  await index?.close();
});

async function search(app: TestApp, query: string) {
  return app.app.inject({ url: `/api/v1/search?${query}`, headers: authorized });
}

async function answer(payload: unknown) {
  return hybrid.app.inject({
    method: 'POST',
    url: '/api/v1/answer',
    headers: authorized,
    payload: payload as Record<string, unknown>,
  });
}

describe('GET /api/v1/search', () => {
  it('finds the note, with a citation and scores in [0, 1], in hybrid mode', async () => {
    const response = await search(hybrid, 'q=visa%20fee');
    expect(response.statusCode).toBe(200);
    const body = response.json() as SearchResponse;
    expect(Value.Check(SearchResponse, body)).toBe(true);
    expect(body.mode).toBe('hybrid');
    expect(body.results[0]?.citation).toMatchObject({
      type: 'note',
      path: 'Travel/Visa rules.md',
      id: '0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10',
      heading: 'Key points',
    });
    expect(body.results[0]?.citation.excerpt).toMatch(/fee is €90/);
  });

  it('says keyword when no embedder runs', async () => {
    const body = (await search(keywordOnly, 'q=visa')).json() as SearchResponse;
    expect(body.mode).toBe('keyword');
    expect(body.results[0]?.citation.path).toBe('Travel/Visa rules.md');
  });

  it('filters by folder, tag and type', async () => {
    const inTravel = (
      await search(keywordOnly, 'q=passport%20bank%20plants&folder=Travel')
    ).json() as SearchResponse;
    expect(inTravel.results.length).toBeGreaterThan(0);
    expect(inTravel.results.every((r) => r.citation.path.startsWith('Travel/'))).toBe(true);

    const tagged = (
      await search(keywordOnly, 'q=water%20passport&tag=garden')
    ).json() as SearchResponse;
    expect(tagged.results.map((r) => r.citation.path)).toEqual(['Garden.md']);

    const reminders = (await search(keywordOnly, 'q=bank&type=reminder')).json() as SearchResponse;
    expect(reminders.results.map((r) => r.citation.path)).toEqual([
      'Cairn/Reminders/call-the-bank.md',
    ]);
  });

  it('filters by date range on created (or modified) dates', async () => {
    const future = (await search(keywordOnly, 'q=visa&from=2030-01-01')).json() as SearchResponse;
    expect(future.results).toEqual([]);
    const around = (
      await search(keywordOnly, 'q=visa&from=2026-11-22&to=2026-11-22')
    ).json() as SearchResponse;
    // Visa rules.md has `created: 2026-11-22T10:30:00+01:00`.
    expect(around.results.map((r) => r.citation.path)).toContain('Travel/Visa rules.md');
  });

  it('pages with limit and cursor without repeating results', async () => {
    const first = (await search(keywordOnly, 'q=the&limit=2')).json() as SearchResponse;
    expect(first.results).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = (
      await search(keywordOnly, `q=the&limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`)
    ).json() as SearchResponse;
    const key = (c: Citation) => `${c.path}:${c.type === 'note' ? c.lines.join('-') : c.page}`;
    const seen = new Set(first.results.map((r) => key(r.citation)));
    for (const result of second.results) expect(seen.has(key(result.citation))).toBe(false);
  });

  it('refuses a cursor from another query', async () => {
    const first = (await search(keywordOnly, 'q=the&limit=1')).json() as SearchResponse;
    const response = await search(
      keywordOnly,
      `q=visa&limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('cursor');
  });

  it.each([
    ['q=', 'q'],
    ['q=%20%20', 'q'],
    ['limit=5', 'q'],
    [`q=${'a'.repeat(1001)}`, 'q'],
    ['q=visa&type=movie', 'type'],
    ['q=visa&limit=0', 'limit'],
    ['q=visa&limit=51', 'limit'],
    ['q=visa&limit=ten', 'limit'],
    ['q=visa&from=2026-02-30', 'from'],
    ['q=visa&folder=a/../b', 'folder'],
    ['q=visa&tag=two%20words', 'tag'],
  ])('answers 400 naming the field for %s', async (query, field) => {
    const response = await search(keywordOnly, query);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  it('answers control characters and odd Unicode without error', async () => {
    const response = await search(
      keywordOnly,
      `q=${encodeURIComponent('\u0001visa\u0007 ✈️ "OR" NEAR(')}`,
    );
    expect(response.statusCode).toBe(200);
    const nothing = await search(keywordOnly, `q=${encodeURIComponent('?!')}`);
    expect(nothing.statusCode).toBe(200);
    expect(nothing.json().results).toEqual([]);
  });

  it('requires the token', async () => {
    const response = await hybrid.app.inject({ url: '/api/v1/search?q=visa' });
    expect(response.statusCode).toBe(401);
  });

  it('records search latency in /metrics', async () => {
    await search(hybrid, 'q=visa');
    const metrics = await hybrid.app.inject({ url: '/metrics', headers: authorized });
    expect(metrics.body).toMatch(/cairn_search_duration_seconds_count\{mode="hybrid"\} [1-9]/);
  });
});

describe('POST /api/v1/answer', () => {
  it('quotes sentences, each with a citation whose lines hold that sentence', async () => {
    const response = await answer({ question: 'How much is the visa fee?' });
    expect(response.statusCode).toBe(200);
    const body = response.json() as AnswerResponse;
    expect(body.confidence).toBeGreaterThanOrEqual(0.5);
    expect(Value.Check(AnswerResponse, body)).toBe(true);
    expect(body.summarized).toBe(false);
    const lines = body.answer.split('\n');
    expect(lines).toHaveLength(body.citations.length);
    expect(body.citations.length).toBeGreaterThan(0);
    lines.forEach((line, i) => {
      const citation = body.citations[i]!;
      expect(line).toBe(`“${citation.excerpt}” [${i + 1}]`);
      if (citation.type !== 'note') return;
      const file = readFileSync(join(index.vault, citation.path), 'utf8').split('\n');
      const quoted = file.slice(citation.lines[0] - 1, citation.lines[1]).join(' ');
      // The excerpt is the cleaned sentence: every word of it is on those lines.
      for (const word of citation.excerpt.replace(/…/g, '').match(/[\p{L}\p{N}]+/gu) ?? []) {
        expect(quoted).toContain(word);
      }
    });
    expect(body.citations[0]).toMatchObject({ path: 'Travel/Visa rules.md' });
    expect(body.answer).toMatch(/fee is €90/);
  });

  it('says so plainly when nothing relevant is found', async () => {
    const body = (await answer({ question: 'What is the boiling point of mercury?' })).json();
    expect(body).toEqual({
      answer: 'I found nothing in your notes that answers “What is the boiling point of mercury?”.',
      citations: [],
      confidence: expect.any(Number),
      summarized: false,
    });
    expect(body.confidence).toBeLessThan(0.5);
  });

  it('lets the LLM summarise the passages, keeping their markers', async () => {
    ollama.clearFailures();
    ollama.chatReply = { content: 'The standard visa fee is €90 [1].' };
    const body = (
      await answer({ question: 'visa fee?', summarize: true })
    ).json() as AnswerResponse;
    expect(body).toMatchObject({ answer: 'The standard visa fee is €90 [1].', summarized: true });
    expect(body.citations.length).toBeGreaterThan(0);
  });

  it('checks each claim of the summary: marks, removes on request, and audits', async () => {
    ollama.clearFailures();
    ollama.chatReply = {
      content: 'The standard visa fee is €90 [1]. Ana processes applications in 3 days [1].',
    };
    const marked = (
      await answer({ question: 'visa fee?', summarize: true, audit: true })
    ).json() as AnswerResponse;
    expect(marked.answer).toBe(
      'The standard visa fee is €90 [1]. Ana processes applications in 3 days [1]. ⚠ _(unsupported: “3” is not in passage 1)_',
    );
    expect(marked.audit?.claims.map((c) => [c.text, c.citations, c.supported])).toEqual([
      ['The standard visa fee is €90.', [1], true],
      ['Ana processes applications in 3 days.', [1], false],
    ]);
    expect(marked.audit?.used).toEqual([marked.citations[0]]);
    expect(marked.audit?.retrieved).toEqual(marked.citations);

    const removed = (
      await answer({ question: 'visa fee?', summarize: true, unsupported: 'remove' })
    ).json() as AnswerResponse;
    expect(removed.answer).toBe(
      'The standard visa fee is €90 [1].\n\n_(Removed one statement the cited notes do not support: “Ana processes applications in 3 days.”: “3” is not in passage 1.)_',
    );
    expect(removed.audit).toBeUndefined();
  });

  it('audits an extractive answer: each quote supported by its own passage', async () => {
    const body = (await answer({ question: 'visa fee?', audit: true })).json() as AnswerResponse;
    expect(body.summarized).toBe(false);
    expect(body.audit?.claims.length).toBeGreaterThan(0);
    expect(body.audit?.claims.every((c) => c.supported && c.citations.length === 1)).toBe(true);
  });

  it.each([
    ['malformed JSON', () => ollama.failWith('/api/chat', { kind: 'malformed-json' })],
    ['a server error', () => ollama.failWith('/api/chat', { kind: 'status-500' })],
    ['an uncited reply', () => (ollama.chatReply = { content: 'It costs a lot.' })],
  ])('falls back to the quotes with a note on %s', async (_name, breakIt) => {
    ollama.clearFailures();
    breakIt();
    const body = (
      await answer({ question: 'visa fee?', summarize: true })
    ).json() as AnswerResponse;
    ollama.clearFailures();
    expect(body.summarized).toBe(false);
    expect(body.answer).toMatch(/^\(No summary: .+\. The quoted passages follow\.\)\n“/);
    expect(body.citations.length).toBeGreaterThan(0);
  });

  it('falls back when Ollama is down, and when none is configured', async () => {
    const down = await buildTestApp({
      deps: {
        search: {
          index: () => index.indexer.queries,
          summarizer: new OllamaSummarizer({ baseUrl: 'http://127.0.0.1:9', model: 'llama3.2' }),
        },
      },
    });
    try {
      const body = (
        await down.app.inject({
          method: 'POST',
          url: '/api/v1/answer',
          headers: authorized,
          payload: { question: 'visa fee?', summarize: true },
        })
      ).json() as AnswerResponse;
      expect(body.summarized).toBe(false);
      expect(body.answer).toMatch(/No summary: Ollama at .* is unreachable/);
    } finally {
      await down.close();
    }
    const none = (
      await keywordOnly.app.inject({
        method: 'POST',
        url: '/api/v1/answer',
        headers: authorized,
        payload: { question: 'visa fee?', summarize: true },
      })
    ).json() as AnswerResponse;
    expect(none.answer).toMatch(/no language model is configured/);
  });

  it('honours limit and filters', async () => {
    const body = (
      await answer({ question: 'passport', limit: 1, folder: 'Travel' })
    ).json() as AnswerResponse;
    expect(body.citations.every((c) => c.path.startsWith('Travel/'))).toBe(true);
  });

  it.each([
    [{}, 'question'],
    [{ question: '' }, 'question'],
    [{ question: '   ' }, 'question'],
    [{ question: 'x'.repeat(1001) }, 'question'],
    [{ question: 'visa', limit: 21 }, 'limit'],
    [{ question: 'visa', summarize: 'yes please' }, 'summarize'],
    [{ question: 'visa', colour: 'blue' }, 'colour'],
  ])('answers 400 naming the field for %j', async (payload, field) => {
    const response = await answer(payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', field });
  });

  it('requires the token', async () => {
    const response = await hybrid.app.inject({
      method: 'POST',
      url: '/api/v1/answer',
      payload: { question: 'visa' },
    });
    expect(response.statusCode).toBe(401);
  });
});
