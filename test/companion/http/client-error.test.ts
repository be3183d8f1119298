import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_TOKEN, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

/*
 * Requests refused by the HTTP parser or the router before a route runs still answer in
 * Cairn's envelope `{ error: { code, message } }` (issue #25, item 9), over a real socket.
 */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function raw(request: string): Promise<{ status: number; body: string }> {
  t ??= await buildTestApp();
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = new URL(address);
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

describe("Cairn's envelope before any route runs", () => {
  it('431 for headers larger than the parser takes', async () => {
    const answer = await raw(
      `GET /api/v1/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'HEADERS_TOO_LARGE', message: expect.stringMatching(/headers are too large/) },
    });
  });

  it('400 for a malformed request, nothing of it echoed', async () => {
    const answer = await raw(
      `GET /x HTTP/1.1\r\nHost: x\r\nBad Header Bearer ${TEST_TOKEN}\r\n\r\n`,
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'malformed HTTP request' },
    });
    expect(answer.body).not.toContain(TEST_TOKEN);
  });
});
