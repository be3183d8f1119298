import { describe, expect, it } from 'vitest';
import {
  blankInlineCode,
  bodyStartIndex,
  FenceTracker,
  fencedCodeLines,
  inlineCodeSpans,
} from '../../../shared/markdown/code-regions';
import { proseLines } from '../../../shared/markdown/prose-lines';

describe('fencedCodeLines', () => {
  it.each([
    ['backticks', ['a', '```js', 'x', '```', 'b'], [false, true, true, true, false]],
    ['tildes closed by a longer run', ['~~~', 'x', '~~~~', 'b'], [true, true, true, false]],
    [
      'a shorter run does not close',
      ['````', '```', 'x', '````', 'b'],
      [true, true, true, true, false],
    ],
    ['the other character does not close', ['```', '~~~', '```'], [true, true, true]],
    ['unclosed runs to the end', ['a', '```', 'x', 'y'], [false, true, true, true]],
    ['four spaces of indent is not a fence', ['    ```', 'x'], [false, false]],
    ['backticks in a backtick info string: inline code', ['```a`b', 'x'], [false, false]],
    ['CRLF lines', ['```\r', 'x\r', '```\r', 'y\r'], [true, true, true, false]],
  ])('%s', (_name, lines, expected) => {
    expect(fencedCodeLines(lines)).toEqual(expected);
  });

  it('FenceTracker with mayOpen false opens nothing but still closes an open fence', () => {
    const tracker = new FenceTracker();
    expect(tracker.step('```', false)).toBe(false);
    expect(tracker.step('```')).toBe(true);
    expect(tracker.step('```', false)).toBe(true);
    expect(tracker.step('text')).toBe(false);
  });
});

describe('inline code', () => {
  it('finds spans of matching backtick runs and leaves unmatched runs literal', () => {
    expect(inlineCodeSpans('a `b` c ``d`e`` f ` g')).toEqual([
      [2, 5],
      [8, 15],
    ]);
  });

  it('blanks spans with spaces, keeping every column', () => {
    const line = 'tag #a `#b` and ``#c`` #d';
    const blanked = blankInlineCode(line);
    expect(blanked).toHaveLength(line.length);
    expect(blanked).toBe('tag #a      and        #d');
  });
});

describe('bodyStartIndex', () => {
  it('skips a closed front matter block, and only a closed one', () => {
    expect(bodyStartIndex(['---', 'a: 1', '---', 'body'])).toBe(3);
    expect(bodyStartIndex(['---', 'a: 1', '...', 'body'])).toBe(3);
    expect(bodyStartIndex(['---', 'a: 1', 'body'])).toBe(0);
    expect(bodyStartIndex(['body'])).toBe(0);
  });
});

describe('proseLines uses the same fence reading, and comments hide fences', () => {
  it('a fence inside a %% comment opens nothing', () => {
    const body = ['%% start', '```', 'still comment %%', '#tag'].join('\n');
    expect(proseLines(body).map((line) => line.index)).toEqual([0, 1, 2, 3]);
  });

  it('fenced lines are left out, inline code blanked', () => {
    const body = ['a `#x`', '```', '#no', '```', '#yes'].join('\n');
    expect(proseLines(body)).toEqual([
      { index: 0, text: 'a     ' },
      { index: 4, text: '#yes' },
    ]);
  });
});
