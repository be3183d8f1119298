/**
 * Every Cairn view is one of a kind: a command opening it shows the open one (refreshed by
 * `onExisting`) or opens it, in the right sidebar or in a new tab, and brings it to the front.
 */
import type { App, WorkspaceLeaf } from 'obsidian';

export async function revealView(
  app: App,
  type: string,
  where: 'sidebar' | 'tab',
  onExisting?: (leaf: WorkspaceLeaf) => void | Promise<void>,
): Promise<WorkspaceLeaf | null> {
  const { workspace } = app;
  let leaf = workspace.getLeavesOfType(type)[0] ?? null;
  if (leaf) {
    await onExisting?.(leaf);
  } else {
    leaf = where === 'tab' ? workspace.getLeaf('tab') : workspace.getRightLeaf(false);
    if (!leaf) return null;
    await leaf.setViewState({ type, active: true });
  }
  await workspace.revealLeaf(leaf);
  return leaf;
}
