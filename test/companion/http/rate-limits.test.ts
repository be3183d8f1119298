import { afterEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../../companion/http/rate-limits';
import { authorized, buildTestApp } from '../helpers/app';
import type { TestApp } from '../helpers/app';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function call(app: TestApp, route: 'answer' | 'search', remoteAddress: string) {
  return route === 'answer'
    ? app.app.inject({
        method: 'POST',
        url: '/api/v1/answer',
        headers: authorized,
        payload: { question: 'visa' },
        remoteAddress,
      })
    : app.app.inject({
        method: 'GET',
        url: '/api/v1/search?q=visa',
        headers: authorized,
        remoteAddress,
      });
}

describe('rate limits on expensive routes', () => {
  it('has a limit for every expensive route', () => {
    expect(Object.keys(RATE_LIMITS).sort()).toEqual(
      ['answer', 'chat', 'embeddings', 'ingest', 'pushTest', 'search'].sort(),
    );
  });

  it('limits one token across addresses, with 429 and Retry-After', async () => {
    t = await buildTestApp({ deps: { rateLimits: { answer: { perToken: 3, perAddress: 100 } } } });
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      expect((await call(t, 'answer', address)).statusCode).not.toBe(429);
    }
    const limited = await call(t, 'answer', '10.0.0.4');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/answer requests from this token/) as unknown,
      },
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Other routes have budgets of their own.
    expect((await call(t, 'search', '10.0.0.4')).statusCode).not.toBe(429);
  });

  it('limits one address, leaving other addresses alone', async () => {
    t = await buildTestApp({ deps: { rateLimits: { search: { perToken: 100, perAddress: 2 } } } });
    expect((await call(t, 'search', '10.0.0.1')).statusCode).not.toBe(429);
    expect((await call(t, 'search', '10.0.0.1')).statusCode).not.toBe(429);
    const limited = await call(t, 'search', '10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.message).toMatch(/from this address/);
    expect((await call(t, 'search', '10.0.0.2')).statusCode).not.toBe(429);
  });

  it('does not count requests that fail authentication', async () => {
    t = await buildTestApp({ deps: { rateLimits: { search: { perToken: 1, perAddress: 1 } } } });
    for (let i = 0; i < 3; i++) {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/search?q=x',
        remoteAddress: '10.0.0.1',
      });
      expect(response.statusCode).toBe(401);
    }
    expect((await call(t, 'search', '10.0.0.1')).statusCode).not.toBe(429);
  });
});
