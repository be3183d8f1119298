import type { FastifyInstance } from 'fastify';
import { ReminderDoneRequest, ReminderSnoozeRequest } from '../../shared/protocol/reminder-actions';
import {
  OCCURRENCES_DEFAULT,
  OccurrencesQuery,
  OccurrencesResponse,
  Reminder,
  ReminderCreate,
  ReminderCreated,
  ReminderIdParams,
  ReminderListQuery,
  ReminderListResponse,
  ReminderPatch,
} from '../../shared/protocol/reminders';
import { answerOnce } from '../idempotency/idempotency-key';
import type { WriteMemory } from '../idempotency/write-memory';
import type { ReminderService } from './reminder-service';
import { vaultErrors } from '../http/vault-errors';

/*
 * The reminder routes of companion/README.md (`/missed` is the scheduler's, see missed-routes.ts). The
 * behaviour lives in ReminderService; this file is schemas and status codes. The POST routes
 * honour `Idempotency-Key` (companion/idempotency/idempotency-key.ts).
 */

export function registerReminderRoutes(
  app: FastifyInstance,
  reminders: ReminderService,
  memory: WriteMemory,
): void {
  app.get<{ Querystring: ReminderListQuery }>(
    '/api/v1/reminders',
    { schema: { querystring: ReminderListQuery, response: { 200: ReminderListResponse } } },
    async (request) => reminders.list(request.query),
  );

  app.post<{ Body: ReminderCreate }>(
    '/api/v1/reminders',
    { schema: { body: ReminderCreate, response: { 200: ReminderCreated, 201: ReminderCreated } } },
    async (request, reply) =>
      answerOnce(memory, request, reply, request.body, async () => {
        const made = await vaultErrors(() => reminders.create(request.body));
        return {
          status: made.deduplicated ? 200 : 201,
          body: { ...made.reminder, deduplicated: made.deduplicated },
          ...(made.deduplicated ? {} : { undo: () => reminders.removeCreated(made.reminder) }),
        };
      }),
  );

  app.get<{ Params: ReminderIdParams }>(
    '/api/v1/reminders/:id',
    { schema: { params: ReminderIdParams, response: { 200: Reminder } } },
    async (request) => reminders.get(request.params.id),
  );

  app.patch<{ Params: ReminderIdParams; Body: ReminderPatch }>(
    '/api/v1/reminders/:id',
    { schema: { params: ReminderIdParams, body: ReminderPatch, response: { 200: Reminder } } },
    async (request) => vaultErrors(() => reminders.patch(request.params.id, request.body)),
  );

  app.delete<{ Params: ReminderIdParams }>(
    '/api/v1/reminders/:id',
    { schema: { params: ReminderIdParams, response: { 200: Reminder } } },
    async (request) => vaultErrors(() => reminders.cancel(request.params.id)),
  );

  app.get<{ Params: ReminderIdParams; Querystring: OccurrencesQuery }>(
    '/api/v1/reminders/:id/occurrences',
    {
      schema: {
        params: ReminderIdParams,
        querystring: OccurrencesQuery,
        response: { 200: OccurrencesResponse },
      },
    },
    async (request) => ({
      occurrences: reminders.occurrences(
        request.params.id,
        request.query.from,
        request.query.count ?? OCCURRENCES_DEFAULT,
      ),
    }),
  );

  app.post<{ Params: ReminderIdParams; Body: ReminderSnoozeRequest }>(
    '/api/v1/reminders/:id/snooze',
    {
      schema: {
        params: ReminderIdParams,
        body: ReminderSnoozeRequest,
        response: { 200: Reminder },
      },
    },
    async (request, reply) =>
      answerOnce(memory, request, reply, request.body, async () => ({
        status: 200,
        body: await vaultErrors(() =>
          reminders.snooze(
            request.params.id,
            request.body.minutes,
            request.body.occurrence || undefined,
          ),
        ),
      })),
  );

  app.post<{ Params: ReminderIdParams; Body: ReminderDoneRequest }>(
    '/api/v1/reminders/:id/done',
    {
      schema: { params: ReminderIdParams, body: ReminderDoneRequest, response: { 200: Reminder } },
    },
    async (request, reply) =>
      answerOnce(memory, request, reply, request.body ?? null, async () => ({
        status: 200,
        body: await vaultErrors(() =>
          reminders.done(request.params.id, request.body?.occurrence || undefined),
        ),
      })),
  );
}
