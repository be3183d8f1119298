import { ChatEngine } from '../../shared/chat/chat-engine';
import type { ConversationSink } from '../../shared/chat/chat-engine';
import type { OllamaHttp } from '../../shared/chat/ollama-http';
import { OllamaRouter } from '../../shared/chat/ollama-router';
import type { ToolRunner } from '../../shared/chat/tool-runner';
import type { Clock } from '../../shared/ports';
import type { ChatOllamaConfig } from '../tools';

export interface CompanionChatDeps {
  clock: Clock;
  /** The vault's zone (times in "remind me at 9" are read in it). */
  zone: () => string;
  /** The companion's one tool runner (tools/companion-tool-runner.ts), shared with MCP. */
  tools: ToolRunner;
  /** With it the model routes messages (unless `route` is false); the runner phrases answers. */
  ollama?: ChatOllamaConfig;
  ollamaHttp: OllamaHttp;
  /** Keeps each finished turn as a chat note; absent, chats are not saved. */
  conversations?: ConversationSink;
}

/**
 * The shared chat engine (shared/chat) on the companion's tool runner. Without Ollama the
 * deterministic rules route; with it, the model picks the tool (its call checked against the
 * schema, the rules taking over with a visible note when it cannot be used), and the MCP
 * servers' tools are offered to it too.
 */
export function createCompanionChatEngine(deps: CompanionChatDeps): ChatEngine {
  const { ollama, tools } = deps;
  const router =
    ollama === undefined || ollama.route === false
      ? undefined
      : new OllamaRouter({
          http: deps.ollamaHttp,
          baseUrl: ollama.baseUrl,
          model: ollama.model,
          ...(tools.policy?.external === undefined
            ? {}
            : { extraTools: () => tools.policy?.external?.specs() ?? [] }),
        });
  return new ChatEngine({
    clock: deps.clock,
    zone: deps.zone,
    tools,
    ...(router === undefined ? {} : { router }),
    ...(deps.conversations === undefined ? {} : { conversations: deps.conversations }),
  });
}
