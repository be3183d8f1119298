import { createHash } from 'node:crypto';

/**
 * Writes small, valid PDFs for tests, so a bare clone can test PDF reading without the team
 * corpora: text pages in Helvetica, an optional page rotation, and optional encryption with the
 * PDF standard security handler (revision 2, 40-bit RC4: the oldest scheme every reader knows),
 * which makes pdf.js ask for a password exactly as a real protected file does.
 */
export interface PdfPage {
  /** Lines of ASCII text, top to bottom; none for a blank page. */
  readonly lines?: readonly string[];
  readonly rotate?: 0 | 90 | 180 | 270;
  /** Courier puts every character 6.6 pt apart, so a test can place a highlight exactly. */
  readonly font?: 'Helvetica' | 'Courier';
  /** Annotations as a PDF reader writes them into the page's /Annots. */
  readonly annotations?: readonly PdfAnnotationSpec[];
}

/**
 * A markup annotation over text, a sticky note, a text box, a freehand drawing or a stamp
 * (ISO 32000-1 §12.5.6).
 */
export interface PdfAnnotationSpec {
  readonly subtype:
    | 'Highlight'
    | 'Underline'
    | 'StrikeOut'
    | 'Squiggly'
    | 'Text'
    | 'FreeText'
    | 'Ink'
    | 'Stamp'
    | 'Link';
  /** [x1 y1 x2 y2] in page space. */
  readonly rect: readonly [number, number, number, number];
  /** Text-markup annotations: 8 numbers per marked box. */
  readonly quadPoints?: readonly number[];
  readonly contents?: string;
}

/** Where `contentStream` puts lines: 56 pt from the left, the first baseline at 760, 14 pt apart. */
const LEFT = 56;
const TOP_BASELINE = 760;
const LEADING = 14;
const FONT_SIZE = 11;
const COURIER_ADVANCE = (600 / 1000) * FONT_SIZE;

/**
 * The QuadPoints and Rect of a highlight over characters [from, to) of line `line` (0-based) of a
 * Courier page, in the order Acrobat writes them (upper left, upper right, lower left, lower right).
 */
export function courierMark(
  line: number,
  from: number,
  to: number,
): Pick<PdfAnnotationSpec, 'rect' | 'quadPoints'> {
  const left = LEFT + from * COURIER_ADVANCE;
  const right = LEFT + to * COURIER_ADVANCE;
  const baseline = TOP_BASELINE - line * LEADING;
  const bottom = baseline - 3;
  const top = baseline + FONT_SIZE;
  return {
    rect: [left, bottom, right, top],
    quadPoints: [left, top, right, top, left, bottom, right, bottom],
  };
}

export interface PdfOptions {
  /** Encrypts the file; readers need this password to open it. */
  readonly userPassword?: string;
}

const PASSWORD_PADDING = Buffer.from(
  '28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a',
  'hex',
);

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
const padded = (password: string) =>
  Buffer.concat([Buffer.from(password, 'latin1'), PASSWORD_PADDING]).subarray(0, 32);

interface Encryption {
  readonly key: Buffer;
  readonly owner: Buffer;
  readonly user: Buffer;
  readonly permissions: number;
  readonly fileId: Buffer;
}

/** Algorithms 2–4 of ISO 32000-1 §7.6.3 for revision 2. */
function standardSecurity(userPassword: string): Encryption {
  const permissions = -44;
  const fileId = md5(Buffer.from(`cairn-test-${userPassword}`));
  const owner = rc4(md5(padded('owner')).subarray(0, 5), padded(userPassword));
  const p = Buffer.alloc(4);
  p.writeInt32LE(permissions);
  const key = md5(padded(userPassword), owner, p, fileId).subarray(0, 5);
  return { key, owner, user: rc4(key, PASSWORD_PADDING), permissions, fileId };
}

function objectKey(encryption: Encryption, objectNumber: number): Buffer {
  const suffix = Buffer.from([
    objectNumber & 255,
    (objectNumber >> 8) & 255,
    (objectNumber >> 16) & 255,
    0,
    0,
  ]);
  return md5(encryption.key, suffix).subarray(0, encryption.key.length + 5);
}

const escapeText = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);

function contentStream(lines: readonly string[], font: 'F1' | 'F2'): Buffer {
  if (lines.length === 0) return Buffer.alloc(0);
  const body = lines.map((line, i) => `${i === 0 ? '' : 'T* '}(${escapeText(line)}) Tj`);
  return Buffer.from(
    `BT /${font} ${FONT_SIZE} Tf ${LEADING} TL ${LEFT} ${TOP_BASELINE} Td\n${body.join('\n')}\nET\n`,
    'latin1',
  );
}

function annotationObject(spec: PdfAnnotationSpec): Buffer {
  const numbers = (values: readonly number[]) => values.map((n) => +n.toFixed(2)).join(' ');
  const quads = spec.quadPoints ? ` /QuadPoints [${numbers(spec.quadPoints)}]` : '';
  const contents = spec.contents === undefined ? '' : ` /Contents (${escapeText(spec.contents)})`;
  const [x1, y1, x2, y2] = spec.rect;
  const extra =
    spec.subtype === 'FreeText'
      ? ' /DA (/Helv 10 Tf 0 g)'
      : spec.subtype === 'Text'
        ? ' /Open false'
        : spec.subtype === 'Ink'
          ? // One stroke corner to corner, as a pen tool writes its path (§12.5.6.13).
            ` /InkList [[${numbers([x1, y1, (x1 + x2) / 2, y2, x2, y1])}]] /C [1 0 0]`
          : spec.subtype === 'Stamp'
            ? ' /Name /Approved'
            : ' /C [1 1 0]';
  return Buffer.from(
    `<< /Type /Annot /Subtype /${spec.subtype} /Rect [${numbers(spec.rect)}]${quads}${contents}${extra} >>`,
    'latin1',
  );
}

export function buildPdf(pages: readonly PdfPage[], options: PdfOptions = {}): Uint8Array {
  const encryption =
    options.userPassword === undefined ? undefined : standardSecurity(options.userPassword);
  if (encryption && pages.some((page) => page.annotations?.length)) {
    throw new Error('buildPdf: annotations in an encrypted PDF are not supported');
  }
  // 1 catalog, 2 page tree, 3 Helvetica, then a page object and its content stream per page,
  // then the annotations, then Courier.
  const pageIds = pages.map((_, i) => 4 + i * 2);
  let nextId = 4 + pages.length * 2;
  const annotationIds = pages.map((page) => (page.annotations ?? []).map(() => nextId++));
  const courierId = nextId;
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from(
      `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    ),
    Buffer.from(
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    ),
  ];
  pages.forEach((page, i) => {
    const contentId = pageIds[i]! + 1;
    const rotate = page.rotate ? ` /Rotate ${page.rotate}` : '';
    const annots = annotationIds[i]!.length
      ? ` /Annots [${annotationIds[i]!.map((id) => `${id} 0 R`).join(' ')}]`
      : '';
    objects.push(
      Buffer.from(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]${rotate} ` +
          `/Resources << /Font << /F1 3 0 R /F2 ${courierId} 0 R >> >> /Contents ${contentId} 0 R${annots} >>`,
      ),
    );
    let stream = contentStream(page.lines ?? [], page.font === 'Courier' ? 'F2' : 'F1');
    if (encryption) stream = rc4(objectKey(encryption, contentId), stream);
    objects.push(
      Buffer.concat([
        Buffer.from(`<< /Length ${stream.length} >>\nstream\n`),
        stream,
        Buffer.from('\nendstream'),
      ]),
    );
  });
  for (const page of pages) {
    for (const annotation of page.annotations ?? []) objects.push(annotationObject(annotation));
  }
  objects.push(
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>'),
  );
  let encryptId: number | undefined;
  if (encryption) {
    objects.push(
      Buffer.from(
        `<< /Filter /Standard /V 1 /R 2 /O <${encryption.owner.toString('hex')}> ` +
          `/U <${encryption.user.toString('hex')}> /P ${encryption.permissions} >>`,
      ),
    );
    encryptId = objects.length;
  }

  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    chunks.push(chunk);
    offset += chunk.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n `),
  ].join('\n');
  const id = encryption ? encryption.fileId.toString('hex') : md5(...chunks).toString('hex');
  const encrypt = encryptId === undefined ? '' : ` /Encrypt ${encryptId} 0 R`;
  chunks.push(
    Buffer.from(
      `${xref}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} /ID [<${id}> <${id}>] >>\n` +
        `startxref\n${offset}\n%%EOF\n`,
    ),
  );
  return new Uint8Array(Buffer.concat(chunks));
}

/** A deterministic multi-page "paper": enough text per page to split into several chunks. */
export function paperPages(pageCount: number, linesPerPage = 48): PdfPage[] {
  const words =
    'trace compiler loop type specialization interpreter bytecode guard recorder nested tree ' +
    'register allocation dynamic language hot path side exit call stack native code benchmark';
  const vocabulary = words.split(' ');
  let state = 7;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return vocabulary[state % vocabulary.length]!;
  };
  return Array.from({ length: pageCount }, (_, page) => ({
    lines: [
      page === 0 ? 'Trace-based Just-in-Time Type Specialization for Dynamic Languages' : '',
      ...Array.from(
        { length: linesPerPage },
        (_, line) => `${page + 1}.${line + 1} ${Array.from({ length: 11 }, next).join(' ')}.`,
      ),
    ].filter(Boolean),
  }));
}

/** The marked line of `annotatedInvoice()` and the words its highlight covers. */
export const INVOICE_FEE_LINE = 'The monthly storage fee is 50 dollars per unit.';
export const INVOICE_HIGHLIGHTED = 'storage fee is 50';

/**
 * A two-page invoice annotated as a reader would: page 2 has a highlight over
 * `INVOICE_HIGHLIGHTED` with the comment "check the fee", a sticky note, a text box, an
 * underline with no comment and a link (not an annotation anyone wrote, so never read).
 */
export function annotatedInvoice(): Uint8Array {
  const from = INVOICE_FEE_LINE.indexOf(INVOICE_HIGHLIGHTED);
  return buildPdf([
    { lines: ['Harbor Storage invoice 2291', 'Terms and conditions apply.'] },
    {
      font: 'Courier',
      lines: [
        'Invoice 2291 from Harbor Storage',
        INVOICE_FEE_LINE,
        'Payment due within thirty days.',
      ],
      annotations: [
        {
          subtype: 'Highlight',
          ...courierMark(1, from, from + INVOICE_HIGHLIGHTED.length),
          contents: 'check the fee',
        },
        {
          subtype: 'Text',
          rect: [520, 700, 540, 720],
          contents: 'Ask Marguerite about the quokka discount',
        },
        {
          subtype: 'FreeText',
          rect: [300, 600, 500, 640],
          contents: 'Paid by transfer on 3 March',
        },
        { subtype: 'Underline', ...courierMark(2, 0, 'Payment due'.length) },
        { subtype: 'Link', rect: [56, 500, 200, 520] },
      ],
    },
  ]);
}
