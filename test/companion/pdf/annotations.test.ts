import { describe, expect, it } from 'vitest';
import { extractPdfText } from '../../../companion/pdf/extract-text';
import { createPdfReader } from '../../../companion/pdf/pdf-reader';
import {
  annotatedInvoice,
  buildPdf,
  courierMark,
  INVOICE_HIGHLIGHTED,
} from '../../helpers/pdf-builder';
import { buildWorkerForTest } from '../embeddings/worker-build';

const WORKER = 'companion/pdf/pdf-text.worker.ts';

const INVOICE_ANNOTATIONS = [
  { page: 2, kind: 'highlight', marked: INVOICE_HIGHLIGHTED, comment: 'check the fee' },
  { page: 2, kind: 'note', comment: 'Ask Marguerite about the quokka discount' },
  { page: 2, kind: 'text-box', comment: 'Paid by transfer on 3 March' },
  { page: 2, kind: 'underline', marked: 'Payment due' },
];

describe('extractPdfText: annotations (pdf.js annotation layer)', () => {
  it('reads highlights with the words under them, notes and text boxes, with their page', async () => {
    const result = await extractPdfText(annotatedInvoice());
    expect(result.numPages).toBe(2);
    expect(result.annotations).toEqual(INVOICE_ANNOTATIONS);
    // The page text is unchanged by its annotations.
    expect(result.pages[1]).toContain('The monthly storage fee is 50 dollars per unit.');
  });

  it('reads a highlight spanning two lines in reading order, with every kind of text markup', async () => {
    const lines = ['alpha beta gamma delta', 'epsilon zeta eta theta'];
    const first = courierMark(0, 'alpha beta '.length, lines[0]!.length);
    const second = courierMark(1, 0, 'epsilon zeta'.length);
    const pdf = buildPdf([
      {
        font: 'Courier',
        lines,
        annotations: (['Highlight', 'StrikeOut', 'Squiggly'] as const).map((subtype) => ({
          subtype,
          rect: [first.rect[0], second.rect[1], first.rect[2], first.rect[3]] as const,
          quadPoints: [...first.quadPoints!, ...second.quadPoints!],
        })),
      },
    ]);
    const result = await extractPdfText(pdf);
    expect(result.annotations).toEqual(
      ['highlight', 'strikeout', 'squiggly'].map((kind) => ({
        page: 1,
        kind,
        marked: 'gamma delta epsilon zeta',
      })),
    );
  });

  it('a highlight over no text and without a comment is not kept; a PDF without any has none', async () => {
    const pdf = buildPdf([
      {
        lines: ['words'],
        annotations: [{ subtype: 'Highlight', ...courierMark(20, 0, 5) }],
      },
    ]);
    expect(await extractPdfText(pdf)).toEqual({ pages: ['words'], numPages: 1 });
  });

  it('reads a drawing or a stamp by its note, never the page words under it; without a note, nothing', async () => {
    const lines = ['Site plan for the north garden', 'Shed goes by the fence'];
    const overText = courierMark(0, 0, lines[0]!.length).rect;
    const pdf = buildPdf([
      { lines: ['cover'] },
      {
        font: 'Courier',
        lines,
        annotations: [
          { subtype: 'Ink', rect: overText, contents: 'move the compost bins here' },
          { subtype: 'Ink', rect: overText },
          {
            subtype: 'Stamp',
            rect: [300, 500, 420, 540],
            contents: 'Approved by the allotment board',
          },
          { subtype: 'Stamp', rect: [300, 400, 420, 440] },
        ],
      },
    ]);
    const result = await extractPdfText(pdf);
    expect(result.annotations).toEqual([
      { page: 2, kind: 'ink', comment: 'move the compost bins here' },
      { page: 2, kind: 'stamp', comment: 'Approved by the allotment board' },
    ]);
  });

  it('the reader process sends them back with the text', async () => {
    const read = createPdfReader({ workerFile: await buildWorkerForTest(WORKER) });
    const text = await read(annotatedInvoice());
    expect(text.annotations).toEqual(INVOICE_ANNOTATIONS);
    expect(text.pages[1]).toContain('Payment due within thirty days.');
  }, 30_000);
});
