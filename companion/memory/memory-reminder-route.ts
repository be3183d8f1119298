import type { FastifyInstance } from 'fastify';
import { memoryLinkBody } from '../../shared/memory';
import { TITLE_MAX_CHARS } from '../../shared/protocol/reminders';
import {
  MemoryIdParams,
  MemoryReminderCreate,
  MemoryReminderCreated,
} from '../../shared/protocol/memories';
import { ApiHttpError } from '../http/api-error';
import type { ReminderService } from '../reminders';
import type { MemoryService } from './memory-service';

/**
 * `POST /api/v1/memories/:id/reminder` (docs/memory-digest-calendar.md): a reminder note made
 * from a memory, titled with its words unless a title is given, whose body links back to the
 * memory's line (`[[Cairn/Memory#^m-7k2p]]`), so the reminder leads to what it is about.
 */
export function registerMemoryReminderRoute(
  app: FastifyInstance,
  memories: MemoryService,
  reminders: ReminderService,
): void {
  app.post<{ Params: MemoryIdParams; Body: MemoryReminderCreate }>(
    '/api/v1/memories/:id/reminder',
    {
      schema: {
        params: MemoryIdParams,
        body: MemoryReminderCreate,
        response: { 200: MemoryReminderCreated, 201: MemoryReminderCreated },
      },
    },
    async (request, reply) => {
      const id = request.params.id.replace(/^\^/, '');
      const memory = (await memories.list()).memories.find((m) => m.id === id);
      if (memory === undefined) {
        throw new ApiHttpError('NOT_FOUND', `no memory ^${id} in ${memories.path}`, 'id');
      }
      const { title, ...when } = request.body;
      const made = await reminders.create(
        { ...when, title: title ?? memory.text.slice(0, TITLE_MAX_CHARS) },
        { noteBody: memoryLinkBody(memory) },
      );
      return reply.code(made.deduplicated ? 200 : 201).send({ memory, ...made });
    },
  );
}
