import type { Socket } from 'node:net';
import type { ApiErrorCode } from '../../shared/protocol/errors';
import { API_ERROR_STATUS } from '../../shared/protocol/errors';

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

/** The Cairn error for a parser error code (llhttp's `HPE_…`). */
export function clientErrorOf(code: string | undefined): { code: ApiErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'HEADERS_TOO_LARGE',
        message: 'the request headers are too large (at most 16 KiB)',
      };
    case 'HPE_URI_TOO_LONG':
      return { code: 'URI_TOO_LONG', message: 'the request URL is too long' };
    default:
      return { code: 'VALIDATION_ERROR', message: 'malformed HTTP request' };
  }
}

export function cairnClientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { code, message } = clientErrorOf(error.code);
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
