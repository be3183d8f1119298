import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { SearchResponse } from '../../../shared/protocol/search';
import { annotatedInvoice, buildPdf } from '../../helpers/pdf-builder';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * A PDF's highlights and notes are searched and cited like its text: the real indexer reads the
 * invoice (test/helpers/pdf-builder.ts) with pdf.js, and the search route answers over SQLite.
 */

const PDF = 'Bills/Harbor invoice.pdf';
const SCAN = 'Bills/Scanned receipt.pdf';
const PLAN = 'Garden/Site plan.pdf';
let index: IndexerFixture;
let app: TestApp;

beforeAll(async () => {
  index = await startIndexer({
    files: {
      [PDF]: annotatedInvoice(),
      // A scan: no text layer, only a sticky note someone added.
      [SCAN]: buildPdf([
        {},
        {
          annotations: [
            { subtype: 'Text', rect: [40, 40, 60, 60], contents: 'Pelican feeder receipt' },
          ],
        },
      ]),
      'Notes/Storage.md': '# Storage\n\nThe storage unit is on the second floor.\n',
      // A plan someone drew on and stamped: the words are only in the drawing's and stamp's notes.
      [PLAN]: buildPdf([
        { lines: ['Allotment site plan', 'North garden layout'] },
        {
          lines: ['Sheds and paths'],
          annotations: [
            { subtype: 'Ink', rect: [60, 600, 300, 700], contents: 'wheelbarrow ramp goes here' },
            { subtype: 'Stamp', rect: [300, 500, 420, 540], contents: 'Approved by the committee' },
          ],
        },
      ]),
    },
  });
  await index.indexer.whenIdle();
  app = await buildTestApp({ deps: { search: { index: () => index.indexer.queries } } });
});

afterAll(async () => {
  await app?.close();
  await index?.close();
});

async function search(query: string): Promise<SearchResponse> {
  const response = await app.app.inject({
    url: `/api/v1/search?q=${encodeURIComponent(query)}`,
    headers: authorized,
  });
  expect(response.statusCode).toBe(200);
  const body = response.json() as SearchResponse;
  expect(Value.Check(SearchResponse, body)).toBe(true);
  return body;
}

describe('PDF annotations in search', () => {
  it('finds words only in a sticky note and cites the page the note is on', async () => {
    const body = await search('quokka discount');
    expect(body.results).toHaveLength(1);
    expect(body.results[0]!.citation).toMatchObject({ type: 'pdf', path: PDF, page: 2 });
    expect(body.results[0]!.citation.excerpt).toContain(
      'Note (p. 2): Ask Marguerite about the quokka discount',
    );
  });

  it('finds a highlight by its comment, quoting the words it marks', async () => {
    const body = await search('check the fee');
    expect(body.results[0]!.citation).toMatchObject({ type: 'pdf', path: PDF, page: 2 });
    expect(body.results[0]!.citation.excerpt).toContain(
      'Highlight (p. 2): "storage fee is 50" — check the fee',
    );
  });

  it('finds a text box, and the page text still cites its own page', async () => {
    expect((await search('transfer March')).results[0]!.citation).toMatchObject({
      path: PDF,
      page: 2,
    });
    expect((await search('conditions')).results[0]!.citation).toMatchObject({
      path: PDF,
      page: 1,
    });
  });

  it("finds a drawing's and a stamp's notes and cites their page", async () => {
    const drawing = (await search('wheelbarrow ramp')).results[0]!.citation;
    expect(drawing).toMatchObject({ type: 'pdf', path: PLAN, page: 2 });
    expect(drawing.excerpt).toContain('Drawing (p. 2): wheelbarrow ramp goes here');
    const stamp = (await search('approved committee')).results[0]!.citation;
    expect(stamp).toMatchObject({ type: 'pdf', path: PLAN, page: 2 });
    expect(stamp.excerpt).toContain('Stamp (p. 2): Approved by the committee');
  });

  it('a link annotation adds nothing, and the file indexes without warnings', () => {
    const failed = index.indexer.indexStatus().failed.map((file) => file.path);
    expect(failed).not.toContain(PDF);
    const chunks = index.db
      .prepare(
        `SELECT c.text FROM index_chunks c JOIN index_files f ON f.id = c.file_id WHERE f.path = ?`,
      )
      .all(PDF) as Array<{ text: string }>;
    const marked = chunks.flatMap((chunk) => chunk.text.match(/^\w[\w ]* \(p\. \d+\):.*$/gm) ?? []);
    expect(marked).toEqual([
      'Highlight (p. 2): "storage fee is 50" — check the fee',
      'Note (p. 2): Ask Marguerite about the quokka discount',
      'Text box (p. 2): Paid by transfer on 3 March',
      'Underline (p. 2): "Payment due"',
    ]);
  });

  it('a scan without a text layer is found by its note, and its warning says so', async () => {
    expect((await search('pelican feeder')).results[0]!.citation).toMatchObject({
      type: 'pdf',
      path: SCAN,
      page: 2,
    });
    const scan = index.indexer.indexStatus().failed.find((file) => file.path === SCAN);
    expect(scan?.error).toBe(
      'indexed partly: no text layer on any of its 2 page(s) (a scan?); only its annotations and the file name are searchable',
    );
  });
});
