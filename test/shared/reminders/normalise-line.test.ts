import { describe, expect, it } from 'vitest';
import {
  applyEdits,
  findBlockId,
  findBlockIds,
  newBlockId,
  normaliseRemindLine,
} from '../../../shared/reminders/index';

/** Monday 2026-11-23 18:00 in Berlin. */
const NOW = Date.parse('2026-11-23T17:00:00Z');
const ZONE = 'Europe/Berlin';
const options = { now: NOW, zone: ZONE, newBlockId: () => '^r-new1' };

describe('normaliseRemindLine', () => {
  it.each([
    [
      '- [ ] Call the bank @remind(tomorrow 5pm)',
      '- [ ] Call the bank @remind(2026-11-24 17:00) ^r-new1',
      [
        { from: 28, to: 40, insert: '2026-11-24 17:00' },
        { from: 41, to: 41, insert: ' ^r-new1' },
      ],
    ],
    [
      'Call mum @remind(next monday at 8) ^r-keep',
      'Call mum @remind(2026-11-30 08:00) ^r-keep',
      [{ from: 17, to: 33, insert: '2026-11-30 08:00' }],
    ],
    [
      'Flight @remind(tomorrow 9am America/New_York)',
      'Flight @remind(2026-11-24 09:00 America/New_York) ^r-new1',
      [
        { from: 15, to: 44, insert: '2026-11-24 09:00 America/New_York' },
        { from: 45, to: 45, insert: ' ^r-new1' },
      ],
    ],
    [
      'Pay @remind(2026-12-01)',
      'Pay @remind(2026-12-01 09:00) ^r-new1',
      [
        { from: 12, to: 22, insert: '2026-12-01 09:00' },
        { from: 23, to: 23, insert: ' ^r-new1' },
      ],
    ],
    [
      'Pay @remind(2026-12-01 09:00)   ',
      'Pay @remind(2026-12-01 09:00) ^r-new1',
      [{ from: 29, to: 32, insert: ' ^r-new1' }],
    ],
    [
      'Water @remind(every monday 09:00)',
      'Water @remind(every monday 09:00) ^r-new1',
      [{ from: 33, to: 33, insert: ' ^r-new1' }],
    ],
    [
      '- [ ] Spaces @remind(  in 2 hours  ) trailing words',
      '- [ ] Spaces @remind(2026-11-23 20:00) trailing words ^r-new1',
      [
        { from: 21, to: 35, insert: '2026-11-23 20:00' },
        { from: 51, to: 51, insert: ' ^r-new1' },
      ],
    ],
  ])('%j → %j', (line, expected, edits) => {
    const result = normaliseRemindLine(line, options);
    expect(result).toEqual({ line: expected, edits });
    expect(applyEdits(line, result.edits)).toBe(expected);
  });

  it.each([
    'Call the bank @remind(2026-11-23 17:00) ^r-7k2p',
    'No reminder here',
    '',
    'Example `@remind(tomorrow 5pm)` in code',
    'Reminder plugin (@2026-11-23 17:00) is never rewritten',
    'Tasks ⏰ 2026-11-23 10:00 is never rewritten',
  ])('leaves %j unchanged with no edits', (line) => {
    expect(normaliseRemindLine(line, options)).toEqual({ line, edits: [] });
  });

  it.each([
    ['Pay @remind(2026-13-01)', 'month 13 does not exist'],
    ['Pay @remind(tomorrow 5pm', 'unbalanced parenthesis: "@remind(" at column 12 is not closed'],
    ['Pay @remind(yesterday)', '"yesterday" is in the past (2026-11-22 09:00)'],
    ['Pay @remind(today)', '"today" is in the past (2026-11-23 09:00)'],
    [
      'Pay @remind(blah)',
      'not a time I can read: write 2026-11-23 17:00, every monday 09:00, RRULE:… or words like tomorrow 5pm',
    ],
  ])('leaves %j as typed and says why', (line, problem) => {
    expect(normaliseRemindLine(line, options)).toEqual({ line, edits: [], problem });
  });

  it('normalises only the first token', () => {
    const line = 'A @remind(tomorrow 5pm) B @remind(friday) ^r-1';
    expect(normaliseRemindLine(line, options).line).toBe(
      'A @remind(2026-11-24 17:00) B @remind(friday) ^r-1',
    );
  });

  it('accepts a block id factory without the caret', () => {
    expect(
      normaliseRemindLine('X @remind(2026-12-01 09:00)', { ...options, newBlockId: () => 'r-abcd' })
        .line,
    ).toBe('X @remind(2026-12-01 09:00) ^r-abcd');
  });

  it('is idempotent: a normalised line normalises to itself', () => {
    const once = normaliseRemindLine('- [ ] Call @remind(next monday at 8)', options);
    expect(normaliseRemindLine(once.line, options)).toEqual({ line: once.line, edits: [] });
  });

  it('does not call the block id factory when nothing is scheduled', () => {
    let calls = 0;
    normaliseRemindLine('Pay @remind(2026-13-01)', {
      ...options,
      newBlockId: () => {
        calls++;
        return '^r-x';
      },
    });
    expect(calls).toBe(0);
  });

  it('never throws on control characters, huge or non-text lines', () => {
    expect(normaliseRemindLine('\u0000@remind(\u0007)', options).edits).toEqual([]);
    const huge = `${'x'.repeat(10_000)} @remind(tomorrow 5pm)`;
    expect(
      normaliseRemindLine(huge, options).line.endsWith('@remind(2026-11-24 17:00) ^r-new1'),
    ).toBe(true);
    expect(normaliseRemindLine(undefined as unknown as string, options)).toEqual({
      line: '',
      edits: [],
      problem: 'not a line of text',
    });
  });
});

describe('findBlockId', () => {
  it.each([
    ['Call @remind(x) ^r-7k2p', { id: 'r-7k2p', from: 16, to: 23 }],
    ['Call ^abc-DEF-1   ', { id: 'abc-DEF-1', from: 5, to: 15 }],
    ['^r-only', { id: 'r-only', from: 0, to: 7 }],
    ['no id', undefined],
    ['x^r-7k2p', undefined],
    ['^r-7k2p then text', undefined],
    ['bad ^r_7k2p', undefined],
  ])('%j', (line, expected) => {
    expect(findBlockId(line)).toEqual(expected);
  });
});

describe('findBlockIds', () => {
  it('collects the block ids ending lines, for newBlockId', () => {
    const text = 'a ^r-1\r\nb ^r-2 trailing\n^r-3\n```\nx ^r-4\n```\nno id';
    expect(findBlockIds(text)).toEqual(new Set(['r-1', 'r-3', 'r-4']));
    expect(findBlockIds('')).toEqual(new Set());
    expect(newBlockId(() => 0, findBlockIds('x ^r-0000'))).toBe('^r-00000');
  });
});

describe('newBlockId', () => {
  function sequence(...values: number[]) {
    let index = 0;
    return () => values[index++ % values.length]!;
  }

  it('makes ^r- plus 4 base36 characters', () => {
    expect(newBlockId(sequence(0, 0.5, 0.99, 0.1), new Set())).toBe('^r-0iz3');
    for (let round = 0; round < 100; round++) {
      expect(newBlockId(Math.random, new Set())).toMatch(/^\^r-[0-9a-z]{4}$/);
    }
  });

  it('avoids taken ids, with or without the caret', () => {
    const random = sequence(0, 0, 0, 0, 0, 0, 0, 0.04);
    expect(newBlockId(random, new Set(['r-0000']))).toBe('^r-0001');
    expect(newBlockId(sequence(0, 0, 0, 0, 0.04, 0, 0, 0), new Set(['^r-0000']))).toBe('^r-1000');
  });

  it('always ends, even with a constant or broken random', () => {
    const taken = new Set(['^r-0000', '^r-00000', '^r-000000', '^r-0000000', '^r-00000000']);
    expect(newBlockId(() => 0, taken)).toBe('^r-0001');
    expect(newBlockId(() => Number.NaN, new Set())).toBe('^r-0000');
    expect(newBlockId(() => 1, new Set())).toBe('^r-zzzz');
    expect(newBlockId(() => -5, new Set())).toBe('^r-0000');
  });
});
