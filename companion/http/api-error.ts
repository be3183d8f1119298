import { statusForError } from '../../shared/protocol/errors';
import type { ApiErrorCode } from '../../shared/protocol/errors';

/**
 * An error a route means to send: the error handler turns it into the envelope
 * `{ error: { code, message, field? } }` with the status that goes with `code`.
 * Anything else thrown from a route is a 500 with a generic message.
 */
export class ApiHttpError extends Error {
  override name = 'ApiHttpError';
  readonly statusCode: number;

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly field?: string,
    /** Extra response headers, e.g. `Retry-After` on 429/503. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.statusCode = statusForError(code);
  }
}
