import { describe, expect, it } from 'vitest';
import { USE_LITE_MODEL } from '../../../companion/embeddings/use-lite-model';
import { citeChunk } from '../../../companion/search/chunk-citation';
import type { SearchHit } from '../../../companion/search/hybrid-search';
import { isRelevant, termCoverage } from '../../../companion/search/relevance';
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
  const hit = (vectorScore?: number): SearchHit => ({
    chunk,
    score: 1,
    citation: citeChunk(chunk, 1, []),
    ...(vectorScore === undefined ? {} : { vectorScore }),
  });

  it('keyword-only: half the terms must occur (title included)', () => {
    expect(isRelevant(hit(), ['visa', 'mercury'], undefined)).toBe(true);
    expect(isRelevant(hit(), ['visa', 'mercury', 'boiling'], undefined)).toBe(false);
  });

  it('with USE-lite vectors: over two thirds of the terms, or a cosine of at least 0.45', () => {
    const model = USE_LITE_MODEL.id;
    expect(isRelevant(hit(0.2), ['visa', 'mercury'], model)).toBe(false);
    expect(isRelevant(hit(0.2), ['visa', 'fee', 'mercury'], model)).toBe(false);
    expect(isRelevant(hit(0.2), ['visa', 'fee', 'standard', 'mercury'], model)).toBe(true);
    expect(isRelevant(hit(0.45), ['entry', 'permit'], model)).toBe(true);
    expect(isRelevant(hit(0.44), ['entry', 'permit'], model)).toBe(false);
  });

  it('ignores the cosine of models without a measured threshold', () => {
    expect(isRelevant(hit(0.99), ['entry', 'permit'], 'ollama:nomic-embed-text')).toBe(false);
  });
});
