import { describe, expect, it } from 'vitest';
import {
  detectLineEnding,
  locateFrontMatter,
  positionAt,
  withLineEnding,
} from '../../../shared/markdown/front-matter-fence';

describe('locateFrontMatter', () => {
  it('gives the offsets of the YAML and the body', () => {
    const text = '---\na: 1\n---\nbody';
    const fence = locateFrontMatter(text);
    expect(fence).toEqual({
      bom: '',
      eol: '\n',
      yamlStart: 4,
      yamlEnd: 9,
      bodyStart: 13,
      bodyStartLine: 4,
    });
    expect(text.slice(fence?.yamlStart, fence?.yamlEnd)).toBe('a: 1\n');
  });

  it('reads BOM and CRLF and tolerates blanks after either fence', () => {
    const text = '\uFEFF--- \t\r\na: 1\r\n---\t\r\nbody';
    const fence = locateFrontMatter(text);
    expect(fence).toMatchObject({ bom: '\uFEFF', eol: '\r\n', bodyStartLine: 4 });
    expect(text.slice(fence?.yamlStart, fence?.yamlEnd)).toBe('a: 1\r\n');
    expect(text.slice(fence?.bodyStart)).toBe('body');
  });

  it.each([
    ['', null],
    ['---', null],
    ['---\n', null],
    ['----\n---\n', null],
    ['--- x\n---\n', null],
    ['---\n----\n', null],
    ['---\n-- -\n', null],
    [' ---\n---\n', null],
  ])('%j has no front matter', (text, expected) => {
    expect(locateFrontMatter(text)).toBe(expected);
  });

  it('takes the first closing fence, and finds one at the very end of the text', () => {
    expect(locateFrontMatter('---\n---\n---\n')).toMatchObject({
      yamlEnd: 4,
      bodyStart: 8,
      bodyStartLine: 3,
    });
    expect(locateFrontMatter('---\na: 1\n---')).toMatchObject({
      yamlEnd: 9,
      bodyStart: 12,
      bodyStartLine: 4,
    });
  });
});

describe('line helpers', () => {
  it('detects the line ending from the first line break', () => {
    expect(detectLineEnding('a\r\nb\nc')).toBe('\r\n');
    expect(detectLineEnding('a\nb\r\n')).toBe('\n');
    expect(detectLineEnding('one line')).toBe('\n');
    expect(detectLineEnding('\nx')).toBe('\n');
  });

  it('rewrites line breaks and finds 1-based positions', () => {
    expect(withLineEnding('a\nb\n', '\r\n')).toBe('a\r\nb\r\n');
    expect(withLineEnding('a\nb', '\n')).toBe('a\nb');
    expect(positionAt('ab\ncd\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(positionAt('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(positionAt('ab\ncd\nef', 6)).toEqual({ line: 3, column: 1 });
    expect(positionAt('ab', 99)).toEqual({ line: 1, column: 3 });
  });
});
