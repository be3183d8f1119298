/**
 * The audit log's list (docs/clients.md), newest first: what happened, when, from which client and
 * token, and the note it touched as a link. Plain DOM on the element Obsidian gives the view
 * (plugin/audit/obsidian/audit-view.ts), so it renders the same under a test DOM.
 */
import type { AuditEntry } from '../../shared/protocol/audit';
import { describeAuditEntry } from './audit-client';

export interface AuditListState {
  entries: readonly AuditEntry[];
  /** Cursor of the next (older) page, or null on the last one. */
  next: string | null;
  problem: string | null;
  loading: boolean;
  onRefresh: () => void;
  onOlder: (cursor: string) => void;
  onOpen: (path: string) => void;
}

export function renderAuditList(root: HTMLElement, state: AuditListState): void {
  root.empty();
  root.addClass('cairn-audit-view');
  const header = root.createDiv({ cls: 'cairn-audit-header' });
  header.createEl('p', {
    text: 'Writes and tool calls made through the companion (kept 90 days).',
  });
  header.createEl('button', { text: 'Refresh' }).addEventListener('click', state.onRefresh);
  if (state.problem !== null) {
    root.createEl('p', {
      cls: 'cairn-audit-problem',
      text: `Could not read the audit log: ${state.problem}.`,
    });
  }
  if (state.entries.length === 0 && !state.loading && state.problem === null) {
    root.createEl('p', { text: 'Nothing recorded yet.' });
  }
  const list = root.createEl('ul', { cls: 'cairn-audit-list' });
  for (const entry of state.entries) {
    const { what, detail } = describeAuditEntry(entry);
    const item = list.createEl('li');
    item.createDiv({ text: what });
    if (entry.path !== null) {
      const path = entry.path;
      const link = item.createEl('a', { text: path, href: '#' });
      link.addEventListener('click', (event) => {
        event.preventDefault();
        state.onOpen(path);
      });
    }
    item.createDiv({ cls: 'cairn-audit-detail', text: detail });
  }
  if (state.loading) {
    root.createEl('p', { text: 'Loading…' });
  } else if (state.next !== null) {
    const cursor = state.next;
    root
      .createEl('button', { text: 'Show older' })
      .addEventListener('click', () => state.onOlder(cursor));
  }
}
