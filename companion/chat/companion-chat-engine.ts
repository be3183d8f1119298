import type { RecentWritesStore } from '../../shared/chat/recent-writes';
import { ChatEngine } from '../../shared/chat/chat-engine';
import type { ConversationSink } from '../../shared/chat/chat-engine';
import type { OllamaHttp } from '../../shared/chat/ollama-http';
import { OllamaPhraser } from '../../shared/chat/ollama-phraser';
import { OllamaRouter } from '../../shared/chat/ollama-router';
import type {
  MemoryStore,
  NoteWriter,
  ReminderReader,
  ReminderWriter,
  TaskCreator,
} from '../../shared/chat/ports';
import type { Clock } from '../../shared/ports';
import type { ToolPolicy } from '../../shared/chat/tool-policy';
import type { UnsupportedClaimPolicy } from '../../shared/protocol/answer-audit';
import { embedderSimilarity } from '../../shared/search/claim-check';
import type { SearchServices } from '../search';
import { fetchOllamaHttp } from './fetch-ollama-http';
import { companionToolError } from '../http/tool-error';
import { dryRun } from '../vault/dry-run';
import { CompanionAnswerer, CompanionSearcher } from '../search';
import {
  unavailableNoteWriter,
  unavailableReminderReader,
  unavailableReminderWriter,
} from './unavailable-writers';

/** The Ollama chat model the companion already uses for `/answer` summaries. */
export interface ChatOllamaConfig {
  baseUrl: string;
  model: string;
  /** For a whole phrased answer (the router keeps its own, shorter limit). */
  timeoutMs?: number;
  /** Let the model pick the tool (docs/chat.md); default true. False: the rules route, the model only phrases. */
  route?: boolean;
  /** What becomes of a phrased claim its passages do not support; default `mark`. */
  unsupportedClaims?: UnsupportedClaimPolicy;
}

export interface CompanionChatDeps {
  clock: Clock;
  /** The vault's zone (times in "remind me at 9" and date filters are read in it). */
  zone: () => string;
  search: SearchServices;
  /** Phrases answers from the cited passages; absent, answers stay extractive. */
  ollama?: ChatOllamaConfig;
  /** Defaults to Node's fetch. */
  ollamaHttp?: OllamaHttp;
  /** Vault writers and the reminder list; absent, those tools answer UNAVAILABLE. */
  notes?: NoteWriter;
  reminderReader?: ReminderReader;
  reminderWriter?: ReminderWriter;
  /** Keeps each finished turn as a chat note; absent, chats are not saved. */
  conversations?: ConversationSink;
  /** Where chat's five-minute dedup of writes lives; absent, in memory. */
  recentWrites?: RecentWritesStore;
  /** `Cairn/Memory.md`; absent, "remember that …" writes a note. */
  memories?: MemoryStore;
  /** Scheduled tasks (docs/tasks.md); absent, `create_task` answers UNAVAILABLE. */
  tasks?: TaskCreator;
  /** The tool registry's policy (docs/tools.md); absent, tools run unchecked as before. */
  policy?: ToolPolicy;
}

/**
 * The shared chat engine (shared/chat) over the companion's ports. Without Ollama the
 * deterministic rules route and answers stay extractive; with it, the model picks the tool
 * (its call checked against the schema, the rules taking over with a visible note when it
 * cannot be used) and phrases answers from the cited passages.
 */
export function createCompanionChatEngine(deps: CompanionChatDeps): ChatEngine {
  const ollama = deps.ollama;
  const http = deps.ollamaHttp ?? fetchOllamaHttp();
  const phraser =
    ollama === undefined
      ? undefined
      : new OllamaPhraser({
          http,
          baseUrl: ollama.baseUrl,
          model: ollama.model,
          ...(ollama.timeoutMs === undefined ? {} : { timeoutMs: ollama.timeoutMs }),
        });
  const router =
    ollama === undefined || ollama.route === false
      ? undefined
      : new OllamaRouter({
          http,
          baseUrl: ollama.baseUrl,
          model: ollama.model,
          ...(deps.policy?.external === undefined
            ? {}
            : { extraTools: () => deps.policy?.external?.specs() ?? [] }),
        });
  return new ChatEngine({
    clock: deps.clock,
    zone: deps.zone,
    notes: deps.notes ?? unavailableNoteWriter,
    reminderReader: deps.reminderReader ?? unavailableReminderReader,
    reminderWriter: deps.reminderWriter ?? unavailableReminderWriter,
    searcher: new CompanionSearcher(deps.search, deps.zone),
    answerer: new CompanionAnswerer(deps.search),
    toolError: companionToolError,
    dryRun,
    unsupportedClaims: () => ollama?.unsupportedClaims ?? 'mark',
    claimSimilarity: embedderSimilarity(() => deps.search.deps.embedder?.()),
    ...(phraser === undefined ? {} : { phraser }),
    ...(router === undefined ? {} : { router }),
    ...(deps.conversations === undefined ? {} : { conversations: deps.conversations }),
    ...(deps.recentWrites === undefined ? {} : { recentWrites: deps.recentWrites }),
    ...(deps.memories === undefined ? {} : { memories: deps.memories }),
    ...(deps.tasks === undefined ? {} : { tasks: deps.tasks }),
    ...(deps.policy === undefined ? {} : { policy: deps.policy }),
  });
}
