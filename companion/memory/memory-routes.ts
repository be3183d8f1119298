import type { FastifyInstance } from 'fastify';
import {
  MemoryCreate,
  MemoryCreated,
  MemoryCategoryCounts,
  MemoryCategoryUpdate,
  MemoryIdParams,
  MemoryItem,
  MemoryListQuery,
  MemoryListResponse,
} from '../../shared/protocol/memories';
import type { MemoryService } from './memory-service';

/**
 * docs/memory-digest-calendar.md memories over `Cairn/Memory.md`: list (with the file's odd lines as `problems`),
 * remember (201; a fact already there answers 200 with `deduplicated: true`), forget one line.
 */
export function registerMemoryRoutes(app: FastifyInstance, memories: MemoryService): void {
  app.get<{ Querystring: MemoryListQuery }>(
    '/api/v1/memories',
    { schema: { querystring: MemoryListQuery, response: { 200: MemoryListResponse } } },
    async (request) => memories.list(request.query.category),
  );

  app.get(
    '/api/v1/memories/categories',
    { schema: { response: { 200: MemoryCategoryCounts } } },
    async () => ({ categories: await memories.categories() }),
  );

  // A user's choice of category: written as the line's tag, which then always wins.
  app.patch<{ Params: MemoryIdParams; Body: MemoryCategoryUpdate }>(
    '/api/v1/memories/:id',
    {
      schema: { params: MemoryIdParams, body: MemoryCategoryUpdate, response: { 200: MemoryItem } },
    },
    async (request) => memories.setCategory(request.params.id, request.body.category),
  );

  app.post<{ Body: MemoryCreate }>(
    '/api/v1/memories',
    { schema: { body: MemoryCreate, response: { 200: MemoryCreated, 201: MemoryCreated } } },
    async (request, reply) => {
      const created = await memories.remember(request.body.text);
      return reply.code(created.deduplicated ? 200 : 201).send(created);
    },
  );

  app.delete<{ Params: MemoryIdParams }>(
    '/api/v1/memories/:id',
    { schema: { params: MemoryIdParams, response: { 200: MemoryItem } } },
    async (request) => memories.forget(request.params.id),
  );
}
