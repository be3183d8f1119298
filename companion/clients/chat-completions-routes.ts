import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/ports';
import type { Citation } from '../../shared/protocol/citation';
import { statusForError } from '../../shared/protocol/errors';
import type { ApiErrorCode } from '../../shared/protocol/errors';
import { CAIRN_CHAT_MODEL, ChatCompletionRequest } from '../../shared/protocol/openai-chat';
import type { CairnReplyExtension, OpenAiErrorBody } from '../../shared/protocol/openai-chat';
import type { AnswerAudit } from '../../shared/protocol/answer-audit';
import { ApiHttpError } from '../http/api-error';
import { startEventStream } from '../http/event-stream';
import { mapError } from '../http/error-handler';
import { OpenAiTurnError, checkTurn, openAiTurn } from './openai-turn';
import type { OpenAiTurnDeps, TurnPiece } from './openai-turn';

/** Room for a few inline images (base64) besides the text; text alone is capped far lower. */
const BODY_LIMIT_BYTES = 20 * 1024 * 1024;

/**
 * `POST /v1/chat/completions` (docs/clients.md), streaming (`stream: true`: Server-Sent Events of
 * `chat.completion.chunk`, then `data: [DONE]`) and not. The reply's content ends with the
 * numbered sources and the citations travel as `cairn.citations`: on the message when not
 * streaming, on the last chunk when streaming. Errors, including 401/403/413 from before the
 * handler, are OpenAI error objects `{ error: { message, type, code, param } }`.
 */
export function registerChatCompletionsRoute(
  app: FastifyInstance,
  deps: OpenAiTurnDeps & { clock: Clock },
): void {
  app.post<{ Body: ChatCompletionRequest }>(
    '/v1/chat/completions',
    {
      bodyLimit: BODY_LIMIT_BYTES,
      schema: { body: ChatCompletionRequest },
      // A chat turn, limited like POST /api/v1/chat (companion/http/rate-limits.ts).
      config: { scope: 'read', limited: 'chat' },
      errorHandler: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
        const mapped = mapError(error);
        if (mapped.status >= 500) request.log.error({ err: error }, 'chat completion failed');
        if (error instanceof ApiHttpError) void reply.headers(error.headers);
        return reply
          .code(mapped.status)
          .send(openAiError(mapped.code, mapped.message, mapped.field));
      },
    },
    async (request, reply) => {
      const identity = request.cairnAuth;
      if (identity === null) throw new ApiHttpError('UNAUTHORIZED', 'no token');
      const body = request.body;
      if (body.model !== CAIRN_CHAT_MODEL) {
        throw new ApiHttpError(
          'NOT_FOUND',
          `model "${body.model}" is not served here; use "${CAIRN_CHAT_MODEL}" (GET /v1/models)`,
          'model',
        );
      }
      const abort = new AbortController();
      // The response's close, not the request's: a request "closes" once its body is read.
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort();
      });
      // Refusals that need no model are HTTP errors, streaming or not.
      const turn = refusalAsHttp(() => checkTurn(deps, body.messages));
      const pieces = openAiTurn(deps, turn, body.messages, { identity, signal: abort.signal });
      const id = `chatcmpl-${randomBytes(12).toString('base64url')}`;
      const created = Math.floor(deps.clock.now() / 1000);
      if (body.stream === true) {
        // Headers and the role chunk go out at once; later failures are in-stream error objects.
        await stream(reply, { id, created, audit: body.audit === true }, pieces, request);
        return;
      }
      // Not streaming, a failure anywhere (the vault not indexed yet, Ollama down) is a status.
      let content = '';
      let cairn: CairnReplyExtension = { citations: [] };
      for (
        let piece = await nextOrRefusal(pieces);
        !piece.done;
        piece = await nextOrRefusal(pieces)
      ) {
        if ('text' in piece.value) content += piece.value.text;
        else cairn = replyExtension(piece.value, body.audit === true);
      }
      const prompt = body.messages.reduce(
        (sum, m) => sum + JSON.stringify(m.content ?? '').length,
        0,
      );
      return {
        id,
        object: 'chat.completion',
        created,
        model: CAIRN_CHAT_MODEL,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null, cairn },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: Math.ceil(prompt / 4),
          completion_tokens: Math.ceil(content.length / 4),
          total_tokens: Math.ceil(prompt / 4) + Math.ceil(content.length / 4),
        },
      };
    },
  );
}

/** The `cairn` field of the reply: the citations, and the audit when it was asked for. */
function replyExtension(
  piece: { citations: Citation[]; audit?: AnswerAudit },
  withAudit: boolean,
): CairnReplyExtension {
  return withAudit && piece.audit !== undefined
    ? { citations: piece.citations, audit: piece.audit }
    : { citations: piece.citations };
}

/** Turns a turn's refusal into the HTTP error the route's handler sends. */
function refusalAsHttp<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof OpenAiTurnError) {
      throw new ApiHttpError(error.code, error.message, error.param);
    }
    throw error;
  }
}

async function nextOrRefusal(
  pieces: AsyncGenerator<TurnPiece>,
): Promise<IteratorResult<TurnPiece, void>> {
  try {
    return await pieces.next();
  } catch (error) {
    if (error instanceof OpenAiTurnError)
      throw new ApiHttpError(error.code, error.message, error.param);
    throw error;
  }
}

async function stream(
  reply: FastifyReply,
  meta: { id: string; created: number; audit: boolean },
  pieces: AsyncGenerator<TurnPiece>,
  request: FastifyRequest,
): Promise<void> {
  const response = startEventStream(reply);
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra = {}) =>
    write(
      response,
      `data: ${JSON.stringify({
        id: meta.id,
        object: 'chat.completion.chunk',
        created: meta.created,
        model: CAIRN_CHAT_MODEL,
        choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
        ...extra,
      })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' }, null);
  let cairn: CairnReplyExtension = { citations: [] };
  try {
    for await (const piece of pieces) {
      if ('text' in piece) {
        if (piece.text !== '') chunk({ content: piece.text }, null);
      } else cairn = replyExtension(piece, meta.audit);
    }
    chunk({}, 'stop', { cairn });
  } catch (error) {
    // Mid-stream there is no status to change: the error goes as OpenAI's in-stream error object.
    const code: ApiErrorCode = error instanceof OpenAiTurnError ? error.code : 'INTERNAL_ERROR';
    if (code === 'INTERNAL_ERROR')
      request.log.error({ err: error }, 'chat completion stream failed');
    const message = error instanceof OpenAiTurnError ? error.message : 'internal error';
    write(response, `data: ${JSON.stringify(openAiError(code, message))}\n\n`);
  }
  write(response, 'data: [DONE]\n\n');
  if (!response.writableEnded) response.end();
}

function write(response: ServerResponse, text: string): void {
  if (response.writableEnded || response.destroyed) return;
  response.write(text);
}

/** OpenAI's error object for one of Cairn's codes. */
export function openAiError(code: ApiErrorCode, message: string, param?: string): OpenAiErrorBody {
  return {
    error: { message, type: openAiErrorType(code), code: code.toLowerCase(), param: param ?? null },
  };
}

function openAiErrorType(code: ApiErrorCode): string {
  switch (statusForError(code)) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 429:
      return 'rate_limit_error';
    case 500:
    case 503:
      return 'server_error';
    default:
      return 'invalid_request_error';
  }
}
