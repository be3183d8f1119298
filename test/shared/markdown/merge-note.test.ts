import { describe, expect, it } from 'vitest';
import { mergeNote } from '../../../shared/markdown/merge-note';

const base =
  '---\ntitle: Trip\nstatus: open\npriority: low\ntags: [travel]\n---\n# Trip\n\none\ntwo\nthree\n';

describe('mergeNote', () => {
  it('keeps changes of different keys on neighbouring lines', () => {
    const ours = base.replace('status: open', 'status: done');
    const theirs = base.replace('priority: low', 'priority: high');
    expect(mergeNote(base, ours, theirs)).toEqual({
      clean: true,
      text: base.replace('status: open', 'status: done').replace('priority: low', 'priority: high'),
    });
  });

  it('combines a key change on one side with body changes on the other', () => {
    const ours = base.replace('priority: low', 'priority: high').replace('three', 'THREE');
    const theirs = base.replace('status: open', 'status: done').replace('one', 'ONE');
    const merged = mergeNote(base, ours, theirs);
    expect(merged).toEqual({
      clean: true,
      text: base
        .replace('priority: low', 'priority: high')
        .replace('status: open', 'status: done')
        .replace('one', 'ONE')
        .replace('three', 'THREE'),
    });
  });

  it('adds keys both sides added, and removes a key one side removed', () => {
    const ours = base.replace('tags: [travel]\n', 'tags: [travel]\nowner: me\n');
    const theirs = base
      .replace('title: Trip\n', '')
      .replace('tags: [travel]\n', 'tags: [travel]\ndue: 2026-12-01\n');
    const merged = mergeNote(base, ours, theirs);
    expect(merged.clean).toBe(true);
    if (!merged.clean) return;
    expect(merged.text).not.toContain('title: Trip');
    expect(merged.text).toContain('owner: me');
    expect(merged.text).toContain('due: 2026-12-01');
    expect(merged.text.endsWith('# Trip\n\none\ntwo\nthree\n')).toBe(true);
  });

  it('the same change on both sides is no conflict', () => {
    const both = base.replace('status: open', 'status: done');
    expect(mergeNote(base, both, both)).toEqual({ clean: true, text: both });
  });

  it('a key both sides set differently is a conflict naming it', () => {
    const merged = mergeNote(
      base,
      base.replace('status: open', 'status: done'),
      base.replace('status: open', 'status: waiting'),
    );
    expect(merged).toEqual({
      clean: false,
      reason: 'both versions changed the front matter key "status" differently',
    });
  });

  it('body lines both changed are a conflict even when the front matter merges', () => {
    const merged = mergeNote(
      base,
      base.replace('status: open', 'status: done').replace('two', 'two (a)'),
      base.replace('priority: low', 'priority: high').replace('two', 'two (b)'),
    );
    expect(merged.clean).toBe(false);
  });

  it('broken YAML on any side falls back to the line merge', () => {
    const broken = '---\ntitle: [unclosed\nstatus: open\n---\nbody\n';
    expect(
      mergeNote(broken, broken.replace('title', 'name'), broken.replace('status', 'state')),
    ).toEqual({
      clean: true,
      text: '---\nname: [unclosed\nstate: open\n---\nbody\n',
    });
    expect(
      mergeNote(broken, broken.replace('open', 'done'), broken.replace('open', 'waiting')).clean,
    ).toBe(false);
  });

  it('merge(b, a, a) = a, merge(b, b, x) = x, merge(b, x, b) = x', () => {
    const a = base.replace('one', 'uno');
    expect(mergeNote(base, a, a)).toEqual({ clean: true, text: a });
    expect(mergeNote(base, base, a)).toEqual({ clean: true, text: a });
    expect(mergeNote(base, a, base)).toEqual({ clean: true, text: a });
  });

  it('keeps CRLF line endings', () => {
    const crlf = base.replace(/\n/g, '\r\n');
    const merged = mergeNote(
      crlf,
      crlf.replace('status: open', 'status: done'),
      crlf.replace('priority: low', 'priority: high'),
    );
    expect(merged.clean).toBe(true);
    if (merged.clean)
      expect(merged.text).toBe(
        crlf.replace('status: open', 'status: done').replace('priority: low', 'priority: high'),
      );
  });
});
