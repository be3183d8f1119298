import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Limits that keep one hostile or huge PDF from starving the companion. */
export interface PdfLimits {
  /** Pages past this are not read; the result says how many were skipped. */
  readonly maxPages: number;
  /** Extraction stops once this many characters were collected. */
  readonly maxChars: number;
}

export const DEFAULT_PDF_LIMITS: Readonly<PdfLimits> = { maxPages: 2_000, maxChars: 5_000_000 };

export interface PdfText {
  /** Text of each page read, page 1 first; a page with no text layer is ''. */
  readonly pages: string[];
  readonly numPages: number;
  /** Why not every page was read, when that happened. */
  readonly truncated?: string;
}

/** A PDF that cannot be read at all; `message` says why in words a user can act on. */
export class PdfExtractionError extends Error {
  override name = 'PdfExtractionError';
}

type PdfJs = typeof PdfJsModule;
let pdfjs: Promise<PdfJs> | undefined;

// The legacy build runs in Node without DOM globals; loaded on first use so a companion whose
// vault holds no PDF never pays for it.
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
}

/** Where pdf.js finds the 14 standard fonts' metrics (text positions of PDFs that use them). */
function standardFontDataUrl(): string {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('pdfjs-dist/package.json'));
  return `${pathToFileURL(join(root, 'standard_fonts')).href}/`;
}

/**
 * Extracts the text layer of a PDF page by page (pdfjs-dist legacy build). Lines pdf.js marks
 * as ending (`hasEOL`) become newlines so paragraphs and sentences survive for the chunker.
 * Encrypted, malformed and empty files throw a `PdfExtractionError` with a plain reason.
 */
/**
 * A PDF to read: its bytes, or the absolute path of its file, read only by whoever parses it
 * (the reader's child process), so a large PDF is never held by the companion (issue #25).
 */
export type PdfSource = Uint8Array | { readonly file: string };

export async function extractPdfText(
  source: PdfSource,
  limits: PdfLimits = DEFAULT_PDF_LIMITS,
): Promise<PdfText> {
  let bytes: Uint8Array;
  try {
    bytes = source instanceof Uint8Array ? source : await readFile(source.file);
  } catch (error) {
    throw new PdfExtractionError(
      `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  if (bytes.length === 0) throw new PdfExtractionError('empty file (0 bytes)');
  if (!startsWithPdfMagic(bytes)) {
    throw new PdfExtractionError('not a PDF (the file does not start with %PDF-)');
  }
  const { getDocument } = await loadPdfJs();
  // pdf.js takes ownership of (and may detach) the buffer it gets, and refuses a Node Buffer:
  // give it a plain Uint8Array copy.
  const task = getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
    standardFontDataUrl: standardFontDataUrl(),
  });
  let document: Awaited<typeof task.promise>;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw new PdfExtractionError(describeOpenError(error), { cause: error });
  }
  try {
    const pages: string[] = [];
    let chars = 0;
    let truncated: string | undefined;
    for (let number = 1; number <= document.numPages; number++) {
      if (number > limits.maxPages) {
        truncated = `only the first ${limits.maxPages} of ${document.numPages} pages were read`;
        break;
      }
      if (chars >= limits.maxChars) {
        truncated = `text stops after page ${number - 1} of ${document.numPages} (more than ${limits.maxChars} characters)`;
        break;
      }
      let text: string;
      try {
        const page = await document.getPage(number);
        const content = await page.getTextContent();
        text = content.items
          .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
          .join('');
        page.cleanup();
      } catch (error) {
        throw new PdfExtractionError(
          `page ${number} of ${document.numPages} cannot be read (${(error as Error).message})`,
          { cause: error },
        );
      }
      pages.push(text);
      chars += text.length;
    }
    return truncated === undefined
      ? { pages, numPages: document.numPages }
      : { pages, numPages: document.numPages, truncated };
  } finally {
    await document.destroy().catch(() => undefined);
  }
}

function startsWithPdfMagic(bytes: Uint8Array): boolean {
  // Some writers put junk before the header; pdf.js tolerates up to 1 KB of it, so do we.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  return head.includes('%PDF-');
}

function describeOpenError(error: unknown): string {
  const name = (error as { name?: string }).name;
  const message = (error as Error).message ?? String(error);
  switch (name) {
    case 'PasswordException':
      return 'encrypted PDF: it needs a password, which Cairn does not have';
    case 'InvalidPDFException':
      return `broken PDF: ${message}`;
    default:
      return `cannot open PDF: ${message}`;
  }
}
