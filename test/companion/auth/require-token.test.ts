import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_TOKEN, authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t.close();
});

function get(url: string, headers: Record<string, string> = {}, remoteAddress = '10.0.0.7') {
  return t.app.inject({ method: 'GET', url, headers, remoteAddress });
}

const sameLengthWrong = TEST_TOKEN.slice(0, -1) + (TEST_TOKEN.endsWith('w') ? 'x' : 'w');

describe('bearer token on protected routes', () => {
  it.each([
    ['no Authorization header', {}],
    ['empty header', { authorization: '' }],
    ['"Bearer" with no token', { authorization: 'Bearer' }],
    ['"Bearer " with an empty token', { authorization: 'Bearer ' }],
    ['a wrong token of the same length', { authorization: `Bearer ${sameLengthWrong}` }],
    ['a shorter wrong token', { authorization: 'Bearer abc' }],
    ['a longer token with the right prefix', { authorization: `Bearer ${TEST_TOKEN}x` }],
    ['the token with a trailing newline', { authorization: `Bearer ${TEST_TOKEN}\n` }],
    ['the token with a trailing space', { authorization: `Bearer ${TEST_TOKEN} ` }],
    ['two spaces after the scheme', { authorization: `Bearer  ${TEST_TOKEN}` }],
    ['another scheme', { authorization: `Basic ${TEST_TOKEN}` }],
    ['the token without a scheme', { authorization: TEST_TOKEN }],
    ['the token in upper case', { authorization: `Bearer ${TEST_TOKEN.toUpperCase()}` }],
  ])('401 for %s', async (_case, headers) => {
    const response = await get('/api/v1/status', headers);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="cairn"');
    expect(response.body).not.toContain(TEST_TOKEN);
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])(
    'accepts the scheme spelled %s',
    async (scheme) => {
      const response = await get('/api/v1/status', { authorization: `${scheme} ${TEST_TOKEN}` });
      expect(response.statusCode).toBe(200);
    },
  );

  it.each(['/api/v1/status', '/metrics', '/api/v1/not-a-route', '/v1/models', '/api/other'])(
    '%s needs the token (401 before 404)',
    async (url) => {
      expect((await get(url)).statusCode).toBe(401);
    },
  );

  it('/health and unknown non-API paths do not', async () => {
    expect((await get('/health')).statusCode).toBe(200);
    expect((await get('/some/page')).statusCode).toBe(404);
  });

  it.each(['token', 'access_token', 'api_key'])(
    'refuses a credential in the query string (?%s=), even the right one',
    async (name) => {
      const response = await get(`/api/v1/status?${name}=${TEST_TOKEN}`, authorized);
      expect(response.statusCode).toBe(401);
      expect(response.json<{ error: { message: string } }>().error.message).toContain(
        'not accepted in the URL',
      );
    },
  );

  it('?token= alone does not authenticate', async () => {
    expect((await get(`/api/v1/status?token=${TEST_TOKEN}`)).statusCode).toBe(401);
  });
});

describe('failed-authentication rate limit', () => {
  it('after 10 failures in a minute with one token, that token gets 429 with Retry-After', async () => {
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await get('/api/v1/status', { authorization: 'Bearer wrong' });
      expect(response.statusCode, `attempt ${attempt}`).toBe(401);
    }
    const blocked = await get('/api/v1/status', { authorization: 'Bearer wrong' });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('one stale client behind a proxy does not lock out the right token from the same address', async () => {
    for (let attempt = 0; attempt < 30; attempt++) {
      await get('/api/v1/status', { authorization: 'Bearer stale-token' }, '127.0.0.1');
    }
    expect(
      (await get('/api/v1/status', { authorization: 'Bearer stale-token' }, '127.0.0.1'))
        .statusCode,
    ).toBe(429);
    expect((await get('/api/v1/status', authorized, '127.0.0.1')).statusCode).toBe(200);
  });

  it('after 100 failures with any tokens the address gets 429, even with the right token', async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const response = await get('/api/v1/status', { authorization: `Bearer guess-${attempt}` });
      expect(response.statusCode, `guess ${attempt}`).toBe(401);
    }
    expect((await get('/api/v1/status', { authorization: 'Bearer guess-x' })).statusCode).toBe(429);
    expect((await get('/api/v1/status', authorized)).statusCode).toBe(429);
    // Another address is unaffected.
    expect((await get('/api/v1/status', authorized, '10.0.0.8')).statusCode).toBe(200);
  });

  it('successful requests do not count', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      expect((await get('/api/v1/status', authorized)).statusCode).toBe(200);
    }
    expect((await get('/api/v1/status', { authorization: 'Bearer wrong' })).statusCode).toBe(401);
  });

  it('a spoofed X-Forwarded-For does not reset the counter (no proxy is trusted)', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      await get('/api/v1/status', { 'x-forwarded-for': `192.0.2.${attempt}` });
    }
    const response = await get('/api/v1/status', { 'x-forwarded-for': '198.51.100.1' });
    expect(response.statusCode).toBe(429);
  });

  it('behind a trusted proxy, counts the client named in X-Forwarded-For', async () => {
    await t.close();
    t = await buildTestApp({ config: { trustProxy: ['10.0.0.1'] } });
    const viaProxy = (client: string, headers: Record<string, string> = {}) =>
      get('/api/v1/status', { ...headers, 'x-forwarded-for': client }, '10.0.0.1');
    for (let attempt = 0; attempt < 100; attempt++) {
      await viaProxy('203.0.113.5', { authorization: `Bearer guess-${attempt}` });
    }
    expect((await viaProxy('203.0.113.5', authorized)).statusCode).toBe(429);
    expect((await viaProxy('203.0.113.6', authorized)).statusCode).toBe(200);
    // A client that is not the proxy cannot pick its own address.
    for (let attempt = 0; attempt < 10; attempt++) {
      await get('/api/v1/status', { 'x-forwarded-for': `192.0.2.${attempt}` }, '10.0.0.9');
    }
    expect((await get('/api/v1/status', {}, '10.0.0.9')).statusCode).toBe(429);
  });

  it('public routes stay reachable from a blocked address', async () => {
    for (let attempt = 0; attempt < 101; attempt++) {
      await get('/api/v1/status', { authorization: `Bearer guess-${attempt}` });
    }
    expect((await get('/api/v1/status', authorized)).statusCode).toBe(429);
    expect((await get('/health')).statusCode).toBe(200);
  });
});
