import { describe, expect, it } from 'vitest';
import { termCoverage } from '../../../companion/search/relevance';

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
