import type { CompanionApi } from '../api-client';

/** What every view gets from the page: the signed-in API, the vault's name, and a message line. */
export interface PageContext {
  /** Null while signed out. */
  api(): CompanionApi | null;
  /** The vault's name for `obsidian://` links (from `/api/v1/phone/config`). */
  vault(): string;
  /** The zone reminders typed on this phone are written in (the phone's own). */
  zone(): string;
  /** Shows a message; an info message may offer one action (e.g. Undo) while it is shown. */
  say(text: string, tone?: 'info' | 'error', action?: MessageAction): void;
}

export interface MessageAction {
  label: string;
  run(): void;
}

/** A view of the page: filled when shown, emptied when the user signs out. */
export interface PageView {
  show(): Promise<void>;
  reset(): void;
}
