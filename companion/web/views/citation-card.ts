import { citationHref, citationPlace } from '../citation-link';
import type { CitationView } from '../citation-link';
import { el } from '../dom';

/** One cited passage: the note's title as a link into Obsidian, where it is, and the quote. */
export function citationCard(
  vault: string,
  citation: CitationView,
  number?: number,
): HTMLLIElement {
  return el(
    'li',
    { class: 'citation' },
    el(
      'a',
      { class: 'title', href: citationHref(vault, citation) },
      number === undefined ? null : el('span', { class: 'cite-number' }, `${number}`),
      citation.title,
    ),
    el('span', { class: 'where' }, citationPlace(citation)),
    citation.excerpt ? el('blockquote', { class: 'excerpt' }, citation.excerpt) : null,
  );
}
