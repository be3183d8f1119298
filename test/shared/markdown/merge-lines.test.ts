import { describe, expect, it } from 'vitest';
import { insertsInto, mergeLines } from '../../../shared/markdown/merge-lines';

const base = '---\nid: 1\nstatus: active\n---\nfirst\nsecond\nthird\n';

describe('mergeLines', () => {
  it('combines changes to different lines', () => {
    const ours = base.replace('status: active', 'status: done');
    const theirs = `${base}appended\n`;
    expect(mergeLines(base, ours, theirs)).toEqual({
      clean: true,
      text: '---\nid: 1\nstatus: done\n---\nfirst\nsecond\nthird\nappended\n',
    });
  });

  it('combines an insertion in the middle with a deletion elsewhere', () => {
    const ours = base.replace('first\n', 'first\ninserted\n');
    const theirs = base.replace('third\n', '');
    expect(mergeLines(base, ours, theirs)).toEqual({
      clean: true,
      text: '---\nid: 1\nstatus: active\n---\nfirst\ninserted\nsecond\n',
    });
  });

  it('takes a change both sides made identically once', () => {
    const both = base.replace('second', 'SECOND');
    expect(mergeLines(base, both, both)).toEqual({ clean: true, text: both });
  });

  it('reports a conflict when both change the same line differently', () => {
    const result = mergeLines(
      base,
      base.replace('second', 'mine'),
      base.replace('second', 'yours'),
    );
    expect(result).toEqual({
      clean: false,
      reason: 'both versions changed the text at line 6 of the version read',
    });
  });

  it('keeps both when both only add lines at the same spot, theirs first', () => {
    expect(mergeLines(base, `${base}ours\n`, `${base}theirs\n`)).toEqual({
      clean: true,
      text: `${base}theirs\nours\n`,
    });
  });

  it('reports a conflict when one changes lines the other replaced', () => {
    const ours = base.replace('second\n', 'second\nmore\n').replace('first', 'FIRST');
    const theirs = base.replace('first\nsecond\n', 'rewritten\n');
    expect(mergeLines(base, ours, theirs).clean).toBe(false);
  });

  it('ends their added last line before ours when both append to a file without a final newline', () => {
    // Found by the property test: `a` and `a` ran together into `aa`, a line nobody wrote.
    expect(mergeLines('', 'a', 'a\na')).toEqual({ clean: true, text: 'a\na\na' });
    expect(mergeLines('x\r\n', 'x\r\nours', 'x\r\ntheirs')).toEqual({
      clean: true,
      text: 'x\r\ntheirs\r\nours',
    });
  });

  it('keeps CRLF line endings and a last line without newline', () => {
    const crlf = 'a\r\nb\r\nc';
    expect(mergeLines(crlf, 'A\r\nb\r\nc', 'a\r\nb\r\nC')).toEqual({
      clean: true,
      text: 'A\r\nb\r\nC',
    });
  });
});

describe('mergeLines: changes on neighbouring lines', () => {
  const list = '- one\n- two\n- three\n- four\n';

  it('keeps both when each side changed a different, neighbouring line', () => {
    expect(
      mergeLines(list, list.replace('- two', '- [x] two'), list.replace('- three', '- [x] three')),
    ).toEqual({ clean: true, text: '- one\n- [x] two\n- [x] three\n- four\n' });
  });

  it('keeps an insertion next to the other side’s change, and a deletion next to an edit', () => {
    expect(
      mergeLines(
        list,
        list.replace('- two\n', '- two\n- two and a half\n'),
        list.replace('- three\n', ''),
      ),
    ).toEqual({ clean: true, text: '- one\n- two\n- two and a half\n- four\n' });
    expect(
      mergeLines(list, list.replace('- two\n', ''), list.replace('- three', '- THREE')),
    ).toEqual({ clean: true, text: '- one\n- THREE\n- four\n' });
  });

  it('takes a deletion the other side’s change already made as done by that change', () => {
    // One device removed a line; another removed it with the next and wrote in their place
    // (seed 1400002335): nothing of the first's is lost, so the second's change stands.
    const replaced = list.replace('- two\n- three\n', '- new\n');
    expect(mergeLines(list, list.replace('- two\n', ''), replaced)).toEqual({
      clean: true,
      text: replaced,
    });
    expect(mergeLines(list, replaced, list.replace('- three\n', ''))).toEqual({
      clean: true,
      text: replaced,
    });
    // With an insertion of the deleting side elsewhere, both are kept.
    expect(mergeLines(list, list.replace('- two\n', '').concat('- five\n'), replaced)).toEqual({
      clean: true,
      text: `${replaced}- five\n`,
    });
  });

  it('deletes both stretches when deletions overlap, each line once', () => {
    expect(
      mergeLines(list, list.replace('- two\n- three\n', ''), list.replace('- three\n- four\n', '')),
    ).toEqual({ clean: true, text: '- one\n' });
    expect(mergeLines(list, list.replace('- two\n', ''), list.replace('- two\n', ''))).toEqual({
      clean: true,
      text: '- one\n- three\n- four\n',
    });
  });

  it('still reports a conflict when a deletion of one side takes lines the other rewrote', () => {
    expect(
      mergeLines(list, list.replace('- two\n- three\n', ''), list.replace('- three', '- drei'))
        .clean,
    ).toBe(false);
  });

  it('still reports a conflict when a line is changed by both, or an insertion lands inside a change', () => {
    expect(
      mergeLines(
        list,
        list.replace('- two\n- three', '- 2\n- 3'),
        list.replace('- three', '- drei'),
      ).clean,
    ).toBe(false);
    expect(
      mergeLines(
        list,
        list.replace('- two\n- three\n', '- 2 and 3\n'),
        list.replace('- two\n', '- two\n- inserted\n'),
      ).clean,
    ).toBe(false);
  });
});

describe('insertsInto', () => {
  it('is true when the whole is the part with lines inserted anywhere', () => {
    expect(insertsInto('', 'a\n')).toBe(true);
    expect(insertsInto('a\nc\n', 'a\nb\nc\nd\n')).toBe(true);
    expect(insertsInto('a\n', 'a\n')).toBe(true);
  });

  it('is false when a line is missing, reordered or lost its line ending', () => {
    expect(insertsInto('a\nb\n', 'a\n')).toBe(false);
    expect(insertsInto('a\nb\n', 'b\na\n')).toBe(false);
    expect(insertsInto('a\nb\n', 'a\nb')).toBe(false);
    expect(insertsInto('a\nb\n', 'a\r\nb\r\n')).toBe(false);
  });
});
