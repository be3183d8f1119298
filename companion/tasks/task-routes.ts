import type { FastifyInstance } from 'fastify';
import {
  Task,
  TaskCreate,
  TaskIdParams,
  TaskListResponse,
  TaskPatch,
  TaskRunsQuery,
  TaskRunsResponse,
} from '../../shared/protocol/tasks';
import { vaultErrors } from '../http/vault-errors';
import type { TaskService } from './task-service';

/** Runs listed when no `limit` is given. */
const RUNS_DEFAULT = 20;

/**
 * `/api/v1/tasks` (docs/tasks.md). The behaviour lives in TaskService; this file is schemas and
 * status codes. GETs need the read scope, the others write (companion/auth/require-token.ts).
 */
export function registerTaskRoutes(app: FastifyInstance, tasks: TaskService): void {
  app.get('/api/v1/tasks', { schema: { response: { 200: TaskListResponse } } }, async () =>
    tasks.list(),
  );

  app.post<{ Body: TaskCreate }>(
    '/api/v1/tasks',
    { schema: { body: TaskCreate, response: { 201: Task } } },
    async (request, reply) => {
      const task = await vaultErrors(() => tasks.create(request.body));
      return reply.code(201).send(task);
    },
  );

  app.get<{ Params: TaskIdParams }>(
    '/api/v1/tasks/:id',
    { schema: { params: TaskIdParams, response: { 200: Task } } },
    async (request) => tasks.get(request.params.id),
  );

  app.patch<{ Params: TaskIdParams; Body: TaskPatch }>(
    '/api/v1/tasks/:id',
    { schema: { params: TaskIdParams, body: TaskPatch, response: { 200: Task } } },
    async (request) => vaultErrors(() => tasks.patch(request.params.id, request.body)),
  );

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post<{ Params: TaskIdParams }>(
      `/api/v1/tasks/:id/${verb}`,
      { schema: { params: TaskIdParams, response: { 200: Task } } },
      async (request) => vaultErrors(() => tasks.patch(request.params.id, { enabled })),
    );
  }

  app.delete<{ Params: TaskIdParams }>(
    '/api/v1/tasks/:id',
    { schema: { params: TaskIdParams, response: { 200: Task } } },
    async (request) => vaultErrors(() => tasks.remove(request.params.id)),
  );

  app.get<{ Params: TaskIdParams; Querystring: TaskRunsQuery }>(
    '/api/v1/tasks/:id/runs',
    {
      schema: {
        params: TaskIdParams,
        querystring: TaskRunsQuery,
        response: { 200: TaskRunsResponse },
      },
    },
    async (request) =>
      tasks.runs(request.params.id, request.query.limit ?? RUNS_DEFAULT, request.query.cursor),
  );
}
