import { AbstractInputSuggest } from 'obsidian';
import type { App } from 'obsidian';
import { timeZoneNames } from '../../../shared/settings/validation';

/** Values offered under a settings text field (folders, time zones); picking one saves it. */
export class ValueSuggest extends AbstractInputSuggest<string> {
  constructor(
    app: App,
    inputEl: HTMLInputElement,
    private readonly candidates: (query: string) => string[],
    private readonly onPick: (value: string) => void,
  ) {
    super(app, inputEl);
  }

  protected getSuggestions(query: string): string[] {
    return this.candidates(query);
  }

  renderSuggestion(value: string, el: HTMLElement): void {
    el.setText(value);
  }

  override selectSuggestion(value: string): void {
    this.setValue(value);
    this.onPick(value);
    this.close();
  }
}

const SHOWN = 20;

/** The vault's folders containing `query`, shortest path first. */
export function vaultFolders(app: App): (query: string) => string[] {
  return (query) =>
    matching(
      app.vault.getAllFolders(false).map((f) => f.path),
      query,
    );
}

/** IANA zone names containing `query` (spaces match underscores: "new york"). */
export function timeZones(): (query: string) => string[] {
  return (query) => matching(timeZoneNames(), query.replace(/ /g, '_'));
}

function matching(values: readonly string[], query: string): string[] {
  const wanted = query.trim().toLowerCase();
  return values
    .filter((value) => value.toLowerCase().includes(wanted))
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .slice(0, SHOWN);
}
