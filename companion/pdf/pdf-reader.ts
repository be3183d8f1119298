import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fork } from 'node:child_process';
import { DEFAULT_PDF_LIMITS, extractPdfText, PdfExtractionError } from './extract-text';
import type { PdfLimits, PdfSource, PdfText } from './extract-text';

/** Reads a PDF's text; throws `PdfExtractionError` with a reason a user can act on. */
export type PdfTextReader = (source: PdfSource, signal?: AbortSignal) => Promise<PdfText>;

export type PdfWorkerReply =
  { type: 'text'; text: PdfText } | { type: 'error'; message: string; known: boolean };

export interface PdfReaderOptions {
  /**
   * The built `pdf-text.worker.mjs`. Default: next to the running bundle (dist/companion/).
   * When that file does not exist (running from TypeScript sources: tests, eval), PDFs are read
   * in-process, without the time and memory caps.
   */
  readonly workerFile?: URL | string;
  /** A PDF that takes longer is abandoned (its worker terminated). */
  readonly timeoutMs?: number;
  /** Heap cap of the reader process; a decompression bomb runs out of it instead of the companion's. */
  readonly maxHeapMb?: number;
  /**
   * Resident memory cap of the reader process, heap and everything else (pdf.js decodes into
   * ArrayBuffers outside the V8 heap, which `maxHeapMb` does not count): past it the process is
   * killed and the PDF is not indexed. Linux only (read from /proc); elsewhere only the heap cap.
   */
  readonly maxRssMb?: number;
  readonly limits?: PdfLimits;
  /** PDFs parsed at once (each in its own worker with up to `maxHeapMb`); more wait in turn. */
  readonly maxConcurrent?: number;
  /** PDFs waiting for a parse slot; past this a read fails at once with PdfBusyError. */
  readonly maxQueued?: number;
}

export const DEFAULT_PDF_MAX_CONCURRENT = 2;
export const DEFAULT_PDF_MAX_QUEUED = 16;

/** Every parse slot is taken and the queue is full: try again later. */
export class PdfBusyError extends PdfExtractionError {
  override name = 'PdfBusyError';
  constructor(readonly retryAfterSeconds: number) {
    super(`the PDF reader is busy with other files; try again in ${retryAfterSeconds} s`);
  }
}

export const DEFAULT_PDF_TIMEOUT_MS = 60_000;
export const DEFAULT_PDF_MAX_HEAP_MB = 512;
/**
 * Two readers at 384 MB each stay under the companion's 1 GB budget for PDFs with room for the
 * companion itself (issue #25: four bombs took the readers to 2,393 MB together).
 */
export const DEFAULT_PDF_MAX_RSS_MB = 384;
/** How often a reader's resident memory is looked at. */
const RSS_CHECK_MS = 50;

/** Resident memory of process `pid` in bytes (Linux /proc), or undefined when unknown. */
export function residentBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

function defaultWorkerFile(): URL {
  return new URL('./pdf-text.worker.mjs', import.meta.url);
}

/**
 * A PDF reader that runs pdf.js in a child process per file (ASVS 5.2.1: cap parse time and
 * memory), so a hostile or enormous PDF cannot stall or crash the server, and everything it
 * allocated is returned to the system when it exits. Falls back to in-process reading when the
 * worker bundle is absent.
 */
export function createPdfReader(options: PdfReaderOptions = {}): PdfTextReader {
  const limits = options.limits ?? DEFAULT_PDF_LIMITS;
  const workerFile = options.workerFile ?? defaultWorkerFile();
  const path = typeof workerFile === 'string' ? workerFile : fileURLToPath(workerFile);
  const gate = {
    maxConcurrent: options.maxConcurrent ?? DEFAULT_PDF_MAX_CONCURRENT,
    maxQueued: options.maxQueued ?? DEFAULT_PDF_MAX_QUEUED,
  };
  if (!existsSync(path)) return inTurn((source) => extractPdfText(source, limits), gate);
  const timeoutMs = options.timeoutMs ?? DEFAULT_PDF_TIMEOUT_MS;
  const maxHeapMb = options.maxHeapMb ?? DEFAULT_PDF_MAX_HEAP_MB;
  const maxRssMb = options.maxRssMb ?? DEFAULT_PDF_MAX_RSS_MB;
  return inTurn(
    (source, signal) =>
      readInWorker(workerFile, source, limits, timeoutMs, { maxHeapMb, maxRssMb }, signal),
    gate,
  );
}

/**
 * At most `maxConcurrent` reads at once, at most `maxQueued` waiting; a read past both fails
 * at once with PdfBusyError. Each worker may use `maxHeapMb`, so this caps the memory PDFs can
 * take together (a burst of PDF bombs held 2 GB before).
 */
export function inTurn(
  read: PdfTextReader,
  gate: { maxConcurrent: number; maxQueued: number },
): PdfTextReader {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (source, signal) => {
    if (running >= gate.maxConcurrent) {
      if (waiting.length >= gate.maxQueued) throw new PdfBusyError(30);
      await new Promise<void>((resume) => waiting.push(resume));
    } else {
      running++;
    }
    try {
      return await read(source, signal);
    } finally {
      // Hand the slot straight to the next in line, or free it.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

function readInWorker(
  workerFile: URL | string,
  source: PdfSource,
  limits: PdfLimits,
  timeoutMs: number,
  memory: { maxHeapMb: number; maxRssMb: number },
  signal?: AbortSignal,
): Promise<PdfText> {
  const { maxHeapMb, maxRssMb } = memory;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new PdfExtractionError('reading was cancelled (the companion is stopping)'));
      return;
    }
    const child = fork(
      typeof workerFile === 'string' ? workerFile : fileURLToPath(workerFile),
      [],
      {
        execArgv: [`--max-old-space-size=${maxHeapMb}`],
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      },
    );
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      signal?.removeEventListener('abort', onAbort);
      outcome();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      finish(() =>
        reject(
          new PdfExtractionError(
            `reading took longer than ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}; not indexed`,
          ),
        ),
      );
    }, timeoutMs);
    // The whole process's memory, not only its heap: killed at once when past the cap.
    const watch = setInterval(() => {
      const rss = child.pid === undefined ? undefined : residentBytes(child.pid);
      if (rss !== undefined && rss > maxRssMb * 1024 * 1024) {
        finish(() =>
          reject(
            new PdfExtractionError(`needs more than ${maxRssMb} MB of memory to read; not indexed`),
          ),
        );
      }
    }, RSS_CHECK_MS);
    watch.unref();
    // Stopping the companion must not wait for a long PDF.
    const onAbort = () =>
      finish(() =>
        reject(new PdfExtractionError('reading was cancelled (the companion is stopping)')),
      );
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('message', (reply: PdfWorkerReply) => {
      finish(() => {
        if (reply.type === 'text') resolve(reply.text);
        else if (reply.known) reject(new PdfExtractionError(reply.message));
        else reject(new PdfExtractionError(`cannot read PDF (${reply.message})`));
      });
    });
    child.once('error', (error: Error) => {
      finish(() => reject(new PdfExtractionError(`cannot read PDF (${error.message})`)));
    });
    child.once('exit', (code, exitSignal) => {
      finish(() =>
        reject(
          new PdfExtractionError(
            // V8 aborts the process when the heap limit is reached.
            code === 134 || exitSignal === 'SIGABRT'
              ? `needs more than ${maxHeapMb} MB of memory to read; not indexed`
              : `PDF reader stopped (exit code ${code ?? exitSignal})`,
          ),
        ),
      );
    });
    // A file is named, not sent: the child reads it, so its bytes never pass through here.
    child.send({ source, limits }, (error) => {
      if (error) finish(() => reject(new PdfExtractionError(`cannot read PDF (${error.message})`)));
    });
  });
}
