import { describe, expect, it } from 'vitest';
import { chunkNote, resolveChunkOptions } from '../../../shared/search/index';
import type { NoteChunk, NoteChunkInput } from '../../../shared/search/index';

const note = (body: string, extra: Partial<NoteChunkInput> = {}): NoteChunkInput => ({
  path: 'Folder/Note.md',
  title: 'Note',
  aliases: [],
  tags: [],
  body,
  bodyStartLine: 1,
  ...extra,
});

const summary = (chunks: NoteChunk[]) =>
  chunks.map((chunk) => ({
    path: chunk.headingPath,
    lines: [chunk.startLine, chunk.endLine],
    text: chunk.text,
  }));

const sentence = (i: number) => `Sentence number ${i} talks about the topic at some length here.`;
const paragraph = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => sentence(from + i)).join(' ');

describe('chunkNote structure', () => {
  it.each([
    {
      name: 'no headings',
      body: 'Just a paragraph.\n\nAnother one.',
      expected: [{ path: [], lines: [1, 3], text: 'Just a paragraph.\n\nAnother one.' }],
    },
    {
      name: 'only headings: a bare H1 lives on in the paths below it',
      body: '# A\n## B\n### C\n## D',
      expected: [
        { path: ['A', 'B'], lines: [2, 3], text: '## B\n### C' },
        { path: ['A', 'D'], lines: [4, 4], text: '## D' },
      ],
    },
    {
      name: 'a heading inside a fenced code block is code',
      body: '## Real\n```md\n# not a heading\n## nor this\n```\nafter',
      expected: [
        {
          path: ['Real'],
          lines: [1, 6],
          text: '## Real\n```md\n# not a heading\n## nor this\n```\nafter',
        },
      ],
    },
    {
      name: 'a tilde fence is not closed by backticks',
      body: '~~~\n```\n# inside\n~~~\n## Out\ntext',
      expected: [
        { path: [], lines: [1, 4], text: '~~~\n```\n# inside\n~~~' },
        { path: ['Out'], lines: [5, 6], text: '## Out\ntext' },
      ],
    },
    {
      name: 'an unclosed fence runs to the end of the note',
      body: 'intro\n\n```\n## not a section\nmore',
      expected: [{ path: [], lines: [1, 5], text: 'intro\n\n```\n## not a section\nmore' }],
    },
    {
      name: 'setext headings count',
      body: 'Title\n=====\nintro\n\nPart two\n--------\nbody',
      expected: [
        { path: ['Title'], lines: [1, 3], text: 'Title\n=====\nintro' },
        { path: ['Title', 'Part two'], lines: [5, 7], text: 'Part two\n--------\nbody' },
      ],
    },
    {
      name: 'a list followed by --- is a list and a rule, not a heading',
      body: '- item\n---\nrest',
      expected: [{ path: [], lines: [1, 3], text: '- item\n---\nrest' }],
    },
    {
      name: 'a #tag and a heading inside a callout are text',
      body: '#project notes\n> [!note]\n> ## inside callout\n> text',
      expected: [
        { path: [], lines: [1, 4], text: '#project notes\n> [!note]\n> ## inside callout\n> text' },
      ],
    },
    {
      name: 'small H3 sections merge under their H2',
      body: '## Plan\nintro\n### Monday\ngym\n### Tuesday\nswim',
      expected: [
        {
          path: ['Plan'],
          lines: [1, 6],
          text: '## Plan\nintro\n### Monday\ngym\n### Tuesday\nswim',
        },
      ],
    },
    {
      name: 'H2 sections never merge, however small',
      body: '## A\nx\n## B\ny',
      expected: [
        { path: ['A'], lines: [1, 2], text: '## A\nx' },
        { path: ['B'], lines: [3, 4], text: '## B\ny' },
      ],
    },
    {
      name: 'text before the first heading is its own chunk',
      body: 'preface\n# Title\nbody',
      expected: [
        { path: [], lines: [1, 1], text: 'preface' },
        { path: ['Title'], lines: [2, 3], text: '# Title\nbody' },
      ],
    },
    {
      name: 'closing hashes are not part of the heading',
      body: '## Costs ##\n$50\n## C# tips\nuse var',
      expected: [
        { path: ['Costs'], lines: [1, 2], text: '## Costs ##\n$50' },
        { path: ['C# tips'], lines: [3, 4], text: '## C# tips\nuse var' },
      ],
    },
  ])('$name', ({ body, expected }) => {
    expect(summary(chunkNote(note(body)))).toEqual(expected);
  });

  it('numbers lines from bodyStartLine, so front matter is counted', () => {
    const chunks = chunkNote(note('## A\ntext', { bodyStartLine: 6 }));
    expect(summary(chunks)).toEqual([{ path: ['A'], lines: [6, 7], text: '## A\ntext' }]);
  });

  it('reads CRLF and lone CR line ends as line breaks', () => {
    const lf = chunkNote(note('Title\n===\nintro\n\n## Part\nbody'));
    expect(summary(chunkNote(note('Title\r\n===\r\nintro\r\n\r\n## Part\r\nbody')))).toEqual(
      summary(lf),
    );
    expect(summary(chunkNote(note('Title\r===\rintro\r\r## Part\rbody')))).toEqual(summary(lf));
  });

  it.each([
    ['an empty body', ''],
    ['a blank body', '  \n\n\t\n'],
  ])('gives %s one chunk holding the title, so the note is findable', (_, body) => {
    const chunks = chunkNote(note(body, { title: 'Visa rules', id: 'abc', bodyStartLine: 5 }));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({
      text: 'Visa rules',
      titleOnly: true,
      noteId: 'abc',
      headingPath: [],
      startLine: 1,
      endLine: 1,
    });
  });

  it('carries note metadata onto every chunk', () => {
    const [chunk] = chunkNote(
      note('## Key points\nFee', {
        id: 'n1',
        type: 'reminder',
        aliases: ['Visa'],
        tags: ['travel'],
      }),
    );
    expect(chunk).toMatchObject({
      path: 'Folder/Note.md',
      noteId: 'n1',
      type: 'reminder',
      title: 'Note',
      aliases: ['Visa'],
      tags: ['travel'],
      heading: 'Key points',
    });
    expect(chunk?.textHash).toMatch(/^[0-9a-f]{14}$/);
  });
});

describe('chunkNote sizes', () => {
  const options = { targetChars: 300, maxChars: 450, overlapChars: 100 };

  it('splits a long paragraph at sentences, within maxChars, repeating the previous sentence start', () => {
    const body = `## Long\n${paragraph(0, 30)}`;
    const chunks = chunkNote(note(body), options);
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(options.maxChars);
      expect(chunk.headingPath).toEqual(['Long']);
      expect(body).toContain(chunk.text);
    }
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]!.text;
      const current = chunks[i]!.text;
      expect(current).toMatch(/^Sentence number \d+/);
      // The overlap: the new chunk starts with text the previous one ended with.
      const head = current.slice(0, 30);
      expect(previous.slice(-options.overlapChars - 30)).toContain(head);
    }
  });

  it('keeps a code block whole when it fits, and splits an oversized one between lines', () => {
    const code = (lines: number) =>
      '```js\n' +
      Array.from({ length: lines }, (_, i) => `const value${i} = compute(${i});`).join('\n') +
      '\n```';
    const fits = chunkNote(
      note(`## Code\n${paragraph(0, 4)}\n\n${code(12)}\n\n${paragraph(10, 4)}`),
      options,
    );
    expect(fits.some((chunk) => chunk.text.includes(code(12)))).toBe(true);

    const big = code(40);
    const split = chunkNote(note(`## Code\n${big}`), options);
    expect(split.length).toBeGreaterThan(1);
    for (const chunk of split) {
      expect(chunk.text.length).toBeLessThanOrEqual(options.maxChars);
      // Cut only between lines: each chunk's lines are whole lines of the block.
      const lines = chunk.text.split('\n').filter((line) => line !== '## Code');
      for (const line of lines) expect(big.split('\n')).toContain(line);
    }
    // No overlap inside code: together the pieces hold each line exactly once.
    const joined = split.map((chunk) => chunk.text.replace(/^## Code\n/, '')).join('\n');
    expect(joined).toBe(big);
  });

  it('keeps a table whole when it fits', () => {
    const table = [
      '| a | b |',
      '| --- | --- |',
      ...Array.from({ length: 8 }, (_, i) => `| row ${i} | value ${i} |`),
    ].join('\n');
    const chunks = chunkNote(
      note(`## T\n${paragraph(0, 5)}\n\n${table}\n\n${paragraph(5, 5)}`),
      options,
    );
    expect(chunks.some((chunk) => chunk.text.includes(table))).toBe(true);
  });

  it('falls back to a word start when no sentence starts within the overlap window', () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    const chunks = chunkNote(note(words), { ...options, overlapChars: 40 });
    for (let i = 1; i < chunks.length; i++) {
      const current = chunks[i]!.text;
      expect(current).toMatch(/^w\d+ /);
      expect(chunks[i - 1]!.text).toContain(current.slice(0, current.indexOf(' ')));
    }
  });

  it('hard-splits a line with no spaces at the target, with no word to overlap from', () => {
    const chunks = chunkNote(note('x'.repeat(2000)), options);
    expect(chunks.map((chunk) => chunk.text.length)).toEqual([300, 300, 300, 300, 300, 300, 200]);
  });

  it('does not split a surrogate pair', () => {
    const chunks = chunkNote(note('a' + '😀'.repeat(400)), options);
    for (const chunk of chunks) expect(chunk.text).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe('a' + '😀'.repeat(400));
  });

  it.each([
    {
      name: 'paragraphs under many headings',
      body: Array.from({ length: 5000 }, (_, i) => `## H${i}\n${paragraph(i, 16)}`).join('\n\n'),
    },
    { name: 'one 5 MB line', body: 'word '.repeat(1_000_000) },
    { name: 'one 5 MB line without spaces', body: 'x'.repeat(5_000_000) },
    { name: 'an unclosed 5 MB fence', body: '```\n' + 'code line here\n'.repeat(350_000) },
  ])('chunks a 5 MB note ($name) within the test timeout, every chunk ≤ maxChars', ({ body }) => {
    expect(body.length).toBeGreaterThan(4_500_000);
    const chunks = chunkNote(note(body));
    expect(chunks.length).toBeGreaterThan(3000);
    expect(Math.max(...chunks.map((chunk) => chunk.text.length))).toBeLessThanOrEqual(1500);
  });

  it.each([
    [{ maxChars: 10 }],
    [{ targetChars: 2000 }],
    [{ overlapChars: 1000 }],
    [{ targetChars: 0.5 }],
    [{ overlapChars: -1 }],
  ])('rejects impossible options %j', (options) => {
    expect(() => resolveChunkOptions(options)).toThrow(RangeError);
  });
});

describe('chunk ids', () => {
  const body = '## A\nalpha\n## B\nbeta\n## C\ngamma\n## C\ndelta';

  it('are distinct even under repeated headings', () => {
    const ids = chunkNote(note(body)).map((chunk) => chunk.chunkId);
    expect(ids).toEqual([
      'Folder/Note.md#A#0',
      'Folder/Note.md#B#0',
      'Folder/Note.md#C#0',
      'Folder/Note.md#C#1',
    ]);
  });

  it('survive edits to other sections', () => {
    const before = chunkNote(note(body));
    const after = chunkNote(note(body.replace('beta', 'beta\n\nmany more words\nover lines')));
    expect(after.map((chunk) => chunk.chunkId)).toEqual(before.map((chunk) => chunk.chunkId));
    expect(after[0]!.textHash).toBe(before[0]!.textHash);
    expect(after[1]!.textHash).not.toBe(before[1]!.textHash);
    expect(after[2]!.startLine).toBe(before[2]!.startLine + 3);
  });
});
