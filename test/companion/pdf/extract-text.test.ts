import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPdfText, PdfExtractionError } from '../../../companion/pdf/extract-text';
import { corpusPath, optionalCorpus } from '../../helpers/corpora';
import { buildPdf, paperPages } from '../../helpers/pdf-builder';

const words = (text: string) => text.replace(/\s+/g, ' ').trim();
// Written for the tests (test/helpers/pdf-builder.ts), so a bare clone runs them too.
const paperSpec = paperPages(14);
const paper = () => buildPdf(paperSpec);

describe('extractPdfText', () => {
  it('reads every page of a 14-page paper, page by page, in reading order', async () => {
    const result = await extractPdfText(paper());
    expect(result.numPages).toBe(14);
    expect(result.pages).toHaveLength(14);
    expect(result.truncated).toBeUndefined();
    result.pages.forEach((page, i) => {
      expect(words(page)).toBe(words(paperSpec[i]!.lines!.join(' ')));
    });
  });

  it('reads a rotated page', async () => {
    const result = await extractPdfText(buildPdf([{ lines: ['Rotated text'], rotate: 90 }]));
    expect(result.pages).toEqual(['Rotated text']);
  });

  it('an empty PDF has one page with no text', async () => {
    expect(await extractPdfText(buildPdf([{}]))).toEqual({ pages: [''], numPages: 1 });
  });

  it('an encrypted PDF is refused with a plain reason', async () => {
    await expect(
      extractPdfText(buildPdf([{ lines: ['secret'] }], { userPassword: 'abc' })),
    ).rejects.toThrow(
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
    ['a truncated paper', paper().subarray(0, 4000), /PDF|page/],
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
    const result = await extractPdfText(paper(), { maxPages: 2, maxChars: 1e9 });
    expect(result.pages).toHaveLength(2);
    expect(result.truncated).toBe('only the first 2 of 14 pages were read');
  });

  it('stops once the text limit is passed and says so', async () => {
    const firstPage = (await extractPdfText(paper(), { maxPages: 1, maxChars: 1e9 })).pages[0]!;
    const maxChars = firstPage.length + 10;
    const result = await extractPdfText(paper(), { maxPages: 100, maxChars });
    expect(result.pages).toHaveLength(2);
    expect(result.truncated).toBe(
      `text stops after page 2 of 14 (more than ${maxChars} characters)`,
    );
  });
});

const pdfCorpus = optionalCorpus('pdfs');

describe.skipIf(!pdfCorpus)('extractPdfText on the pdf.js test corpus', () => {
  const pdf = (name: string) => new Uint8Array(readFileSync(corpusPath('pdfs', name)));

  it('reads every page of a 14-page paper, page by page, matching pdftotext', async () => {
    const result = await extractPdfText(pdf('tracemonkey.pdf'));
    expect(result.numPages).toBe(14);
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

  it('an encrypted PDF is refused with a plain reason', async () => {
    await expect(extractPdfText(pdf('issue6010_1.pdf'))).rejects.toThrow(
      new PdfExtractionError('encrypted PDF: it needs a password, which Cairn does not have'),
    );
  });
});
