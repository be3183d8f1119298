import { ChatEngine } from '../../shared/chat/chat-engine';
import type { ConversationSink } from '../../shared/chat/chat-engine';
import type { OllamaHttp } from '../../shared/chat/ollama-http';
import { OllamaPhraser } from '../../shared/chat/ollama-phraser';
import type { NoteWriter, ReminderReader, ReminderWriter } from '../../shared/chat/ports';
import type { Clock } from '../../shared/ports';
import type { SearchServices } from '../search/search-services';
import { fetchOllamaHttp } from './fetch-ollama-http';
import { CompanionAnswerer, CompanionSearcher } from './search-ports';
import {
  unavailableNoteWriter,
  unavailableReminderReader,
  unavailableReminderWriter,
} from './unavailable-writers';

/** The Ollama chat model the companion already uses for `/answer` summaries. */
export interface ChatOllamaConfig {
  baseUrl: string;
  model: string;
  timeoutMs?: number;
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
}

/**
 * The shared chat engine (shared/chat) over the companion's ports. Messages are routed by the
 * deterministic rules; Ollama, when configured, only phrases answers (still citing).
 */
export function createCompanionChatEngine(deps: CompanionChatDeps): ChatEngine {
  const phraser =
    deps.ollama === undefined
      ? undefined
      : new OllamaPhraser({
          http: deps.ollamaHttp ?? fetchOllamaHttp(),
          baseUrl: deps.ollama.baseUrl,
          model: deps.ollama.model,
          ...(deps.ollama.timeoutMs === undefined ? {} : { timeoutMs: deps.ollama.timeoutMs }),
        });
  return new ChatEngine({
    clock: deps.clock,
    zone: deps.zone,
    notes: deps.notes ?? unavailableNoteWriter,
    reminderReader: deps.reminderReader ?? unavailableReminderReader,
    reminderWriter: deps.reminderWriter ?? unavailableReminderWriter,
    searcher: new CompanionSearcher(deps.search, deps.zone),
    answerer: new CompanionAnswerer(deps.search),
    ...(phraser === undefined ? {} : { phraser }),
    ...(deps.conversations === undefined ? {} : { conversations: deps.conversations }),
  });
}
