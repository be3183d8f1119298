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
      ['answer', 'chat', 'embeddings', 'ingest', 'pushTest', 'search', 'sync', 'syncBlobs'].sort(),
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

describe('the same limits through MCP and /v1/chat/completions', () => {
  const mcpCall = (app: TestApp, tool: string, args: object, remoteAddress: string) =>
    app.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...authorized, accept: 'application/json, text/event-stream' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool, arguments: args },
      },
      remoteAddress,
    });

  it('MCP search and ask count against the search and answer budgets, per token and address', async () => {
    t = await buildTestApp({
      deps: {
        rateLimits: {
          search: { perToken: 2, perAddress: 100 },
          answer: { perToken: 100, perAddress: 1 },
        },
      },
    });
    expect((await mcpCall(t, 'search', { query: 'visa' }, '10.0.0.1')).statusCode).toBe(200);
    // The REST route and the MCP tool share one budget.
    expect((await call(t, 'search', '10.0.0.2')).statusCode).not.toBe(429);
    const limited = await mcpCall(t, 'search', { query: 'visa' }, '10.0.0.3');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/search requests from this token/) as unknown,
      },
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    expect((await mcpCall(t, 'ask', { question: 'visa?' }, '10.0.0.5')).statusCode).toBe(200);
    const perAddress = await mcpCall(t, 'ask', { question: 'visa?' }, '10.0.0.5');
    expect(perAddress.statusCode).toBe(429);
    expect(perAddress.json().error.message).toMatch(/answer requests from this address/);
    // Tools without a REST limit are not counted.
    expect((await mcpCall(t, 'list_reminders', {}, '10.0.0.5')).statusCode).toBe(200);
  });

  it('/v1/chat/completions counts as a chat turn, answering 429 in the OpenAI error shape', async () => {
    t = await buildTestApp({ deps: { rateLimits: { chat: { perToken: 1, perAddress: 100 } } } });
    const complete = () =>
      t!.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: authorized,
        payload: { model: 'cairn', messages: [{ role: 'user', content: 'search for visa' }] },
      });
    expect((await complete()).statusCode).not.toBe(429);
    const limited = await complete();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: { code: 'rate_limited', type: 'rate_limit_error' },
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});
