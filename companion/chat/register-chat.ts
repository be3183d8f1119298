import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/audit-log';
import type { Clock } from '../../shared/ports';
import type { ChatEngine, ConversationSink } from '../../shared/chat/chat-engine';
import type { OllamaHttp } from '../../shared/chat/ollama-http';
import type { ToolRunner } from '../../shared/chat/tool-runner';
import { registerChatRoute } from './chat-routes';
import type { ChatRouteOptions } from './chat-routes';
import type { IndexAfterWrite, SearchServices } from '../search';
import type { ToolRunnerOptions } from '../tools';
import { createCompanionChatEngine } from './companion-chat-engine';
import { ConversationFiles } from './conversation-files';

/**
 * What the composition root may pass for chat and its tools (`AppDeps.chat`); everything is
 * optional. The tools' part goes to the tool runner (tools/companion-tool-runner.ts).
 */
export type ChatAppOptions = ToolRunnerOptions & {
  /** Defaults to Node's fetch. */
  ollamaHttp?: OllamaHttp;
  /** Keeps each finished turn as a chat note; absent, the `chats` folder's files. */
  conversations?: ConversationSink;
} & Pick<ChatRouteOptions, 'heartbeatMs' | 'maxStreamsPerClient'>;

/** Builds the companion's chat engine on its tool runner and registers `POST /api/v1/chat`. */
export function registerChat(
  app: FastifyInstance,
  core: {
    clock: Clock;
    zone: string;
    search: SearchServices;
    /** The companion's one tool runner (tools/), shared with MCP and the OpenAI route. */
    tools: ToolRunner;
    ollamaHttp: OllamaHttp;
    /** Where chats are saved (`Cairn/Chats`); absent, companion chats are not kept. */
    chats?: { vault: string; folder: string; indexAfterWrite?: IndexAfterWrite };
    /** Where tool calls are recorded (docs/clients.md). */
    audit?: AuditLog;
  },
  options: ChatAppOptions = {},
): ChatEngine {
  const conversations =
    options.conversations ??
    (core.chats ? new ConversationFiles({ ...core.chats, zone: () => core.zone }) : undefined);
  const engine = createCompanionChatEngine({
    clock: core.clock,
    zone: () => core.zone,
    tools: core.tools,
    ollamaHttp: core.ollamaHttp,
    ...(options.ollama === undefined ? {} : { ollama: options.ollama }),
    ...(conversations === undefined ? {} : { conversations }),
  });
  registerChatRoute(app, {
    engine,
    search: core.search,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.maxStreamsPerClient === undefined
      ? {}
      : { maxStreamsPerClient: options.maxStreamsPerClient }),
    ...(core.audit === undefined ? {} : { audit: core.audit }),
  });
  return engine;
}
