/**
 * Whether a sidebar view is on screen, for views that work only while someone can see them
 * (related notes, upcoming reminders): its tab is the one shown (an inactive tab's element is
 * not displayed) and its sidebar is not collapsed.
 */
import type { App, WorkspaceLeaf } from 'obsidian';

export function leafOnScreen(app: App, leaf: WorkspaceLeaf): boolean {
  const { workspace } = app;
  const root = leaf.getRoot();
  if (root === workspace.rightSplit && workspace.rightSplit.collapsed) return false;
  if (root === workspace.leftSplit && workspace.leftSplit.collapsed) return false;
  return leaf.view.containerEl.isShown();
}

/** True when any leaf of `type` is on screen. */
export function viewTypeOnScreen(app: App, type: string): boolean {
  return app.workspace.getLeavesOfType(type).some((leaf) => leafOnScreen(app, leaf));
}
