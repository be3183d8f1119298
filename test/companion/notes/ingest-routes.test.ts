import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VaultIndexer } from '../../../companion/search/vault-indexer';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import { WriteMemory } from '../../../companion/idempotency/write-memory';
import { registerIngestRoute, safeName } from '../../../companion/notes/ingest-routes';
import { ManualClock } from '../../fakes/clock';
import { buildPdf } from '../../helpers/pdf-builder';
import { TEST_TOKEN, authorized, buildIndexedTestApp, testConfig } from '../helpers/app';
import type { IndexedTestApp } from '../helpers/app';

let app: FastifyInstance;
let vault: string;
let indexer: VaultIndexer;

let testApp: IndexedTestApp;

beforeEach(async () => {
  testApp = await buildIndexedTestApp('ingest');
  ({ app, vault, indexer } = testApp);
});
afterEach(() => testApp.close());

const BOUNDARY = '----cairn-test-boundary';

function multipart(filename: string, content: Buffer | string, field = 'file'): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

function upload(target: FastifyInstance, filename: string, content: Buffer | string) {
  return target.inject({
    method: 'POST',
    url: '/api/v1/ingest',
    headers: { ...authorized, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: multipart(filename, content),
  });
}

/** The body as a stream of two chunks that reach the server separately. */
function inTwoChunks(body: Buffer, cut: number): Readable {
  return Readable.from(
    (async function* () {
      yield body.subarray(0, cut);
      await new Promise((resolve) => setImmediate(resolve));
      yield body.subarray(cut);
    })(),
  );
}

/** The app's upload temp folder (in its data folder). */
const uploads = () => join(testApp.dir, 'data', 'uploads');
const uploadTemps = () => (existsSync(uploads()) ? readdirSync(uploads()) : []);

const attachments = () => {
  const folder = join(vault, 'Cairn/Attachments');
  return existsSync(folder) ? readdirSync(folder) : [];
};

describe('POST /api/v1/ingest', () => {
  it('saves a PDF into the attachments folder and indexes it', async () => {
    const pdf = Buffer.from(buildPdf([{ lines: ['Rotated text'], rotate: 90 }]));
    const response = await upload(app, 'rotated.pdf', pdf);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      path: 'Cairn/Attachments/rotated.pdf',
      kind: 'pdf',
      bytes: pdf.length,
      indexed: true,
    });
    expect(readFileSync(join(vault, 'Cairn/Attachments/rotated.pdf')).equals(pdf)).toBe(true);
    expect(indexer.store.fileState('Cairn/Attachments/rotated.pdf')).toBeDefined();
  });

  it('saves Markdown and text under safe, unique names', async () => {
    const first = await upload(app, '../../etc/My: notes?.md', '# Hello\n\nworld\n');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ path: 'Cairn/Attachments/My- notes-.md', indexed: true });
    const second = await upload(app, 'My: notes?.MD', 'again\n');
    expect((second.json() as { path: string }).path).toMatch(
      /^Cairn\/Attachments\/My- notes--[0-9a-f]{4}\.md$/,
    );
    const text = await upload(app, '.hidden.txt', 'plain text ✓\n');
    expect(text.statusCode).toBe(201);
    expect((text.json() as { path: string }).path).toBe('Cairn/Attachments/hidden.txt');
    expect(readFileSync(join(vault, 'Cairn/Attachments/My- notes-.md'), 'utf8')).toBe(
      '# Hello\n\nworld\n',
    );
  });

  it('refuses other types, fake PDFs, binary text and empty files with 422, writing nothing', async () => {
    for (const [name, content, message] of [
      ['photo.jpg', Buffer.from([0xff, 0xd8, 0xff]), /only PDF/],
      ['noext', 'text', /only PDF/],
      ['fake.pdf', 'not a pdf', /not a PDF/],
      ['nul.txt', Buffer.from('a\u0000b'), /NUL/],
      ['latin1.md', Buffer.from([0x63, 0x61, 0x66, 0xe9]), /UTF-8/],
      ['empty.md', '', /empty/],
    ] as const) {
      const response = await upload(app, name, content);
      expect(response.statusCode, name).toBe(422);
      expect((response.json() as { error: { message: string } }).error.message).toMatch(message);
    }
    expect(attachments()).toEqual([]);
  });

  it('answers 413 over the limit and 400 for a request that is not a multipart upload', async () => {
    const small = await buildApp({
      config: testConfig(vault, join(testApp.dir, 'data2')),
      db: openDatabase(join(testApp.dir, 'small.db')),
      clock: ManualClock.at('2026-11-22T09:30:00Z'),
      tokenSha256: sha256(TEST_TOKEN),
      version: '0.0.0-test',
    });
    try {
      // The app registers the 50 MB route; a second instance shows the limit at a small size.
      const limited = (await import('fastify')).default();
      const limitedDb = openDatabase(join(testApp.dir, 'limited.db'));
      limited.addHook('onClose', async () => limitedDb.close());
      await registerIngestRoute(limited, {
        vault,
        folder: 'Cairn/Attachments',
        uploadFolder: uploads(),
        memory: new WriteMemory(limitedDb, ManualClock.at('2026-11-22T09:30:00Z')),
        maxBytes: 1024,
      });
      const { registerErrorHandling } = await import('../../../companion/http/error-handler');
      registerErrorHandling(limited);
      const tooBig = await limited.inject({
        method: 'POST',
        url: '/api/v1/ingest',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        payload: multipart('big.txt', 'x'.repeat(2048)),
      });
      expect(tooBig.statusCode).toBe(413);
      await limited.close();
      expect(attachments()).toEqual([]);

      const json = await small.inject({
        method: 'POST',
        url: '/api/v1/ingest',
        headers: authorized,
        payload: { file: 'x' },
      });
      expect(json.statusCode).toBeGreaterThanOrEqual(400);
      expect(json.statusCode).toBeLessThan(500);
      const none = await small.inject({
        method: 'POST',
        url: '/api/v1/ingest',
        headers: { ...authorized, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        payload: Buffer.from(`--${BOUNDARY}--\r\n`),
      });
      expect(none.statusCode).toBe(400);
      const unauthorized = await small.inject({ method: 'POST', url: '/api/v1/ingest' });
      expect(unauthorized.statusCode).toBe(401);
    } finally {
      await small.close();
    }
  });
});

describe('safeName', () => {
  it('keeps names safe for every vault and sync target', () => {
    expect(safeName('a/b\\c.PDF')).toEqual({ stem: 'c', extension: '.pdf' });
    expect(safeName('x#^[]|*.md')).toEqual({ stem: 'x------', extension: '.md' });
    expect(safeName('\u0000\u0007.txt')).toEqual({ stem: 'upload', extension: '.txt' });
    expect(safeName(`${'é'.repeat(300)}.md`).stem).toHaveLength(100);
    expect(safeName('...').stem).toBe('upload');
  });
});

describe('POST /api/v1/ingest file names', () => {
  it('refuses a file named like a Windows device with 400 naming the file', async () => {
    for (const name of ['aux.txt', 'CON.md', 'com1.txt']) {
      const response = await upload(app, name, 'hello');
      expect(response.statusCode, name).toBe(400);
      expect(response.json(), name).toMatchObject({
        error: { code: 'VALIDATION_ERROR', field: 'file' },
      });
    }
    expect(attachments()).toEqual([]);
  });
});

describe('POST /api/v1/ingest over the limit', () => {
  it('refuses an upload over the limit wherever the limit falls in the stream, and keeps nothing', async () => {
    const limited = (await import('fastify')).default();
    const { registerErrorHandling } = await import('../../../companion/http/error-handler');
    registerErrorHandling(limited);
    const limitedDb = openDatabase(join(testApp.dir, 'limited-stream.db'));
    limited.addHook('onClose', async () => limitedDb.close());
    await registerIngestRoute(limited, {
      vault,
      folder: 'Cairn/Attachments',
      uploadFolder: uploads(),
      memory: new WriteMemory(limitedDb, ManualClock.at('2026-11-22T09:30:00Z')),
      maxBytes: 1024,
    });
    try {
      for (const size of [1025, 1030, 5000]) {
        const body = multipart('big.txt', 'x'.repeat(size));
        const head = body.length - size - `\r\n--${BOUNDARY}--\r\n`.length;
        // Chunks that end exactly where the limit falls: the case busboy's flag was missed on.
        for (const cut of [head + 1023, head + 1024, head + 1025, head + size]) {
          const response = await limited.inject({
            method: 'POST',
            url: '/api/v1/ingest',
            headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
            payload: inTwoChunks(body, cut),
          });
          expect(response.statusCode, `${size} bytes cut at ${cut}: ${response.body}`).toBe(413);
          expect(response.json()).toMatchObject({
            error: {
              code: 'PAYLOAD_TOO_LARGE',
              field: 'file',
              message: 'the file is larger than 1024 bytes; nothing was saved',
            },
          });
        }
      }
      expect(attachments()).toEqual([]);
      expect(uploadTemps()).toEqual([]);
      const exact = await limited.inject({
        method: 'POST',
        url: '/api/v1/ingest',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        payload: multipart('exact.txt', 'x'.repeat(1024)),
      });
      expect(exact.statusCode, exact.body).toBe(201);
      expect(exact.json()).toMatchObject({ bytes: 1024 });
    } finally {
      await limited.close();
    }
  });
});

describe('POST /api/v1/ingest streams the upload to a temp file', () => {
  it('indexes a normal upload and keeps no temp file after it', async () => {
    const pdf = Buffer.from(buildPdf([{ lines: ['Streamed zeppelin text'] }]));
    const response = await upload(app, 'streamed.pdf', pdf);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      path: 'Cairn/Attachments/streamed.pdf',
      bytes: pdf.length,
      indexed: true,
    });
    expect(readFileSync(join(vault, 'Cairn/Attachments/streamed.pdf')).equals(pdf)).toBe(true);
    expect(existsSync(uploads()), 'the upload went through the data folder').toBe(true);
    expect(uploadTemps()).toEqual([]);
  });

  it('answers 413 naming the limit for a file over 50 MB, keeping nothing', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024 + 1, 0x61);
    const response = await upload(app, 'huge.txt', big);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        field: 'file',
        message: 'the file is larger than 50 MB; nothing was saved',
      },
    });
    expect(uploadTemps()).toEqual([]);
    expect(attachments()).toEqual([]);
  });

  it('removes the temp file when the content is refused or the upload is cut short', async () => {
    const fake = await upload(app, 'fake.pdf', 'not a pdf at all');
    expect(fake.statusCode).toBe(422);
    const latin1 = await upload(app, 'latin1.md', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(latin1.statusCode).toBe(422);
    // A body that ends inside the file: the client went away mid-upload.
    const whole = multipart('cut.txt', 'x'.repeat(100_000));
    const cut = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { ...authorized, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: whole.subarray(0, 50_000),
    });
    expect(cut.statusCode).toBeGreaterThanOrEqual(400);
    expect(cut.statusCode).toBeLessThan(500);
    expect(cut.json()).toMatchObject({ error: { field: 'file' } });
    expect(uploadTemps()).toEqual([]);
    expect(attachments()).toEqual([]);
  });

  it('removes temp files a crash left behind once they are an hour old', async () => {
    const { mkdirSync, writeFileSync, utimesSync } = await import('node:fs');
    const { removeStaleUploads } = await import('../../../companion/http/receive-upload');
    mkdirSync(uploads(), { recursive: true });
    writeFileSync(join(uploads(), 'old.upload'), 'left by a crash');
    writeFileSync(join(uploads(), 'new.upload'), 'arriving now');
    writeFileSync(join(uploads(), 'other.txt'), 'not ours');
    const hourAgo = Date.now() / 1000 - 3601;
    utimesSync(join(uploads(), 'old.upload'), hourAgo, hourAgo);
    utimesSync(join(uploads(), 'other.txt'), hourAgo, hourAgo);
    expect(await removeStaleUploads(uploads())).toBe(1);
    expect(readdirSync(uploads()).sort()).toEqual(['new.upload', 'other.txt']);
  });
});
