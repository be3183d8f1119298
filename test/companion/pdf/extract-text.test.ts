import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPdfText, PdfExtractionError } from '../../../companion/pdf/extract-text';
import { corpusPath } from '../../helpers/corpora';

const pdf = (name: string) => new Uint8Array(readFileSync(corpusPath('pdfs', name)));
const words = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('extractPdfText', () => {
  it('reads every page of a 14-page paper, page by page, matching pdftotext', async () => {
    const result = await extractPdfText(pdf('tracemonkey.pdf'));
    expect(result.numPages).toBe(14);
    expect(result.pages).toHaveLength(14);
    expect(result.truncated).toBeUndefined();
    expect(words(result.pages[0]!)).toContain('Trace-based Just-in-Time Type Specialization');
    const reference = readFileSync(corpusPath('pdfs/reference_text/tracemonkey.txt'), 'utf8');
    // Page 2's opening words appear in poppler's text too (layout differs, words do not).
    const sample = words(result.pages[1]!).split(' ').slice(0, 6).join(' ');
    expect(words(reference)).toContain(sample);
  });

  it('reads a rotated page (the same letters as pdftotext; order and word breaks differ)', async () => {
    const result = await extractPdfText(pdf('rotated.pdf'));
    const reference = readFileSync(corpusPath('pdfs/reference_text/rotated.txt'), 'utf8');
    const sorted = (text: string) => [...text.replace(/\s+/g, '')].sort().join('');
    expect(sorted(result.pages[0]!)).toEqual(sorted(reference));
  });

  it('an empty PDF has one page with no text', async () => {
    expect(await extractPdfText(pdf('empty.pdf'))).toEqual({ pages: [''], numPages: 1 });
  });

  it('an encrypted PDF is refused with a plain reason', async () => {
    await expect(extractPdfText(pdf('issue6010_1.pdf'))).rejects.toThrow(
      new PdfExtractionError('encrypted PDF: it needs a password, which Cairn does not have'),
    );
  });

  it.each([
    ['0 bytes', new Uint8Array(), 'empty file (0 bytes)'],
    [
      'text',
      new TextEncoder().encode('just some text'),
      'not a PDF (the file does not start with %PDF-)',
    ],
    [
      'a header only',
      new TextEncoder().encode('%PDF-1.7\n%garbage'),
      /^broken PDF|^cannot open PDF/,
    ],
    ['a truncated paper', pdf('tracemonkey.pdf').subarray(0, 4000), /PDF|page/],
  ])('%s is refused, never crashing', async (_name, bytes, reason) => {
    const error = await extractPdfText(bytes).then(
      () => null,
      (caught: unknown) => caught,
    );
    // A truncated file may still open (pdf.js repairs xref tables); then a page fails or is empty.
    if (error === null) return;
    expect(error).toBeInstanceOf(PdfExtractionError);
    expect((error as Error).message).toMatch(reason);
  });

  it('stops at the page limit and says so', async () => {
    const result = await extractPdfText(pdf('tracemonkey.pdf'), { maxPages: 2, maxChars: 1e9 });
    expect(result.pages).toHaveLength(2);
    expect(result.truncated).toBe('only the first 2 of 14 pages were read');
  });

  it('stops once the text limit is passed and says so', async () => {
    const result = await extractPdfText(pdf('tracemonkey.pdf'), { maxPages: 100, maxChars: 8000 });
    expect(result.pages).toHaveLength(2);
    expect(result.truncated).toBe('text stops after page 2 of 14 (more than 8000 characters)');
  });
});
