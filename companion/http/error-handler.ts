import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorEnvelope, statusForError } from '../../shared/protocol/errors';
import type { ApiErrorCode } from '../../shared/protocol/errors';
import { pointerToField } from '../../shared/protocol/validate';
import { ApiHttpError } from './api-error';
import { storageProblem } from './storage-error';
import type { StoragePlaces } from './storage-error';
import { pathOnly } from './url';
import { DryRunStop } from '../vault/dry-run';

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  /** With Ajv's `verbose` (companion/app.ts): the schema that failed. */
  parentSchema?: { description?: unknown };
}

interface MappedError {
  status: number;
  code: ApiErrorCode;
  message: string;
  field?: string;
}

/**
 * Every error leaves as the envelope `{ error: { code, message, field? } }`. Known failures
 * (schema validation, bad JSON, body too large, our own ApiHttpError) keep their status and
 * a precise message; anything else is logged with its stack and answered with a bare 500,
 * because stack traces and internal messages can carry paths and secrets (ASVS 16.5.1).
 */
export function registerErrorHandling(app: FastifyInstance, places?: StoragePlaces): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = mapError(error, places);
    if (error instanceof DryRunStop) {
      // Not a failure: a dry run stopped at its vault write (dry-run-routes.ts answers it).
      request.log.info({ paths: error.changes.map((change) => change.path) }, 'dry run');
    } else if (mapped.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else {
      request.log.info({ code: mapped.code, status: mapped.status }, mapped.message);
    }
    if (error instanceof ApiHttpError) void reply.headers(error.headers);
    return reply
      .code(mapped.status)
      .type('application/json; charset=utf-8')
      .send(errorEnvelope(mapped.code, mapped.message, mapped.field));
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(errorEnvelope('NOT_FOUND', `no route for ${request.method} ${pathOnly(request.url)}`)),
  );
}

export function mapError(error: FastifyError, places?: StoragePlaces): MappedError {
  if (error instanceof ApiHttpError) {
    return withField(
      { status: error.statusCode, code: error.code, message: error.message },
      error.field,
    );
  }
  if (error.validation) return mapValidationError(error);
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'VALIDATION_ERROR', message: `request body: ${error.message}` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // 415 has no code of its own in the protocol; the envelope still says what was wrong.
      return {
        status: 415,
        code: 'VALIDATION_ERROR',
        message: error.message,
        field: 'content-type',
      };
  }
  const storage = storageProblem(error, places);
  if (storage) {
    return { status: statusForError(storage.code), code: storage.code, message: storage.message };
  }
  // Other Fastify/plugin errors that carry a deliberate 4xx (e.g. a rate limit) keep it.
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { status, code: codeForClientStatus(status), message: error.message };
  }
  return { status: 500, code: 'INTERNAL_ERROR', message: 'internal error' };
}

function mapValidationError(error: FastifyError): MappedError {
  const errors = (error.validation as AjvError[] | undefined) ?? [];
  const first = errors[0];
  const context = error.validationContext ?? 'request';
  if (!first) return { status: 400, code: 'VALIDATION_ERROR', message: `${context}: invalid` };
  let field = pointerToField(first.instancePath ?? '');
  let problem = first.message ?? 'is invalid';
  const params = first.params ?? {};
  const description = first.parentSchema?.description;
  if (first.keyword === 'const') {
    // A union of literals fails once per literal: list them ("must be one of active, done").
    const allowed = errors
      .filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath)
      .map((e) => JSON.stringify(e.params?.allowedValue));
    problem = allowed.length > 1 ? `must be one of ${allowed.join(', ')}` : `must be ${allowed[0]}`;
  } else if (first.keyword === 'pattern' && typeof description === 'string') {
    // The schema's description, never the regular expression itself.
    problem = `must be ${description}`;
  } else if (first.keyword === 'required' && typeof params.missingProperty === 'string') {
    field = field === '' ? params.missingProperty : `${field}.${params.missingProperty}`;
    problem = 'is required';
  } else if (
    first.keyword === 'additionalProperties' &&
    typeof params.additionalProperty === 'string'
  ) {
    field = field === '' ? params.additionalProperty : `${field}.${params.additionalProperty}`;
    problem = 'is not an allowed property';
  }
  const where = field === '' ? context : `${context}.${field}`;
  return withField(
    { status: 400, code: 'VALIDATION_ERROR', message: `${where} ${problem}` },
    field || undefined,
  );
}

function codeForClientStatus(status: number): ApiErrorCode {
  switch (status) {
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 422:
      return 'UNPROCESSABLE';
    case 429:
      return 'RATE_LIMITED';
    default:
      return 'VALIDATION_ERROR';
  }
}

function withField(error: MappedError, field: string | undefined): MappedError {
  return field === undefined ? error : { ...error, field };
}
