import { Type } from '@sinclair/typebox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorEnvelope } from '../../shared/protocol/errors';
import { HealthResponse, StatusResponse } from '../../shared/protocol/status';
import { checkSchema } from '../../shared/protocol/validate';
import { ApiHttpError } from '../../companion/http/api-error';
import type { StatusSources } from '../../companion/status/sources';
import { authorized, buildTestApp } from './helpers/app';
import type { TestApp } from './helpers/app';

let t: TestApp;
afterEach(async () => {
  await t.close();
});

function expectEnvelope(body: string, code: string): { message: string; field?: string } {
  const parsed: unknown = JSON.parse(body);
  const check = checkSchema(ErrorEnvelope, parsed);
  if (!check.ok) throw new Error(`not an error envelope (${check.violation.message}): ${body}`);
  expect(check.value.error.code).toBe(code);
  return check.value.error;
}

describe('GET /health', () => {
  beforeEach(async () => {
    t = await buildTestApp();
  });

  it('answers ok without a token', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(checkSchema(HealthResponse, response.json()).ok).toBe(true);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

describe('GET /api/v1/status', () => {
  it('reports an empty index, no reminders and no subscriptions when those areas are not running', async () => {
    t = await buildTestApp();
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/status',
      headers: authorized,
    });
    expect(response.statusCode).toBe(200);
    const body: unknown = response.json();
    expect(checkSchema(StatusResponse, body).ok).toBe(true);
    expect(body).toEqual({
      version: '0.0.0-test',
      index: {
        files: 0,
        chunks: 0,
        pending: 0,
        failed: [],
        embedding: null,
        semantic: {
          state: 'off',
          provider: 'none',
          model: null,
          dims: null,
          embedded: 0,
          total: 0,
          reason: 'the index does not run in this process',
        },
        excluded: [],
      },
      scheduler: { reminders: 0, next_fire: null },
      push: { subscriptions: 0 },
      process: { rss_bytes: expect.any(Number) },
    });
    expect((body as { process: { rss_bytes: number } }).process.rss_bytes).toBeGreaterThan(1e6);
  });

  it('passes through what the area sources report', async () => {
    const sources: StatusSources = {
      index: {
        indexStatus: async () => ({
          files: 9,
          chunks: 31,
          pending: 2,
          failed: [{ path: 'Broken.md', error: 'line 3: front matter is not valid YAML' }],
          embedding: { model: 'use-lite', dims: 512 },
          semantic: {
            state: 'ready',
            provider: 'builtin',
            model: 'use-lite',
            dims: 512,
            embedded: 40,
            total: 40,
            reason: null,
          },
          excluded: [
            { kind: 'chats', folder: 'Cairn/Chats', files: 3, setting: 'CAIRN_SEARCH_CHATS=1' },
          ],
        }),
      },
      scheduler: {
        schedulerStatus: () => ({ reminders: 5, next_fire: '2026-11-23T17:00:00+01:00' }),
      },
      push: { pushStatus: () => ({ subscriptions: 2 }) },
    };
    t = await buildTestApp({ deps: { status: sources } });
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/status',
      headers: authorized,
    });
    const body = response.json<StatusResponse>();
    expect(checkSchema(StatusResponse, body).ok).toBe(true);
    expect(body.index.failed).toEqual([
      { path: 'Broken.md', error: 'line 3: front matter is not valid YAML' },
    ]);
    expect(body.scheduler.next_fire).toBe('2026-11-23T17:00:00+01:00');
    expect(body.push.subscriptions).toBe(2);
  });
});

describe('error envelope', () => {
  beforeEach(async () => {
    t = await buildTestApp();
    t.app.post(
      '/api/v1/echo',
      {
        schema: {
          body: Type.Object(
            {
              title: Type.String({ minLength: 1 }),
              keys: Type.Optional(Type.Object({ p256dh: Type.String({ minLength: 10 }) })),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => request.body,
    );
    t.app.get('/api/v1/boom', async () => {
      throw new Error('database at /home/alice/.local/share/cairn exploded');
    });
    t.app.get('/api/v1/conflict', async () => {
      throw new ApiHttpError('CONFLICT', 'note changed since it was read', 'updated');
    });
  });

  it('404 for an unknown route, as an envelope naming the path', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/nope?x=1',
      headers: authorized,
    });
    expect(response.statusCode).toBe(404);
    const error = expectEnvelope(response.body, 'NOT_FOUND');
    expect(error.message).toBe('no route for GET /api/v1/nope');
  });

  it('404 envelope outside the API too', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/no-such-page' });
    expect(response.statusCode).toBe(404);
    expectEnvelope(response.body, 'NOT_FOUND');
  });

  it.each([
    ['missing property', { keys: { p256dh: 'x'.repeat(12) } }, 'title', 'body.title is required'],
    ['wrong type', { title: { text: 'a' } }, 'title', 'body.title must be string'],
    // A JSON body is typed already: a number is not quietly turned into "42".
    ['number for a string', { title: 42 }, 'title', 'body.title must be string'],
    ['boolean for a string', { title: true }, 'title', 'body.title must be string'],
    ['array for a string', { title: ['a'] }, 'title', 'body.title must be string'],
    ['nested field', { title: 'a', keys: { p256dh: 'short' } }, 'keys.p256dh', 'body.keys.p256dh'],
    [
      'extra property',
      { title: 'a', admin: true },
      'admin',
      'body.admin is not an allowed property',
    ],
  ])('400 naming the field: %s', async (_case, payload, field, message) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: authorized,
      payload,
    });
    expect(response.statusCode).toBe(400);
    const error = expectEnvelope(response.body, 'VALIDATION_ERROR');
    expect(error.field).toBe(field);
    expect(error.message).toContain(message);
  });

  it('query strings keep their coercion: ?limit=10 arrives as a number, a list from one value', async () => {
    t.app.get(
      '/api/v1/echo-query',
      {
        schema: {
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1 }),
            tag: Type.Optional(Type.Array(Type.String())),
          }),
        },
      },
      async (request) => request.query,
    );
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/echo-query?limit=10&tag=travel',
      headers: authorized,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ limit: 10, tag: ['travel'] });
    const refused = await t.app.inject({
      method: 'GET',
      url: '/api/v1/echo-query?limit=ten',
      headers: authorized,
    });
    expect(refused.statusCode).toBe(400);
    expect(expectEnvelope(refused.body, 'VALIDATION_ERROR').field).toBe('limit');
  });

  it('a real route refuses a number where its body wants text (POST /api/v1/answer)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/answer',
      headers: authorized,
      payload: { question: 42 },
    });
    expect(response.statusCode).toBe(400);
    const error = expectEnvelope(response.body, 'VALIDATION_ERROR');
    expect(error.field).toBe('question');
  });

  it.each([
    ['malformed JSON', '{"title": "a",', 'application/json'],
    ['empty JSON body', '', 'application/json'],
  ])('400 for %s', async (_case, payload, contentType) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: { ...authorized, 'content-type': contentType },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_ERROR');
  });

  it('413 for a body over the limit', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: { ...authorized, 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(response.statusCode).toBe(413);
    expectEnvelope(response.body, 'PAYLOAD_TOO_LARGE');
  });

  it('415 for a content type the API does not take', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: { ...authorized, 'content-type': 'application/xml' },
      payload: '<title>a</title>',
    });
    expect(response.statusCode).toBe(415);
    expect(expectEnvelope(response.body, 'VALIDATION_ERROR').field).toBe('content-type');
  });

  it('500 with a generic message: no stack, no internal detail', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/boom',
      headers: authorized,
    });
    expect(response.statusCode).toBe(500);
    const error = expectEnvelope(response.body, 'INTERNAL_ERROR');
    expect(error.message).toBe('internal error');
    expect(response.body).not.toContain('exploded');
    expect(response.body).not.toContain('/home/alice');
    expect(response.body).not.toMatch(/at .*\.ts:\d+/);
  });

  it('an ApiHttpError keeps its status, code and field', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/conflict',
      headers: authorized,
    });
    expect(response.statusCode).toBe(409);
    expect(expectEnvelope(response.body, 'CONFLICT')).toEqual({
      code: 'CONFLICT',
      message: 'note changed since it was read',
      field: 'updated',
    });
  });

  it.each([
    ['401', '/api/v1/status', {}],
    ['404', '/api/v1/nope', authorized],
    ['500', '/api/v1/boom', authorized],
  ])('security headers on the %s path', async (status, url, headers) => {
    const response = await t.app.inject({ method: 'GET', url, headers });
    expect(String(response.statusCode)).toBe(status);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    // Plain HTTP: HSTS would be ignored by browsers, and the CSP must not upgrade requests.
    expect(response.headers['strict-transport-security']).toBeUndefined();
    expect(response.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });
});

describe('CORS', () => {
  beforeEach(async () => {
    t = await buildTestApp();
  });

  it.each(['app://obsidian.md', 'capacitor://localhost', 'http://localhost'])(
    'allows the Obsidian origin %s, without credentials',
    async (origin) => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/status',
        headers: { ...authorized, origin },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(response.headers.vary).toContain('Origin');
    },
  );

  it.each([
    'https://evil.example',
    'null',
    'app://obsidian.md.evil.example',
    'http://localhost:3000',
  ])('gives %s no CORS headers', async (origin) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/status',
      headers: { ...authorized, origin },
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight from an allowed origin without a token', async () => {
    const response = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/status',
      headers: {
        origin: 'app://obsidian.md',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('app://obsidian.md');
    expect(response.headers['access-control-allow-headers']).toContain('Authorization');
  });

  it('does not answer a preflight from an unknown origin', async () => {
    const response = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/status',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(response.statusCode).not.toBe(204);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('OpenAI-format embedding routes', () => {
  const embedder = {
    model: { id: 'fake-2', dims: 2 },
    embed: async (texts: readonly string[]) => texts.map(() => Float32Array.from([1, 0])),
  };

  it('are served with the token when an embedder is running', async () => {
    t = await buildTestApp({ deps: { embedder } });
    expect((await t.app.inject({ method: 'GET', url: '/v1/models' })).statusCode).toBe(401);
    const models = await t.app.inject({ method: 'GET', url: '/v1/models', headers: authorized });
    expect(models.statusCode).toBe(200);
    expect(models.json()).toMatchObject({ data: [{ id: 'cairn' }, { id: 'fake-2', dims: 2 }] });
    const embeddings = await t.app.inject({
      method: 'POST',
      url: '/v1/embeddings',
      headers: authorized,
      payload: { model: 'fake-2', input: ['a', 'b'] },
    });
    expect(embeddings.statusCode).toBe(200);
    expect(embeddings.json<{ data: unknown[] }>().data).toHaveLength(2);
  });

  it('without an embedder: /v1/models lists only the chat model, /v1/embeddings is absent', async () => {
    t = await buildTestApp();
    const models = await t.app.inject({ method: 'GET', url: '/v1/models', headers: authorized });
    expect(models.json<{ data: Array<{ id: string }> }>().data.map((m) => m.id)).toEqual(['cairn']);
    const embeddings = await t.app.inject({
      method: 'POST',
      url: '/v1/embeddings',
      headers: authorized,
      payload: { model: 'fake-2', input: ['a'] },
    });
    expect(embeddings.statusCode).toBe(404);
  });
});
