import { AbstractInputSuggest } from 'obsidian';
import type { App, TFolder } from 'obsidian';

/** Folder names suggested under a settings field: matching folders, shortest path first. */
export class FolderSuggest extends AbstractInputSuggest<TFolder> {
  constructor(
    app: App,
    private readonly inputEl: HTMLInputElement,
    private readonly onPick: (path: string) => void,
  ) {
    super(app, inputEl);
  }

  protected getSuggestions(query: string): TFolder[] {
    const wanted = query.trim().toLowerCase();
    return this.app.vault
      .getAllFolders(false)
      .filter((folder) => folder.path.toLowerCase().includes(wanted))
      .sort((a, b) => a.path.length - b.path.length || a.path.localeCompare(b.path))
      .slice(0, 20);
  }

  renderSuggestion(folder: TFolder, el: HTMLElement): void {
    el.setText(folder.path);
  }

  override selectSuggestion(folder: TFolder): void {
    this.setValue(folder.path);
    this.onPick(folder.path);
    this.close();
  }
}
