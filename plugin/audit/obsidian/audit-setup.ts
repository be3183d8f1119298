/**
 * Registers the audit log view ("What did Cairn change?") and its command. Obsidian adapter:
 * the view opens in the right sidebar; an entry's path opens its note.
 */
import type { Plugin } from 'obsidian';
import type { CompanionEndpoint } from '../../connection/client';
import type { HttpTransport } from '../../connection/http-transport';
import { AuditClient } from '../audit-client';
import { AUDIT_VIEW_TYPE, AuditView } from './audit-view';
import { revealView } from '../../workspace/obsidian/reveal-view';

export function registerAuditView(
  plugin: Plugin,
  deps: { transport: HttpTransport; endpoint: () => CompanionEndpoint },
): AuditClient {
  const client = new AuditClient(deps.transport, deps.endpoint);
  const { workspace } = plugin.app;
  plugin.registerView(
    AUDIT_VIEW_TYPE,
    (leaf) =>
      new AuditView(leaf, {
        page: (cursor) => client.page(cursor),
        open: (path) => void workspace.openLinkText(path, '', false),
      }),
  );
  plugin.addCommand({
    id: 'open-audit-log',
    name: 'Show what changed (audit log)',
    callback: () => void showAuditView(plugin),
  });
  return client;
}

async function showAuditView(plugin: Plugin): Promise<void> {
  await revealView(plugin.app, AUDIT_VIEW_TYPE, 'sidebar', async (leaf) => {
    if (leaf.view instanceof AuditView) await leaf.view.reload();
  });
}
