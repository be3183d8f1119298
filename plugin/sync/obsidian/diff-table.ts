/**
 * A side-by-side diff as DOM (the conflicts view and a note's history): two columns with the
 * lines aligned, changed lines marked. Built with createEl, never HTML strings.
 */
import { sideBySideDiff } from '../../../shared/markdown/line-diff';

export function renderDiff(
  parent: HTMLElement,
  left: { title: string; text: string },
  right: { title: string; text: string },
): void {
  const diff = sideBySideDiff(left.text, right.text);
  const table = parent.createDiv({ cls: 'cairn-sync-diff' });
  table.createDiv({ cls: 'cairn-sync-diff-head', text: left.title });
  table.createDiv({ cls: 'cairn-sync-diff-head', text: right.title });
  if (!diff.ok) {
    parent.createDiv({ cls: 'cairn-setting-message', text: `Not compared: ${diff.reason}.` });
    return;
  }
  if (diff.rows.every((row) => row.kind === 'same')) {
    parent.createDiv({ cls: 'cairn-setting-message', text: 'The two have the same lines.' });
  }
  for (const row of diff.rows) {
    const leftText = row.kind === 'right' ? '' : row.left;
    const rightText = row.kind === 'left' ? '' : row.right;
    table.createDiv({
      cls: ['cairn-sync-diff-cell', `cairn-sync-diff-${row.kind}`, 'is-left'],
      text: leftText,
    });
    table.createDiv({
      cls: ['cairn-sync-diff-cell', `cairn-sync-diff-${row.kind}`, 'is-right'],
      text: rightText,
    });
  }
}

/** Whether bytes are shown as text (UTF-8 without NUL). */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** `5 min ago`, `yesterday 14:02`, a date: when something happened, for people. */
export function whenText(ms: number, now: number): string {
  const seconds = Math.round((now - ms) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 90 * 60) return `${Math.max(1, Math.round(seconds / 60))} min ago`;
  const date = new Date(ms);
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (seconds < 20 * 3600) return `${Math.round(seconds / 3600)} h ago (${time})`;
  return `${date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })} ${time}`;
}
