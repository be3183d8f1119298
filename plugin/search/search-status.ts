import { writable } from 'svelte/store';
import type { Readable } from 'svelte/store';

/**
 * What the plugin's search can do right now, for every place that shows it: the status bar
 * (desktop), the search modal, the related-notes view and the chat (phones have no status
 * bar, so the panes must say it too). Kept current by the composition root.
 */
export interface SearchStatus {
  /** The index is loaded and answers queries. */
  ready: boolean;
  /** Vector similarity takes part in the ranking. */
  mode: 'hybrid' | 'keyword';
  /** "hybrid: keyword + …" or "keyword only (why)". */
  modeLabel: string;
  /** "Cairn: indexing 1,240/10,000", or '' when the index is current. */
  progress: string;
  /** Set when search could not start at all: the reason, in the user's words. */
  unavailable?: string;
}

export const INITIAL_SEARCH_STATUS: SearchStatus = {
  ready: false,
  mode: 'keyword',
  modeLabel: 'keyword only',
  progress: 'Cairn: loading index',
};

export interface SearchStatusStore extends Readable<SearchStatus> {
  update(change: Partial<SearchStatus>): void;
  readonly current: SearchStatus;
}

export function createSearchStatus(): SearchStatusStore {
  let current = INITIAL_SEARCH_STATUS;
  const store = writable(current);
  return {
    subscribe: store.subscribe,
    update(change) {
      current = { ...current, ...change };
      store.set(current);
    },
    get current() {
      return current;
    },
  };
}
