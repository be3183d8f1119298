import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Cursor } from './formats';

/*
 * Tokens' scopes and the audit log (docs/clients.md): `GET /api/v1/tokens/self`, `GET /api/v1/audit`.
 */

export const TokenScope = Type.Union([
  Type.Literal('read'),
  Type.Literal('write'),
  Type.Literal('admin'),
  Type.Literal('sync'),
]);
export type TokenScope = Static<typeof TokenScope>;

/** `GET /api/v1/tokens/self`: which token the caller used and what it may do. */
export const TokenSelfResponse = Type.Object({
  name: Type.String(),
  scopes: Type.Array(TokenScope),
  paths: Type.Optional(Type.Array(Type.String())),
});
export type TokenSelfResponse = Static<typeof TokenSelfResponse>;

/** `POST /api/v1/tokens` (admin): a named token, e.g. `phone` with read and write for pairing. */
export const TokenCreateRequest = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' }),
    scopes: Type.Array(TokenScope, { minItems: 1, maxItems: 4, uniqueItems: true }),
    /** Vault folders the token is limited to (`["Work/"]`); absent = the whole vault. */
    paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { minItems: 1, maxItems: 32 }),
    ),
  },
  { additionalProperties: false },
);
export type TokenCreateRequest = Static<typeof TokenCreateRequest>;

/** The token itself appears in this answer only. */
export const TokenCreateResponse = Type.Object({
  name: Type.String(),
  scopes: Type.Array(TokenScope),
  /** The folders it is limited to, as stored (`Work`), when it is. */
  paths: Type.Optional(Type.Array(Type.String())),
  token: Type.String(),
});
export type TokenCreateResponse = Static<typeof TokenCreateResponse>;

/**
 * Who made the call: the HTTP API, the chat, an MCP client, `/v1/chat/completions`, the phone,
 * the `cairn-companion` command line (search, remind, note …).
 */
export const AuditClient = Type.Union([
  Type.Literal('api'),
  Type.Literal('cli'),
  Type.Literal('chat'),
  Type.Literal('mcp'),
  Type.Literal('openai'),
  Type.Literal('phone'),
]);
export type AuditClient = Static<typeof AuditClient>;

/** `ok`; `deduplicated` (an identical recent write returned); `refused` (scope); `failed`. */
export const AuditOutcome = Type.Union([
  Type.Literal('ok'),
  Type.Literal('deduplicated'),
  Type.Literal('refused'),
  Type.Literal('failed'),
]);
export type AuditOutcome = Static<typeof AuditOutcome>;

export const AuditEntry = Type.Object({
  id: Type.Integer(),
  /** ISO 8601 instant (UTC). */
  at: Type.String(),
  token: Type.String({ description: "the token's name, never the token" }),
  client: AuditClient,
  /** `note.create`, `reminder.snooze`, … for API writes; the tool name for tool calls. */
  action: Type.String(),
  /** The vault path written or read, when there is one. */
  path: Type.Union([Type.String(), Type.Null()]),
  outcome: AuditOutcome,
  /** The error code when the outcome is `refused` or `failed`. */
  error_code: Type.Union([Type.String(), Type.Null()]),
});
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditListResponse = Type.Object({
  entries: Type.Array(AuditEntry),
  next_cursor: Type.Union([Cursor(), Type.Null()]),
});
export type AuditListResponse = Static<typeof AuditListResponse>;
