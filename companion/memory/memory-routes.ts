import { readFile } from 'node:fs/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MemoryImportError, memoryImportKind, parseMemoryImport } from '../../shared/memory';
import { ApiHttpError } from '../http/api-error';
import { receiveUpload } from '../http/receive-upload';
import {
  MemoryCreate,
  MemoryCreated,
  MemoryCategoryCounts,
  MemoryCategoryUpdate,
  MemoryIdParams,
  MemoryItem,
  MemoryListQuery,
  MemoryImportResponse,
  MemoryLinkClipped,
  MemoryLinksResponse,
  MemoryListResponse,
} from '../../shared/protocol/memories';
import type { MemoryService } from './memory-service';

/**
 * docs/memory-digest-calendar.md memories over `Cairn/Memory.md`: list (with the file's odd lines as `problems`),
 * remember (201; a fact already there answers 200 with `deduplicated: true`), forget one line.
 */
/** An import file larger than this is refused (413): a thousand memories is ~100 KB. */
export const MEMORY_IMPORT_MAX_BYTES = 1024 * 1024;

export async function registerMemoryRoutes(
  app: FastifyInstance,
  memories: MemoryService,
  /** Absolute folder (in the data folder) an import file is received into. */
  uploadFolder: string,
): Promise<void> {
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

  // Each saved link's state: clipped (its note), fetching, failed (why) or not fetched (why).
  app.get(
    '/api/v1/memories/links',
    { schema: { response: { 200: MemoryLinksResponse } } },
    async () => ({ links: await memories.linkStatuses() }),
  );

  // The memory's link fetched and clipped now: the first try, or a retry after a failure.
  app.post<{ Params: MemoryIdParams }>(
    '/api/v1/memories/:id/link',
    { schema: { params: MemoryIdParams, response: { 201: MemoryLinkClipped } } },
    async (request, reply) => reply.code(201).send(await memories.clipLink(request.params.id)),
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

  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: {
        fileSize: MEMORY_IMPORT_MAX_BYTES,
        files: 1,
        fields: 2,
        fieldSize: 1024,
        parts: 4,
      },
    });
    // One .txt or .md upload (field "file"): one memory per line or list item.
    scope.post(
      '/api/v1/memories/import',
      {
        bodyLimit: MEMORY_IMPORT_MAX_BYTES + 64 * 1024,
        schema: { response: { 200: MemoryImportResponse, 201: MemoryImportResponse } },
      },
      async (request, reply) => {
        const upload = await readTextUpload(request, uploadFolder);
        let lines;
        try {
          lines = parseMemoryImport(upload.text, upload.kind, upload.filename);
        } catch (error) {
          if (error instanceof MemoryImportError) {
            throw new ApiHttpError('VALIDATION_ERROR', error.message, 'file');
          }
          throw error;
        }
        const result = await memories.importMemories(lines, upload.filename);
        return reply.code(result.imported.length > 0 ? 201 : 200).send({
          imported: result.imported.length,
          duplicates: result.duplicates,
          memories: result.imported,
          replaced: result.replaced,
        });
      },
    );
  });
}

/**
 * The upload's name, kind and UTF-8 text; anything else is a clear 4xx naming `file`. Received
 * like every upload (companion/http/receive-upload.ts): through a temp file in `uploadFolder`,
 * removed once read.
 */
async function readTextUpload(
  request: FastifyRequest,
  uploadFolder: string,
): Promise<{ filename: string; kind: 'text' | 'markdown'; text: string }> {
  const upload = await receiveUpload(request, {
    folder: uploadFolder,
    maxBytes: MEMORY_IMPORT_MAX_BYTES,
    nothingDone: 'nothing was imported',
  });
  try {
    const name = JSON.stringify(upload.filename);
    const kind = memoryImportKind(upload.filename);
    if (kind === undefined) {
      throw new ApiHttpError(
        'UNPROCESSABLE',
        `${name}: memories are imported from text (.txt) and Markdown (.md) files only`,
        'file',
      );
    }
    if (upload.size === 0)
      throw new ApiHttpError('UNPROCESSABLE', `${name}: the file is empty`, 'file');
    if (upload.hasNul) {
      throw new ApiHttpError(
        'UNPROCESSABLE',
        `${name}: contains NUL bytes: not a text file`,
        'file',
      );
    }
    if (!upload.utf8) throw new ApiHttpError('UNPROCESSABLE', `${name}: is not UTF-8 text`, 'file');
    return { filename: upload.filename, kind, text: await readFile(upload.file, 'utf8') };
  } finally {
    await upload.remove();
  }
}
