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
