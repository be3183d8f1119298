import { describe, expect, it } from 'vitest';
import {
  dedupeCaseInsensitive,
  findInlineTags,
  isValidTag,
  normalizeTag,
} from '../../../shared/markdown/tags';

describe('findInlineTags', () => {
  it.each([
    ['#tag', ['tag']],
    ['text #tag more', ['tag']],
    ['#a #b\t#c', ['a', 'b', 'c']],
    ['nested #inbox/to-read', ['inbox/to-read']],
    ['underscore #snake_case and dash #kebab-case', ['snake_case', 'kebab-case']],
    ['#1984 is a year', []],
    ['#y1984 is a tag', ['y1984']],
    ['#2024-review has a non-digit', ['2024-review']],
    ['unicode #Überweisung #日本語 #καλημέρα', ['Überweisung', '日本語', 'καλημέρα']],
    ['emoji #🚀 and #todo🔥', ['🚀', 'todo🔥']],
    ['punctuation ends it: #tag, #other. #third! (#fourth)', ['tag', 'other', 'third']],
    ['#tag:with colon', ['tag']],
    ['a#b inside a word', []],
    ['email me@host#frag', []],
    ['https://example.org/page#section', []],
    ['[link](https://example.org/#top)', []],
    ['[[Note#Heading]] and [[#Local]]', []],
    ['![[Note#^block]]', []],
    ['# Heading is not a tag', []],
    ['## Sub heading', []],
    ['###### deep', []],
    ['#NoSpace at line start is a tag', ['NoSpace']],
    ['escaped \\#nottag', []],
    ['entity &#123; and &#x1F600;', []],
    ['inline `#code` here #real', ['real']],
    ['double ``code with ` #inside`` then #after', ['after']],
    ['unclosed `#stillatag', []],
    ['comment %% #hidden %% #shown', ['shown']],
    ['lone # sign', []],
    ['##double', []],
    ['#a#b', ['a']],
    ['- [ ] task #work', ['work']],
    ['> quote #quoted', ['quoted']],
    ['  indented #nested-list', ['nested-list']],
    ['#tag/', ['tag/']],
    ['#-', ['-']],
    ['#_', ['_']],
    ['tab\t#after-tab', ['after-tab']],
    ['non-breaking\u00a0#nbsp', ['nbsp']],
    ['#ZWJ👩‍💻 emoji sequence', ['ZWJ👩‍💻']],
  ])('%s', (line, expected) => {
    expect(findInlineTags(line)).toEqual(expected);
  });

  it('skips fenced code blocks, including tildes, longer fences and unclosed fences', () => {
    const body = [
      '#before',
      '```js',
      '#insidecode',
      '```',
      '~~~~',
      '#tilde',
      '~~~',
      '#still-inside-four-tildes',
      '~~~~',
      '#after',
      '```',
      '#never-closed',
    ].join('\n');
    expect(findInlineTags(body)).toEqual(['before', 'after']);
  });

  it('treats a backtick line with backticks after it as inline code, not a fence', () => {
    expect(findInlineTags('```inline``` #tag')).toEqual(['tag']);
  });

  it('skips multi-line %% comments', () => {
    expect(findInlineTags('#a\n%%\n#hidden\n%%\n#b %% #c\n#d %% #e')).toEqual(['a', 'b', 'e']);
  });

  it('handles CRLF bodies', () => {
    expect(findInlineTags('#a\r\n```\r\n#b\r\n```\r\n#c\r\n')).toEqual(['a', 'c']);
  });
});

describe('tag helpers', () => {
  it.each([
    ['tag', true],
    ['a/b', true],
    ['1984', false],
    ['', false],
    ['has space', false],
    ['dot.ted', false],
    ['#hash', false],
    ['ünï', true],
  ])('isValidTag(%j) is %s', (tag, valid) => {
    expect(isValidTag(tag)).toBe(valid);
  });

  it('normalizes a front-matter tag and dedupes case-insensitively keeping the first spelling', () => {
    expect(normalizeTag('  #Visa ')).toBe('Visa');
    expect(dedupeCaseInsensitive(['Visa', 'travel', 'VISA', 'Travel', 'ÜBER', 'über'])).toEqual([
      'Visa',
      'travel',
      'ÜBER',
    ]);
  });
});
