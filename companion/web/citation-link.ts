import { noteDeepLink } from '../../shared/reminders/deep-link';
import type { DeepLinkTarget } from '../../shared/reminders/deep-link';
import { isRecord } from '../../shared/protocol/json';

/** The fields of a citation (shared/protocol/citation.ts) the page shows; read defensively. */
export interface CitationView {
  title: string;
  path: string;
  heading?: string;
  lines?: [number, number];
  page?: number;
  excerpt?: string;
}

export function asCitation(value: unknown): CitationView | null {
  if (!isRecord(value) || typeof value.path !== 'string') return null;
  const lines = Array.isArray(value.lines) && value.lines.length === 2 ? value.lines : undefined;
  return {
    title: typeof value.title === 'string' && value.title !== '' ? value.title : value.path,
    path: value.path,
    ...(typeof value.heading === 'string' ? { heading: value.heading } : {}),
    ...(lines && typeof lines[0] === 'number' && typeof lines[1] === 'number'
      ? { lines: [lines[0], lines[1]] as [number, number] }
      : {}),
    ...(typeof value.page === 'number' ? { page: value.page } : {}),
    ...(typeof value.excerpt === 'string' ? { excerpt: value.excerpt } : {}),
  };
}

/**
 * Where in Obsidian a citation opens: the PDF page, else the heading (Obsidian's `open` action
 * cannot scroll to a line, so a line range opens at its heading, or the top of the note).
 */
export function citationHref(vault: string, citation: CitationView): string {
  const target: DeepLinkTarget | undefined =
    citation.page !== undefined
      ? { page: citation.page }
      : citation.heading !== undefined && citation.heading !== ''
        ? { heading: citation.heading }
        : undefined;
  return noteDeepLink(vault, citation.path, target);
}

/** "Travel/Visa rules.md › Key points · lines 12–18", "Scans/visa.pdf · page 3". */
export function citationPlace(citation: CitationView): string {
  const parts = [citation.heading ? `${citation.path} › ${citation.heading}` : citation.path];
  if (citation.page !== undefined) parts.push(`page ${citation.page}`);
  else if (citation.lines) {
    const [from, to] = citation.lines;
    parts.push(from === to ? `line ${from}` : `lines ${from}–${to}`);
  }
  return parts.join(' · ');
}
