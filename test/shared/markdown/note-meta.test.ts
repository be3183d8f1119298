import { describe, expect, it } from 'vitest';
import {
  extractNoteMeta,
  noteMetaWarnings,
  readNoteMeta,
} from '../../../shared/markdown/note-meta';

function meta(data: Record<string, unknown>, body = '', path = 'Folder/My note.md') {
  return extractNoteMeta({ path, data, body });
}

describe('extractNoteMeta: title', () => {
  it('prefers the title property', () => {
    expect(meta({ title: '  Visa rules ' }, '# Heading').title).toBe('Visa rules');
    expect(meta({ title: 'two\nlines\t here\n' }).title).toBe('two lines here');
  });

  it('falls back to the first H1 outside code, then the file name', () => {
    expect(meta({}, 'intro\n## Sub\n# First H1 ##\n# Second').title).toBe('First H1');
    expect(meta({}, '```\n# not a heading\n```\n# Real').title).toBe('Real');
    expect(meta({}, '~~~md\n# fenced\n~~~\ntext').title).toBe('My note');
    expect(meta({}, '#NoSpace is a tag\n#\n').title).toBe('My note');
    expect(meta({}, '# [[Target|Shown]] and [link](https://x.org)').title).toBe('Shown and link');
    expect(meta({ title: '' }, '').title).toBe('My note');
    expect(meta({}, '', 'Daily/2026.11.22.md').title).toBe('2026.11.22');
    expect(meta({}, '', 'plain').title).toBe('plain');
    expect(meta({}, '', '.hidden').title).toBe('.hidden');
  });

  it.each([
    ['# The `parse` function', 'The parse function'],
    ['# **Bold** and ==marked== ~~gone~~', 'Bold and marked gone'],
    ['# Title %% private note %%', 'Title'],
    ['# Project #work', 'Project #work'],
    ['#   spaced   out   #', 'spaced out'],
    ['Setext title\n===', 'Setext title'],
    ['Setext **bold**\n=====  ', 'Setext bold'],
    ['para\n\n===\n# Atx', 'Atx'],
    ['- item\n===\n# Atx', 'Atx'],
    ['```\ncode\n```\n===\n# Atx', 'Atx'],
    ['intro\n# First\nSecond\n===', 'First'],
    ['# \n# Real', 'Real'],
    ['    # indented code, not a heading\n# Real', 'Real'],
  ])('takes the H1 of %j as %j', (body, title) => {
    expect(meta({}, body).title).toBe(title);
  });

  it('cuts an absurdly long heading to 500 characters', () => {
    expect(meta({}, `# ${'`a` '.repeat(20_000)}`).title).toBe('a '.repeat(125).trim());
  });

  it('ignores a non-string title with a warning naming the field', () => {
    const input = { path: 'a/b.md', data: { title: 42 }, body: '' };
    expect(extractNoteMeta(input).title).toBe('b');
    expect(noteMetaWarnings(input)).toEqual([
      { field: 'title', message: 'expected text, found the number 42' },
    ]);
  });
});

describe('extractNoteMeta: tags and aliases', () => {
  it('merges front-matter tags (list, string, flow, # prefix, tag synonym) with inline tags', () => {
    expect(
      meta({ tags: ['#visa', 'travel'], tag: 'work, home  urgent' }, 'text #inline and #Visa').tags,
    ).toEqual(['visa', 'travel', 'work', 'home', 'urgent', 'inline']);
    expect(meta({ tags: 'a,b' }).tags).toEqual(['a', 'b']);
    expect(meta({ tags: [2024, 'y2024'] }).tags).toEqual(['y2024']);
  });

  it('ignores badly typed tags and aliases without throwing, and warns', () => {
    const input = {
      path: 'n.md',
      data: { tags: { a: 1 }, aliases: { a: 1 }, tag: [true, 'ok', 'has space'] },
      body: '',
    };
    const { meta: result, warnings } = readNoteMeta(input);
    expect(result.tags).toEqual(['ok']);
    expect(result.aliases).toEqual([]);
    expect(warnings.map((warning) => warning.field)).toEqual(['tags', 'tag', 'tag', 'aliases']);
    expect(meta({ tags: 5 }).tags).toEqual([]);
    expect(meta({ tags: null, aliases: null }).aliases).toEqual([]);
  });

  it('reads aliases from aliases and alias, a string being one alias', () => {
    expect(meta({ aliases: ['Visa', ' Visa ', 'Rules, general'], alias: 'Other' }).aliases).toEqual(
      ['Visa', 'Rules, general', 'Other'],
    );
    expect(meta({ aliases: 'Smith, John' }).aliases).toEqual(['Smith, John']);
  });

  it('reads id, type, created and updated only when they are text', () => {
    const result = meta({
      id: 'abc',
      type: 'reminder',
      created: '2026-11-22T10:30:00+01:00',
      updated: 5,
    });
    expect(result).toMatchObject({
      id: 'abc',
      type: 'reminder',
      created: '2026-11-22T10:30:00+01:00',
    });
    expect(result.updated).toBeUndefined();
    expect(meta({})).toEqual({ title: 'My note', tags: [], aliases: [] });
    expect(meta({ created: new Date(Date.UTC(2026, 10, 22, 9, 30)) }).created).toBe(
      '2026-11-22T09:30:00.000Z',
    );
  });
});
