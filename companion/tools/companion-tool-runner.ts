import type { OllamaHttp } from '../../shared/chat/ollama-http';
import { OllamaPhraser } from '../../shared/chat/ollama-phraser';
import type {
  MemoryStore,
  NoteWriter,
  ReminderReader,
  ReminderWriter,
  TaskCreator,
} from '../../shared/chat/ports';
import type { RecentWritesStore } from '../../shared/chat/recent-writes';
import type { ToolPolicy } from '../../shared/chat/tool-policy';
import { ToolRunner } from '../../shared/chat/tool-runner';
import type { Clock } from '../../shared/ports';
import type { UnsupportedClaimPolicy } from '../../shared/protocol/answer-audit';
import { embedderSimilarity } from '../../shared/search/claim-check';
import { companionToolErrorOrInternal } from '../http/tool-error';
import { chatWriteMemory } from '../idempotency/chat-write-memory';
import type { WriteMemory } from '../idempotency/write-memory';
import type { MemoryService } from '../memory';
import type { ReminderService } from '../reminders';
import { CompanionAnswerer, CompanionSearcher } from '../search';
import type { IndexAfterWrite, SearchServices } from '../search';
import { dryRun } from '../vault/dry-run';
import { memoryToolPort } from './memory-port';
import { VaultNoteWriter } from './note-writer';
import { reminderToolPorts } from './reminder-ports';
import {
  unavailableNoteWriter,
  unavailableReminderReader,
  unavailableReminderWriter,
} from './unavailable-writers';

/** The Ollama chat model the companion uses for `/answer` summaries, chat phrasing and routing. */
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

/** What the composition root may add or replace (`AppDeps.chat`); everything is optional. */
export interface ToolRunnerOptions {
  /** Phrases answers from the cited passages; absent, answers stay extractive. */
  ollama?: ChatOllamaConfig;
  /** Ports that replace the companion's own (tests, or a host without the service). */
  notes?: NoteWriter;
  reminderReader?: ReminderReader;
  reminderWriter?: ReminderWriter;
  /** Where the five-minute dedup of writes lives; absent, the write memory's (or in memory). */
  recentWrites?: RecentWritesStore;
  /** `Cairn/Memory.md`; absent, "remember that …" writes a note. */
  memories?: MemoryStore;
  /** Scheduled tasks (docs/tasks.md); absent, `create_task` answers UNAVAILABLE. */
  tasks?: TaskCreator;
}

/** The companion's services the tools run over. */
export interface CompanionToolServices {
  clock: Clock;
  /** The vault's zone (times in "remind me at 9" and date filters are read in it). */
  zone: string;
  search: SearchServices;
  /** How the Ollama model is reached (Node's fetch in production). */
  ollamaHttp: OllamaHttp;
  /** The reminder API's service; with it, the tools list, create, snooze and complete reminders. */
  reminders?: ReminderService;
  /** Where notes are written; with it, the tools create and append to notes in the vault. */
  notes?: { vault: string; folder: string; indexAfterWrite?: IndexAfterWrite };
  /** The companion's write memory: the tools' dedup survives a restart in it. */
  memory?: WriteMemory;
  /** `Cairn/Memory.md` (docs/clients.md): remember, forget, recall, and memories first in answers. */
  memories?: MemoryService;
  /** The tool registry's policy (docs/tools.md): every call goes through its gate. */
  policy?: ToolPolicy;
  /** Where an unexpected error goes (the companion's log); its caller sees only its code. */
  logToolError: (error: unknown, what: string) => void;
}

/**
 * The companion's one tool runner (shared/chat/tool-runner.ts) over its own services: the chat
 * engine runs its routed calls on it, and the registry (tool-registry.ts) runs MCP's and the
 * OpenAI route's calls on it directly. The services' errors reach it as they are thrown
 * (ApiHttpError, VaultWriteError) and are mapped once, by `companionToolErrorOrInternal`.
 */
export function createCompanionToolRunner(
  services: CompanionToolServices,
  options: ToolRunnerOptions = {},
): ToolRunner {
  const zone = () => services.zone;
  const ollama = options.ollama;
  const reminders = services.reminders ? reminderToolPorts(services.reminders) : undefined;
  const recentWrites =
    options.recentWrites ?? (services.memory ? chatWriteMemory(services.memory) : undefined);
  const memories =
    options.memories ?? (services.memories ? memoryToolPort(services.memories) : undefined);
  const notes =
    options.notes ??
    (services.notes
      ? new VaultNoteWriter({ ...services.notes, zone, clock: services.clock })
      : unavailableNoteWriter);
  return new ToolRunner({
    clock: services.clock,
    zone,
    notes,
    reminderReader:
      options.reminderReader ?? reminders?.reminderReader ?? unavailableReminderReader,
    reminderWriter:
      options.reminderWriter ?? reminders?.reminderWriter ?? unavailableReminderWriter,
    searcher: new CompanionSearcher(services.search, zone),
    answerer: new CompanionAnswerer(services.search),
    toolError: (error, what) => companionToolErrorOrInternal(error, what, services.logToolError),
    dryRun,
    unsupportedClaims: () => ollama?.unsupportedClaims ?? 'mark',
    claimSimilarity: embedderSimilarity(() => services.search.deps.embedder?.()),
    ...(ollama === undefined
      ? {}
      : {
          phraser: new OllamaPhraser({
            http: services.ollamaHttp,
            baseUrl: ollama.baseUrl,
            model: ollama.model,
            ...(ollama.timeoutMs === undefined ? {} : { timeoutMs: ollama.timeoutMs }),
          }),
        }),
    ...(recentWrites === undefined ? {} : { recentWrites }),
    ...(memories === undefined ? {} : { memories }),
    ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
    ...(services.policy === undefined ? {} : { policy: services.policy }),
  });
}
