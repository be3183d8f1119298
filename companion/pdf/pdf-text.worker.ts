/**
 * Worker-thread entry that extracts one PDF's text (see `pdf-reader.ts`). The build turns this
 * file into dist/companion/pdf-text.worker.mjs. Each PDF gets a fresh worker, so a hostile file
 * that loops or eats memory is ended by terminating the worker, never the companion.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { extractPdfText, PdfExtractionError } from './extract-text';
import type { PdfLimits } from './extract-text';
import type { PdfWorkerReply } from './pdf-reader';

const port = parentPort;
if (!port) throw new Error('pdf-text.worker must run in a worker thread');

const { bytes, limits } = workerData as { bytes: Uint8Array; limits: PdfLimits };

try {
  const text = await extractPdfText(bytes, limits);
  port.postMessage({ type: 'text', text } satisfies PdfWorkerReply);
} catch (error) {
  port.postMessage({
    type: 'error',
    message: (error as Error).message ?? String(error),
    known: error instanceof PdfExtractionError,
  } satisfies PdfWorkerReply);
}
