import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/*
 * A fetched page's title and main text, for a saved link's clipped note (link-clipper.ts):
 * Mozilla's Readability over linkedom's DOM. A module of its own so the DOM (about a sixth of a
 * second of CPU to load) is imported with the first link clipped, not by every companion and
 * command-line call that builds the app.
 */

/** A clipped text beyond this is cut (a book-length page is not a clip). */
export const CLIP_MAX_CHARS = 100_000;

export interface ExtractedPage {
  title: string;
  /** Paragraphs separated by blank lines. */
  text: string;
}

/** Title and main text of an HTML page; a page Readability finds no article in gives its body text. */
export function extractPage(html: string, url: string): ExtractedPage {
  const { document } = parseHTML(html);
  const fallbackTitle = (document.querySelector('title')?.textContent ?? '').trim();
  const article = new Readability(document as unknown as Document).parse();
  const title = (article?.title ?? '').trim() || fallbackTitle || new URL(url).hostname;
  const blocks: string[] = [];
  if (article?.content) {
    const { document: content } = parseHTML(`<html><body>${article.content}</body></html>`);
    for (const element of content.querySelectorAll('h1,h2,h3,h4,h5,h6,p,li,blockquote,pre')) {
      // Nested blocks (a <p> inside an <li>) are read once, at their outermost block.
      if (element.parentElement?.closest('p,li,blockquote,pre')) continue;
      const tag = element.tagName.toLowerCase();
      if (tag === 'pre') {
        // Code keeps its lines; a fence longer than any backtick run inside keeps it closed.
        const code = (element.textContent ?? '').replace(/\s+$/, '');
        if (code === '') continue;
        const fence = '`'.repeat(
          Math.max(3, ...[...code.matchAll(/`+/g)].map((m) => m[0].length + 1)),
        );
        blocks.push(`${fence}\n${code}\n${fence}`);
        continue;
      }
      const words = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (words === '') continue;
      blocks.push(
        tag.startsWith('h') && tag.length === 2
          ? `${'#'.repeat(Math.min(6, Number(tag[1]) + 1))} ${words}`
          : tag === 'li'
            ? `- ${words}`
            : tag === 'blockquote'
              ? `> ${words}`
              : words,
      );
    }
  }
  let text = blocks.join('\n\n');
  if (text === '') text = (article?.textContent ?? '').replace(/\s+/g, ' ').trim();
  if (text.length > CLIP_MAX_CHARS) text = `${text.slice(0, CLIP_MAX_CHARS)}\n\n(cut)`;
  return { title: title.replace(/\s+/g, ' ').slice(0, 200), text };
}
