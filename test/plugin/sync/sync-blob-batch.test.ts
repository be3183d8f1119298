// @vitest-environment node
/*
 * The pull's batched downloads (`POST blobs/batch`, docs/sync.md): the real engine and client
 * against the real app. A first sync fetches its files in bounded batches instead of one request
 * each; files the device has already are linked, not fetched; a batch whose bytes do not match
 * their hashes writes nothing; a companion without the route is asked one blob at a time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../../plugin/connection/http-transport';
import { SyncRequestError } from '../../../plugin/sync/sync-client';
import { parseBlobBatch } from '../../../shared/protocol/sync-blob-batch';
import { buildSyncTestApp, hashOf } from '../../companion/sync/sync-app';
import type { SyncTestApp } from '../../companion/sync/sync-app';
import { InjectTransport } from '../../helpers/inject-transport';
import { testDevice } from './sync-device';

let t: SyncTestApp;
afterEach(async () => {
  await t.close();
});

const NOTES = Object.fromEntries(
  Array.from({ length: 20 }, (_, i) => [
    `Notes/N${String(i).padStart(2, '0')}.md`,
    `# Note ${i}\n\n${'text '.repeat(i)}\n`,
  ]),
);
// Two files with the same bytes: one hash, fetched once, written twice.
NOTES['Copy.md'] = NOTES['Notes/N03.md'] as string;

/** `POST blobs/batch` 3, `GET blobs` 1 … of the requests sent. */
function kinds(requests: readonly HttpRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of requests) {
    const route = new URL(request.url).pathname.replace(/^\/api\/v1\/sync\//, '');
    const kind = `${request.method} ${route.startsWith('blobs/') && route !== 'blobs/batch' ? 'blobs/:hash' : route}`;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

class TamperingTransport extends InjectTransport {
  override async request(request: HttpRequest): Promise<HttpResponse> {
    const response = await super.request(request);
    if (!request.url.endsWith('/blobs/batch') || response.bytes === undefined) return response;
    // One byte of the last blob changed on the way: framing intact, bytes wrong.
    const bytes = new Uint8Array(response.bytes.slice(0));
    bytes[bytes.length - 2] = (bytes[bytes.length - 2] as number) ^ 1;
    return { ...response, bytes: bytes.buffer };
  }
}

class OldCompanionTransport extends InjectTransport {
  override async request(request: HttpRequest): Promise<HttpResponse> {
    if (request.url.endsWith('/blobs/batch')) {
      this.requests.push(request);
      return {
        status: 404,
        text: JSON.stringify({ error: { code: 'NOT_FOUND', message: 'Route not found' } }),
      };
    }
    return super.request(request);
  }
}

/** Every batch request goes unanswered (a timeout on a slow connection). */
class BatchTimesOutTransport extends InjectTransport {
  override async request(request: HttpRequest): Promise<HttpResponse> {
    if (request.url.endsWith('/blobs/batch')) {
      this.requests.push(request);
      throw new Error('timed out');
    }
    return super.request(request);
  }
}

describe('the pull downloads in batches (POST blobs/batch)', () => {
  it('a first sync fetches its files in batches of at most blobsPerBatch, each hash once', async () => {
    t = await buildSyncTestApp({ files: NOTES });
    const transport = new InjectTransport(() => t.app);
    const phone = testDevice(t, 'Pixel 8', { transport, engine: { blobsPerBatch: 8 } });
    await phone.engine.sync();
    for (const [path, text] of Object.entries(NOTES)) expect(phone.vault.text(path)).toBe(text);
    // 20 distinct hashes (21 files): 8 + 8 + 4; no single GET.
    expect(kinds(transport.requests)).toEqual({ 'GET changes': 1, 'POST blobs/batch': 3 });
    const asked = transport.requests
      .filter((request) => request.url.endsWith('/blobs/batch'))
      .map((request) => (JSON.parse(request.body as string) as { hashes: string[] }).hashes);
    expect(asked.map((hashes) => hashes.length)).toEqual([8, 8, 4]);
    expect(new Set(asked.flat()).size).toBe(20);
  });

  it('a device holding the very files already links them and fetches nothing', async () => {
    t = await buildSyncTestApp({ files: NOTES });
    const transport = new InjectTransport(() => t.app);
    const laptop = testDevice(t, 'Laptop', { transport });
    for (const [path, text] of Object.entries(NOTES)) laptop.vault.userWrite(path, text);
    await laptop.engine.sync();
    expect(kinds(transport.requests)).toEqual({ 'GET changes': 1 });
    expect(t.sync.store.head()).toBe(Object.keys(NOTES).length);
  });

  it('a batch whose bytes do not match their hashes fails the pass and writes none of them', async () => {
    t = await buildSyncTestApp({ files: NOTES });
    const phone = testDevice(t, 'Pixel 8', { transport: new TamperingTransport(() => t.app) });
    const failure = await phone.engine.sync().then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SyncRequestError);
    expect((failure as SyncRequestError).code).toBe('BAD_ANSWER');
    expect(phone.vault.paths()).toEqual([]);
    expect(await phone.engine.seq()).toBe(0);
  });

  it('a companion without the route is asked once, then one blob at a time', async () => {
    t = await buildSyncTestApp({ files: NOTES });
    const transport = new OldCompanionTransport(() => t.app);
    const phone = testDevice(t, 'Pixel 8', { transport });
    await phone.engine.sync();
    for (const [path, text] of Object.entries(NOTES)) expect(phone.vault.text(path)).toBe(text);
    expect(kinds(transport.requests)).toEqual({
      'GET changes': 1,
      'POST blobs/batch': 1,
      'GET blobs/:hash': 21,
    });
  });
});

describe('a batch that times out', () => {
  it('is fetched one blob at a time instead: the pass still brings every file', async () => {
    t = await buildSyncTestApp({ files: NOTES });
    const transport = new BatchTimesOutTransport(() => t.app);
    const phone = testDevice(t, 'Pixel 8', { transport, engine: { blobsPerBatch: 8 } });
    await phone.engine.sync();
    for (const [path, text] of Object.entries(NOTES)) expect(phone.vault.text(path)).toBe(text);
    expect(kinds(transport.requests)).toEqual({
      'GET changes': 1,
      'POST blobs/batch': 3,
      'GET blobs/:hash': 21,
    });
  });
});

describe('parseBlobBatch', () => {
  const a = hashOf('a');
  const b = hashOf('bb');
  const frames = (text: string) => new TextEncoder().encode(text);

  it('reads frames in the order asked, "-" as not held', () => {
    const parsed = parseBlobBatch(frames(`${a} 1\na${b} -\n`), [a, b]);
    expect(parsed.ok && new TextDecoder().decode(parsed.blobs.get(a) as Uint8Array)).toBe('a');
    expect(parsed.ok && parsed.blobs.get(b)).toBeNull();
  });

  it.each([
    ['another order', `${b} 2\nbb${a} 1\na`],
    ['a body cut short', `${a} 1\na${b} 2\nb`],
    ['a frame missing', `${a} 1\na`],
    ['bytes after the last frame', `${a} 1\na${b} 2\nbbX`],
    ['a size that is no number', `${a} x\na${b} 2\nbb`],
    ['no size', `${a} \na${b} 2\nbb`],
  ])('refuses %s', (_, body) => {
    expect(parseBlobBatch(frames(body), [a, b]).ok).toBe(false);
  });
});
