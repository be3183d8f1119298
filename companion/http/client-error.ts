import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiErrorCode } from '../../shared/protocol/errors';
import { API_ERROR_STATUS, errorEnvelope } from '../../shared/protocol/errors';
import { ApiHttpError } from './api-error';

/*
 * Requests the HTTP parser refuses before Fastify sees them (a request line or headers too
 * large, a malformed request) get Cairn's error envelope like every other answer, not
 * Fastify's default `{ error, message, statusCode }`. Fastify calls this for the socket's
 * `clientError`; nothing of the request is echoed (it may hold a token).
 */

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

/**
 * The longest request URL (path and query) the companion reads: 8 KiB, as most servers and
 * proxies allow. Longer is a 414 `URI_TOO_LONG`, also when the parser stops first because the
 * request line alone filled its 16 KiB header budget (which it reports as a header overflow).
 */
export const MAX_URL_BYTES = 8 * 1024;

const URI_TOO_LONG = {
  code: 'URI_TOO_LONG' as const,
  message: `the request URL is too long (at most ${MAX_URL_BYTES / 1024} KiB)`,
};

/** The Cairn error for a parser error code (llhttp's `HPE_…`). */
export function clientErrorOf(
  code: string | undefined,
  rawPacket?: Buffer,
): { code: ApiErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      if (rawPacket !== undefined && requestLineTooLong(rawPacket)) return URI_TOO_LONG;
      return {
        code: 'HEADERS_TOO_LARGE',
        message: 'the request headers are too large (at most 16 KiB)',
      };
    case 'HPE_URI_TOO_LONG':
      return URI_TOO_LONG;
    default:
      return { code: 'VALIDATION_ERROR', message: 'malformed HTTP request' };
  }
}

/** Whether the request line (method, URL, version) in what the parser got is over the limit. */
function requestLineTooLong(rawPacket: Buffer): boolean {
  const end = rawPacket.indexOf('\r\n');
  return (end < 0 ? rawPacket.length : end) > MAX_URL_BYTES;
}

export function cairnClientErrorHandler(
  error: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // Node hands the bytes it got as a Buffer (Fastify's type says otherwise).
  const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
  const { code, message } = clientErrorOf(error.code, raw);
  const status = API_ERROR_STATUS[code];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** An `onRequest` hook, first of all: a URL over MAX_URL_BYTES is a 414 before anything reads it. */
export async function refuseLongUrls(request: FastifyRequest): Promise<void> {
  if (Buffer.byteLength(request.raw.url ?? '') > MAX_URL_BYTES) {
    throw new ApiHttpError(URI_TOO_LONG.code, URI_TOO_LONG.message);
  }
}

/**
 * Fastify's `frameworkErrors`: the router's own refusals (a path parameter over its length
 * limit, a URL that does not decode) in Cairn's envelope rather than Fastify's. Nothing of the
 * URL is echoed.
 */
export function cairnFrameworkErrors(
  error: Error & { code?: string },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const { code, message } =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? URI_TOO_LONG
      : { code: 'VALIDATION_ERROR' as const, message: 'the request URL is not valid' };
  void reply
    .code(API_ERROR_STATUS[code])
    .type('application/json; charset=utf-8')
    .send(errorEnvelope(code, message));
}
