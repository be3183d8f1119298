import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/audit-log';
import type { Clock } from '../../shared/ports';
import { chatWriteMemory } from '../idempotency/chat-write-memory';
import type { WriteMemory } from '../idempotency/write-memory';
import { registerChatRoute } from './chat-routes';
import type { ChatRouteOptions } from './chat-routes';
import type { ReminderService } from '../reminders';
import type { SearchServices } from '../search';
import type { IndexAfterWrite } from '../search';
import type { ChatEngine } from '../../shared/chat/chat-engine';
import { createCompanionChatEngine } from './companion-chat-engine';
import type { CompanionChatDeps } from './companion-chat-engine';
import { VaultNoteWriter } from './note-writer';
import { reminderChatPorts } from './reminder-ports';
import { ConversationFiles } from './conversation-files';
import type { MemoryService } from '../memory';
import { memoryChatPort } from './memory-port';
import type { ToolPolicy } from '../../shared/chat/tool-policy';

/** What the composition root may pass for chat (`AppDeps.chat`); everything is optional. */
export type ChatAppOptions = Omit<CompanionChatDeps, 'clock' | 'zone' | 'search'> &
  Pick<ChatRouteOptions, 'heartbeatMs' | 'maxStreamsPerClient'>;

/** Builds the companion's chat engine and registers `POST /api/v1/chat` on it. */
export function registerChat(
  app: FastifyInstance,
  core: {
    clock: Clock;
    zone: string;
    search: SearchServices;
    /** The reminder API's service; with it, chat lists, creates, snoozes and completes reminders. */
    reminders?: ReminderService;
    /** Where chat writes notes; with it, chat creates and appends to notes in the vault. */
    notes?: { vault: string; folder: string; indexAfterWrite?: IndexAfterWrite };
    /** Where chats are saved (`Cairn/Chats`); absent, companion chats are not kept. */
    chats?: { vault: string; folder: string; indexAfterWrite?: IndexAfterWrite };
    /** The companion's write memory: chat's dedup survives a restart in it. */
    memory?: WriteMemory;
    /** Where tool calls are recorded (docs/clients.md). */
    audit?: AuditLog;
    /** `Cairn/Memory.md` (docs/clients.md): remember, forget, recall, and memories first in answers. */
    memories?: MemoryService;
    /** The tool registry's policy (docs/tools.md): every chat tool call goes through its gate. */
    policy?: ToolPolicy;
  },
  options: ChatAppOptions = {},
): ChatEngine {
  const { heartbeatMs, maxStreamsPerClient, ...ports } = options;
  const engine = createCompanionChatEngine({
    clock: core.clock,
    zone: () => core.zone,
    search: core.search,
    ...(core.memory ? { recentWrites: chatWriteMemory(core.memory) } : {}),
    ...(core.reminders ? reminderChatPorts(core.reminders) : {}),
    ...(core.notes
      ? {
          notes: new VaultNoteWriter({
            ...core.notes,
            zone: () => core.zone,
            clock: core.clock,
          }),
        }
      : {}),
    ...(core.chats
      ? { conversations: new ConversationFiles({ ...core.chats, zone: () => core.zone }) }
      : {}),
    ...(core.memories ? { memories: memoryChatPort(core.memories) } : {}),
    ...(core.policy ? { policy: core.policy } : {}),
    ...ports,
  });
  registerChatRoute(app, {
    engine,
    search: core.search,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(maxStreamsPerClient === undefined ? {} : { maxStreamsPerClient }),
    ...(core.audit === undefined ? {} : { audit: core.audit }),
  });
  return engine;
}
