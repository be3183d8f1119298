import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PdfExtractionError } from '../../../companion/pdf/extract-text';
import { createPdfReader } from '../../../companion/pdf/pdf-reader';
import { buildPdf, paperPages } from '../../helpers/pdf-builder';
import { buildWorkerForTest } from '../embeddings/worker-build';
import { tempDir } from '../helpers/app';

// Written for the tests (test/helpers/pdf-builder.ts), so a bare clone runs them too.
const rotated = () => buildPdf([{ lines: ['Rotated text'], rotate: 90 }]);
const paper = () => buildPdf(paperPages(14));
const encrypted = () => buildPdf([{ lines: ['secret'] }], { userPassword: 'abc' });
const empty = () => buildPdf([{}]);
let workerFile: URL;

beforeAll(async () => {
  workerFile = await buildWorkerForTest('companion/pdf/pdf-text.worker.ts');
}, 30_000);

describe('createPdfReader (a reader process per PDF)', () => {
  it('reads a real PDF in the worker, page by page', async () => {
    const read = createPdfReader({ workerFile });
    const text = await read(rotated());
    expect(text.numPages).toBe(1);
    expect(text.pages[0]).toContain('Rotated text');
  });

  it('reads a PDF by its file path in the worker, so its bytes never pass through the companion', async () => {
    const dir = tempDir('pdf-path');
    try {
      const file = join(dir.path, 'rotated.pdf');
      writeFileSync(file, rotated());
      const read = createPdfReader({ workerFile });
      const text = await read({ file });
      expect(text.pages[0]).toContain('Rotated text');
      await expect(read({ file: join(dir.path, 'gone.pdf') })).rejects.toThrow(
        new PdfExtractionError('cannot read the file (ENOENT)'),
      );
    } finally {
      dir.remove();
    }
  });

  it('passes the plain reasons of encrypted and broken PDFs through', async () => {
    const read = createPdfReader({ workerFile });
    await expect(read(encrypted())).rejects.toThrow(
      new PdfExtractionError('encrypted PDF: it needs a password, which Cairn does not have'),
    );
    await expect(read(new TextEncoder().encode('nope'))).rejects.toThrow(
      'not a PDF (the file does not start with %PDF-)',
    );
  });

  it('abandons a PDF that takes longer than the timeout, naming the limit', async () => {
    const read = createPdfReader({ workerFile, timeoutMs: 1 });
    await expect(read(paper())).rejects.toThrow(
      new PdfExtractionError('reading took longer than 1 ms; not indexed'),
    );
  });

  it('stops reading when the signal aborts (the companion is stopping)', async () => {
    const read = createPdfReader({ workerFile });
    const controller = new AbortController();
    const reading = read(paper(), controller.signal);
    controller.abort();
    await expect(reading).rejects.toThrow('reading was cancelled (the companion is stopping)');
    await expect(read(rotated(), controller.signal)).rejects.toThrow('cancelled');
  });

  it('a worker that dies is an error, not a crash', async () => {
    const dir = tempDir('pdf-worker');
    try {
      const crashing = join(dir.path, 'crash.worker.mjs');
      writeFileSync(crashing, 'process.exit(3);\n');
      const read = createPdfReader({ workerFile: crashing });
      await expect(read(rotated())).rejects.toThrow('PDF reader stopped (exit code 3)');
    } finally {
      dir.remove();
    }
  });

  it('a reader process that runs out of heap is reported as needing more memory', async () => {
    const dir = tempDir('pdf-worker');
    try {
      // What V8 does at its heap limit: abort (exit code 134).
      const aborting = join(dir.path, 'oom.worker.mjs');
      writeFileSync(aborting, 'process.exit(134);\n');
      const read = createPdfReader({ workerFile: aborting, maxHeapMb: 64 });
      await expect(read(rotated())).rejects.toThrow(
        'needs more than 64 MB of memory to read; not indexed',
      );
    } finally {
      dir.remove();
    }
  });

  it.skipIf(process.platform !== 'linux')(
    'a reader process whose memory outside the heap passes the cap is killed',
    async () => {
      const dir = tempDir('pdf-worker');
      try {
        // What pdf.js does with a decompression bomb: ArrayBuffers outside the V8 heap, which
        // --max-old-space-size never sees. Touched so they are resident, then it waits.
        const hog = join(dir.path, 'hog.worker.mjs');
        writeFileSync(
          hog,
          [
            'const kept = [];',
            'for (let i = 0; i < 12; i++) kept.push(Buffer.alloc(32 * 1024 * 1024, 1));',
            'setInterval(() => kept.length, 1000);',
          ].join('\n'),
        );
        const read = createPdfReader({ workerFile: hog, maxHeapMb: 64, maxRssMb: 128 });
        const started = performance.now();
        await expect(read(rotated())).rejects.toThrow(
          'needs more than 128 MB of memory to read; not indexed',
        );
        // Killed at the cap, long before the 60 s timeout.
        expect(performance.now() - started).toBeLessThan(30_000);
      } finally {
        dir.remove();
      }
    },
  );

  it('reads in-process when the worker bundle is absent (running from sources)', async () => {
    const read = createPdfReader({
      workerFile: join(fileURLToPath(new URL('.', workerFile)), 'missing.worker.mjs'),
    });
    expect((await read(empty())).pages).toEqual(['']);
  });
});
