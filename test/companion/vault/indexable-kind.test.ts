import { describe, expect, it } from 'vitest';
import { indexableKind } from '../../../companion/vault/indexable-kind';

describe('indexableKind', () => {
  it('reads Markdown, text and PDF by extension, any case', () => {
    expect(indexableKind('a.md')).toBe('markdown');
    expect(indexableKind('A.MD')).toBe('markdown');
    expect(indexableKind('a.txt')).toBe('text');
    expect(indexableKind('b.Pdf')).toBe('pdf');
    expect(indexableKind('c.png')).toBeNull();
    expect(indexableKind('md')).toBeNull();
  });
});
