import { describe, expect, it } from 'vitest';
import { paperPages } from '../../helpers/pdf-builder';
import { chunkPdfPages } from '../../../shared/search/index';

const pdf = (pages: string[]) => ({ path: 'Attachments/paper.pdf', title: 'Paper', pages });

describe('chunkPdfPages', () => {
  it('keeps short pages whole, one chunk per page, numbered from 1', () => {
    const chunks = chunkPdfPages(pdf(['First page.', '', 'Third page.']));
    expect(chunks.map(({ page, text, chunkId }) => ({ page, text, chunkId }))).toEqual([
      { page: 1, text: 'First page.', chunkId: 'Attachments/paper.pdf#page=1#0' },
      { page: 3, text: 'Third page.', chunkId: 'Attachments/paper.pdf#page=3#0' },
    ]);
  });

  it('gives a PDF without text one title chunk on page 1', () => {
    expect(
      chunkPdfPages(pdf(['', ' \n '])).map(({ page, text, titleOnly }) => ({
        page,
        text,
        titleOnly,
      })),
    ).toEqual([{ page: 1, text: 'Paper', titleOnly: true }]);
    expect(chunkPdfPages(pdf([]))).toHaveLength(1);
  });

  it('splits long pages within maxChars, never across pages, with every word kept', () => {
    // The text of a 14-page generated paper, one long page each (test/helpers/pdf-builder.ts).
    const pages = paperPages(14, 60).map((page) => (page.lines ?? []).join('\n'));
    const chunks = chunkPdfPages(pdf(pages));
    expect(new Set(chunks.map((chunk) => chunk.page)).size).toBe(14);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(1500);
      expect(pages[chunk.page - 1]).toContain(chunk.text);
    }
    pages.forEach((page, i) => {
      const words = new Set(page.split(/\s+/).filter(Boolean));
      const chunked = new Set(
        chunks.filter((chunk) => chunk.page === i + 1).flatMap((chunk) => chunk.text.split(/\s+/)),
      );
      for (const word of words) expect(chunked.has(word), `page ${i + 1}: ${word}`).toBe(true);
    });
    console.info(`tracemonkey.pdf: 14 pages → ${chunks.length} chunks`);
  });

  it('reads CRLF page text like LF', () => {
    const page = Array.from({ length: 40 }, (_, i) => `Line ${i} of the page text.`).join('\n');
    const lf = chunkPdfPages(pdf([page])).map((chunk) => chunk.text);
    expect(chunkPdfPages(pdf([page.replace(/\n/g, '\r\n')])).map((chunk) => chunk.text)).toEqual(
      lf,
    );
  });
});
