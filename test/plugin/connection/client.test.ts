import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompanionClient, parseStatus } from '../../../plugin/connection/client';
import type { CompanionEndpoint } from '../../../plugin/connection/client';
import { FakeCompanionServer, sampleStatus } from '../../helpers/fake-companion-server';
import { NodeHttpTransport } from '../../helpers/node-http-transport';

const TOKEN = 'test-token-0123456789';

describe('CompanionClient.checkConnection against a real local server', () => {
  let server: FakeCompanionServer;
  let baseUrl: string;
  let transport: NodeHttpTransport;
  let endpoint: CompanionEndpoint;
  const client = () => new CompanionClient(transport, () => endpoint);

  beforeEach(async () => {
    server = FakeCompanionServer.healthy(TOKEN);
    baseUrl = await server.start();
    transport = new NodeHttpTransport();
    endpoint = { url: baseUrl, token: TOKEN, offlineMode: true };
  });

  afterEach(async () => {
    await server.stop();
  });

  it('reports connected with the status summary, sending the token only to the API', async () => {
    const state = await client().checkConnection();
    expect(state).toEqual({
      kind: 'connected',
      status: {
        version: '0.1.0',
        files: 120,
        pending: 3,
        failed: 1,
        embedding: 'use-lite (512 dims)',
        semantic: null,
      },
    });
    expect(server.seen).toEqual([
      { path: '/health', authorization: undefined },
      { path: '/api/v1/status', authorization: `Bearer ${TOKEN}` },
    ]);
  });

  it('accepts a URL with a trailing slash without doubling it', async () => {
    endpoint.url = `${baseUrl}/`;
    expect((await client().checkConnection()).kind).toBe('connected');
    expect(server.seen.map((request) => request.path)).toEqual(['/health', '/api/v1/status']);
  });

  it('reports 401 as unauthorized', async () => {
    endpoint.token = 'wrong-token';
    const state = await client().checkConnection();
    expect(state.kind).toBe('unauthorized');
    if (state.kind === 'unauthorized') expect(state.message).toContain('401');
  });

  it('reports a missing token after checking reachability, without calling the API', async () => {
    endpoint.token = '  ';
    const state = await client().checkConnection();
    expect(state.kind).toBe('unauthorized');
    if (state.kind === 'unauthorized') expect(state.message).toContain('no token is set');
    expect(server.seen.map((request) => request.path)).toEqual(['/health']);
  });

  it('reports a stopped server as unreachable, naming the URL', async () => {
    await server.stop();
    const state = await client().checkConnection();
    expect(state.kind).toBe('unreachable');
    if (state.kind === 'unreachable') expect(state.message).toContain(baseUrl);
  });

  type Answer = { status: number; body: unknown };
  it.each<[string, { health?: Answer; status?: Answer }, string]>([
    ['/health answers 404', { health: { status: 404, body: {} } }, 'is this a Cairn companion?'],
    [
      '/health answers HTML',
      { health: { status: 200, body: '<html>' } },
      'without {"status":"ok"}',
    ],
    [
      '/api/v1/status answers 500 with an API error',
      {
        status: {
          status: 500,
          body: { error: { code: 'INTERNAL_ERROR', message: 'database locked' } },
        },
      },
      'answered 500: database locked',
    ],
    ['/api/v1/status answers 429', { status: { status: 429, body: {} } }, 'answered 429'],
    [
      '/api/v1/status lacks index.files',
      { status: { status: 200, body: { version: '1', index: { pending: 0, failed: [] } } } },
      '"index.files"',
    ],
    ['/api/v1/status is not JSON', { status: { status: 200, body: 'ok' } }, 'not a JSON object'],
  ])('reports unexpected when %s', async (_name, answers, message) => {
    server.setRoute((request) => {
      if (request.url === '/health')
        return answers.health ?? { status: 200, body: { status: 'ok' } };
      if (request.url === '/api/v1/status') return answers.status;
      return undefined;
    });
    const state = await client().checkConnection();
    expect(state.kind).toBe('unexpected');
    if (state.kind === 'unexpected') expect(state.message).toContain(message);
  });

  it.each([
    ['an empty URL', '', 'not-configured'],
    ['an ftp URL', 'ftp://nas', 'invalid-url'],
    ['an internet host in offline mode', 'https://cairn.example.org', 'blocked-offline'],
  ])('makes no request for %s', async (_name, url, kind) => {
    endpoint.url = url;
    expect((await client().checkConnection()).kind).toBe(kind);
    expect(transport.requests).toEqual([]);
  });
});

describe('parseStatus', () => {
  it.each([
    [
      'no embedding model',
      { ...sampleStatus(), index: { files: 1, pending: 0, failed: [] } },
      null,
    ],
    [
      'an embedding model without dims',
      { version: '1', index: { files: 1, pending: 0, failed: [], embedding: { model: 'm' } } },
      'm',
    ],
  ])('reads a status with %s', (_name, body, embedding) => {
    const summary = parseStatus(body);
    expect(typeof summary).toBe('object');
    if (typeof summary === 'object') expect(summary.embedding).toBe(embedding);
  });

  it('reads semantic search progress, and null from companions without it', () => {
    const semantic = {
      state: 'embedding',
      provider: 'builtin',
      model: 'use-lite',
      dims: 512,
      embedded: 40,
      total: 100,
      reason: null,
    };
    const body = { ...sampleStatus(), index: { files: 1, pending: 0, failed: [], semantic } };
    expect(parseStatus(body)).toMatchObject({
      semantic: { state: 'embedding', provider: 'builtin', embedded: 40, total: 100, reason: null },
    });
    expect(parseStatus(sampleStatus())).toMatchObject({ semantic: null });
    const odd = { ...body, index: { ...body.index, semantic: { ...semantic, state: 'half' } } };
    expect(parseStatus(odd)).toMatchObject({ semantic: null });
  });

  it.each([
    [null, 'not a JSON object'],
    [[], 'not a JSON object'],
    [{ index: {} }, '"version"'],
    [{ version: '1' }, '"index"'],
    [{ version: '1', index: { files: -1, pending: 0, failed: [] } }, '"index.files"'],
    [{ version: '1', index: { files: 1.5, pending: 0, failed: [] } }, '"index.files"'],
    [{ version: '1', index: { files: 1, pending: '0', failed: [] } }, '"index.pending"'],
    [{ version: '1', index: { files: 1, pending: 0, failed: 0 } }, '"index.failed"'],
  ])('names what is wrong in %j', (body, message) => {
    expect(parseStatus(body)).toContain(message);
  });
});

describe('CompanionClient.send: the one way to the companion', () => {
  /** A transport that records what it was asked and answers 200 `{}`. */
  class RecordingTransport {
    readonly requests: Array<{ url: string; method: string; headers?: Record<string, string> }> =
      [];
    request(request: { url: string; method: string; headers?: Record<string, string> }) {
      this.requests.push(request);
      return Promise.resolve({ status: 200, text: '{}', headers: {} });
    }
  }

  it('adds the token to the path under the checked URL, and reports what it did', async () => {
    const transport = new RecordingTransport();
    const client = new CompanionClient(transport, () => ({
      url: '192.168.1.20:8787/',
      token: ' tok ',
      offlineMode: true,
    }));
    const sent = await client.send({ method: 'GET', path: '/api/v1/audit?limit=5' });
    expect(sent).toMatchObject({ kind: 'answered', url: 'http://192.168.1.20:8787' });
    expect(transport.requests).toEqual([
      {
        url: 'http://192.168.1.20:8787/api/v1/audit?limit=5',
        method: 'GET',
        headers: { Authorization: 'Bearer tok' },
      },
    ]);
  });

  it.each([
    ['no URL', { url: '', token: 't', offlineMode: false }, 'no-url', {}],
    [
      'offline mode',
      { url: 'https://cairn.example.com', token: 't', offlineMode: true },
      'offline-mode',
      {},
    ],
    [
      'no token when one is required',
      { url: 'http://127.0.0.1:1', token: ' ', offlineMode: true },
      'no-token',
      { requireToken: true },
    ],
  ] as const)('sends nothing with %s', async (_case, endpoint, reason, options) => {
    const transport = new RecordingTransport();
    const sent = await new CompanionClient(transport, () => endpoint).send(
      { method: 'POST', path: '/api/v1/tokens', body: {} },
      options,
    );
    expect(sent).toMatchObject({ kind: 'not-sent', reason });
    expect(transport.requests).toEqual([]);
  });
});
