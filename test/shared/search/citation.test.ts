import { describe, expect, it } from 'vitest';
import { Citation, checkSchema } from '../../../shared/protocol/index';
import { chunkNote, chunkPdfPages, toCitation } from '../../../shared/search/index';

const note = {
  path: 'Travel/Visa rules.md',
  title: 'Visa rules summary',
  aliases: [],
  tags: ['visa'],
  id: '0f8c6f1e',
  bodyStartLine: 8,
  body: [
    '## Key points',
    'Valid 90 days.',
    '### Costs',
    '```sh',
    '# not a heading',
    '```',
    'The fee is $50 for standard processing.',
  ].join('\n'),
};

describe('toCitation', () => {
  it('cites a note passage with its own lines and nearest heading, valid against the schema', () => {
    const [chunk] = chunkNote(note);
    const citation = toCitation(chunk!, 0.83, ['fee']);
    expect(citation).toEqual({
      type: 'note',
      path: 'Travel/Visa rules.md',
      title: 'Visa rules summary',
      id: '0f8c6f1e',
      heading: 'Costs',
      lines: [8, 14],
      excerpt:
        'Key points Valid 90 days. Costs not a heading The fee is $50 for standard processing.',
      score: 0.83,
    });
    expect(checkSchema(Citation, citation).ok).toBe(true);
  });

  it('names the heading itself when the matched word is in the heading line', () => {
    const [chunk] = chunkNote(note);
    const citation = toCitation(chunk!, 0.5, ['costs']);
    expect(citation).toMatchObject({ type: 'note', heading: 'Costs' });
  });

  it('narrows lines to the excerpt when the chunk is longer than the excerpt', () => {
    const body = [
      '## Long',
      ...Array.from({ length: 30 }, (_, i) => `Line ${i} says nothing much at all.`),
      'The visa fee is $50.',
    ];
    const [chunk] = chunkNote({ ...note, body: body.join('\n'), bodyStartLine: 1 });
    const citation = toCitation(chunk!, 0.5, ['visa', 'fee']);
    expect(citation.type).toBe('note');
    if (citation.type === 'note') {
      expect(citation.lines[1]).toBe(32);
      expect(citation.lines[0]).toBeGreaterThan(25);
      expect(citation.heading).toBe('Long');
    }
  });

  it('cites a PDF by page', () => {
    const [chunk] = chunkPdfPages({ path: 'a.pdf', title: 'A', pages: ['', 'Page two text'] });
    expect(toCitation(chunk!, 2, ['text'])).toEqual({
      type: 'pdf',
      path: 'a.pdf',
      title: 'A',
      page: 2,
      excerpt: 'Page two text',
      score: 1,
    });
  });

  it.each([
    [-0.5, 0],
    [Number.NaN, 0],
    [1.7, 1],
  ])('clamps score %d to %d', (score, expected) => {
    const [chunk] = chunkNote({ ...note, body: '' });
    const citation = toCitation(chunk!, score);
    expect(citation.score).toBe(expected);
    expect(citation.excerpt).toBe('Visa rules summary');
    expect(checkSchema(Citation, citation).ok).toBe(true);
  });
});
