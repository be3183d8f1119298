import { describe, expect, it } from 'vitest';
import {
  describeFrontMatterError,
  parseFrontMatter,
  stringifyNoteFile,
  updateFrontMatter,
} from '../../../shared/markdown/front-matter';
import { FrontMatterValueError } from '../../../shared/markdown/yaml-values';

function parsedData(text: string): Record<string, unknown> {
  const result = parseFrontMatter(text);
  if (!result.ok) throw new Error(`unexpected error: ${JSON.stringify(result.error)}`);
  return result.data;
}

function updated(text: string, changes: Record<string, unknown>): string {
  const result = updateFrontMatter(text, changes);
  if (!result.ok) throw new Error(`unexpected error: ${JSON.stringify(result.error)}`);
  return result.text;
}

describe('parseFrontMatter', () => {
  it('splits data and body and says where the body starts', () => {
    const result = parseFrontMatter('---\ntitle: Hello\ntags: [a, b]\n---\n# Body\ntext\n');
    expect(result).toEqual({
      ok: true,
      hasFrontMatter: true,
      data: { title: 'Hello', tags: ['a', 'b'] },
      body: '# Body\ntext\n',
      bodyStartLine: 5,
    });
  });

  it.each([
    ['empty file', ''],
    ['plain text', 'just text\n'],
    ['fence not on the first line', '\n---\na: 1\n---\n'],
    ['unclosed fence', '---\na: 1\nno end\n'],
    ['fence alone', '---'],
    ['language hint ---json', '---json\n{"a": 1}\n---\n'],
    ['language hint ---coffee', '---coffee\na = 1\n---\n'],
    ['closed by ... (YAML document end, not Obsidian)', '---\na: 1\n...\nbody\n'],
    ['indented closing fence', '---\na: 1\n ---\n'],
  ])('%s has no front matter and the whole text is body', (_name, text) => {
    const result = parseFrontMatter(text);
    expect(result).toEqual({
      ok: true,
      hasFrontMatter: false,
      data: {},
      body: text,
      bodyStartLine: 1,
    });
  });

  it('keeps YAML 1.1 dates, yes/no and version numbers as strings (core schema)', () => {
    const data = parsedData(
      '---\nd: 2026-03-30 09:00:00\nday: 2026-03-30\nat: 2026-03-30T09:00:00+02:00\n' +
        'yes: yes\nno: off\nversion: 1.10\nsexagesimal: 1:30\nbin: !!binary aGk=\nts: !!timestamp 2001-12-14\n---\n',
    );
    expect(data).toEqual({
      d: '2026-03-30 09:00:00',
      day: '2026-03-30',
      at: '2026-03-30T09:00:00+02:00',
      yes: 'yes',
      no: 'off',
      version: 1.1,
      sexagesimal: '1:30',
      bin: 'aGk=',
      ts: '2001-12-14',
    });
  });

  it('reads numbers, booleans, null, nested values and JSON front matter', () => {
    expect(parsedData('---\nn: 3\nf: 2.5\nb: true\nz:\nnested: {a: [1, 2]}\n---\n')).toEqual({
      n: 3,
      f: 2.5,
      b: true,
      z: null,
      nested: { a: [1, 2] },
    });
    expect(parsedData('---\n{"tags": ["journal"], "publish": false}\n---\n')).toEqual({
      tags: ['journal'],
      publish: false,
    });
  });

  it('treats an empty or comment-only block as empty front matter', () => {
    for (const text of [
      '---\n---\nbody',
      '---\n# just a comment\n---\nbody',
      '---\n\n\n---\nbody',
    ]) {
      const result = parseFrontMatter(text);
      expect(result.ok && result.hasFrontMatter).toBe(true);
      expect(result.ok && result.data).toEqual({});
      expect(result.body).toBe('body');
    }
  });

  it('handles a BOM, CRLF line ends and fences with trailing blanks', () => {
    const result = parseFrontMatter(
      '\uFEFF---\r\ntitle: Hi\r\nlist:\r\n  - a\r\n---  \r\nBody\r\n',
    );
    expect(result).toEqual({
      ok: true,
      hasFrontMatter: true,
      data: { title: 'Hi', list: ['a'] },
      body: 'Body\r\n',
      bodyStartLine: 6,
    });
    expect(parseFrontMatter('\uFEFFplain').body).toBe('plain');
  });

  it('ends the body at the closing fence even without a final newline', () => {
    expect(parseFrontMatter('---\na: 1\n---')).toEqual({
      ok: true,
      hasFrontMatter: true,
      data: { a: 1 },
      body: '',
      bodyStartLine: 4,
    });
  });

  it.each([
    ['duplicate key', '---\ntags: a\ntitle: x\ntags: b\n---\nbody\n', 4, /unique/i],
    ['a list instead of a mapping', '---\n- a\n- b\n---\nbody\n', 2, /mapping.*found a list/],
    [
      'a scalar instead of a mapping',
      '---\n\njust words\n---\nbody\n',
      3,
      /mapping.*found a single value/,
    ],
    // yaml notices at the end of the block; the line reported is the last YAML line, not the fence.
    ['unclosed flow list', '---\ntitle: x\ntags: [a, b\n---\nbody\n', 3, /./],
    ['bad indentation', '---\na:\n  b: 1\n c: 2\n---\nbody\n', 4, /./],
    ['tab indentation', '---\na:\n\t- x\n---\nbody\n', 3, /./],
    ['content after a ... document end', '---\na: 1\n...\nb: 2\n---\nbody\n', 4, /document/i],
    ['alias to no anchor', '---\na: 1\nb: *missing\n---\nbody\n', 3, /alias|anchor/i],
    [
      'key without value separator',
      '---\ntitle: ok\njust a line: with: colons\n---\nbody\n',
      3,
      /./,
    ],
  ])('%s is an error naming the file line', (_name, text, line, message) => {
    const result = parseFrontMatter(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    if (line > 0) expect(result.error.line).toBe(line);
    expect(result.error.line).toBeGreaterThanOrEqual(2);
    expect(result.error.column).toBeGreaterThanOrEqual(1);
    expect(result.error.message).toMatch(message);
    expect(result.error.message).not.toMatch(/\n/);
    expect(result.bodyStartLine).toBeGreaterThan(2);
  });

  it('gives the body after a broken block so indexing can go on', () => {
    const result = parseFrontMatter('---\na: [\n---\n# Title\nwords\n');
    expect(result.ok).toBe(false);
    expect(result.body).toBe('# Title\nwords\n');
    expect(result.bodyStartLine).toBe(4);
  });

  it('refuses a "billion laughs" alias bomb instead of expanding it', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 8; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const next = String.fromCharCode(97 + level);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const result = parseFrontMatter(`---\n${lines.join('\n')}\n---\nbody`);
    expect(result.ok).toBe(false);
  });

  it('describes an error with path, line and column', () => {
    const result = parseFrontMatter('---\na: 1\na: 2\n---\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(describeFrontMatterError('Notes/a.md', result.error)).toMatch(
      /^Notes\/a\.md:3:1: front matter: .*unique/,
    );
  });
});

describe('stringifyNoteFile', () => {
  it('writes fields in order, dates plain, lists flow, and the body verbatim', () => {
    const text = stringifyNoteFile(
      [
        ['id', '0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10'],
        ['title', 'Visa rules summary'],
        ['tags', ['visa', 'travel']],
        ['created', '2026-11-22T10:30:00+01:00'],
        ['skipped', undefined],
        ['source', 'chat'],
      ],
      '- valid 90 days\n',
    );
    expect(text).toBe(
      '---\nid: 0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10\ntitle: Visa rules summary\ntags: [visa, travel]\n' +
        'created: 2026-11-22T10:30:00+01:00\nsource: chat\n---\n- valid 90 days\n',
    );
  });

  it('quotes what YAML (or a YAML 1.1 reader) would misread, and reads back the same values', () => {
    const fields: Array<[string, unknown]> = [
      ['colon', 'Re: visa'],
      ['hash', '#not-a-comment'],
      ['bracket', '[draft] plan'],
      ['quote', '"quoted" and \'single\''],
      ['bool', 'true'],
      ['yes', 'yes'],
      ['off', 'Off'],
      ['number', '42'],
      ['time', '12:30'],
      ['nulls', 'null'],
      ['empty', ''],
      ['spaces', '  padded  '],
      ['multi', 'line one\nline two'],
      ['control', 'bell\u0007tab\tend'],
      ['unicode', 'Überweisung 🏦'],
      ['long', 'word '.repeat(100).trim()],
      ['list', ['a b', 'yes', 3, true, null]],
      ['nested', { deep: [{ x: 1 }] }],
      ['date', new Date(Date.UTC(2026, 10, 22, 9, 30))],
    ];
    const text = stringifyNoteFile(fields, 'body');
    expect(text).toMatch(/\nbool: "true"\n/);
    expect(text).toMatch(/\nyes: "yes"\n/);
    expect(text).toMatch(/\ntime: "12:30"\n/);
    expect(text).toMatch(/\ndate: 2026-11-22T09:30:00.000Z\n/);
    expect(text).not.toMatch(/word\nword/);
    const expected = Object.fromEntries(
      fields.map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
    );
    expect(parsedData(text)).toEqual(expected);
  });

  it('writes an empty block for no fields and honours CRLF', () => {
    expect(stringifyNoteFile([], 'x')).toBe('---\n---\nx');
    expect(stringifyNoteFile([['a', 1]], 'x\r\n', { lineEnding: '\r\n' })).toBe(
      '---\r\na: 1\r\n---\r\nx\r\n',
    );
  });

  it.each([
    ['a function', [['f', () => 1]]],
    ['a symbol', [['s', Symbol('x')]]],
    ['a bigint', [['b', 10n]]],
    ['an invalid date', [['d', new Date(Number.NaN)]]],
    ['a Map', [['m', new Map()]]],
    ['an empty key', [['', 1]]],
    ['a key with a newline', [['a\nb', 1]]],
    [
      'a repeated key',
      [
        ['a', 1],
        ['a', 2],
      ],
    ],
  ] as Array<[string, Array<[string, unknown]>]>)(
    'throws a FrontMatterValueError for %s',
    (_name, fields) => {
      expect(() => stringifyNoteFile(fields, '')).toThrow(FrontMatterValueError);
    },
  );

  it('throws on a cyclic value, naming the field', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stringifyNoteFile([['loop', cyclic]], '')).toThrow(/"loop".*cycle/);
  });
});

describe('updateFrontMatter', () => {
  const note =
    '---\n# Reminder written by hand\ntitle: Call the bank   # who\ntags:\n  - money\n  - calls\n' +
    "status: 'active'\nrepeat: FREQ=WEEKLY;BYDAY=MO        # optional\ncustom: keep me\n---\n\nBody  \n\n";

  it('returns the same bytes when nothing changes', () => {
    expect(updated(note, {})).toBe(note);
  });

  it('changes one key in place and keeps comments, quoting and other keys', () => {
    const result = updated(note, { status: 'done' });
    expect(result).toBe(note.replace("status: 'active'", "status: 'done'"));
  });

  it('keeps a trailing comment on a changed line', () => {
    expect(updated(note, { repeat: 'FREQ=DAILY' })).toBe(
      note.replace(
        'repeat: FREQ=WEEKLY;BYDAY=MO        # optional',
        'repeat: FREQ=DAILY        # optional',
      ),
    );
  });

  it('rewrites a block list as a block list', () => {
    expect(updated(note, { tags: ['money', 'bank'] })).toBe(
      note.replace('  - money\n  - calls\n', '  - money\n  - bank\n'),
    );
  });

  it('deletes a key with its lines only', () => {
    expect(updated(note, { tags: undefined })).toBe(
      note.replace('tags:\n  - money\n  - calls\n', ''),
    );
    expect(updated(note, { missing: undefined })).toBe(note);
  });

  it('appends new keys at the end of the block, and set-then-delete restores the bytes', () => {
    const added = updated(note, { snoozed_until: '2026-11-23T17:15:00+01:00', done: true });
    expect(added).toBe(
      note.replace(
        'custom: keep me\n',
        'custom: keep me\nsnoozed_until: 2026-11-23T17:15:00+01:00\ndone: true\n',
      ),
    );
    expect(updated(added, { snoozed_until: undefined, done: undefined })).toBe(note);
  });

  it('preserves CRLF line ends and the BOM', () => {
    const crlf = '\uFEFF---\r\ntitle: A\r\nlist:\r\n  - x\r\n---\r\nBody\r\n';
    const result = updated(crlf, { title: 'B', list: ['w', 'z'], added: 1 });
    expect(result).toBe(
      '\uFEFF---\r\ntitle: B\r\nlist:\r\n  - w\r\n  - z\r\nadded: 1\r\n---\r\nBody\r\n',
    );
    expect(updated(updated(crlf, { extra: 'x' }), { extra: undefined })).toBe(crlf);
  });

  it('adds a block to a file without front matter, keeping BOM and line ends', () => {
    expect(updated('Body\n', { title: 'T' })).toBe('---\ntitle: T\n---\nBody\n');
    expect(updated('\uFEFFBody\r\nmore', { a: 1 })).toBe(
      '\uFEFF---\r\na: 1\r\n---\r\nBody\r\nmore',
    );
    expect(updated('Body', { a: undefined })).toBe('Body');
    expect(updated('', { a: 'x' })).toBe('---\na: x\n---\n');
  });

  it('fills an empty or comment-only block', () => {
    expect(updated('---\n---\nbody', { a: 1 })).toBe('---\na: 1\n---\nbody');
    expect(updated('---\n# c\n---\nbody', { a: 1 })).toBe('---\n# c\na: 1\n---\nbody');
  });

  it('rewrites JSON front matter as YAML, as Obsidian does', () => {
    const result = updated('---\n{"tags": ["journal"], "publish": false}\n---\nbody', {
      publish: true,
    });
    expect(result).toBe('---\n"tags": ["journal"]\n"publish": true\n---\nbody');
  });

  it('changes a value whose key had none, and one with a multi-line block scalar', () => {
    expect(updated('---\nlast:\nnext: 1\n---\n', { last: 'x' })).toBe(
      '---\nlast: x\nnext: 1\n---\n',
    );
    expect(updated('---\nnote: |\n  one\n  two\n\nnext: 1\n---\n', { note: 'short' })).toBe(
      '---\nnote: short\n\nnext: 1\n---\n',
    );
  });

  it('refuses to touch broken YAML and never returns partial text', () => {
    const broken = '---\ntitle: x\ntitle: y\n---\nbody';
    const result = updateFrontMatter(broken, { status: 'done' });
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty('text');
    if (!result.ok) expect(result.error.line).toBe(3);
    expect(updateFrontMatter('---\n- a\n---\n', {}).ok).toBe(false);
  });

  it('refuses values and keys it cannot write, naming the field', () => {
    const bad = updateFrontMatter(note, { when: () => 1 });
    expect(bad).toMatchObject({ ok: false, error: { field: 'when' } });
    expect(updateFrontMatter(note, { 'a\nb': 1 })).toMatchObject({
      ok: false,
      error: { field: 'a\nb' },
    });
  });

  it('keeps every body byte, including a body that looks like front matter', () => {
    const text = '---\na: 1\n---\n---\nb: 2\n---\n\u0000\u001b weird \r\n\n';
    expect(updated(text, { a: 2 })).toBe(text.replace('a: 1', 'a: 2'));
  });

  it('edits the DESIGN reminder note the way the scheduler does (done, snooze, unsnooze)', () => {
    const reminder = [
      '---',
      'id: 5b0e2c1a-0000-4000-8000-000000000000',
      'type: reminder',
      'title: Call the bank',
      'due: 2026-11-23T17:00:00+01:00',
      'timezone: Europe/Berlin',
      'repeat: FREQ=WEEKLY;BYDAY=MO        # optional RFC 5545 RRULE, expanded in `timezone`',
      'status: active                      # active | done | cancelled',
      'created: 2026-11-22T10:31:00+01:00',
      '---',
      'Optional body; a link back to where it came from: [[Meeting 2026-11-22]]',
      '',
    ].join('\n');
    const snoozed = updated(reminder, { snoozed_until: '2026-11-23T17:15:00+01:00' });
    expect(snoozed).toBe(
      reminder.replace(
        'created: 2026-11-22T10:31:00+01:00\n',
        'created: 2026-11-22T10:31:00+01:00\nsnoozed_until: 2026-11-23T17:15:00+01:00\n',
      ),
    );
    const done = updated(snoozed, { status: 'done', snoozed_until: undefined });
    expect(done).toBe(
      reminder.replace(
        'status: active                      #',
        'status: done                      #',
      ),
    );
    const data = parsedData(done);
    expect(data).toMatchObject({ status: 'done', due: '2026-11-23T17:00:00+01:00' });
    expect(data).not.toHaveProperty('snoozed_until');
  });

  it('treats __proto__ and constructor as ordinary keys, never touching prototypes', () => {
    const text = stringifyNoteFile(
      [
        ['__proto__', 'x'],
        ['constructor', 1],
      ],
      '',
    );
    expect(text).toBe('---\n__proto__: x\nconstructor: 1\n---\n');
    const data = parsedData(text);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__', 'constructor']);
    const changes = JSON.parse('{"__proto__": "z"}') as Record<string, unknown>;
    expect(updated(text, changes)).toBe('---\n__proto__: z\nconstructor: 1\n---\n');
    expect(({} as Record<string, unknown>).z).toBeUndefined();
  });

  it('refuses, without throwing, a change that would orphan a YAML alias', () => {
    const text = '---\nbase: &b hello\ncopy: *b\nlist: &l [1, 2]\nother: *l\n---\nbody\n';
    for (const change of [{ base: 'x' }, { base: undefined }, { list: undefined }]) {
      expect(updateFrontMatter(text, change)).toMatchObject({
        ok: false,
        error: { message: /anchor/ },
      });
    }
    expect(updated(text, { copy: 'z' })).toBe(text.replace('copy: *b', 'copy: z'));
  });

  it('keeps strings as strings when values look like other types', () => {
    const result = updated('---\na: 1\n---\n', {
      a: 'true',
      b: '2026-03-30 09:00:00',
      c: '007',
      d: 'on',
    });
    expect(parsedData(result)).toEqual({ a: 'true', b: '2026-03-30 09:00:00', c: '007', d: 'on' });
  });
});
