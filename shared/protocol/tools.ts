import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/*
 * The tools the chat may use (docs/tools.md): Cairn's own and those of the user's MCP servers,
 * their permissions, pending asks and runs. `GET /api/v1/tools`, `PATCH /api/v1/tools/:name`,
 * `GET|POST|DELETE /api/v1/tools/servers`, `GET /api/v1/tools/runs`, `GET /api/v1/tools/asks`,
 * `POST /api/v1/tools/asks/:id`.
 */

/** `low` read-only; `medium` writes that Undo can revert; `high` anything else. */
export const ToolDanger = Type.Union([
  Type.Literal('low'),
  Type.Literal('medium'),
  Type.Literal('high'),
]);
export type ToolDanger = Static<typeof ToolDanger>;

export const ToolPermission = Type.Union([
  Type.Literal('allow'),
  Type.Literal('ask'),
  Type.Literal('deny'),
]);
export type ToolPermission = Static<typeof ToolPermission>;

/** How a pending ask was answered. */
export const AskDecision = Type.Union([
  Type.Literal('allow_once'),
  Type.Literal('allow_conversation'),
  Type.Literal('deny'),
]);
export type AskDecision = Static<typeof AskDecision>;

/** Tool names: Cairn's own (`search`), a server's as `server__tool`. */
export const TOOL_NAME_PATTERN = '^[A-Za-z0-9_-]{1,128}$';
/** A server's name, the `source` of its tools and the prefix of their names. */
export const SERVER_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9-]{0,39}$';

export const ToolListing = Type.Object({
  name: Type.String(),
  source: Type.String({ description: '`cairn`, or the MCP server the tool comes from' }),
  description: Type.String(),
  danger: ToolDanger,
  requires_network: Type.Boolean(),
  enabled: Type.Boolean(),
  /** The permission for everything (conversation and session rules are kept beside it). */
  permission: ToolPermission,
  /** A `high` tool asks even when its permission says allow. */
  always_asks: Type.Boolean(),
  input_schema: Type.Record(Type.String(), Type.Unknown()),
});
export type ToolListing = Static<typeof ToolListing>;

export const ToolListResponse = Type.Object({ tools: Type.Array(ToolListing) });
export type ToolListResponse = Static<typeof ToolListResponse>;

export const ToolNameParams = Type.Object({
  name: Type.String({ pattern: TOOL_NAME_PATTERN }),
});

/** `PATCH /api/v1/tools/:name`: either field, or both; a conversation or session narrows it. */
export const ToolPatch = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    permission: Type.Optional(ToolPermission),
    /** Applies the permission to this conversation (its vault path) only. */
    conversation: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    /** Applies the permission until the companion restarts only. */
    session: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ToolPatch = Static<typeof ToolPatch>;

export const HeaderMap = Type.Record(
  Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$" }),
  Type.String({ maxLength: 8192 }),
  { maxProperties: 50 },
);

/** `POST /api/v1/tools/servers`: a command (stdio) or a URL (Streamable HTTP), not both. */
export const ToolServerConfig = Type.Object(
  {
    name: Type.String({ pattern: SERVER_NAME_PATTERN }),
    command: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100 })),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    headers: Type.Optional(HeaderMap),
    /**
     * Whether the server's tools reach the internet. Default: a URL's host decides (loopback
     * and LAN: no); a command: no. Say true for a local command that searches the web.
     */
    requires_network: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ToolServerConfig = Static<typeof ToolServerConfig>;

export const ToolServerStatus = Type.Object({
  name: Type.String(),
  command: Type.Optional(Type.String()),
  args: Type.Optional(Type.Array(Type.String())),
  url: Type.Optional(Type.String()),
  /** Header names only: their values (tokens, often) are never sent back. */
  header_names: Type.Array(Type.String()),
  state: Type.Union([Type.Literal('connecting'), Type.Literal('up'), Type.Literal('down')]),
  /** Why it is down, when it is. */
  error: Type.Union([Type.String(), Type.Null()]),
  tools: Type.Integer(),
  requires_network: Type.Boolean(),
});
export type ToolServerStatus = Static<typeof ToolServerStatus>;

export const ToolServerList = Type.Object({ servers: Type.Array(ToolServerStatus) });
export type ToolServerList = Static<typeof ToolServerList>;

export const ToolServerDeleteQuery = Type.Object(
  { name: Type.String({ pattern: SERVER_NAME_PATTERN }) },
  { additionalProperties: false },
);

export const ToolRunsQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })) },
  { additionalProperties: false },
);

export const ToolRun = Type.Object({
  id: Type.Integer(),
  at: Type.String(),
  tool: Type.String(),
  source: Type.String(),
  token: Type.String(),
  client: Type.String(),
  outcome: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  error_code: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
});
export type ToolRun = Static<typeof ToolRun>;

export const ToolRunsResponse = Type.Object({ runs: Type.Array(ToolRun) });
export type ToolRunsResponse = Static<typeof ToolRunsResponse>;

/** A call waiting for the user: the exact call, and why the model wants it. */
export const ToolAsk = Type.Object({
  id: Type.String(),
  tool: Type.String(),
  source: Type.String(),
  danger: ToolDanger,
  args: Type.Unknown(),
  reason: Type.String(),
  conversation: Type.Optional(Type.String()),
  /** ISO 8601: unanswered by then, the call is refused. */
  expires_at: Type.String(),
});
export type ToolAsk = Static<typeof ToolAsk>;

export const ToolAskList = Type.Object({ asks: Type.Array(ToolAsk) });
export type ToolAskList = Static<typeof ToolAskList>;

export const ToolAskParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

export const ToolAskAnswer = Type.Object(
  { decision: AskDecision },
  { additionalProperties: false },
);
export type ToolAskAnswer = Static<typeof ToolAskAnswer>;

/** What a tool's danger means, in the words the ask cards and the tool lists show. */
export const TOOL_DANGER_WORDS: Record<ToolDanger, string> = {
  low: 'Reads only',
  medium: 'Changes notes (Undo can revert)',
  high: 'Can change things Cairn cannot undo',
};
