import { writable } from 'svelte/store';
import type { Readable } from 'svelte/store';

/*
 * What the chat's next answers may quote: notes and a folder the user attached ("attach active
 * note / folder") plus the notes a message `[[mentions]]`. While anything is in scope, the
 * chat's search looks only there. No `obsidian`: the adapter resolves link text to paths and
 * names the active note.
 */

/** What is attached, for the composer's chips. */
export interface ChatAttachments {
  notes: readonly string[];
  folder?: string;
}

/** The restriction a search runs under: only these notes, or only this folder. */
export interface SearchScope {
  paths?: readonly string[];
  folder?: string;
}

export interface ChatScopeDeps {
  /** `[[link text]]` → the note's vault path, or undefined when it resolves to nothing. */
  resolveLink: (linkText: string) => string | undefined;
}

/** Link texts of `[[…]]` mentions in a message (alias and heading parts dropped), in order. */
export function mentionsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]/g)) {
    const link = match[1]!.trim();
    if (link !== '' && !found.includes(link)) found.push(link);
  }
  return found;
}

/**
 * The `[[` being typed at `caret`: its start offset and the partial link text, or null when the
 * caret is not inside an unclosed `[[`.
 */
export function openMention(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const start = before.lastIndexOf('[[');
  if (start < 0) return null;
  const query = before.slice(start + 2);
  if (query.includes(']]') || query.includes('\n')) return null;
  return { start, query };
}

export class ChatScope {
  private readonly store = writable<ChatAttachments>({ notes: [] });
  private attachments: ChatAttachments = { notes: [] };
  private turn: SearchScope | undefined;

  constructor(private readonly deps: ChatScopeDeps) {}

  get attached(): Readable<ChatAttachments> {
    return this.store;
  }

  attachNote(path: string): void {
    if (this.attachments.notes.includes(path)) return;
    this.set({ ...this.attachments, notes: [...this.attachments.notes, path] });
  }

  attachFolder(folder: string): void {
    this.set({ ...this.attachments, folder });
  }

  detach(item: { note: string } | { folder: true }): void {
    if ('note' in item) {
      this.set({
        ...this.attachments,
        notes: this.attachments.notes.filter((n) => n !== item.note),
      });
    } else {
      const { folder: _dropped, ...rest } = this.attachments;
      this.set(rest);
    }
  }

  /**
   * Called as a message is sent: its search scope is the attached notes and the mentioned ones
   * (restricting to notes beats the folder; a folder alone restricts to the folder). Mentions
   * that resolve to nothing are returned so the pane can say so.
   */
  beginTurn(message: string): { unresolved: string[] } {
    const unresolved: string[] = [];
    const paths = [...this.attachments.notes];
    for (const link of mentionsIn(message)) {
      const path = this.deps.resolveLink(link);
      if (path === undefined) unresolved.push(link);
      else if (!paths.includes(path)) paths.push(path);
    }
    const folder = this.attachments.folder;
    this.turn = paths.length > 0 ? { paths } : folder !== undefined ? { folder } : undefined;
    return { unresolved };
  }

  /** The scope of the turn being answered, undefined when the whole vault is in scope. */
  get current(): SearchScope | undefined {
    return this.turn;
  }

  private set(next: ChatAttachments): void {
    this.attachments = next;
    this.store.set(next);
  }
}
