import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/ports';
import {
  caseInsensitiveExists,
  newShortId,
  parseFrontMatter,
  stringifyNoteFile,
  uniqueNotePath,
} from '../../shared/markdown';
import { formatInZone } from '../../shared/reminders';
import { MEMORY_PATH } from '../../shared/memory';
import { readFile } from 'node:fs/promises';
import {
  createVaultFile,
  editVaultFile,
  folderEntries,
  VaultWriteError,
} from '../vault/atomic-write';
import { resolveVaultPath } from '../vault/paths';
import { fetchLinkPage, LinkFetchError } from './link-fetcher';
import type { LinkFetchPolicy } from './link-fetcher';

/*
 * Saved links (docs/memory-digest-calendar.md): a memory's URL fetched once, its title and main
 * text extracted with Mozilla's Readability over linkedom's DOM, and written as a clipped note
 * `Cairn/Links/<title>.md` (front matter `type: link`, `source`, `fetched`, `memory`) that the
 * index picks up like any note.
 */

export const LINKS_FOLDER = 'Cairn/Links';
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>()"'\]]+[^\s<>()"'\].,;:!?]/i;

/** The first http(s) URL in a memory's text, if any. */
export function firstUrl(text: string): string | undefined {
  return URL_IN_TEXT.exec(text)?.[0];
}

export interface LinkClipperDeps {
  readonly vault: string;
  readonly zone: string;
  readonly clock: Clock;
  readonly policy: LinkFetchPolicy;
  /** Indexes the clipped note at once (absent, the watcher does). */
  readonly indexAfterWrite?: (path: string) => Promise<unknown>;
  /**
   * The configured LLM's summary of a page (shared/memory/link-summary-llm.ts). With it a
   * clipped note gets the summary on top once the model answers, after the note is written;
   * a failure is written into the note instead (and told to `onSummaryFailure`).
   */
  readonly summarize?: (page: { title: string; text: string }) => Promise<string>;
  readonly onSummaryFailure?: (path: string, reason: string) => void;
}

export interface ClippedLink {
  path: string;
  title: string;
  source: string;
}

/** A clipped note as its front matter says: which memory it was clipped for. */
export interface ClippedNote {
  path: string;
  title: string;
  fetched: string;
}

const MEMORY_LINK_IN_FRONT_MATTER = /#\^([A-Za-z0-9-]+)\]\]$/;

export class LinkClipper {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: LinkClipperDeps) {}

  /** Resolves when every summary asked for has been written (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * The clipped notes in `Cairn/Links/` by the memory id their `memory` key links (the newest
   * one when a link was clipped twice). Read afresh: a note deleted by hand is gone at once.
   */
  async clippedNotes(): Promise<Map<string, ClippedNote>> {
    const found = new Map<string, ClippedNote>();
    for (const path of await folderEntries(this.deps.vault, LINKS_FOLDER)) {
      if (!path.endsWith('.md')) continue;
      const resolved = await resolveVaultPath(this.deps.vault, path);
      if (!resolved.ok || !resolved.exists) continue;
      let text: string;
      try {
        text = await readFile(resolved.absolute, 'utf8');
      } catch {
        continue;
      }
      const parsed = parseFrontMatter(text);
      if (!parsed.ok || parsed.data.type !== 'link') continue;
      const memory = MEMORY_LINK_IN_FRONT_MATTER.exec(String(parsed.data.memory ?? ''))?.[1];
      if (memory === undefined) continue;
      const note = {
        path,
        title: typeof parsed.data.title === 'string' ? parsed.data.title : path,
        fetched:
          parsed.data.fetched instanceof Date
            ? parsed.data.fetched.toISOString()
            : String(parsed.data.fetched ?? ''),
      };
      const earlier = found.get(memory);
      if (earlier === undefined || earlier.fetched < note.fetched) found.set(memory, note);
    }
    return found;
  }

  get policy(): LinkFetchPolicy {
    return this.deps.policy;
  }

  /**
   * Fetches `url` and writes its clipped note linked to memory `memoryId`.
   * @throws LinkFetchError saying why nothing was clipped (offline, too large, not HTML, …).
   */
  async clip(url: string, memoryId: string): Promise<ClippedLink> {
    const page = await fetchLinkPage(url, this.deps.policy);
    // The DOM and Readability load with the first link clipped, not with every app.
    const { extractPage } = await import('./link-page');
    const { title, text } = extractPage(page.html, page.url);
    const fetched = formatInZone(this.deps.clock.now(), this.deps.zone);
    const memoryLink = `[[${MEMORY_PATH.replace(/\.md$/, '')}#^${memoryId}]]`;
    const content = stringifyNoteFile(
      [
        ['type', 'link'],
        ['title', title],
        ['source', page.url],
        ['fetched', fetched],
        ['memory', memoryLink],
      ],
      `# ${title}\n\nClipped from <${page.url}> for the memory ${memoryLink}.\n\n${text}\n`,
    );
    for (let attempt = 1; ; attempt++) {
      const taken = caseInsensitiveExists(await folderEntries(this.deps.vault, LINKS_FOLDER));
      const path = uniqueNotePath(LINKS_FOLDER, title, taken, () => newShortId(randomBytes));
      try {
        await createVaultFile(this.deps.vault, path, content);
      } catch (error) {
        if (error instanceof VaultWriteError && error.code === 'CONFLICT' && attempt < 3) continue;
        throw error;
      }
      await this.deps.indexAfterWrite?.(path).catch(() => undefined);
      this.summarizeLater(path, title, text);
      return { path, title, source: page.url };
    }
  }

  /**
   * Asks the model for the page's summary off the write's path and puts it on top of the
   * clipped note (under its heading). A failure leaves the note without one and says so there.
   * An edit of the note meanwhile is kept (the edit helper merges); a note gone or without its
   * heading is left alone.
   */
  private summarizeLater(path: string, title: string, text: string): void {
    const summarize = this.deps.summarize;
    if (summarize === undefined) return;
    const task = (async () => {
      let block: string;
      try {
        const summary = await summarize({ title, text });
        block = `> [!summary] Summary\n> ${summary}\n`;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.deps.onSummaryFailure?.(path, reason);
        block = `> [!summary] No summary\n> The model did not summarise this page: ${reason.replace(/\s+/g, ' ')}\n`;
      }
      try {
        await editVaultFile(this.deps.vault, path, (before) => withSummary(before, title, block));
        await this.deps.indexAfterWrite?.(path).catch(() => undefined);
      } catch (error) {
        this.deps.onSummaryFailure?.(
          path,
          `the summary was not written: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    })();
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }
}

export { LinkFetchError };

/** The note with `block` after its `# title` line (unchanged when that line is gone). */
export function withSummary(note: string, title: string, block: string): string {
  const lines = note.split('\n');
  const heading = lines.findIndex((line) => line === `# ${title}`);
  if (heading === -1) return note;
  lines.splice(heading + 1, 0, '', block.replace(/\n$/, ''));
  return lines.join('\n');
}
