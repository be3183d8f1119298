import { writable } from 'svelte/store';
import type { Readable } from 'svelte/store';

/*
 * The first-run card in the search modal and the related-notes view: what Cairn is, what it
 * found in this vault, and the one choice it needs (the built-in model's download, with its
 * size and host and what offline mode allows), saying that nothing needs setting up to start.
 * It shows while the built-in model is the provider, is missing, and the card was not dismissed.
 */

export type FirstRunRoute = 'url' | 'companion';

export interface FirstRunDownload {
  readonly route: FirstRunRoute;
  /** "Download the built-in model (28 MB) from github.com". */
  readonly label: string;
  /** Why this route cannot download now (offline mode, no pairing), or null. */
  readonly blocked: string | null;
}

export interface FirstRunCardState {
  /** Markdown notes found in the vault. */
  readonly notes: number;
  readonly downloads: readonly FirstRunDownload[];
}

export interface FirstRunActions {
  /** Downloads the model; resolves true once it is in place. */
  download(route: FirstRunRoute): Promise<boolean>;
  /** "Not now": the card stays away on this device. */
  dismiss(): void;
  openSettings(): void;
}

export interface FirstRunInputs {
  readonly provider: string;
  readonly modelInstalled: boolean;
  readonly dismissed: boolean;
  /** Search goes through the companion: no model on this device. */
  readonly throughCompanion: boolean;
  readonly notes: number;
  readonly downloads: readonly FirstRunDownload[];
}

/** The card to show for these inputs, or null when there is nothing to ask. */
export function firstRunCard(inputs: FirstRunInputs): FirstRunCardState | null {
  if (inputs.provider !== 'builtin' || inputs.modelInstalled || inputs.dismissed) return null;
  if (inputs.throughCompanion) return null;
  return { notes: inputs.notes, downloads: inputs.downloads };
}

export interface FirstRunStore extends Readable<FirstRunCardState | null> {
  set(card: FirstRunCardState | null): void;
}

export function createFirstRunStore(): FirstRunStore {
  const store = writable<FirstRunCardState | null>(null);
  return { subscribe: store.subscribe, set: store.set };
}
