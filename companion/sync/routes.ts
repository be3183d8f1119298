import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { blobBatchFrameHeader } from '../../shared/protocol/sync-blob-batch';
import {
  SYNC_BLOB_BATCH_MAX_BYTES,
  SYNC_CHANGES_DEFAULT_LIMIT,
  SYNC_SERVER_DEVICE,
  SyncBlobBatchRequest,
  SyncBlobParams,
  SyncBlobPutResponse,
  SyncChangesQuery,
  SyncChangesResponse,
  SyncCommitRequest,
  SyncCommitResponse,
  SyncConfirmRequest,
  SyncHistoryQuery,
  SyncHistoryResponse,
  SyncTrashQuery,
  SyncTrashResponse,
} from '../../shared/protocol/sync';
import { requestClient } from '../audit/audit-hooks';
import { ApiHttpError } from '../http/api-error';
import { BlobError } from './blob-store';
import type { UploadPart } from './blob-store';
import type { SyncService } from './sync-service';
import { isSettingsPath } from './syncable-path';

/** Commit bodies may list thousands of ops (a first sync); bytes go through `blobs`. */
const COMMIT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Every sync route needs the `sync` scope (DESIGN §9) and counts against the sync rate limit
 * (companion/http/rate-limits.ts); the blob routes against their own, larger one.
 */
const config = { scope: 'sync' as const, limited: 'sync' as const };
const blobConfig = { scope: 'sync' as const, limited: 'syncBlobs' as const };

/**
 * The routes of Cairn Sync under `/api/v1/sync` (docs/sync.md). The blob routes live in their
 * own encapsulated context, where every request body is passed through as a stream (never
 * buffered) instead of being parsed.
 */
export async function registerSyncRoutes(app: FastifyInstance, sync: SyncService): Promise<void> {
  await app.register(
    async (scoped) => {
      scoped.get(
        '/changes',
        {
          config,
          schema: { querystring: SyncChangesQuery, response: { 200: SyncChangesResponse } },
        },
        async (request) => {
          const query = request.query as SyncChangesQuery;
          const head = sync.store.head();
          if (query.since > head) {
            throw new ApiHttpError(
              'CURSOR_EXPIRED',
              `since=${query.since} is ahead of this companion's journal (${head}); start again from since=0`,
              'since',
            );
          }
          if (query.device !== undefined) {
            if (query.device.trim().toLowerCase() === SYNC_SERVER_DEVICE) {
              throw new ApiHttpError('VALIDATION_ERROR', 'device "server" is reserved', 'device');
            }
            sync.store.touchDevice(query.device, query.since);
          }
          const wait = query.wait ?? 0;
          if (wait > 0) await sync.journal.waitForChange(query.since, wait * 1000);
          return sync.journal.changes(query.since, query.limit ?? SYNC_CHANGES_DEFAULT_LIMIT, {
            settings: query.settings === 1,
          });
        },
      );

      scoped.post(
        '/commit',
        {
          config,
          bodyLimit: COMMIT_BODY_LIMIT_BYTES,
          schema: { body: SyncCommitRequest, response: { 200: SyncCommitResponse } },
        },
        async (request) =>
          sync.committer.commit(request.body as SyncCommitRequest, committer(request)),
      );

      scoped.post(
        '/confirm',
        {
          config,
          schema: { body: SyncConfirmRequest, response: { 200: SyncCommitResponse } },
        },
        async (request) => {
          const body = request.body as SyncConfirmRequest;
          return sync.committer.confirm(body.device, body.hold, committer(request));
        },
      );

      scoped.get(
        '/history',
        {
          config,
          schema: { querystring: SyncHistoryQuery, response: { 200: SyncHistoryResponse } },
        },
        async (request) => {
          const query = request.query as SyncHistoryQuery;
          if (query.path === undefined && query.file_id === undefined) {
            throw new ApiHttpError('VALIDATION_ERROR', 'give path or file_id', 'path');
          }
          const file =
            query.file_id !== undefined
              ? sync.store.file(query.file_id)
              : sync.store.fileEverAt(query.path as string);
          if (file === undefined) {
            throw new ApiHttpError(
              'NOT_FOUND',
              `no synced file ${query.file_id ?? query.path}`,
              query.file_id !== undefined ? 'file_id' : 'path',
            );
          }
          return {
            file_id: file.file_id,
            versions: sync.store.versions(file.file_id).map((row) => ({
              hash: row.hash,
              size: row.size,
              time: new Date(row.time).toISOString(),
              device: row.device,
              seq: row.seq,
              path: row.path,
            })),
          };
        },
      );

      scoped.get(
        '/trash',
        {
          config,
          schema: { querystring: SyncTrashQuery, response: { 200: SyncTrashResponse } },
        },
        async (request) => {
          const query = request.query as SyncTrashQuery;
          const limit = query.limit ?? 100;
          const before =
            query.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(query.cursor);
          const rows = sync.store.trash(before, limit + 1);
          const page = rows.slice(0, limit);
          const last = page.at(-1);
          return {
            // "Deleted files" is of notes and attachments: settings files stay in history only.
            files: page
              .filter((row) => !isSettingsPath(row.path))
              .map((row) => ({
                file_id: row.file_id,
                path: row.path,
                hash: row.hash,
                size: row.size,
                deleted: new Date(row.time).toISOString(),
                device: row.device,
                seq: row.seq,
              })),
            next_cursor: rows.length > limit && last !== undefined ? String(last.seq) : null,
          };
        },
      );

      scoped.post(
        '/blobs/batch',
        { config: blobConfig, schema: { body: SyncBlobBatchRequest } },
        async (request, reply) => {
          const { hashes } = request.body as SyncBlobBatchRequest;
          const sizes = hashes.map((hash) => sync.blobs.sizeOf(hash) ?? null);
          const total = sizes.reduce<number>((sum, size) => sum + (size ?? 0), 0);
          if (total > SYNC_BLOB_BATCH_MAX_BYTES) {
            throw new ApiHttpError(
              'PAYLOAD_TOO_LARGE',
              `the ${hashes.length} blobs asked for are ${total} bytes together, over the ${SYNC_BLOB_BATCH_MAX_BYTES} bytes one batch answers with: ask for fewer, or for a large one with GET blobs/:hash`,
              'hashes',
            );
          }
          const headers = hashes.map((hash, index) =>
            Buffer.from(blobBatchFrameHeader(hash, sizes[index] ?? null), 'latin1'),
          );
          const length = headers.reduce((sum, header) => sum + header.length, total);
          void reply
            .type('application/octet-stream')
            .header('content-length', length)
            .header('cache-control', 'no-store');
          return reply.send(Readable.from(blobFrames(sync, hashes, sizes, headers)));
        },
      );

      await scoped.register(async (bytes) => registerBlobRoutes(bytes, sync));
    },
    { prefix: '/api/v1/sync' },
  );
}

function committer(request: FastifyRequest): {
  tokenName: string;
  client: ReturnType<typeof requestClient>;
} {
  return { tokenName: request.cairnAuth?.tokenName ?? 'unknown', client: requestClient(request) };
}

/** Blob files read ahead of the one being sent in a `POST blobs/batch` answer. */
const BATCH_READ_AHEAD = 8;

/**
 * The frames of a `POST blobs/batch` answer, in order, with a few blob files read ahead (each
 * read is a few round trips to the thread pool; the batch is bounded in bytes, so is what is
 * read ahead). A blob gone or changed in size since it was measured (pruned meanwhile) ends the
 * stream with an error: the client sees a body cut short, never other bytes.
 */
async function* blobFrames(
  sync: SyncService,
  hashes: readonly string[],
  sizes: readonly (number | null)[],
  headers: readonly Buffer[],
): AsyncGenerator<Buffer> {
  const reads = new Map<number, Promise<Buffer>>();
  const readAhead = (from: number): void => {
    for (let index = from; index < hashes.length && reads.size < BATCH_READ_AHEAD; index++) {
      const size = sizes[index] ?? null;
      if (reads.has(index) || size === null || size === 0) continue;
      const read = sync.blobs.readBytes(hashes[index] as string);
      // Rejections are seen when the frame is reached; not unhandled meanwhile.
      read.catch(() => undefined);
      reads.set(index, read);
    }
  };
  try {
    for (const [index, hash] of hashes.entries()) {
      readAhead(index);
      yield headers[index] as Buffer;
      const size = sizes[index] ?? null;
      if (size === null || size === 0) continue;
      const bytes = await (reads.get(index) as Promise<Buffer>);
      reads.delete(index);
      if (bytes.length !== size) throw new Error(`blob ${hash} changed size while it was sent`);
      yield bytes;
    }
  } finally {
    reads.clear();
  }
}

function registerBlobRoutes(app: FastifyInstance, sync: SyncService): void {
  // Bodies of any type arrive as the raw stream: never buffered, whatever their size.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    done(null, payload);
  });

  app.get(
    '/blobs/:hash',
    { config: blobConfig, schema: { params: SyncBlobParams } },
    async (request, reply) => {
      const { hash } = request.params as SyncBlobParams;
      const size = sync.blobs.sizeOf(hash);
      if (size === undefined) {
        throw new ApiHttpError('NOT_FOUND', `the companion holds no version ${hash}`, 'hash');
      }
      void reply
        .header('accept-ranges', 'bytes')
        .header('etag', `"${hash}"`)
        .header('cache-control', 'private, max-age=31536000, immutable')
        .type('application/octet-stream');
      const range = parseRange(request.headers.range, size);
      if (range === 'unsatisfiable') {
        void reply.header('content-range', `bytes */${size}`);
        throw new ApiHttpError(
          'RANGE_NOT_SATISFIABLE',
          `the range ${request.headers.range ?? ''} is outside the ${size} bytes of ${hash}`,
          'range',
          { 'content-range': `bytes */${size}` },
        );
      }
      if (range === null || size === 0) {
        void reply.header('content-length', size);
        return reply.send(sync.blobs.openRead(hash));
      }
      void reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
        .header('content-length', range.end - range.start + 1);
      return reply.send(sync.blobs.openRead(hash, range));
    },
  );

  app.put(
    '/blobs/:hash',
    {
      config: blobConfig,
      schema: {
        params: SyncBlobParams,
        response: { 200: SyncBlobPutResponse, 201: SyncBlobPutResponse, 202: SyncBlobPutResponse },
      },
    },
    async (request, reply) => {
      const { hash } = request.params as SyncBlobParams;
      const body = bodyStream(request);
      const header = request.headers['content-range'];
      try {
        if (header !== undefined) return await putPart(sync, hash, header, body, reply);
        if (sync.blobs.has(hash)) {
          for await (const chunk of body) void chunk;
          return reply
            .code(200)
            .send({ hash, received: sync.blobs.sizeOf(hash) ?? 0, complete: true });
        }
        const length = request.headers['content-length'];
        const declared = length === undefined ? undefined : Number(length);
        const stored = await sync.blobs.putStream(hash, body, declared);
        return reply
          .code(stored === 'created' ? 201 : 200)
          .send({ hash, received: sync.blobs.sizeOf(hash) ?? 0, complete: true });
      } catch (error) {
        if (!(error instanceof BlobError) && request.raw.destroyed) {
          // The client went away mid-upload: nothing was kept; no one is left to answer.
          throw new ApiHttpError('VALIDATION_ERROR', 'the upload was cut off', 'body');
        }
        throw blobHttpError(error);
      }
    },
  );
}

async function putPart(
  sync: SyncService,
  hash: string,
  header: string,
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const status = /^bytes \*\/(\d{1,15})$/.exec(header);
  if (status !== null) {
    // `bytes */TOTAL`: how much is held, to resume from there.
    for await (const chunk of body) void chunk;
    if (Number(status[1]) > sync.blobs.maxFileBytes) {
      throw new BlobError(
        'TOO_LARGE',
        `${status[1]} bytes is over the per-file limit of ${sync.blobs.maxFileBytes} bytes`,
      );
    }
    const complete = sync.blobs.has(hash);
    const received = await sync.blobs.received(hash);
    return reply.code(complete ? 200 : 202).send({ hash, received, complete });
  }
  const part = parseContentRange(header);
  if (part === null) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      `Content-Range "${header}" is not "bytes START-END/TOTAL" (or "bytes */TOTAL")`,
      'content-range',
    );
  }
  const result = await sync.blobs.putPart(hash, part, body);
  const code = !result.complete ? 202 : result.created ? 201 : 200;
  return reply.code(code).send({ hash, received: result.received, complete: result.complete });
}

function bodyStream(request: FastifyRequest): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  const body = request.body as AsyncIterable<Uint8Array> | undefined | null;
  if (body !== undefined && body !== null && Symbol.asyncIterator in Object(body)) return body;
  return [];
}

function blobHttpError(error: unknown): unknown {
  if (!(error instanceof BlobError)) return error;
  switch (error.code) {
    case 'HASH_MISMATCH':
      return new ApiHttpError('VALIDATION_ERROR', error.message, 'hash');
    case 'TOO_LARGE':
      return new ApiHttpError('PAYLOAD_TOO_LARGE', error.message, 'body');
    case 'BAD_RANGE':
      return new ApiHttpError('CONFLICT', error.message, 'content-range', {
        'upload-offset': String(error.received ?? 0),
      });
    case 'TRUNCATED':
      return new ApiHttpError('VALIDATION_ERROR', error.message, 'body');
  }
}

/** `bytes=START-END`, `bytes=START-`, `bytes=-SUFFIX` (one range); null = send it all. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null; // several ranges or another unit: the whole body (RFC 9110)
  const [, first, last] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}

/** `bytes START-END/TOTAL` of a resumable upload, or null when malformed. */
export function parseContentRange(header: string): UploadPart | null {
  const match = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15})$/.exec(header.trim());
  if (match === null) return null;
  const start = Number(match[1]);
  const end = Number(match[2]);
  const total = Number(match[3]);
  if (end < start || end >= total) return null;
  return { start, end, total };
}
