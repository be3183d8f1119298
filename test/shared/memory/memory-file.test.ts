import { describe, expect, it } from 'vitest';
import {
  addMemory,
  parseMemoryFile,
  recallMemories,
  removeMemory,
  sameSubject,
} from '../../../shared/memory';

function sequence(...values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length]!;
}

const FILE = [
  '---',
  'type: memory',
  '---',
  '# Memory',
  '',
  'Some words the user wrote.',
  '- Passport expires 2031-05 (added 2026-11-20) ^m-aaaa',
  '- Dentist is Dr Lee ^m-bbbb',
  '- no id here',
  '- ',
  `- ${'x'.repeat(10_000)} ^m-long`,
  '```',
  '- in code ^m-code',
  '```',
  '',
].join('\n');

describe('parseMemoryFile', () => {
  it('reads facts with ids, dates and lines, and names odd lines as problems', () => {
    const parsed = parseMemoryFile(FILE);
    expect(parsed.memories).toEqual([
      {
        id: 'm-aaaa',
        text: 'Passport expires 2031-05',
        added: '2026-11-20',
        line: 7,
        category: 'uncategorized',
        categorySource: 'rules',
      },
      {
        id: 'm-bbbb',
        text: 'Dentist is Dr Lee',
        added: null,
        line: 8,
        category: 'people',
        categorySource: 'rules',
      },
    ]);
    expect(parsed.problems.map((p) => [p.line, p.kind])).toEqual([
      [9, 'no-block-id'],
      [10, 'empty'],
      [11, 'too-long'],
    ]);
    expect(parsed.problems[0]!.message).toContain('Cairn/Memory.md:9');
  });
});

describe('addMemory', () => {
  it('creates the file with front matter when there is none', () => {
    const result = addMemory(undefined, 'My sister is called Ana.', '2026-11-25', sequence(0.1));
    expect(result.text).toMatch(/^---\ntype: memory\n---\n/);
    expect(
      result.text.endsWith(
        `- My sister is called Ana #memory/people (added 2026-11-25) ^${result.memory.id}\n`,
      ),
    ).toBe(true);
    expect(result.memory.id).toMatch(/^m-[0-9a-z]{4}$/);
    expect(parseMemoryFile(result.text).memories).toEqual([result.memory]);
  });

  it('returns the existing fact for a duplicate and writes nothing', () => {
    const result = addMemory(FILE, 'dentist is dr lee', '2026-11-25', sequence(0.5));
    expect(result).toMatchObject({ duplicate: true, text: FILE, memory: { id: 'm-bbbb' } });
  });

  it('strikes the contradicted fact through, keeping every other byte', () => {
    const result = addMemory(FILE, 'Passport expires 2032-05', '2026-11-25', sequence(0.2));
    const id = result.memory.id;
    const lines = result.text.split('\n');
    expect(lines[6]).toBe(
      `- ~~Passport expires 2031-05 (added 2026-11-20)~~ (replaced 2026-11-25 by ^${id}) ^m-aaaa`,
    );
    expect(result.replaced.map((m) => m.id)).toEqual(['m-aaaa']);
    const before = FILE.split('\n');
    expect([...lines.slice(0, 6), ...lines.slice(7, before.length - 1)]).toEqual([
      ...before.slice(0, 6),
      ...before.slice(7, before.length - 1),
    ]);
    const parsed = parseMemoryFile(result.text);
    expect(parsed.memories.map((m) => m.text)).toEqual([
      'Dentist is Dr Lee',
      'Passport expires 2032-05',
    ]);
    expect(parsed.replaced).toMatchObject([{ id: 'm-aaaa', replacedBy: id }]);
  });

  it('keeps CRLF line endings', () => {
    const crlf = '- Likes tea (added 2026-11-01) ^m-tea1\r\n';
    const result = addMemory(crlf, 'Likes coffee', '2026-11-25', sequence(0.3));
    expect(result.text).toBe(
      `${crlf}- Likes coffee #memory/food (added 2026-11-25) ^${result.memory.id}\r\n`,
    );
  });

  it('refuses empty and oversized facts with the field', () => {
    expect(() => addMemory(undefined, '  ', '2026-11-25', Math.random)).toThrow(/empty/);
    expect(() => addMemory(undefined, 'x'.repeat(1001), '2026-11-25', Math.random)).toThrow(
      /1001 characters/,
    );
  });
});

describe('removeMemory', () => {
  it('removes only that line', () => {
    const { text, removed } = removeMemory(FILE, 'm-bbbb');
    expect(removed.text).toBe('Dentist is Dr Lee');
    const expected = FILE.split('\n');
    expected.splice(7, 1);
    expect(text).toBe(expected.join('\n'));
  });
  it('is NOT_FOUND for an unknown id', () => {
    expect(() => removeMemory(FILE, 'm-zzzz')).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
  });
});

describe('sameSubject and recall', () => {
  it('sees value changes of the same subject, not different facts', () => {
    expect(sameSubject('my passport expires 2031', 'My passport expires 2032')).toBe(true);
    expect(sameSubject('My dentist is Dr Lee', 'my dentist is Dr Kim')).toBe(true);
    expect(sameSubject('My dentist is Dr Lee', 'My sister is Ana')).toBe(false);
    expect(sameSubject('I like tea', 'I like tea')).toBe(false);
  });
  it('finds memories sharing words with the question', () => {
    const { memories } = parseMemoryFile(FILE);
    expect(recallMemories(memories, 'when do passports expire?').map((m) => m.id)).toEqual([
      'm-aaaa',
    ]);
    expect(recallMemories(memories, 'skiing')).toEqual([]);
  });
});
