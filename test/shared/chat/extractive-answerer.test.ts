import { describe, expect, it } from 'vitest';
import { ExtractiveAnswerer } from '../../../shared/chat/extractive-answerer';
import type { Searcher, SearchHit } from '../../../shared/chat/ports';

function hit(title: string, excerpt: string, score: number): SearchHit {
  return {
    citation: { type: 'note', path: `${title}.md`, title, lines: [1, 2], excerpt, score },
    score,
  };
}

function searcherOf(hits: SearchHit[], seen: unknown[] = []): Searcher {
  return {
    search: async (request) => {
      seen.push(request);
      return hits.slice(0, request.limit ?? 10);
    },
  };
}

describe('ExtractiveAnswerer', () => {
  it('quotes the best passages with numbered markers matching the citations', async () => {
    const seen: unknown[] = [];
    const answerer = new ExtractiveAnswerer(
      searcherOf(
        [
          hit('Visa rules', 'The visa fee is $50.\nValid 90 days.', 0.9),
          hit('Trip', 'Paid the visa fee online.', 0.6),
          hit('Misc', 'visa mentioned once', 0.2),
        ],
        seen,
      ),
    );
    const answer = await answerer.answer({ question: 'visa fee?' });
    expect(seen).toEqual([{ query: 'visa fee?', limit: 3 }]);
    expect(answer.answer).toBe(
      '> The visa fee is $50.\n> Valid 90 days. [1]\n\n> Paid the visa fee online. [2]',
    );
    expect(answer.citations.map((c) => c.title)).toEqual(['Visa rules', 'Trip']);
  });

  it('answers nothing, with no citations, when nothing matches or excerpts are empty', async () => {
    expect(await new ExtractiveAnswerer(searcherOf([])).answer({ question: 'q' })).toEqual({
      answer: '',
      citations: [],
    });
    const blank = new ExtractiveAnswerer(searcherOf([hit('Empty', '   ', 0.9)]));
    expect((await blank.answer({ question: 'q' })).citations).toEqual([]);
  });

  it('honours the question limit and the share-of-best option', async () => {
    const hits = [hit('A', 'a', 1), hit('B', 'b', 0.3), hit('C', 'c', 0.25)];
    const all = new ExtractiveAnswerer(searcherOf(hits), { minShareOfBest: 0 });
    expect((await all.answer({ question: 'q', limit: 2 })).citations).toHaveLength(2);
    const strict = new ExtractiveAnswerer(searcherOf(hits));
    expect((await strict.answer({ question: 'q' })).citations.map((c) => c.title)).toEqual(['A']);
  });

  it('leaves out passages the searcher judged below the answer line', async () => {
    const judged = (h: SearchHit, relevance: number): SearchHit => ({ ...h, relevance });
    const answerer = new ExtractiveAnswerer(
      searcherOf([
        judged(hit('Visa rules', 'The visa fee is $50.', 0.9), 0.4),
        judged(hit('Trip', 'Paid the visa fee online.', 0.8), 0.62),
      ]),
    );
    const answer = await answerer.answer({ question: 'visa fee?' });
    expect(answer.citations.map((c) => c.title)).toEqual(['Trip']);
    const none = new ExtractiveAnswerer(
      searcherOf([judged(hit('Visa rules', 'The visa fee is $50.', 0.9), 0.499)]),
    );
    expect(await none.answer({ question: 'Canadian visa fee?' })).toEqual({
      answer: '',
      citations: [],
    });
  });
});
