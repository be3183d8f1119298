import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeLines } from '../../../shared/markdown/merge-lines';

/*
 * Properties of the three-way merge that Cairn Sync relies on (DESIGN §9): the companion merges
 * every device's commit with it, so a wrong answer here is a lost or invented line on every
 * device. Seeds are fixed so a run is reproducible; a failure prints its seed and shrunk case,
 * which then becomes a plain test in merge-lines.test.ts.
 */

const RUNS = 400;

/** Lines drawn from a tiny alphabet, so the three texts share (and repeat) many lines. */
const fewLines = fc.array(fc.constantFrom('a', 'b', 'c', '', '- [ ] task', '# h'), {
  maxLength: 12,
});

/** A text from lines: `\n` or `\r\n` endings, with or without a newline after the last line. */
function textOf(lines: readonly string[], crlf: boolean, finalNewline: boolean): string {
  if (lines.length === 0) return '';
  const end = crlf ? '\r\n' : '\n';
  return lines.join(end) + (finalNewline ? end : '');
}

const text = fc
  .tuple(fewLines, fc.boolean(), fc.boolean())
  .map(([lines, crlf, finalNewline]) => textOf(lines, crlf, finalNewline));

/** A base and two edits of it made by changing, deleting and inserting some of its lines. */
const related = fc
  .tuple(fewLines, fc.boolean(), fc.array(fc.nat(), { minLength: 24, maxLength: 24 }))
  .map(([lines, finalNewline, dice]) => {
    let roll = 0;
    const next = (): number => dice[roll++ % dice.length] as number;
    const edit = (): string[] => {
      const out: string[] = [];
      for (const line of lines) {
        const choice = next() % 6;
        if (choice === 0) continue; // deleted
        if (choice === 1)
          out.push(`${line}!`); // changed
        else out.push(line);
        if (choice === 2) out.push('new'); // inserted after it
      }
      return out;
    };
    return {
      base: textOf(lines, false, finalNewline),
      ours: textOf(edit(), false, finalNewline),
      theirs: textOf(edit(), false, finalNewline),
    };
  });

const threeTexts = fc.oneof(fc.record({ base: text, ours: text, theirs: text }), related);

/** The lines of a text without their terminators (a final newline adds no empty line). */
function linesOf(value: string): string[] {
  if (value === '') return [];
  return value.replace(/\r?\n$/, '').split(/\r?\n/);
}

describe('mergeLines properties', () => {
  it('gives the same answer for the same inputs', () => {
    fc.assert(
      fc.property(threeTexts, ({ base, ours, theirs }) => {
        const first = mergeLines(base, ours, theirs);
        // Fresh string copies: nothing may depend on identity or on an earlier call.
        const again = mergeLines(base.slice(), ours.slice(), theirs.slice());
        expect(again).toEqual(first);
      }),
      { seed: 2301, numRuns: RUNS },
    );
  });

  it('merge(base, a, a) is a', () => {
    fc.assert(
      fc.property(text, text, (base, a) => {
        expect(mergeLines(base, a, a)).toEqual({ clean: true, text: a });
      }),
      { seed: 2302, numRuns: RUNS },
    );
  });

  it('merge(base, base, x) and merge(base, x, base) are x', () => {
    fc.assert(
      fc.property(text, text, (base, x) => {
        expect(mergeLines(base, base, x)).toEqual({ clean: true, text: x });
        expect(mergeLines(base, x, base)).toEqual({ clean: true, text: x });
      }),
      { seed: 2303, numRuns: RUNS },
    );
  });

  it('puts no line in a clean merge that none of the three inputs has', () => {
    fc.assert(
      fc.property(threeTexts, ({ base, ours, theirs }) => {
        const merged = mergeLines(base, ours, theirs);
        if (!merged.clean) return;
        const known = new Set([...linesOf(base), ...linesOf(ours), ...linesOf(theirs)]);
        for (const line of linesOf(merged.text)) expect(known).toContain(line);
      }),
      { seed: 2304, numRuns: RUNS * 5 },
    );
  });

  it('keeps all edits that do not overlap, and each side’s edits exactly', () => {
    fc.assert(
      fc.property(disjointEdits, ({ base, ours, theirs, expected }) => {
        expect(mergeLines(base, ours, theirs)).toEqual({ clean: true, text: expected });
        expect(mergeLines(base, theirs, ours).clean).toBe(true);
      }),
      { seed: 2306, numRuns: RUNS * 2 },
    );
  });
});

/**
 * A base of distinct lines cut into blocks; each block is left alone or rewritten by one side
 * (replaced by 0-3 lines of its own, or, with no base lines, an insertion). Blocks edited by
 * different sides are separated by at least one untouched line: that is what "do not overlap"
 * means for a line merge (diff3 treats edits touching the same or adjacent lines as one).
 */
const block = fc.record({
  owner: fc.constantFrom('none', 'ours', 'theirs'),
  baseLines: fc.nat({ max: 3 }),
  newLines: fc.nat({ max: 3 }),
});

const disjointEdits = fc
  .tuple(fc.array(block, { maxLength: 10 }), fc.boolean())
  .map(([blocks, crlf]) => {
    const end = crlf ? '\r\n' : '\n';
    const base: string[] = [];
    const ours: string[] = [];
    const theirs: string[] = [];
    const expected: string[] = [];
    let fresh = 0;
    let lastEditor: 'ours' | 'theirs' | null = null;
    const untouched = (count: number): void => {
      for (let index = 0; index < count; index++) {
        const line = `base ${base.length}`;
        base.push(line);
        ours.push(line);
        theirs.push(line);
        expected.push(line);
      }
      if (count > 0) lastEditor = null;
    };
    for (const { owner, baseLines, newLines } of blocks) {
      if (owner === 'none') {
        untouched(Math.max(1, baseLines));
        continue;
      }
      if (baseLines + newLines === 0) continue;
      if (lastEditor !== null && lastEditor !== owner) untouched(1);
      const replaced: string[] = [];
      for (let index = 0; index < baseLines; index++) replaced.push(`base ${base.length + index}`);
      const written: string[] = [];
      for (let index = 0; index < newLines; index++) written.push(`${owner} ${fresh++}`);
      base.push(...replaced);
      (owner === 'ours' ? ours : theirs).push(...written);
      (owner === 'ours' ? theirs : ours).push(...replaced);
      expected.push(...written);
      lastEditor = owner;
    }
    const join = (lines: readonly string[]): string => lines.map((line) => line + end).join('');
    return {
      base: join(base),
      ours: join(ours),
      theirs: join(theirs),
      expected: join(expected),
    };
  });
