/**
 * Child-process entry that extracts one PDF's text (see `pdf-reader.ts`). The build turns this
 * file into dist/companion/pdf-text.worker.mjs. Each PDF gets a fresh process, so a hostile file
 * that loops or eats memory is ended by killing the process, never the companion, and all the
 * memory it took goes back to the system when it exits (a worker thread's freed memory stays
 * in the companion's allocator: 4 PDF bombs left 1 GB behind).
 *
 * Protocol: the parent sends one `{ source, limits }` message (the PDF's bytes, or the path of
 * its file, which the child reads itself); the child answers one PdfWorkerReply and exits.
 */
import { extractPdfText, PdfExtractionError } from './extract-text';
import type { PdfLimits, PdfSource } from './extract-text';
import type { PdfWorkerReply } from './pdf-reader';

const send = process.send?.bind(process);
if (!send) throw new Error('pdf-text.worker must run as a child process with an IPC channel');

async function read(source: PdfSource, limits: PdfLimits): Promise<PdfWorkerReply> {
  try {
    return { type: 'text', text: await extractPdfText(source, limits) };
  } catch (error) {
    return {
      type: 'error',
      message: (error as Error).message ?? String(error),
      known: error instanceof PdfExtractionError,
    };
  }
}

process.once('message', (message: { source: PdfSource; limits: PdfLimits }) => {
  void read(message.source, message.limits).then((reply) => {
    send(reply, undefined, undefined, () => process.exit(0));
  });
});
