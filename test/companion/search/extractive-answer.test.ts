import { describe, expect, it } from 'vitest';
import { USE_LITE_MODEL } from '../../../companion/embeddings/use-lite-model';
import {
  extractiveAnswer,
  isWithdrawn,
  sentencesOf,
} from '../../../companion/search/extractive-answer';
import type { RankedChunk } from '../../../companion/search/hybrid-search';
import { citeChunk } from '../../../companion/search/chunk-citation';
import type { IndexedChunk } from '../../../companion/search/search-index';
import { noteChunk } from './memory-index';

function hit(
  chunk: IndexedChunk,
  score = 0.8,
  terms: string[] = [],
  vectorScore?: number,
): RankedChunk {
  return {
    chunk,
    score,
    relevance: 0,
    citation: citeChunk(chunk, score, terms),
    ...(vectorScore === undefined ? {} : { vectorScore }),
  };
}

const visa = noteChunk({
  path: 'Travel/Visa rules.md',
  title: 'Visa rules summary',
  noteId: 'visa-id',
  heading: 'Key points',
  headingPath: ['Key points'],
  startLine: 10,
  endLine: 17,
  text: [
    '## Key points',
    '- valid 90 days in any 180-day period',
    '- the visa fee is €90 for standard processing. Children pay €45.',
    '',
    '## Documents',
    '1. Passport issued within the last 10 years',
    '```',
    '# not a heading: the fee is secret',
    '```',
  ].join('\n'),
});

describe('sentencesOf', () => {
  it('splits prose at sentence ends, keeps list items apart, skips headings and code', () => {
    const text = visa.text;
    const sentences = sentencesOf(text).map(({ start, end }) => text.slice(start, end));
    expect(sentences).toEqual([
      '- valid 90 days in any 180-day period',
      '- the visa fee is €90 for standard processing.',
      'Children pay €45.',
      '1. Passport issued within the last 10 years',
    ]);
  });

  it('does not split after common abbreviations', () => {
    const text = 'Bring documents, e.g. a passport. Then apply.';
    expect(sentencesOf(text).map(({ start, end }) => text.slice(start, end))).toEqual([
      'Bring documents, e.g. a passport.',
      'Then apply.',
    ]);
  });

  it('copes with empty, blank and control-character text', () => {
    expect(sentencesOf('')).toEqual([]);
    expect(sentencesOf('\n\n   \n')).toEqual([]);
    expect(sentencesOf('\u0000\u0001 fee \u0007')).toHaveLength(1);
  });
});

describe('extractiveAnswer', () => {
  it('declines a question about a name the chunk does not hold, even close in meaning', () => {
    const model = USE_LITE_MODEL.id;
    const asked = extractiveAnswer(
      'What is the Canadian visa fee?',
      [hit(visa, 0.9, ['canadian', 'visa', 'fee'], 0.6)],
      ['canadian', 'visa', 'fee'],
      { model },
    );
    expect(asked.found).toBe(false);
    expect(asked.citations).toEqual([]);
    const plain = extractiveAnswer(
      'What is the visa fee?',
      [hit(visa, 0.9, ['visa', 'fee'], 0.6)],
      ['visa', 'fee'],
      { model },
    );
    expect(plain.found).toBe(true);
  });

  it('quotes the best sentence with a citation whose excerpt and lines are that sentence', () => {
    const terms = ['visa', 'fee'];
    const answer = extractiveAnswer('What is the visa fee?', [hit(visa, 0.9, terms)], terms);
    expect(answer.found).toBe(true);
    expect(answer.citations[0]).toMatchObject({
      type: 'note',
      path: 'Travel/Visa rules.md',
      id: 'visa-id',
      heading: 'Key points',
      excerpt: 'the visa fee is €90 for standard processing.',
      lines: [12, 12],
    });
    expect(answer.answer.split('\n')[0]).toBe('“the visa fee is €90 for standard processing.” [1]');
  });

  it('numbers every quoted passage and gives each its own citation', () => {
    const terms = ['passport', 'days'];
    const answer = extractiveAnswer('passport days', [hit(visa, 0.9, terms)], terms);
    const lines = answer.answer.split('\n');
    expect(lines).toHaveLength(answer.citations.length);
    lines.forEach((line, i) => {
      const citation = answer.citations[i]!;
      expect(line).toBe(`“${citation.excerpt}” [${i + 1}]`);
    });
    const passport = answer.citations.find((c) => c.excerpt.includes('Passport'));
    expect(passport).toMatchObject({ heading: 'Documents', lines: [15, 15] });
  });

  it('says plainly that nothing was found when no hit covers the question', () => {
    const terms = ['boiling', 'point', 'mercury'];
    const answer = extractiveAnswer(
      'What is the boiling point of mercury?',
      [hit(visa, 1, terms)],
      terms,
    );
    expect(answer).toMatchObject({ found: false, citations: [] });
    expect(answer.answer).toBe(
      'I found nothing in your notes that answers “What is the boiling point of mercury?”.',
    );
  });

  it('accepts a hit close in meaning that shares a key term, quoting its opening', () => {
    const terms = ['visa', 'permit'];
    const answer = extractiveAnswer('visa permit', [hit(visa, 1, terms, 0.8)], terms, {
      model: USE_LITE_MODEL.id,
    });
    expect(answer.found).toBe(true);
    expect(answer.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('declines a near miss: close in meaning, but none of the key terms', () => {
    const terms = ['entry', 'permit', 'cost'];
    const answer = extractiveAnswer('entry permit cost', [hit(visa, 1, terms, 0.8)], terms, {
      model: USE_LITE_MODEL.id,
    });
    expect(answer.found).toBe(false);
    expect(answer.confidence).toBeLessThan(0.5);
  });

  it('ignores the cosine of a model without a measured threshold', () => {
    const terms = ['entry', 'permit', 'cost'];
    const answer = extractiveAnswer('entry permit cost', [hit(visa, 1, terms, 0.99)], terms, {
      model: 'test-hashing@1',
    });
    expect(answer.found).toBe(false);
  });

  it('never quotes a struck-through fact, such as a replaced memory', () => {
    const memory = noteChunk({
      path: 'Cairn/Memory.md',
      title: 'Memory',
      startLine: 8,
      endLine: 9,
      text: [
        '- ~~my passport expires 2031-05 (added 2026-11-20)~~ (replaced 2026-11-25 by ^m-9q2x) ^m-7k2p',
        '- my passport expires 2032-05 (added 2026-11-25) ^m-9q2x',
      ].join('\n'),
    });
    const terms = ['passport', 'expire'];
    const answer = extractiveAnswer(
      'when does my passport expire?',
      [hit(memory, 1, terms)],
      terms,
    );
    expect(answer.found).toBe(true);
    expect(answer.answer).toMatch(/2032-05/);
    expect(answer.answer).not.toMatch(/2031-05/);
    expect(
      answer.citations.map((citation) => ('lines' in citation ? citation.lines : null)),
    ).toEqual([[9, 9]]);
  });

  it('declines when everything that matched is struck through', () => {
    const memory = noteChunk({
      path: 'Cairn/Memory.md',
      title: 'Memory',
      text: '- ~~my dentist is Dr Lee (added 2026-11-21)~~ (replaced 2026-11-25 by ^m-2) ^m-1',
    });
    const terms = ['dentist'];
    const answer = extractiveAnswer('who is my dentist?', [hit(memory, 1, terms)], terms);
    expect(answer).toMatchObject({ found: false, citations: [], passages: [] });
    expect(answer.answer).toMatch(/^I found nothing in your notes/);
    expect(answer.confidence).toBeLessThan(0.5);
  });

  it.each([
    ['- ~~call Ana~~ (replaced 2026-11-25 by ^m-1) ^m-2', true],
    ['~~cancelled~~', true],
    ['the ~~old~~ new fee is €90', false],
    ['no strike here', false],
    ['~~ not a strike ~~', false],
  ])('isWithdrawn(%j) is %s', (sentence, withdrawn) => {
    expect(isWithdrawn(sentence)).toBe(withdrawn);
  });

  it('limits the number of passages', () => {
    const chunks = Array.from({ length: 8 }, (_, i) =>
      noteChunk({ path: `N${i}.md`, text: `The fee is ${i} euro. Another fee line.` }),
    );
    const answer = extractiveAnswer(
      'fee',
      chunks.map((c) => hit(c, 0.5, ['fee'])),
      ['fee'],
      {
        maxPassages: 3,
      },
    );
    expect(answer.citations).toHaveLength(3);
  });

  it('cites a PDF passage by page', () => {
    const pdf: IndexedChunk = {
      chunkId: 999,
      path: 'Papers/trace.pdf',
      fileType: 'pdf',
      title: 'Trace trees',
      aliases: [],
      tags: [],
      headingPath: [],
      page: 3,
      text: 'Trace trees record hot loops. They speed up JavaScript.',
      mtimeMs: 0,
    };
    const answer = extractiveAnswer(
      'hot loops',
      [hit(pdf, 0.7, ['hot', 'loops'])],
      ['hot', 'loops'],
    );
    expect(answer.citations[0]).toMatchObject({
      type: 'pdf',
      page: 3,
      excerpt: 'Trace trees record hot loops.',
    });
  });
});
