import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (request: IncomingMessage) => { status: number; body: unknown } | undefined;

/**
 * A real HTTP server on 127.0.0.1 standing in for the companion: each test says what
 * `/health` and `/api/v1/status` answer. Requests are recorded so tests can check headers.
 */
export class FakeCompanionServer {
  readonly seen: { path: string; authorization: string | undefined }[] = [];
  private server: Server | null = null;

  constructor(private route: Route) {}

  static healthy(token: string, status: unknown = sampleStatus()): FakeCompanionServer {
    return new FakeCompanionServer((request) => {
      if (request.url === '/health') return { status: 200, body: { status: 'ok' } };
      if (request.url === '/api/v1/status') {
        if (request.headers.authorization !== `Bearer ${token}`) {
          return { status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'bad token' } } };
        }
        return { status: 200, body: status };
      }
      return undefined;
    });
  }

  setRoute(route: Route): void {
    this.route = route;
  }

  async start(): Promise<string> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      this.seen.push({ path: request.url ?? '', authorization: request.headers.authorization });
      const answer = this.route(request) ?? {
        status: 404,
        body: { error: { code: 'NOT_FOUND', message: 'no route' } },
      };
      response.writeHead(answer.status, { 'Content-Type': 'application/json' });
      response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A `GET /api/v1/status` body in the shape of companion/README.md. */
export function sampleStatus(): Record<string, unknown> {
  return {
    version: '0.1.0',
    index: {
      files: 120,
      chunks: 900,
      pending: 3,
      failed: [{ path: 'broken.pdf', error: 'Invalid PDF structure' }],
      embedding: { model: 'use-lite', dims: 512 },
    },
    scheduler: { reminders: 4, next_fire: '2026-11-23T17:00:00+01:00' },
    push: { subscriptions: 1 },
  };
}
