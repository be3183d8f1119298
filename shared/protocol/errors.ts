import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/*
 * Error codes. HTTP routes answer `{ error: { code, message, field? } }` with the status below;
 * chat tools answer `{ success: false, error: { code, message, field? } }` with the smaller set
 * of tool codes (docs/chat.md), which is a subset of the HTTP codes so a route that runs a tool can
 * pass its error through unchanged.
 */

export const API_ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  /** The token is valid but lacks the scope (docs/clients.md). */
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  /** A pagination cursor whose result snapshot is gone (expired, or the server restarted). */
  CURSOR_EXPIRED: 410,
  /**
   * A sync commit asked for with `replay_only` that the companion never applied: its id is
   * withdrawn, and nothing sent with it will be applied (docs/sync.md).
   */
  COMMIT_WITHDRAWN: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** The request line is longer than the HTTP parser takes (a query string pasted in). */
  URI_TOO_LONG: 414,
  /** A `Range` outside the bytes held (sync blobs). */
  RANGE_NOT_SATISFIABLE: 416,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  /** The headers are larger than the HTTP parser takes (16 KiB in Node). */
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
  /** The disk holding the vault or the companion's data is full (RFC 4918's Insufficient Storage). */
  STORAGE_FULL: 507,
  /** The vault or the companion's data folder is on a read-only disk or not writable. */
  STORAGE_READ_ONLY: 507,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;
export const API_ERROR_CODES = Object.keys(API_ERROR_STATUS) as ApiErrorCode[];

export const TOOL_ERROR_CODES = [
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'CONFLICT',
  'UNAVAILABLE',
  'INTERNAL_ERROR',
  // A token without the scope a tool needs (docs/clients.md: MCP, chat and /v1/chat/completions).
  'FORBIDDEN',
] as const satisfies readonly ApiErrorCode[];
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

export const ApiErrorCodeSchema = Type.Union(API_ERROR_CODES.map((code) => Type.Literal(code)));
export const ToolErrorCodeSchema = Type.Union(TOOL_ERROR_CODES.map((code) => Type.Literal(code)));

/**
 * Why the tool runner refused or stopped a call before or while it ran (docs/tools.md), in the
 * order it checks: the tool is off, the user's permission denies it (or an ask was denied or
 * expired), its arguments break its schema, offline mode forbids a networked tool, the caller's
 * token lacks the scope; then the run timed out, answered too much, or its server is down.
 */
export const TOOL_REFUSAL_REASONS = [
  'unknown_tool',
  'tool_disabled',
  'permission_denied',
  'ask_denied',
  'ask_expired',
  'invalid_arguments',
  'offline_mode',
  'missing_scope',
  'timeout',
  'output_too_large',
  'server_down',
] as const;
export type ToolRefusalReason = (typeof TOOL_REFUSAL_REASONS)[number];
export const ToolRefusalReasonSchema = Type.Union(
  TOOL_REFUSAL_REASONS.map((reason) => Type.Literal(reason)),
);

const errorBody = {
  message: Type.String(),
  /** Dotted path of the offending input, e.g. `keys.p256dh` or `due`. */
  field: Type.Optional(Type.String()),
  /** Set when the tool runner refused a call: which of its checks said no. */
  reason: Type.Optional(ToolRefusalReasonSchema),
};

export const ApiError = Type.Object(
  { code: ApiErrorCodeSchema, ...errorBody },
  { additionalProperties: false },
);
export type ApiError = Static<typeof ApiError>;

export const ErrorEnvelope = Type.Object({ error: ApiError }, { additionalProperties: false });
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export const ToolError = Type.Object(
  { code: ToolErrorCodeSchema, ...errorBody },
  { additionalProperties: false },
);
export type ToolError = Static<typeof ToolError>;

/** Builds the HTTP error body; `field` is left out rather than sent as undefined/null. */
export function errorEnvelope(code: ApiErrorCode, message: string, field?: string): ErrorEnvelope {
  return { error: field === undefined ? { code, message } : { code, message, field } };
}

/** The HTTP status that goes with an error code. */
export function statusForError(code: ApiErrorCode): number {
  return API_ERROR_STATUS[code];
}
