import { describe, expect, it } from 'vitest';
import { documentLines, findRemindTokensInLine } from '../../../shared/reminders/index';

/** The tokens of a line as `[text of token, inner, closed]` for compact tables. */
function tokensOf(line: string): Array<[string, string, boolean]> {
  return findRemindTokensInLine(line).map((token) => [
    line.slice(token.from, token.to),
    token.inner,
    token.closed,
  ]);
}

describe('findRemindTokensInLine', () => {
  it.each<[string, Array<[string, string, boolean]>]>([
    [
      '- [ ] Call the bank @remind(2026-11-23 17:00) ^r-7k2p',
      [['@remind(2026-11-23 17:00)', '2026-11-23 17:00', true]],
    ],
    ['@remind(every monday 09:00)', [['@remind(every monday 09:00)', 'every monday 09:00', true]]],
    ['no token here', []],
    ['', []],
    ['@remind()', [['@remind()', '', true]]],
    [
      '@remind(tomorrow (after lunch)) rest',
      [['@remind(tomorrow (after lunch))', 'tomorrow (after lunch)', true]],
    ],
    ['@remind(a(b(c)d)e) x)', [['@remind(a(b(c)d)e)', 'a(b(c)d)e', true]]],
    ['@remind(tomorrow 5pm', [['@remind(tomorrow 5pm', 'tomorrow 5pm', false]]],
    ['@remind(tomorrow (5pm)', [['@remind(tomorrow (5pm)', 'tomorrow (5pm)', false]]],
    [
      'a @remind(x) b @remind(y)',
      [
        ['@remind(x)', 'x', true],
        ['@remind(y)', 'y', true],
      ],
    ],
    ['@remind(x @remind(y))', [['@remind(x @remind(y))', 'x @remind(y)', true]]],
    [
      '@remind(open @remind(closed)',
      [['@remind(open @remind(closed)', 'open @remind(closed)', false]],
    ],
    ['mail me@remind(2026-11-23 17:00)', []],
    ['x.@remind(2026-11-23 17:00)', []],
    ['(@remind(2026-11-23 17:00))', [['@remind(2026-11-23 17:00)', '2026-11-23 17:00', true]]],
    ['**@remind(2026-11-23 17:00)**', [['@remind(2026-11-23 17:00)', '2026-11-23 17:00', true]]],
    ['@Remind(2026-11-23 17:00)', []],
    ['@remind (2026-11-23 17:00)', []],
    ['use `@remind(2026-11-23 17:00)` like this', []],
    ['use ``code ` @remind(x) `` then @remind(y)', [['@remind(y)', 'y', true]]],
    ['unclosed `backtick @remind(x)', [['@remind(x)', 'x', true]]],
    ['`@remind(tomorrow` then @remind(5pm)', [['@remind(5pm)', '5pm', true]]],
    [
      'ünïcödé 😀 @remind(2026-11-23 17:00)',
      [['@remind(2026-11-23 17:00)', '2026-11-23 17:00', true]],
    ],
  ])('%j', (line, expected) => {
    expect(tokensOf(line)).toEqual(expected);
  });

  it('gives line-relative offsets of the token and its inner text', () => {
    const line = '- [ ] Pay @remind(2026-11-23 17:00) ^r-1';
    const [token] = findRemindTokensInLine(line);
    expect(token).toEqual({
      from: 10,
      to: 35,
      innerFrom: 18,
      innerTo: 34,
      inner: '2026-11-23 17:00',
      closed: true,
    });
  });

  it('counts UTF-16 code units like CodeMirror', () => {
    const [token] = findRemindTokensInLine('😀 @remind(x)');
    expect(token?.from).toBe(3);
  });

  it('reads a 10 kB line with many parentheses and an unclosed token', () => {
    const line = `${'(('.repeat(2500)} @remind(${'('.repeat(5000)}`;
    const tokens = findRemindTokensInLine(line);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.closed).toBe(false);
    const many = '@remind(x) '.repeat(1000);
    expect(findRemindTokensInLine(many)).toHaveLength(1000);
  });

  it('never throws on random bytes or non-text', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = ['@remind(', '(', ')', '`', 'x', ' ', '\u0000', '\r', '😀', '^r-1'];
    for (let round = 0; round < 500; round++) {
      let line = '';
      for (let index = 0; index < 30; index++) line += pieces[Math.floor(random() * pieces.length)];
      for (const token of findRemindTokensInLine(line)) {
        expect(line.slice(token.from, token.from + 8)).toBe('@remind(');
        expect(token.to).toBeLessThanOrEqual(line.length);
        expect(line.slice(token.innerFrom, token.innerTo)).toBe(token.inner);
      }
    }
    expect(findRemindTokensInLine(null as unknown as string)).toEqual([]);
  });
});

describe('documentLines', () => {
  it('keeps offsets across CRLF', () => {
    expect(documentLines('a\r\nbc\nd')).toEqual([
      { text: 'a', offset: 0 },
      { text: 'bc', offset: 3 },
      { text: 'd', offset: 6 },
    ]);
  });
});
