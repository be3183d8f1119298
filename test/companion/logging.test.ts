import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_TOKEN, authorized, buildTestApp } from './helpers/app';
import type { TestApp } from './helpers/app';

/** Collects every log line the app writes. */
function logSink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

let t: TestApp;
afterEach(async () => {
  await t.close();
});

describe('logs', () => {
  it('never contain the token, from the header or the query string, nor request bodies', async () => {
    const sink = logSink();
    t = await buildTestApp({ logTo: sink.stream });
    t.app.post('/api/v1/echo', async () => ({ ok: true }));
    t.app.get('/api/v1/boom', async (request) => {
      // A careless handler that logs the whole headers object must still not leak it.
      request.log.info({ headers: request.headers }, 'headers seen');
      throw new Error('boom');
    });

    await t.app.inject({ method: 'GET', url: '/api/v1/status', headers: authorized });
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/status',
      headers: { authorization: 'Bearer nope' },
    });
    await t.app.inject({ method: 'GET', url: `/api/v1/status?token=${TEST_TOKEN}` });
    await t.app.inject({ method: 'GET', url: '/api/v1/boom', headers: authorized });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: authorized,
      payload: { note: 'my private diary entry' },
    });

    const logs = sink.text();
    expect(logs).toContain('/api/v1/status'); // the capture works
    expect(logs).toContain('[redacted]'); // the careless handler was redacted
    expect(logs).not.toContain(TEST_TOKEN);
    expect(logs).not.toContain('Bearer nope');
    expect(logs).not.toContain('my private diary entry');
  });
});
