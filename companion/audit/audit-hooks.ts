import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditClient, AuditOutcome } from '../../shared/protocol/audit';
import { requiredScope } from '../auth/require-token';
import type { AuditLog } from './audit-log';
import { isRecord } from '../../shared/protocol/json';

/** The phone page and the command line send this header so their writes are logged as theirs. */
export const CLIENT_HEADER = 'x-cairn-client';

/** Action names for the API's write routes; others are logged as `METHOD /route`. */
const ACTIONS: Readonly<Record<string, string>> = {
  'POST /api/v1/notes': 'note.create',
  'POST /api/v1/reminders': 'reminder.create',
  'PATCH /api/v1/reminders/:id': 'reminder.update',
  'DELETE /api/v1/reminders/:id': 'reminder.cancel',
  'POST /api/v1/reminders/:id/snooze': 'reminder.snooze',
  'POST /api/v1/reminders/:id/done': 'reminder.done',
  'POST /api/v1/ingest': 'file.ingest',
  'POST /api/v1/memories': 'memory.add',
  'DELETE /api/v1/memories/:id': 'memory.remove',
  'POST /api/v1/push/subscriptions': 'push.subscribe',
  'DELETE /api/v1/push/subscriptions/:id': 'push.unsubscribe',
  'POST /api/v1/push/test': 'push.test',
  'POST /api/v1/tokens': 'token.create',
  'DELETE /api/v1/tokens/:name': 'token.revoke',
  'POST /api/v1/sync/commit': 'sync.commit',
  'POST /api/v1/sync/confirm': 'sync.confirm',
  'PUT /api/v1/sync/blobs/:hash': 'sync.blob',
  'POST /api/v1/sync/unpair': 'sync.unpair',
};

/** `POST` routes that only read (a body too long for a query string): not writes to log. */
const READING_POSTS: ReadonlySet<string> = new Set(['/api/v1/sync/blobs/batch']);

/** Routes that run tools log each tool call themselves (chat, MCP, OpenAI). */
const TOOL_ROUTES: ReadonlySet<string> = new Set(['/api/v1/chat', '/v1/chat/completions', '/mcp']);

declare module 'fastify' {
  interface FastifyRequest {
    /** What a write's JSON response named (vault path, error code), for the audit log. */
    cairnAuditSeen: ResponseFacts | null;
  }
}

/** `api`, or `phone`/`cli` when the phone page or the command line says so. */
export function requestClient(request: FastifyRequest): AuditClient {
  const said = request.headers[CLIENT_HEADER];
  return said === 'phone' || said === 'cli' ? said : 'api';
}

/**
 * Records every authenticated write request (anything needing the `write` or `admin` scope,
 * tool routes aside) when its response is sent: refused (403) and failed ones too. The path is
 * read from the response (`path`, `reminder.path`, `note.path`) or, failing that, left empty;
 * only the path is kept, never the body.
 */
export function registerWriteAudit(app: FastifyInstance, audit: AuditLog): void {
  app.decorateRequest('cairnAuditSeen', null);

  app.addHook('onSend', async (request, reply, payload) => {
    if (!isAuditedWrite(request)) return payload;
    if (
      typeof payload === 'string' &&
      reply.getHeader('content-type')?.toString().includes('json')
    ) {
      request.cairnAuditSeen = factsIn(payload);
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (!isAuditedWrite(request) || request.cairnAuth === null) return;
    const route = request.routeOptions.url ?? '';
    const status = reply.statusCode;
    const outcome: AuditOutcome = status === 403 ? 'refused' : status >= 400 ? 'failed' : 'ok';
    try {
      audit.record({
        tokenName: request.cairnAuth.tokenName,
        client: requestClient(request),
        action: ACTIONS[`${request.method} ${route}`] ?? `${request.method} ${route}`,
        path: request.cairnAuditSeen?.path,
        outcome,
        errorCode:
          outcome === 'ok' ? undefined : (request.cairnAuditSeen?.errorCode ?? `HTTP_${status}`),
      });
    } catch (error) {
      // The write happened; failing to log it must not turn the answer into an error.
      request.log.error({ err: error }, 'audit log write failed');
    }
  });
}

function isAuditedWrite(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') {
    return false;
  }
  if (route === undefined || request.is404 || TOOL_ROUTES.has(route)) return false;
  if (READING_POSTS.has(route)) return false;
  if (request.routeOptions.config.public === true) return false;
  return requiredScope(request) !== 'read';
}

interface ResponseFacts {
  path?: string;
  errorCode?: string;
}

function factsIn(json: string): ResponseFacts | null {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return null; // not JSON after all: nothing to log
  }
  const facts: ResponseFacts = {};
  for (const holder of [body, body.reminder, body.note, body.memory]) {
    const path = isRecord(holder) ? holder.path : undefined;
    if (typeof path === 'string') {
      facts.path = path;
      break;
    }
  }
  const code = isRecord(body.error) ? body.error.code : undefined;
  if (typeof code === 'string') facts.errorCode = code;
  return facts;
}
