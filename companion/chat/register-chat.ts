import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/ports';
import { registerChatRoute } from '../routes/chat';
import type { ChatRouteOptions } from '../routes/chat';
import type { ReminderService } from '../reminders/reminder-service';
import type { SearchServices } from '../search/search-services';
import type { IndexAfterWrite } from '../vault/index-after-write';
import { createCompanionChatEngine } from './companion-chat-engine';
import type { CompanionChatDeps } from './companion-chat-engine';
import { VaultNoteWriter } from './note-writer';
import { reminderChatPorts } from './reminder-ports';
import { VaultConversations } from './vault-conversations';

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
  },
  options: ChatAppOptions = {},
): void {
  const { heartbeatMs, maxStreamsPerClient, ...ports } = options;
  const engine = createCompanionChatEngine({
    clock: core.clock,
    zone: () => core.zone,
    search: core.search,
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
      ? { conversations: new VaultConversations({ ...core.chats, zone: () => core.zone }) }
      : {}),
    ...ports,
  });
  registerChatRoute(app, {
    engine,
    search: core.search,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(maxStreamsPerClient === undefined ? {} : { maxStreamsPerClient }),
  });
}
