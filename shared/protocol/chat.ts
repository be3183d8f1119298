import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { ToolResultSchema } from '../chat/tool-schemas';
import { Citation } from './citation';
import { ApiError } from './errors';
import { NonBlank } from './formats';
import { ToolAsk } from './tools';

export const CHAT_MESSAGE_MAX_CHARS = 8000;

/** `POST /api/v1/chat`; the answer streams back as Server-Sent Events. */
export const ChatRequest = Type.Object(
  {
    message: NonBlank({ maxLength: CHAT_MESSAGE_MAX_CHARS }),
    /** Vault path of the conversation note to continue; a new one is started when absent. */
    conversation: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false },
);
export type ChatRequest = Static<typeof ChatRequest>;

/*
 * Stream events. The SSE `event:` field carries `type`; `data:` carries the JSON of the whole
 * event, so a client can parse `data` alone. Order: zero or more `token`, at most one `ask`
 * (the turn waits for the user's answer, docs/tools.md), at most one `tool`, at most one
 * `citations`, then exactly one `done` or `error`.
 */

export const ChatTokenEvent = Type.Object({ type: Type.Literal('token'), text: Type.String() });
export const ChatToolEvent = Type.Object({
  type: Type.Literal('tool'),
  /** One of Cairn's tools, or a server's (`server__tool`, docs/tools.md). */
  name: Type.String(),
  /** `cairn` or the MCP server's name; absent from older companions (Cairn's own). */
  source: Type.Optional(Type.String()),
  args: Type.Unknown(),
  result: ToolResultSchema,
});
/** The model wants a tool that needs the user's yes: answer with `POST /api/v1/tools/asks/:id`. */
export const ChatAskEvent = Type.Object({ type: Type.Literal('ask'), ask: ToolAsk });
export const ChatCitationsEvent = Type.Object({
  type: Type.Literal('citations'),
  citations: Type.Array(Citation),
});
export const ChatDoneEvent = Type.Object({
  type: Type.Literal('done'),
  /** Where the conversation was saved, when it was. */
  conversation: Type.Optional(Type.String()),
});
export const ChatErrorEvent = Type.Object({ type: Type.Literal('error'), error: ApiError });

export const ChatEvent = Type.Union([
  ChatTokenEvent,
  ChatToolEvent,
  ChatAskEvent,
  ChatCitationsEvent,
  ChatDoneEvent,
  ChatErrorEvent,
]);
export type ChatEvent = Static<typeof ChatEvent>;
export type ChatEventType = ChatEvent['type'];

/** One SSE frame. JSON never contains a raw newline, so `data:` is always a single line. */
export function formatSseEvent(event: ChatEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
