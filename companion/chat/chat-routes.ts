import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { ChatEngine } from '../../shared/chat/chat-engine';
import { ChatRequest, formatSseEvent } from '../../shared/protocol/chat';
import type { ChatEvent } from '../../shared/protocol/chat';
import { ApiHttpError } from '../http/api-error';
import { startEventStream } from '../http/event-stream';
import { requestClient } from '../audit/audit-hooks';
import type { AuditLog } from '../audit/audit-log';
import { auditToolCall } from '../audit/tool-audit';
import { hasScope } from '../auth/scopes';
import type { SearchServices } from '../search';
import { requireSearch } from '../search';

/** A comment line this often keeps proxies and phones from dropping a quiet stream. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Open chat streams one client address may hold at once; more is a 429. */
export const DEFAULT_MAX_STREAMS_PER_CLIENT = 2;

export interface ChatRouteOptions {
  engine: ChatEngine;
  /** Checked before a stream starts: no index means a 503, not an open stream that fails. */
  search: SearchServices;
  heartbeatMs?: number;
  maxStreamsPerClient?: number;
  /** Records each tool call (docs/clients.md); absent in tests that do not look. */
  audit?: AuditLog;
}

interface OpenStream {
  readonly client: string;
  readonly abort: AbortController;
  /** Ends the stream from the server side (shutdown), with a last `error` event. */
  end(event: ChatEvent): void;
}

/**
 * `POST /api/v1/chat` `{ message, conversation? }` → Server-Sent Events (docs/chat.md, companion/README.md):
 * `token`, `tool`, `citations`, then `done` or `error`, each `data:` the event's JSON
 * (`formatSseEvent`). Everything that can be refused is refused before the stream starts, with
 * the usual JSON error and status: a bad body (400 naming the field), no index (503), too many
 * streams or turns from one client (429). Once streaming, failures arrive as an `error` event.
 *
 * The turn is aborted (AbortSignal into the engine, so an Ollama phrasing stops too) when the
 * client disconnects. On shutdown every open stream gets an `error` event and is ended from a
 * `preClose` hook: `onClose` runs only after in-flight connections end, which an open stream
 * never does by itself.
 */
export function registerChatRoute(app: FastifyInstance, options: ChatRouteOptions): void {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const maxStreams = options.maxStreamsPerClient ?? DEFAULT_MAX_STREAMS_PER_CLIENT;
  const open = new Set<OpenStream>();

  app.addHook('preClose', async () => {
    for (const stream of [...open]) {
      stream.end({
        type: 'error',
        error: { code: 'UNAVAILABLE', message: 'the companion is shutting down; ask again later' },
      });
    }
  });

  app.post<{ Body: ChatRequest }>(
    '/api/v1/chat',
    {
      schema: { body: ChatRequest },
      // Turns per token and per address: the companion's one policy (http/rate-limits.ts).
      config: { limited: 'chat' },
    },
    async (request, reply) => {
      refuseControlCharacters(request.body.message);
      requireSearch(options.search);
      const client = request.ip;
      const held = [...open].filter((stream) => stream.client === client).length;
      if (held >= maxStreams) {
        throw new ApiHttpError(
          'RATE_LIMITED',
          `this client already has ${held} chat answers streaming; wait for one to finish`,
          undefined,
          { 'retry-after': '5' },
        );
      }
      await streamTurn(request, reply, client);
    },
  );

  async function streamTurn(
    request: FastifyRequest<{ Body: ChatRequest }>,
    reply: FastifyReply,
    client: string,
  ): Promise<void> {
    const response = reply.raw;
    const abort = new AbortController();
    let ended = false;
    const finish = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      open.delete(stream);
      if (!response.writableEnded) response.end();
    };
    const stream: OpenStream = {
      client,
      abort,
      end(event) {
        if (ended) return;
        abort.abort();
        write(response, formatSseEvent(event));
        finish();
      },
    };

    startEventStream(reply);
    response.flushHeaders();
    open.add(stream);
    const heartbeat = setInterval(() => write(response, ': keep-alive\n\n'), heartbeatMs);
    heartbeat.unref();
    response.on('close', () => {
      if (ended) return;
      request.log.info('chat client disconnected; turn aborted');
      abort.abort();
      finish();
    });

    const { message, conversation } = request.body;
    try {
      const identity = request.cairnAuth;
      const client = requestClient(request) === 'phone' ? 'phone' : 'chat';
      // With a tool policy the runner's gate checks scopes and records every run itself.
      const gated = options.engine.tools.policy !== undefined;
      const turn = options.engine.send(message, {
        ...(conversation === undefined ? {} : { conversation }),
        signal: abort.signal,
        canWrite: identity === null || hasScope(identity, 'write'),
        ...(identity === null
          ? {}
          : { caller: { tokenName: identity.tokenName, client, scopes: identity.scopes } }),
      });
      for await (const event of turn) {
        if (event.type === 'tool' && options.audit && identity !== null && !gated) {
          try {
            auditToolCall(options.audit, {
              identity,
              client,
              tool: event.name,
              args: event.args,
              result: event.result,
            });
          } catch (error) {
            // The tool ran; a failed log write must not cost the user the answer.
            request.log.error({ err: error }, 'audit log write failed');
          }
        }
        if (ended) break;
        write(response, formatSseEvent(event));
      }
    } catch (error) {
      // The engine never throws; anything here is a bug, reported without details.
      request.log.error({ err: error }, 'chat stream failed');
      if (!ended) {
        write(
          response,
          formatSseEvent({
            type: 'error',
            error: { code: 'INTERNAL_ERROR', message: 'internal error' },
          }),
        );
      }
    } finally {
      finish();
    }
  }
}

// Control characters other than tab, line feed and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** The engine would refuse these too, but in-stream; a 400 before streaming is clearer. */
function refuseControlCharacters(message: string): void {
  const found = CONTROL_CHARACTER.exec(message);
  if (found === null) return;
  const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  throw new ApiHttpError(
    'VALIDATION_ERROR',
    `message contains a control character (U+${code}) at position ${found.index + 1}`,
    'message',
  );
}

/** Writes unless the client is gone; SSE frames are small, so backpressure is left to TCP. */
function write(response: ServerResponse, text: string): void {
  if (response.writableEnded || response.destroyed) return;
  response.write(text);
}
