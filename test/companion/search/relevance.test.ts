import { describe, expect, it } from 'vitest';
import { USE_LITE_MODEL } from '../../../companion/embeddings/use-lite-model';
import { citeChunk } from '../../../companion/search/chunk-citation';
import type { RankedChunk } from '../../../companion/search/hybrid-search';
import {
  isRelevant,
  keyTermWeights,
  relevanceOf,
  termCoverage,
} from '../../../shared/search/answer-gate';
import type { RelevanceQuery } from '../../../shared/search/answer-gate';
import { noteChunk } from './memory-index';

describe('termCoverage', () => {
  it('is the share of terms found at word starts', () => {
    expect(termCoverage(['visa', 'fee'], 'The visa fees are high')).toBe(1);
    expect(termCoverage(['visa', 'fee', 'mercury'], 'The visa fees')).toBeCloseTo(2 / 3, 12);
    expect(termCoverage(['isa'], 'visa')).toBe(0);
  });

  it('is 0 without terms or text', () => {
    expect(termCoverage([], 'anything')).toBe(0);
    expect(termCoverage(['visa'], '')).toBe(0);
  });
});

describe('isRelevant', () => {
  const chunk = noteChunk({
    path: 'Travel/Visa rules.md',
    title: 'Visa rules',
    text: 'The fee is €90 for standard processing.',
  });
  const hit = (vectorScore?: number): RankedChunk => ({
    chunk,
    score: 1,
    relevance: 0,
    citation: citeChunk(chunk, 1, []),
    ...(vectorScore === undefined ? {} : { vectorScore }),
  });

  it('keyword-only: half the (equally weighted) terms must occur, title included', () => {
    expect(isRelevant(hit(), { terms: ['visa', 'mercury'] })).toBe(true);
    expect(isRelevant(hit(), { terms: ['visa', 'mercury', 'boiling'] })).toBe(false);
  });

  it('with USE-lite vectors: 60 % of the key terms, or a passing cosine with a tenth of them', () => {
    const model = USE_LITE_MODEL.id;
    expect(isRelevant(hit(0.2), { terms: ['visa', 'mercury'], model })).toBe(false);
    expect(isRelevant(hit(0.2), { terms: ['visa', 'fee', 'mercury'], model })).toBe(true);
    expect(isRelevant(hit(0.2), { terms: ['visa', 'fee', 'boiling', 'mercury'], model })).toBe(
      false,
    );
    expect(isRelevant(hit(0.45), { terms: ['visa', 'permit'], model })).toBe(true);
    expect(isRelevant(hit(0.44), { terms: ['visa', 'permit'], model })).toBe(false);
    // Close in meaning but sharing no word: a near miss, not an answer.
    expect(isRelevant(hit(0.6), { terms: ['entry', 'permit'], model })).toBe(false);
  });

  it('weights key terms: a rare term the chunk lacks outweighs common ones it has', () => {
    // "visa" and "fee" are in most chunks of the index, "schengen" in few.
    const weights = keyTermWeights([80, 70, 2], 100);
    expect(weights[2]!).toBeGreaterThan(weights[0]! * 3);
    const terms = ['visa', 'fee', 'schengen'];
    expect(termCoverage(terms, 'The visa fee', weights)).toBeLessThan(0.5);
    expect(isRelevant(hit(), { terms, weights })).toBe(false);
    expect(isRelevant(hit(), { terms })).toBe(true); // unweighted: two of three words
  });

  it('relevance is 0.5 or more exactly when the hit passes the gate, whatever the query', () => {
    const model = USE_LITE_MODEL.id;
    const cases: Array<[RankedChunk, RelevanceQuery]> = [
      [hit(), { terms: ['visa', 'fee'] }],
      [hit(), { terms: ['mercury', 'boiling'] }],
      [hit(0.62), { terms: ['visa', 'permit'], model }],
      [hit(0.3), { terms: ['entry', 'permit'], model }],
    ];
    for (const [h, query] of cases) {
      const relevance = relevanceOf(h, query);
      expect(relevance).toBeGreaterThanOrEqual(0);
      expect(relevance).toBeLessThanOrEqual(1);
      expect(relevance >= 0.5).toBe(isRelevant(h, query));
    }
    expect(relevanceOf(hit(), { terms: ['visa', 'fee'] })).toBe(1);
  });

  it('ignores the cosine of models without a measured threshold', () => {
    expect(
      isRelevant(hit(0.99), { terms: ['entry', 'permit'], model: 'ollama:nomic-embed-text' }),
    ).toBe(false);
  });
});
