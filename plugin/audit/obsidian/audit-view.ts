/**
 * The audit log view (docs/clients.md, "What did Cairn change?"): the Obsidian adapter. Fetching and
 * wording are in plugin/audit/audit-client.ts, the list's DOM in plugin/audit/audit-list.ts.
 */
import { ItemView } from 'obsidian';
import type { WorkspaceLeaf } from 'obsidian';
import type { AuditEntry } from '../../../shared/protocol/audit';
import type { AuditPage } from '../audit-client';
import { renderAuditList } from '../audit-list';

export const AUDIT_VIEW_TYPE = 'cairn-audit';

export interface AuditViewDeps {
  page: (cursor?: string) => Promise<AuditPage | string>;
  open: (path: string) => void;
}

export class AuditView extends ItemView {
  private entries: AuditEntry[] = [];
  private next: string | null = null;
  private problem: string | null = null;
  private loading = false;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly deps: AuditViewDeps,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return AUDIT_VIEW_TYPE;
  }

  getDisplayText(): string {
    return 'Audit log';
  }

  override getIcon(): string {
    return 'history';
  }

  override async onOpen(): Promise<void> {
    await this.reload();
  }

  /** Fetches the newest page again. */
  async reload(): Promise<void> {
    this.entries = [];
    this.next = null;
    await this.loadPage(undefined);
  }

  private async loadPage(cursor: string | undefined): Promise<void> {
    this.loading = true;
    this.render();
    const page = await this.deps.page(cursor);
    this.loading = false;
    if (typeof page === 'string') {
      this.problem = page;
    } else {
      this.problem = null;
      this.entries.push(...page.entries);
      this.next = page.next;
    }
    this.render();
  }

  render(): void {
    renderAuditList(this.contentEl, {
      entries: this.entries,
      next: this.next,
      problem: this.problem,
      loading: this.loading,
      onRefresh: () => void this.reload(),
      onOlder: (cursor) => void this.loadPage(cursor),
      onOpen: (path) => this.deps.open(path),
    });
  }
}
