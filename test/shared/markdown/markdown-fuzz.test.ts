import { describe, expect, it } from 'vitest';
import {
  parseFrontMatter,
  stringifyNoteFile,
  updateFrontMatter,
} from '../../../shared/markdown/front-matter';
import { locateFrontMatter } from '../../../shared/markdown/front-matter-fence';
import { appendToNoteBody, buildNoteFile } from '../../../shared/markdown/note-file';
import { extractNoteMeta, readNoteMeta } from '../../../shared/markdown/note-meta';
import { slugify, uniqueNotePath } from '../../../shared/markdown/slug';
import { FrontMatterValueError } from '../../../shared/markdown/yaml-values';
import { findInlineTags } from '../../../shared/markdown/tags';

/** mulberry32: small, seeded, good enough to explore inputs reproducibly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'title',
  'tags',
  'aliases',
  'id',
  'a',
  'key with space',
  '__proto__',
  'constructor',
  ': ',
  ':',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '\n  ',
  '\n- ',
  '- ',
  '---',
  '...',
  '---\n',
  '#',
  ' # comment',
  '#tag',
  '[',
  ']',
  '{',
  '}',
  ',',
  '"',
  "'",
  '\\',
  '|',
  '>',
  '|-',
  '&a ',
  '*a',
  '*b',
  '!!str ',
  '!custom ',
  '? ',
  '%YAML 1.2',
  '2026-03-30 09:00:00',
  'yes',
  'null',
  '~',
  '0x1F',
  '.inf',
  '`',
  '```',
  '~~~',
  '%%',
  '[[Note#H]]',
  'https://x.org/#a',
  'Ü',
  '日本',
  '🚀',
  '\u200d',
  '\uFEFF',
  '\u0000',
  '\u0007',
  '\u001b',
  '\u2028',
  '\ud800',
  'x'.repeat(10_000),
  'word ',
];

function randomText(random: () => number, maxPieces: number): string {
  const count = Math.floor(random() * maxPieces);
  let text = random() < 0.6 ? '---\n' : '';
  for (let index = 0; index < count; index += 1) {
    text += PIECES[Math.floor(random() * PIECES.length)] ?? '';
    if (random() < 0.05) text += '\n---\n';
  }
  return text;
}

const ROUNDS = 250;

const KEYS = [
  'title',
  'tags',
  'aliases',
  'status',
  'due',
  'n',
  '"quoted key"',
  'with space',
  'ünï',
  '1',
];
const VALUES = [
  '',
  ' plain text',
  ' "double # quoted"',
  " 'single'",
  ' 2026-03-30 09:00:00',
  ' yes',
  ' 12',
  ' 1.5',
  ' [a, b]',
  ' []',
  ' {x: 1}',
  '\n  - one\n  - two',
  '\n- unindented\n- list',
  ' |\n  block\n\n  text',
  ' >-\n  folded\n  text',
  ' value # comment',
  ' &a anchored',
  ' *a',
  '\n  nested: 1\n  deep: [x]',
  ' ~',
  ' "multi\n  line"',
  ' x'.repeat(3000),
  ' "\\u0007 escaped"',
  ' 🚀 emoji',
];

/** Front matter that is mostly valid YAML, so edits are exercised, with the odd mutation. */
function randomFrontMatter(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const used = new Set<string>();
  const lines: string[] = [];
  const count = Math.floor(random() * 7);
  for (let index = 0; index < count; index += 1) {
    const key = pick(KEYS);
    if (used.has(key) && random() < 0.9) continue;
    used.add(key);
    if (random() < 0.15) lines.push('# a comment line');
    if (random() < 0.1) lines.push('');
    lines.push(`${key}:${pick(VALUES)}`);
  }
  let yaml = lines.join('\n');
  if (random() < 0.15) {
    const at = Math.floor(random() * (yaml.length + 1));
    yaml = yaml.slice(0, at) + pick(PIECES.filter((piece) => piece.length < 100)) + yaml.slice(at);
  }
  const eol = random() < 0.25 ? '\r\n' : '\n';
  const bom = random() < 0.1 ? '\uFEFF' : '';
  const body = random() < 0.5 ? 'Body #tag\n---\nmore\n' : '';
  return `${bom}---\n${yaml}${yaml === '' ? '' : '\n'}---\n${body}`.replace(/\r?\n/g, eol);
}

describe('fuzz: no parser throws, edits keep the body', () => {
  it('parseFrontMatter, extractNoteMeta, findInlineTags, slugify and appendToNoteBody never throw', () => {
    const random = seededRandom(20261122);
    for (let round = 0; round < ROUNDS; round += 1) {
      const text = randomText(random, 40);
      const context = JSON.stringify(text.slice(0, 200));
      const parsed = parseFrontMatter(text);
      expect(typeof parsed.body, context).toBe('string');
      expect(text.endsWith(parsed.body), context).toBe(true);
      if (!parsed.ok) {
        expect(parsed.error.line, context).toBeGreaterThanOrEqual(2);
        expect(parsed.error.line, context).toBeLessThan(parsed.bodyStartLine);
      }
      const data = parsed.ok ? parsed.data : {};
      expect(
        () => readNoteMeta({ path: 'f/x.md', data, body: parsed.body }),
        context,
      ).not.toThrow();
      expect(() => findInlineTags(text), context).not.toThrow();
      expect(slugify(text.slice(0, 300)), context).not.toBe('');
      const appended = appendToNoteBody(text, 'added line');
      expect(appended.startsWith(text), context).toBe(true);
    }
  });

  it('updateFrontMatter never throws and, when it succeeds, keeps the body and reads back the change', () => {
    const random = seededRandom(42);
    for (let round = 0; round < ROUNDS; round += 1) {
      const text = round % 4 === 0 ? randomText(random, 30) : randomFrontMatter(random);
      const context = JSON.stringify(text.slice(0, 200));
      const before = parseFrontMatter(text);
      const value = random() < 0.5 ? 'value: with colon #x' : ['a', 'b c', 'yes'];
      const changes: Record<string, unknown> = { cairn_key: value, title: undefined };
      const existing = before.ok ? Object.keys(before.data) : [];
      const victim = existing[Math.floor(random() * existing.length)];
      // Keys Cairn refuses to write (empty, padded, control characters) are tested elsewhere.
      const writable =
        victim !== undefined && /^\S(?:.*\S)?$/.test(victim) && !/\p{Cc}/u.test(victim);
      if (writable && victim !== 'cairn_key' && victim !== 'title') {
        changes[victim] = random() < 0.5 ? undefined : 'replaced';
      }
      const result = updateFrontMatter(text, changes);
      if (!before.ok) {
        expect(result.ok, context).toBe(false);
        continue;
      }
      if (!result.ok) {
        // The one refusal allowed on valid YAML: a change that would orphan an alias.
        expect(result.error.message, context).toMatch(/anchor/);
        expect(text, context).toMatch(/&a/);
        continue;
      }
      const after = parseFrontMatter(result.text);
      expect(after.ok, context).toBe(true);
      if (!after.ok) continue;
      expect(after.data.cairn_key, context).toEqual(value);
      expect(after.data).not.toHaveProperty('title');
      if (before.hasFrontMatter) expect(after.body, context).toBe(before.body);
      else expect(result.text.endsWith(text.replace(/^\uFEFF/, '')), context).toBe(true);
      const expected = Object.fromEntries(
        Object.entries({ ...before.data, ...changes }).filter(([, item]) => item !== undefined),
      );
      expect(after.data, context).toEqual(expected);
    }
  });

  it('stringifyNoteFile output always reads back to the same fields and body', () => {
    const random = seededRandom(7);
    const valuePieces = PIECES.filter((piece) => piece.length < 100);
    const randomString = () =>
      Array.from(
        { length: Math.floor(random() * 6) },
        () => valuePieces[Math.floor(random() * valuePieces.length)],
      ).join('');
    for (let round = 0; round < ROUNDS / 2; round += 1) {
      const fields: Array<[string, unknown]> = [
        ['title', randomString()],
        ['tags', [randomString(), randomString()]],
        ['count', Math.floor(random() * 1e6) / 100],
        ['flag', random() < 0.5],
        ['nested', { inner: randomString(), list: [randomString(), null] }],
      ];
      const body = randomString();
      const text = stringifyNoteFile(fields, body);
      const parsed = parseFrontMatter(text);
      const context = JSON.stringify(text.slice(0, 300));
      expect(parsed.ok, context).toBe(true);
      if (!parsed.ok) continue;
      expect(parsed.data, context).toEqual(Object.fromEntries(fields));
      expect(parsed.body, context).toBe(body);
    }
  });

  it('set then delete of a new key restores the bytes of random valid front matter', () => {
    const random = seededRandom(99);
    const lines = [
      'title: Hello',
      'tags:\n  - a\n  - b',
      'tags: [x, y]',
      '# comment',
      '',
      'empty:',
      'q: "quoted # x"',
      'block: |\n  one\n  two',
      'folded: >\n  one\n  two\n',
      'n: 3 # trailing',
      'nested:\n  a: 1\n  b: [1, 2]',
      'long: ' + 'z'.repeat(10_000),
      'ctrl: "\\u0007"',
    ];
    for (let round = 0; round < 120; round += 1) {
      const chosen = new Map<string, string>();
      for (let index = 0; index < 6; index += 1) {
        const line = lines[Math.floor(random() * lines.length)] ?? '';
        chosen.set(line.split(':')[0] ?? line, line);
      }
      const eol = random() < 0.3 ? '\r\n' : '\n';
      const text = `---\n${[...chosen.values()].join('\n')}\n---\nBody #tag\n`.replace(/\n/g, eol);
      const added = updateFrontMatter(text, { zz_probe: 'x', zz_list: ['p', 'q'] });
      expect(added.ok, text).toBe(true);
      if (!added.ok) continue;
      expect(added.text.includes('\r\n') ? !/[^\r]\n/.test(added.text) : true, added.text).toBe(
        true,
      );
      expect(updateFrontMatter(added.text, { zz_probe: undefined, zz_list: undefined })).toEqual({
        ok: true,
        text,
      });
    }
  });
});

describe('fuzz: note files', () => {
  const shortPieces = PIECES.filter((piece) => piece.length < 100);

  it('buildNoteFile either refuses a title with FrontMatterValueError or writes one that reads back', () => {
    const random = seededRandom(5);
    let written = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const title = Array.from(
        { length: 1 + Math.floor(random() * 5) },
        () => shortPieces[Math.floor(random() * shortPieces.length)],
      ).join('');
      let text: string;
      try {
        text = buildNoteFile({
          id: 'x',
          title,
          tags: ['t'],
          created: '2026-11-22T10:30:00+01:00',
          body: title,
        });
      } catch (error) {
        expect(error, JSON.stringify(title)).toBeInstanceOf(FrontMatterValueError);
        continue;
      }
      written += 1;
      const parsed = parseFrontMatter(text);
      expect(parsed.ok && parsed.data.title, JSON.stringify(title)).toBe(title.trim());
      const path = uniqueNotePath(
        'Notes',
        title,
        () => false,
        () => 'abcd',
      );
      expect(path).toMatch(/^Notes\/[^\\/:*?"<>|#^[\]\s]+\.md$/u);
    }
    expect(written).toBeGreaterThan(ROUNDS / 4);
  });

  it('appendToNoteBody keeps the front matter and all earlier bytes, and ends with the addition', () => {
    const random = seededRandom(11);
    for (let round = 0; round < ROUNDS; round += 1) {
      const text = round % 2 === 0 ? randomFrontMatter(random) : randomText(random, 20);
      const addition = shortPieces[Math.floor(random() * shortPieces.length)] ?? '';
      const result = appendToNoteBody(text, addition);
      const context = JSON.stringify([text.slice(0, 200), addition]);
      expect(result.startsWith(text), context).toBe(true);
      const before = parseFrontMatter(text);
      const after = parseFrontMatter(result);
      expect(after.ok, context).toBe(before.ok);
      expect(after.ok && after.hasFrontMatter, context).toBe(before.ok && before.hasFrontMatter);
      if (before.ok && after.ok) expect(after.data, context).toEqual(before.data);
      const trimmed = addition
        .replace(/\r\n?/g, '\n')
        .replace(/^(?:[ \t]*\n)+/, '')
        .trimEnd();
      if (trimmed === '') expect(result, context).toBe(text);
      else {
        const unclosed =
          locateFrontMatter(text) === null &&
          (/^\uFEFF?---[ \t]*\r?\n/.test(text) || text.replace('\uFEFF', '') === '');
        const tail = unclosed ? trimmed.replace(/^---[ \t]*$/gm, '***') : trimmed;
        expect(result.replace(/\r\n/g, '\n').endsWith(`${tail}\n`), context).toBe(true);
      }
    }
  });
});

describe('large and hostile input', () => {
  it('handles 10 kB lines and a 2 MB body', () => {
    const longLine = 'word '.repeat(2_000);
    const text = `---\ntitle: ${longLine}\ntags: [a]\n---\n${`${longLine} #tag\n`.repeat(400)}`;
    const parsed = parseFrontMatter(text);
    expect(parsed.ok && parsed.data.title).toBe(longLine.trim());
    expect(
      extractNoteMeta({ path: 'x.md', data: parsed.ok ? parsed.data : {}, body: parsed.body }).tags,
    ).toEqual(['a', 'tag']);
    const changed = updateFrontMatter(text, { title: 'short' });
    expect(changed).toEqual({
      ok: true,
      text: text.replace(`title: ${longLine}\n`, 'title: short\n'),
    });
  });

  it('reports absurd nesting as an error instead of overflowing the stack', () => {
    // Where the stack ends depends on the runtime; what matters is that nothing throws.
    const depth = 5_000;
    const nested = [
      `a: ${'['.repeat(depth)}${']'.repeat(depth)}`,
      `a: ${'{x: '.repeat(depth)}1${'}'.repeat(depth)}`,
    ];
    for (const yaml of nested) {
      const text = `---\n${yaml}\n---\nbody`;
      const parsed = parseFrontMatter(text);
      expect(parsed.body).toBe('body');
      if (!parsed.ok) expect(parsed.error).toMatchObject({ line: 2, message: /nested too deeply/ });
      expect(() => updateFrontMatter(text, { b: 1 })).not.toThrow();
    }
  });

  it('an unclosed fence with a huge body is body text, found in linear time', () => {
    const text = `---\n${'- item\n'.repeat(100_000)}`;
    const parsed = parseFrontMatter(text);
    expect(parsed.ok && parsed.hasFrontMatter).toBe(false);
    expect(parsed.body).toBe(text);
  });

  it('reports control characters YAML forbids as an error on their line', () => {
    for (const character of ['\u0000', '\u0007', '\u001b', '\u007f', '\u0090', '\uffff']) {
      const result = parseFrontMatter(`---\ntitle: ok\nbad: a${character}b\n---\nbody`);
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.error).toMatchObject({ line: 3, column: 7, message: /control character/ });
    }
    expect(parseFrontMatter('---\ntab:\t"x\ty"\r\nnel: "\u0085"\n---\n').ok).toBe(true);
  });
});
