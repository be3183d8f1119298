import { afterEach, describe, expect, it } from 'vitest';
import { extractPdfText } from '../../../companion/pdf/extract-text';
import { buildPdf, paperPages } from '../../helpers/pdf-builder';
import { startIndexer } from './helpers';
import type { IndexerFixture } from './helpers';

let fixture: IndexerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function indexed(files: Record<string, string | Uint8Array>): Promise<IndexerFixture> {
  fixture = await startIndexer({ files });
  await fixture.indexer.whenIdle();
  return fixture;
}

function failures(f: IndexerFixture): Record<string, string> {
  return Object.fromEntries(f.indexer.indexStatus().failed.map((item) => [item.path, item.error]));
}

describe('bad notes are indexed as far as possible and reported, never crash', () => {
  it('a binary file named .md fails with a reason; the rest of the vault is indexed', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const f = await indexed({ 'image.md': png, 'Good.md': 'good note about ibis' });
    expect(failures(f)).toEqual({
      'image.md': 'binary file, not Markdown text (NUL byte at offset 8)',
    });
    expect(f.indexer.indexStatus().files).toBe(1);
    expect(f.indexer.queries.keyword('ibis', {}, 5)).toHaveLength(1);
  });

  it('invalid UTF-8 is decoded with replacement characters and a warning naming the line', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('first line\nCaf'),
      Buffer.from([0xe9]),
      Buffer.from(' au lait and croissants\n'),
    ]);
    const f = await indexed({ 'Latin1.md': latin1 });
    expect(failures(f)).toEqual({
      'Latin1.md':
        'indexed partly: line 2: invalid UTF-8 (byte offset 14); bad bytes were replaced with U+FFFD. Re-save the note as UTF-8.',
    });
    expect(f.indexer.indexStatus().files).toBe(1);
    expect(f.indexer.queries.keyword('croissants', {}, 5)).toHaveLength(1);
  });

  it('broken front matter costs only the metadata: the body is searchable, the line is named', async () => {
    const f = await indexed({
      'Broken.md': '---\ntitle: Fine\ntags: [unclosed\n---\nBody text about pelicans.\n',
      'Unclosed.md': '---\ntitle: never closed\nBody about cormorants.\n',
      'Scalar.md': '---\njust a string\n---\nBody about gannets.\n',
      'Typed.md': '---\ntitle: Typed\ntags:\n  a: 1\n---\nBody about boobies.\n',
    });
    const failed = failures(f);
    expect(failed['Broken.md']).toMatch(
      /^indexed partly: line 3: front matter: .+; only the body was indexed$/,
    );
    expect(failed['Unclosed.md']).toBe(
      'indexed partly: line 1: front matter is never closed (no second "---" line); read as text',
    );
    expect(failed['Scalar.md']).toBe(
      'indexed partly: line 2: front matter: front matter must be a mapping of "name: value" lines, found a single value; only the body was indexed',
    );
    expect(failed['Typed.md']).toBe(
      'indexed partly: front matter "tags": expected a list or text, found a mapping; skipped',
    );
    for (const word of ['pelicans', 'cormorants', 'gannets', 'boobies']) {
      expect(f.indexer.queries.keyword(word, {}, 5), word).toHaveLength(1);
    }
    const [broken] = f.indexer.queries.chunks(
      f.indexer.queries.keyword('pelicans', {}, 5).map((hit) => hit.chunkId),
    );
    // Title falls back to the file name; the body's line numbers still count the front matter.
    expect(broken).toMatchObject({ title: 'Broken', startLine: 5, endLine: 5 });
  });

  it('control characters and an empty note do not break indexing', async () => {
    const f = await indexed({
      'Control.md': 'bell \u0007 and escape \u001b[31m red \u001b[0m puffins\u000b\f',
      'Empty.md': '',
      'Whitespace.md': ' \n\n\t\n',
    });
    expect(f.indexer.indexStatus()).toMatchObject({ files: 3, failed: [] });
    expect(f.indexer.queries.keyword('puffins', {}, 5)).toHaveLength(1);
    // An empty note is still findable by its name.
    expect(f.indexer.queries.keyword('empty', {}, 5)).toHaveLength(1);
  });

  it('a note over the size limit fails with its size named', async () => {
    const f = await indexed({ 'Dump.md': 'x'.repeat(17 * 1024 * 1024) });
    expect(failures(f)).toEqual({
      'Dump.md': 'too large to index (17.0 MB; the limit is 16.0 MB)',
    });
  });
});

describe('PDFs', () => {
  it('indexes a real PDF page by page with page locators', async () => {
    // The first 4 of its 14 pages keep the test quick; the page limit is reported.
    fixture = await startIndexer({
      files: { 'Papers/tracemonkey.pdf': buildPdf(paperPages(14)) },
      pdfReader: (bytes) => extractPdfText(bytes, { maxPages: 4, maxChars: 1_000_000 }),
    });
    await fixture.indexer.whenIdle();
    const f = fixture;
    const status = f.indexer.indexStatus();
    expect(status).toMatchObject({
      files: 1,
      failed: [
        {
          path: 'Papers/tracemonkey.pdf',
          error: 'indexed partly: only the first 4 of 14 pages were read',
        },
      ],
    });
    expect(status.chunks).toBeGreaterThanOrEqual(4);
    const hits = f.indexer.queries.keyword('trace compiler', { type: 'pdf' }, 50);
    const chunks = f.indexer.queries.chunks(hits.map((hit) => hit.chunkId));
    expect(chunks[0]).toMatchObject({
      path: 'Papers/tracemonkey.pdf',
      fileType: 'pdf',
      title: 'tracemonkey',
    });
    expect(new Set(chunks.map((chunk) => chunk.page))).toEqual(new Set([1, 2, 3, 4]));
    expect(chunks.every((chunk) => chunk.startLine === undefined)).toBe(true);
  }, 20_000);

  it('encrypted, empty, zero-byte and broken PDFs land in failed with a clear reason', async () => {
    const f = await indexed({
      'encrypted.pdf': buildPdf([{ lines: ['secret'] }], { userPassword: 'abc' }),
      'empty.pdf': buildPdf([{}]),
      'zero.pdf': new Uint8Array(),
      'broken.pdf': Buffer.from('%PDF-1.4\nthis is not really a pdf\n%%EOF'),
      'renamed.pdf': Buffer.from('# Actually Markdown\n'),
      'Fine.md': 'still indexed',
    });
    const failed = failures(f);
    expect(failed).toMatchObject({
      'encrypted.pdf': 'encrypted PDF: it needs a password, which Cairn does not have',
      'empty.pdf':
        'indexed partly: no text layer on any of its 1 page(s) (a scan?); only the file name is searchable',
      'zero.pdf': 'empty file (0 bytes)',
      'renamed.pdf': 'not a PDF (the file does not start with %PDF-)',
    });
    expect(failed['broken.pdf']).toMatch(/^(broken PDF|cannot open PDF)/);
    // Failed files are listed first.
    expect(f.indexer.indexStatus().failed.at(-1)?.path).toBe('empty.pdf');
    expect(f.indexer.queries.keyword('indexed', {}, 5)).toHaveLength(1);
  });
});
