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

function contentStream(lines: readonly string[]): Buffer {
  if (lines.length === 0) return Buffer.alloc(0);
  const body = lines.map((line, i) => `${i === 0 ? '' : 'T* '}(${escapeText(line)}) Tj`);
  return Buffer.from(`BT /F1 11 Tf 14 TL 56 760 Td\n${body.join('\n')}\nET\n`, 'latin1');
}

export function buildPdf(pages: readonly PdfPage[], options: PdfOptions = {}): Uint8Array {
  const encryption =
    options.userPassword === undefined ? undefined : standardSecurity(options.userPassword);
  // 1 catalog, 2 page tree, 3 font, then a page object and its content stream per page.
  const pageIds = pages.map((_, i) => 4 + i * 2);
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
    objects.push(
      Buffer.from(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]${rotate} ` +
          `/Resources << /Font << /F1 3 0 R >> >> /Contents ${contentId} 0 R >>`,
      ),
    );
    let stream = contentStream(page.lines ?? []);
    if (encryption) stream = rc4(objectKey(encryption, contentId), stream);
    objects.push(
      Buffer.concat([
        Buffer.from(`<< /Length ${stream.length} >>\nstream\n`),
        stream,
        Buffer.from('\nendstream'),
      ]),
    );
  });
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
