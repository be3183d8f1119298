import type { ChatEngine } from '../../shared/chat/chat-engine';
import { formatSourceList } from '../tools';
import { readAll, ollamaErrorMessage, ollamaUrl } from '../../shared/chat/ollama-http';
import type { OllamaHttp } from '../../shared/chat/ollama-http';
import type { AbortSignalLike } from '../../shared/chat/ports';
import type { AnswerData } from '../../shared/chat/tool-runner';
import type { AnswerAudit } from '../../shared/protocol/answer-audit';
import type { Citation } from '../../shared/protocol/citation';
import type { ApiErrorCode } from '../../shared/protocol/errors';
import { COMPLETION_MESSAGE_MAX_CHARS } from '../../shared/protocol/openai-chat';
import type { ChatCompletionMessage } from '../../shared/protocol/openai-chat';
import type { AuditLog } from '../audit/audit-log';
import { auditToolCall } from '../audit/tool-audit';
import { hasScope } from '../auth/scopes';
import type { TokenIdentity } from '../auth/scopes';

/** An Ollama model the OpenAI route talks to directly (vision, conversation recaps). */
export interface OllamaModel {
  baseUrl: string;
  model: string;
}

export interface OpenAiTurnDeps {
  engine: ChatEngine;
  audit: AuditLog;
  http: OllamaHttp;
  /** The chat model (phrases answers in the engine; recaps conversations here). */
  chatModel?: OllamaModel;
  /** `CAIRN_OLLAMA_VISION_MODEL`: answers messages with images; absent, they are a 422. */
  visionModel?: OllamaModel;
  /** For one whole Ollama answer. */
  timeoutMs?: number;
}

/** A refusal before any text: the route turns it into an OpenAI error object with this status. */
export class OpenAiTurnError extends Error {
  override name = 'OpenAiTurnError';
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

/** What one completion yields: text pieces, then (once) the citations and the answer's audit. */
export type TurnPiece = { text: string } | { citations: Citation[]; audit?: AnswerAudit };

const DEFAULT_TIMEOUT_MS = 120_000;

/*
 * "What did I just ask?", "summarise our conversation": questions about the chat itself, which
 * the vault cannot answer. English phrasing; other messages go to the engine's router.
 */
const ABOUT_CONVERSATION =
  /\b(what (did|have) (i|we) (just )?(ask|asked|say|said|talk(ed)? about)|(our|this) (conversation|chat)|(you|i) (just )?said|earlier in (this|our) (chat|conversation)|(my|the) (last|previous|first) (question|message)|repeat (that|your last answer))\b/i;

/** A request that passed the checks needing no model: what `openAiTurn` runs. */
export interface CheckedTurn {
  /** Text of the last user message. */
  text: string;
  /** Its images, base64, for the vision model. */
  images: string[];
  /** Index of the last user message in `messages`. */
  index: number;
}

/**
 * The refusals that need no model, run before any answer starts (so they are HTTP errors even
 * when streaming): no user message, a message too large, images without a vision model, no text.
 */
export function checkTurn(
  deps: Pick<OpenAiTurnDeps, 'visionModel'>,
  messages: readonly ChatCompletionMessage[],
): CheckedTurn {
  const last = lastUserMessage(messages);
  const { text, images } = partsOf(last.message, last.index);
  if (images.length > 0 && deps.visionModel === undefined) {
    throw new OpenAiTurnError(
      'UNPROCESSABLE',
      'this message has an image, but no vision model is configured; set CAIRN_OLLAMA_VISION_MODEL (e.g. llava) and restart the companion',
      images[0]?.param,
    );
  }
  if (images.length === 0 && text.trim() === '') {
    throw new OpenAiTurnError(
      'VALIDATION_ERROR',
      'the last user message has no text',
      `messages[${last.index}].content`,
    );
  }
  return { text, images: images.map((image) => image.base64), index: last.index };
}

/**
 * One `/v1/chat/completions` turn (docs/clients.md), after `checkTurn`:
 * - images → the vision model, with the text as the prompt;
 * - a question about the conversation → a recap of it (the chat model, or the user's earlier
 *   messages listed), without retrieval;
 * - anything else → the chat engine's router, exactly as `/api/v1/chat`: small talk is answered
 *   by the rules, questions are answered from the vault with citations, instructions run as a
 *   tool only when the token has `write` (else the reply says which scope is missing).
 */
export async function* openAiTurn(
  deps: OpenAiTurnDeps,
  turn: CheckedTurn,
  messages: readonly ChatCompletionMessage[],
  caller: { identity: TokenIdentity; signal?: AbortSignalLike },
): AsyncGenerator<TurnPiece> {
  const { text, images } = turn;
  if (images.length > 0 && deps.visionModel !== undefined) {
    yield {
      text: await askOllama(
        deps,
        deps.visionModel,
        [{ role: 'user', content: text, images }],
        caller.signal,
      ),
    };
    yield { citations: [] };
    return;
  }
  if (ABOUT_CONVERSATION.test(text)) {
    yield { text: await recap(deps, messages, turn.index, caller.signal) };
    yield { citations: [] };
    return;
  }

  let citations: Citation[] = [];
  // With a tool policy the runner's gate checks the scope and records the run (docs/tools.md).
  const gated = deps.engine.tools.policy !== undefined;
  let audit: AnswerAudit | undefined;
  const events = deps.engine.send(text, {
    canWrite: hasScope(caller.identity, 'write'),
    record: false,
    caller: {
      tokenName: caller.identity.tokenName,
      client: 'openai',
      scopes: caller.identity.scopes,
    },
    ...(caller.signal === undefined ? {} : { signal: caller.signal }),
  });
  for await (const event of events) {
    switch (event.type) {
      case 'token':
        yield { text: event.text };
        break;
      case 'tool':
        if (event.name === 'answer' && event.result.success) {
          audit = (event.result.data as AnswerData).audit;
        }
        if (gated) break;
        auditToolCall(deps.audit, {
          identity: caller.identity,
          client: 'openai',
          tool: event.name,
          args: event.args,
          result: event.result,
        });
        break;
      case 'citations':
        citations = event.citations;
        break;
      case 'error':
        if (event.error.code === 'UNAVAILABLE' || event.error.code === 'INTERNAL_ERROR') {
          throw new OpenAiTurnError(event.error.code, event.error.message);
        }
        // The tool refused (scope, validation, not found): the reply says so, as chat does.
        yield { text: `Could not do that: ${event.error.message}.` };
        break;
      case 'done':
        break;
    }
  }
  const sources = formatSourceList(citations);
  if (sources !== '') yield { text: `\n\nSources:\n${sources}` };
  yield audit === undefined ? { citations } : { citations, audit };
}

function lastUserMessage(messages: readonly ChatCompletionMessage[]): {
  message: ChatCompletionMessage;
  index: number;
} {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'user') return { message, index };
  }
  throw new OpenAiTurnError('VALIDATION_ERROR', 'messages has no user message', 'messages');
}

interface ImagePart {
  base64: string;
  param: string;
}

function partsOf(
  message: ChatCompletionMessage,
  index: number,
): { text: string; images: ImagePart[] } {
  const field = `messages[${index}].content`;
  const content = message.content ?? '';
  const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  let text = '';
  const images: ImagePart[] = [];
  parts.forEach((part, partIndex) => {
    if (part.type === 'text') {
      text += (text === '' ? '' : '\n') + part.text;
      return;
    }
    const param = typeof content === 'string' ? field : `${field}[${partIndex}]`;
    const match = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=\s]+)$/i.exec(part.image_url.url);
    if (match?.[1] === undefined) {
      throw new OpenAiTurnError(
        'UNPROCESSABLE',
        'images must be sent inline as data:image/…;base64 URLs (the companion fetches nothing from the internet)',
        `${param}.image_url.url`,
      );
    }
    images.push({ base64: match[1].replace(/\s+/g, ''), param });
  });
  if (text.length > COMPLETION_MESSAGE_MAX_CHARS) {
    throw new OpenAiTurnError(
      'PAYLOAD_TOO_LARGE',
      `the message is ${text.length} characters; at most ${COMPLETION_MESSAGE_MAX_CHARS} (put long text into a note and ask about it)`,
      field,
    );
  }
  return { text, images };
}

async function recap(
  deps: OpenAiTurnDeps,
  messages: readonly ChatCompletionMessage[],
  lastIndex: number,
  signal: AbortSignalLike | undefined,
): Promise<string> {
  if (deps.chatModel !== undefined) {
    const history = messages
      .filter((message) => message.role === 'user' || message.role === 'assistant')
      .map((message) => ({ role: message.role, content: textOf(message) }));
    return askOllama(deps, deps.chatModel, history, signal);
  }
  const earlier = messages
    .slice(0, lastIndex)
    .filter((message) => message.role === 'user')
    .map((message, index) => `${index + 1}. ${textOf(message)}`);
  return earlier.length === 0
    ? 'This is the first message of our conversation.'
    : `Your earlier messages in this conversation:\n${earlier.join('\n')}`;
}

function textOf(message: ChatCompletionMessage): string {
  const content = message.content ?? '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
}

async function askOllama(
  deps: OpenAiTurnDeps,
  model: OllamaModel,
  messages: Array<{ role: string; content: string; images?: string[] }>,
  signal: AbortSignalLike | undefined,
): Promise<string> {
  let response;
  try {
    response = await deps.http.post({
      url: ollamaUrl(model.baseUrl, '/api/chat'),
      body: JSON.stringify({ model: model.model, messages, stream: false }),
      timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    throw new OpenAiTurnError(
      'UNAVAILABLE',
      `Ollama (${model.model}) is unreachable: ${(error as Error).message}`,
    );
  }
  const body = await readAll(response.body);
  if (response.status !== 200) {
    throw new OpenAiTurnError('UNAVAILABLE', ollamaErrorMessage(response.status, body));
  }
  try {
    const content = (JSON.parse(body) as { message?: { content?: unknown } }).message?.content;
    if (typeof content === 'string') return content;
  } catch {
    // fall through
  }
  throw new OpenAiTurnError(
    'UNAVAILABLE',
    `Ollama (${model.model}) sent an answer without message text`,
  );
}
