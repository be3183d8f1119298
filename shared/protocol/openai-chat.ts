import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { AnswerAudit } from './answer-audit';
import { Citation } from './citation';

/*
 * `POST /v1/chat/completions` in OpenAI's format (docs/clients.md). Only what Cairn reads is checked;
 * the many other parameters clients send (temperature, top_p, user, …) are accepted and ignored,
 * as a server that cannot honour them should.
 */

/** The one chat model the companion serves. */
export const CAIRN_CHAT_MODEL = 'cairn';

/** Characters of text a message may carry; more is a 413 (the vault is searched, not the prompt). */
export const COMPLETION_MESSAGE_MAX_CHARS = 100_000;

/** Messages in one request. */
export const CHAT_MESSAGES_MAX = 500;

export const ChatContentPart = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Type.String() }),
  Type.Object({
    type: Type.Literal('image_url'),
    image_url: Type.Object({ url: Type.String(), detail: Type.Optional(Type.String()) }),
  }),
]);
export type ChatContentPart = Static<typeof ChatContentPart>;

export const ChatCompletionMessage = Type.Object({
  role: Type.Union([
    Type.Literal('system'),
    Type.Literal('developer'),
    Type.Literal('user'),
    Type.Literal('assistant'),
    Type.Literal('tool'),
  ]),
  content: Type.Union([Type.String(), Type.Array(ChatContentPart), Type.Null()]),
});
export type ChatCompletionMessage = Static<typeof ChatCompletionMessage>;

export const ChatCompletionRequest = Type.Object({
  model: Type.String({ minLength: 1 }),
  messages: Type.Array(ChatCompletionMessage, { minItems: 1, maxItems: CHAT_MESSAGES_MAX }),
  stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  /** Cairn's extension: add the answer's audit (claims checked) to `cairn.audit`. */
  audit: Type.Optional(Type.Boolean()),
});
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;

/** Cairn's extension on the final message (or chunk): the citations behind the reply. */
export const CairnReplyExtension = Type.Object({
  citations: Type.Array(Citation),
  /** With `audit: true` and an answer from the vault: what was retrieved, used and claimed. */
  audit: Type.Optional(AnswerAudit),
});
export type CairnReplyExtension = Static<typeof CairnReplyExtension>;

/** OpenAI's error object. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}
