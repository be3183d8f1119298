import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_URL_BYTES } from '../../../companion/http/client-error';
import { TEST_TOKEN, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * An over-long URL answers 414 URI_TOO_LONG in Cairn's envelope (issue #25, item 9), over a
 * real socket: whether the route sees it (8–16 KiB) or the HTTP parser stops first (over its
 * 16 KiB header budget, which Node reports as a header overflow). Nothing of the URL is echoed.
 */

let t: TestApp | undefined;
let port: number | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  port = undefined;
});

async function raw(request: string): Promise<{ status: number; body: string }> {
  if (t === undefined) {
    t = await buildTestApp();
    port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
  }
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body });
    });
  });
}

const get = (url: string, extra = ''): string =>
  `GET ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n${extra}Connection: close\r\n\r\n`;

describe('414 for an over-long URL', () => {
  it.each([
    ['a query the route would see', `/api/v1/search?q=${'visa+'.repeat(2000)}`],
    ['a path the route would see', `/api/v1/reminders/${'r'.repeat(12_000)}`],
    ['a URL past the parser budget', `/api/v1/search?q=${'a'.repeat(20_000)}`],
    ['an unknown path', `/${'x'.repeat(9_000)}`],
  ])('%s', async (_what, url) => {
    expect(Buffer.byteLength(url)).toBeGreaterThan(MAX_URL_BYTES);
    const answer = await raw(get(url));
    expect(answer.status).toBe(414);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'URI_TOO_LONG', message: 'the request URL is too long (at most 8 KiB)' },
    });
  });

  it('a long URL under the limit is served, and big headers are still a 431', async () => {
    const served = await raw(get(`/health?pad=${'a'.repeat(MAX_URL_BYTES - 100)}`));
    expect(served.status).toBe(200);
    const headers = await raw(get('/api/v1/status', `X-Big: ${'b'.repeat(20_000)}\r\n`));
    expect(headers.status).toBe(431);
    expect(JSON.parse(headers.body)).toMatchObject({ error: { code: 'HEADERS_TOO_LARGE' } });
  });
});
