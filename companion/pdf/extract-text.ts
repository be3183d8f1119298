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
  /**
   * Highlights, notes, text boxes, and drawings and stamps with words, on the pages read, page
   * order; absent when there are none.
   */
  readonly annotations?: PdfAnnotation[];
  /** Why not every page was read, when that happened. */
  readonly truncated?: string;
}

/** The annotation subtypes read (pdf.js `subtype`), by what Cairn calls them. */
const ANNOTATION_KINDS = {
  Highlight: 'highlight',
  Underline: 'underline',
  StrikeOut: 'strikeout',
  Squiggly: 'squiggly',
  Text: 'note',
  FreeText: 'text-box',
  // A freehand drawing or a stamp carries words only in its note (its /Contents): indexed when
  // it has one; the strokes and the stamp's picture are not text.
  Ink: 'ink',
  Stamp: 'stamp',
} as const;

/** Kinds whose words are only their own note, never words of the page under them. */
const NOTE_ONLY_KINDS: ReadonlySet<PdfAnnotationKind> = new Set([
  'note',
  'text-box',
  'ink',
  'stamp',
]);

export type PdfAnnotationKind = (typeof ANNOTATION_KINDS)[keyof typeof ANNOTATION_KINDS];

/** One annotation someone made in a PDF reader, read from pdf.js's annotation layer. */
export interface PdfAnnotation {
  /** 1-based page it is on. */
  readonly page: number;
  readonly kind: PdfAnnotationKind;
  /** Text-markup kinds: the page's words under its QuadPoints (or Rect); absent when none. */
  readonly marked?: string;
  /** Its own words: a highlight's comment; a sticky note's, text box's, drawing's or stamp's contents. */
  readonly comment?: string;
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
    const annotations: PdfAnnotation[] = [];
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
        const items = content.items.filter((item) => 'str' in item);
        for (const annotation of readAnnotations(
          number,
          (await page.getAnnotations()) as RawAnnotation[],
          items,
        )) {
          annotations.push(annotation);
          chars += (annotation.marked?.length ?? 0) + (annotation.comment?.length ?? 0);
        }
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
    return {
      pages,
      numPages: document.numPages,
      ...(annotations.length === 0 ? {} : { annotations }),
      ...(truncated === undefined ? {} : { truncated }),
    };
  } finally {
    await document.destroy().catch(() => undefined);
  }
}

/** A text item of `getTextContent()`: its string, where it starts and how far it runs. */
interface PlacedText {
  readonly str: string;
  readonly transform: number[];
  readonly width: number;
  readonly height: number;
}

/** The fields of a pdf.js annotation (`page.getAnnotations()`) read here. */
interface RawAnnotation {
  readonly subtype?: string;
  readonly contentsObj?: { readonly str?: string };
  readonly rect?: ArrayLike<number>;
  /** pdf.js normalises each quad to [minX, maxY, maxX, maxY, minX, minY, maxX, minY]. */
  readonly quadPoints?: ArrayLike<number> | null;
}

interface Box {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
}

function readAnnotations(
  page: number,
  raw: readonly RawAnnotation[],
  items: readonly PlacedText[],
): PdfAnnotation[] {
  const read: PdfAnnotation[] = [];
  for (const annotation of raw) {
    const kind = ANNOTATION_KINDS[annotation.subtype as keyof typeof ANNOTATION_KINDS];
    if (kind === undefined) continue; // links, widgets, popups (their parent holds the words)
    const comment = annotation.contentsObj?.str?.trim() ?? '';
    const marked = NOTE_ONLY_KINDS.has(kind) ? '' : wordsUnder(markedBoxes(annotation), items);
    if (comment === '' && marked === '') continue;
    read.push({
      page,
      kind,
      ...(marked === '' ? {} : { marked }),
      ...(comment === '' ? {} : { comment }),
    });
  }
  return read;
}

function markedBoxes(annotation: RawAnnotation): Box[] {
  const quads = annotation.quadPoints;
  if (quads && quads.length >= 8) {
    const boxes: Box[] = [];
    for (let i = 0; i + 8 <= quads.length; i += 8) {
      const xs = [quads[i]!, quads[i + 2]!, quads[i + 4]!, quads[i + 6]!];
      const ys = [quads[i + 1]!, quads[i + 3]!, quads[i + 5]!, quads[i + 7]!];
      boxes.push({
        minX: Math.min(...xs),
        maxX: Math.max(...xs),
        minY: Math.min(...ys),
        maxY: Math.max(...ys),
      });
    }
    return boxes;
  }
  const rect = annotation.rect;
  if (!rect || rect.length < 4) return [];
  return [
    {
      minX: Math.min(rect[0]!, rect[2]!),
      maxX: Math.max(rect[0]!, rect[2]!),
      minY: Math.min(rect[1]!, rect[3]!),
      maxY: Math.max(rect[1]!, rect[3]!),
    },
  ];
}

/**
 * The words of the page whose middle lies in one of `boxes`, in reading order. A text item is
 * a run of text with one start point and width, so a word's place is estimated along the run
 * in proportion to its characters; taking whole words by their middle absorbs that estimate's
 * error (a highlight is drawn over whole words in practice).
 */
function wordsUnder(boxes: readonly Box[], items: readonly PlacedText[]): string {
  if (boxes.length === 0) return '';
  const words: string[] = [];
  for (const item of items) {
    if (item.str.length === 0) continue;
    const [a = 1, b = 0, c = 0, d = 1, x = 0, y = 0] = item.transform;
    const along = Math.hypot(a, b) || 1;
    const up = Math.hypot(c, d) || 1;
    for (const match of item.str.matchAll(/\S+/g)) {
      const t = (match.index + match[0].length / 2) / item.str.length;
      const px = x + (a / along) * item.width * t + (c / up) * (item.height / 2);
      const py = y + (b / along) * item.width * t + (d / up) * (item.height / 2);
      if (
        boxes.some((box) => px >= box.minX && px <= box.maxX && py >= box.minY && py <= box.maxY)
      ) {
        words.push(match[0]);
      }
    }
  }
  return words.join(' ');
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
