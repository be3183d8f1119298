import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../shared/markdown/line-diff';

/* The dry run's diff (docs/clients.md "Dry run"): the hunks `diff -u` prints. */

describe('unifiedDiff', () => {
  const before = ['# Garden', '', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', ''].join(
    '\n',
  );

  it('an append: one hunk with three lines of context, numbered as diff -u does', () => {
    const after = `${before}compost the leaves\n`;
    expect(unifiedDiff('Garden.md', before, after)).toBe(
      [
        '--- a/Garden.md',
        '+++ b/Garden.md',
        '@@ -7,3 +7,4 @@',
        ' five',
        ' six',
        ' seven',
        '+compost the leaves',
        '',
      ].join('\n'),
    );
  });

  it('a change in the middle: removed and added lines with context both sides', () => {
    const after = before.replace('four', 'FOUR');
    expect(unifiedDiff('Garden.md', before, after)).toBe(
      [
        '--- a/Garden.md',
        '+++ b/Garden.md',
        '@@ -3,7 +3,7 @@',
        ' one',
        ' two',
        ' three',
        '-four',
        '+FOUR',
        ' five',
        ' six',
        ' seven',
        '',
      ].join('\n'),
    );
  });

  it('a new file from /dev/null, a removal to /dev/null, nothing for equal texts', () => {
    expect(unifiedDiff('New.md', null, 'a\nb\n')).toBe(
      '--- /dev/null\n+++ b/New.md\n@@ -0,0 +1,2 @@\n+a\n+b\n',
    );
    expect(unifiedDiff('Old.md', 'a\n', null)).toBe(
      '--- a/Old.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n',
    );
    expect(unifiedDiff('Same.md', before, before)).toBe('');
  });
});
