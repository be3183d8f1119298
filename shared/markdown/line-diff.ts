/*
 * A side-by-side line diff for people (the sync conflicts view and a note's history): rows of
 * the left and right text, aligned on the lines both share (the longest common subsequence
 * that the three-way merge uses, `matchLines`). Lines are compared without their line endings.
 */
import { matchLines } from './merge-lines';

export type DiffRow =
  | { readonly kind: 'same'; readonly left: string; readonly right: string }
  /** Lines only on the left (removed on the way to the right). */
  | { readonly kind: 'left'; readonly left: string }
  /** Lines only on the right (added). */
  | { readonly kind: 'right'; readonly right: string }
  /** A left line replaced by a right line, shown on one row. */
  | { readonly kind: 'changed'; readonly left: string; readonly right: string };

export type LineDiff =
  | { readonly ok: true; readonly rows: readonly DiffRow[] }
  | { readonly ok: false; readonly reason: string };

export function sideBySideDiff(left: string, right: string): LineDiff {
  const leftLines = splitLines(left);
  const rightLines = splitLines(right);
  const match = matchLines(leftLines, rightLines);
  if (match === null) return { ok: false, reason: 'too large to compare line by line' };
  const rows: DiffRow[] = [];
  let r = 0;
  const flush = (removed: string[], added: string[]) => {
    const paired = Math.min(removed.length, added.length);
    for (let i = 0; i < paired; i++) {
      rows.push({ kind: 'changed', left: removed[i] as string, right: added[i] as string });
    }
    for (const line of removed.slice(paired)) rows.push({ kind: 'left', left: line });
    for (const line of added.slice(paired)) rows.push({ kind: 'right', right: line });
  };
  let removed: string[] = [];
  for (let l = 0; l < leftLines.length; l++) {
    const at = match[l] ?? -1;
    if (at < 0) {
      removed.push(leftLines[l] as string);
      continue;
    }
    flush(removed, rightLines.slice(r, at));
    removed = [];
    rows.push({ kind: 'same', left: leftLines[l] as string, right: rightLines[at] as string });
    r = at + 1;
  }
  flush(removed, rightLines.slice(r));
  return { ok: true, rows };
}

/** How many rows differ: 0 means the texts have the same lines. */
export function changedRows(rows: readonly DiffRow[]): number {
  return rows.filter((row) => row.kind !== 'same').length;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Context lines around each change in `unifiedDiff`, as `diff -u` gives. */
const UNIFIED_CONTEXT = 3;

/**
 * The change from `before` to `after` as a unified diff (`diff -u`, `git apply` reads it), for
 * a write's dry run. `before` null = a new file (`--- /dev/null`), `after` null = a removal.
 * Empty when the texts have the same lines.
 */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  const diff = sideBySideDiff(before ?? '', after ?? '');
  if (!diff.ok) return `Binary or very large file ${path} differs (${diff.reason})\n`;
  type Op = { mark: ' ' | '-' | '+'; text: string; oldLine: number; newLine: number };
  const ops: Op[] = [];
  let oldLine = 1;
  let newLine = 1;
  const push = (mark: Op['mark'], text: string) => {
    ops.push({ mark, text, oldLine, newLine });
    if (mark !== '+') oldLine++;
    if (mark !== '-') newLine++;
  };
  for (const row of diff.rows) {
    if (row.kind === 'same') push(' ', row.left);
    else if (row.kind === 'left') push('-', row.left);
    else if (row.kind === 'right') push('+', row.right);
    else {
      push('-', row.left);
      push('+', row.right);
    }
  }
  const changed = ops.flatMap((op, index) => (op.mark === ' ' ? [] : [index]));
  if (changed.length === 0) return '';
  const lines = [
    `--- ${before === null ? '/dev/null' : `a/${path}`}`,
    `+++ ${after === null ? '/dev/null' : `b/${path}`}`,
  ];
  let next = 0;
  while (next < changed.length) {
    const start = Math.max(0, (changed[next] as number) - UNIFIED_CONTEXT);
    let end = (changed[next] as number) + UNIFIED_CONTEXT;
    next++;
    while (next < changed.length && (changed[next] as number) - UNIFIED_CONTEXT <= end + 1) {
      end = (changed[next] as number) + UNIFIED_CONTEXT;
      next++;
    }
    const hunk = ops.slice(start, Math.min(ops.length, end + 1));
    const first = hunk[0] as Op;
    const oldCount = hunk.filter((op) => op.mark !== '+').length;
    const newCount = hunk.filter((op) => op.mark !== '-').length;
    // diff -u numbers an empty side from the line before it (0 for an empty file).
    const oldStart = oldCount === 0 ? first.oldLine - 1 : first.oldLine;
    const newStart = newCount === 0 ? first.newLine - 1 : first.newLine;
    lines.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of hunk) lines.push(`${op.mark}${op.text}`);
  }
  return `${lines.join('\n')}\n`;
}
