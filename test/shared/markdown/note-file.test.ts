import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../../shared/markdown/front-matter';
import { appendToNoteBody, buildNoteFile, type NewNote } from '../../../shared/markdown/note-file';
import { FrontMatterValueError } from '../../../shared/markdown/yaml-values';

const visa: NewNote = {
  id: '0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10',
  title: 'Visa rules summary',
  tags: ['visa', 'travel'],
  created: '2026-11-22T10:30:00+01:00',
  updated: '2026-11-22T10:30:00+01:00',
  source: 'chat',
  body: '- valid 90 days\n- requires passport photo\n',
};

describe('buildNoteFile', () => {
  it('writes exactly the layout of docs/vault-format.md', () => {
    expect(buildNoteFile(visa)).toBe(
      [
        '---',
        'id: 0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10',
        'title: Visa rules summary',
        'tags: [visa, travel]',
        'created: 2026-11-22T10:30:00+01:00',
        'updated: 2026-11-22T10:30:00+01:00',
        'source: chat',
        '---',
        '- valid 90 days',
        '- requires passport photo',
        '',
      ].join('\n'),
    );
  });

  it('defaults updated to created, omits source, adds extra keys, ends the body with a newline', () => {
    const text = buildNoteFile({
      ...visa,
      updated: undefined,
      source: undefined,
      tags: [],
      extra: [['status', 'active']],
      body: 'one line',
    });
    expect(text).toBe(
      '---\nid: 0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10\ntitle: Visa rules summary\ntags: []\n' +
        'created: 2026-11-22T10:30:00+01:00\nupdated: 2026-11-22T10:30:00+01:00\nstatus: active\n---\none line\n',
    );
  });

  it.each([
    ['Re: visa', 'title: "Re: visa"'],
    ['#1 priority', 'title: "#1 priority"'],
    ['[draft] plan', 'title: "[draft] plan"'],
    ['"quoted"', `title: '"quoted"'`],
    ["it's fine", "title: it's fine"],
    ['yes', 'title: "yes"'],
    ['2026-11-22', 'title: 2026-11-22'],
    ['- dash', 'title: "- dash"'],
    ['a # not comment', 'title: "a # not comment"'],
    ['trailing colon:', 'title: "trailing colon:"'],
    ['@mention', 'title: "@mention"'],
    ['* star', 'title: "* star"'],
    ['{braces}', 'title: "{braces}"'],
    ['Überweisung 🏦', 'title: Überweisung 🏦'],
  ])('writes the title %j as %s and reads it back', (title, line) => {
    const text = buildNoteFile({ ...visa, title });
    expect(text.split('\n')[2]).toBe(line);
    const parsed = parseFrontMatter(text);
    expect(parsed.ok && parsed.data.title).toBe(title);
  });

  it('normalizes tags that carry a leading #', () => {
    expect(buildNoteFile({ ...visa, tags: ['#visa', 'travel/eu'] })).toContain(
      'tags: [visa, travel/eu]',
    );
  });

  it.each([
    ['title with a newline', { title: 'one\ntwo' }, 'title'],
    ['empty title', { title: '   ' }, 'title'],
    ['title with a control character', { title: 'bell\u0007' }, 'title'],
    ['empty id', { id: '' }, 'id'],
    ['tag with a space', { tags: ['two words'] }, 'tags'],
    ['digit-only tag', { tags: ['1984'] }, 'tags'],
    ['created without offset', { created: '2026-11-22T10:30:00' }, 'created'],
    ['created as a date only', { created: '2026-11-22' }, 'created'],
    ['impossible date', { created: '2026-13-45T10:30:00Z' }, 'created'],
    ['updated garbage', { updated: 'soon' }, 'updated'],
    ['extra key repeating title', { extra: [['title', 'x']] }, 'title'],
    ['source with a newline', { source: 'a\nb' }, 'source'],
  ] as Array<[string, Partial<NewNote>, string]>)(
    'rejects %s, naming the field',
    (_name, change, field) => {
      try {
        buildNoteFile({ ...visa, ...change });
        expect.unreachable('buildNoteFile should have thrown');
      } catch (error) {
        expect(error).toBeInstanceOf(FrontMatterValueError);
        expect((error as FrontMatterValueError).field).toBe(field);
      }
    },
  );
});

describe('appendToNoteBody', () => {
  it.each([
    ['paragraph after paragraph', 'text', 'more', 'text\n\nmore\n'],
    ['after a final newline', 'text\n', 'more', 'text\n\nmore\n'],
    ['after a blank line already', 'text\n\n', 'more', 'text\n\nmore\n'],
    ['after several blank lines (kept)', 'text\n\n\n', 'more', 'text\n\n\nmore\n'],
    ['list item continuing a list', '- a\n- b\n', '- c', '- a\n- b\n- c\n'],
    ['numbered list continuing', '1. a\n', '2. b', '1. a\n2. b\n'],
    ['task continuing a list', '- [ ] a\n', '- [ ] b', '- [ ] a\n- [ ] b\n'],
    ['paragraph after a list', '- a\n', 'para', '- a\n\npara\n'],
    ['list after a paragraph', 'para\n', '- a', 'para\n\n- a\n'],
    ['list after a list with a blank line', '- a\n\n', '- b', '- a\n\n- b\n'],
    ['into an empty file', '', 'first', 'first\n'],
    [
      'addition with surrounding blank lines',
      'x\n',
      '\n\n  block\nline 2\n\n\n',
      'x\n\n  block\nline 2\n',
    ],
    ['empty addition', 'x', '  \n\n', 'x'],
    ['block id line', 'para\n', '^abc123', 'para\n\n^abc123\n'],
    ['body with trailing spaces', 'text   ', 'more', 'text   \n\nmore\n'],
  ])('%s', (_name, text, addition, expected) => {
    expect(appendToNoteBody(text, addition)).toBe(expected);
  });

  it('never touches the front matter, even when its YAML is broken', () => {
    const broken = '---\ntitle: [unclosed\n---\n';
    expect(appendToNoteBody(broken, 'added')).toBe(`${broken}added\n`);
    const noBreak = '---\na: 1\n---';
    expect(appendToNoteBody(noBreak, 'added')).toBe('---\na: 1\n---\nadded\n');
    const withBody = '---\na: 1\n---\nbody';
    expect(appendToNoteBody(withBody, 'added')).toBe('---\na: 1\n---\nbody\n\nadded\n');
  });

  it('cannot close a never-closed fence, so the body never becomes front matter', () => {
    const unclosed = '---\ntitle: not front matter\n';
    const result = appendToNoteBody(unclosed, 'above\n---\nbelow');
    expect(result).toBe('---\ntitle: not front matter\n\nabove\n***\nbelow\n');
    expect(parseFrontMatter(result)).toMatchObject({ ok: true, hasFrontMatter: false });
    expect(appendToNoteBody('---\na: 1\n---\n', 'x\n---\ny')).toBe('---\na: 1\n---\nx\n---\ny\n');
    expect(appendToNoteBody('', '---\na: b\n---')).toBe('***\na: b\n***\n');
    expect(appendToNoteBody('\uFEFF', '---\na: b\n---')).toBe('\uFEFF***\na: b\n***\n');
    expect(appendToNoteBody('\n', '---\na: b\n---')).toBe('\n---\na: b\n---\n');
    expect(appendToNoteBody('text\n', '---\na: b\n---')).toBe('text\n\n---\na: b\n---\n');
  });

  it('writes CRLF into a CRLF file and keeps the BOM', () => {
    expect(appendToNoteBody('\uFEFF---\r\na: 1\r\n---\r\nbody\r\n', 'x\ny')).toBe(
      '\uFEFF---\r\na: 1\r\n---\r\nbody\r\n\r\nx\r\ny\r\n',
    );
    expect(appendToNoteBody('body\r\n', 'x\r\ny')).toBe('body\r\n\r\nx\r\ny\r\n');
  });

  it('is linear on huge trailing whitespace', () => {
    const text = `text${' \n'.repeat(200_000)}`;
    expect(appendToNoteBody(text, 'x').endsWith('x\n')).toBe(true);
  });
});
