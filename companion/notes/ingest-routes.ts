import { randomBytes } from 'node:crypto';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiHttpError } from '../http/api-error';
import { receiveUpload, removeStaleUploads } from '../http/receive-upload';
import type { ReceivedUpload } from '../http/receive-upload';
import { answerOnce } from '../idempotency/idempotency-key';
import type { WriteMemory } from '../idempotency/write-memory';
import { removeVaultFile, VaultWriteError, writeVaultFileFrom } from '../vault/atomic-write';
import type { IndexAfterWrite } from '../search';
import { resolveVaultPath } from '../vault/paths';

/** companion/README.md: uploads up to 50 MB. */
export const INGEST_MAX_BYTES = 50 * 1024 * 1024;
/**
 * How long an upload's answer waits for its file to be read into the index: a PDF is parsed in
 * a child process (up to 60 s each, a few at a time), longer than a note's 2 s.
 */
const INDEX_WAIT_MS = 90_000;
/** Longest file name kept (before the extension); longer ones are cut. */
const MAX_NAME_LENGTH = 100;
const NAME_ATTEMPTS = 8;

const KINDS: Record<string, 'pdf' | 'markdown' | 'text'> = {
  '.pdf': 'pdf',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
};

export const IngestResponse = Type.Object({
  /** Vault-relative path the file was saved at. */
  path: Type.String(),
  kind: Type.Union([Type.Literal('pdf'), Type.Literal('markdown'), Type.Literal('text')]),
  bytes: Type.Integer({ minimum: 0 }),
  /** Whether the search index took it; `index_error` says why not (or what was partial). */
  indexed: Type.Boolean(),
  index_error: Type.Optional(Type.String()),
});

export interface IngestRouteDeps {
  readonly vault: string;
  /** Vault-relative attachments folder (settings). */
  readonly folder: string;
  /**
   * Absolute folder (in the companion's data folder) an upload is received into before it is
   * checked and copied into the vault: uploads are never held in memory.
   */
  readonly uploadFolder: string;
  readonly indexAfterWrite?: IndexAfterWrite;
  /** Idempotency-Key replays (companion/idempotency). */
  readonly memory: WriteMemory;
  /** Test seam: a smaller limit than 50 MB. */
  readonly maxBytes?: number;
}

/**
 * `POST /api/v1/ingest` (companion/README.md): one multipart file, a PDF, Markdown or plain text, saved
 * under a safe, unique name in the attachments folder (never over an existing file), then
 * indexed at once. What the file is, is checked from its bytes, not only its name: a PDF must
 * start with `%PDF-`, text must be UTF-8 without NUL bytes. Anything else is a 422 and nothing
 * is written; over the limit is a 413. The file is streamed to a temp file in
 * `uploadFolder` (the size cap enforced as it arrives), then copied into the vault; the temp
 * file is removed whatever the outcome.
 */
export async function registerIngestRoute(
  app: FastifyInstance,
  deps: IngestRouteDeps,
): Promise<void> {
  const maxBytes = deps.maxBytes ?? INGEST_MAX_BYTES;
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: maxBytes, files: 1, fields: 5, fieldSize: 1024, parts: 8 },
    });
    scope.post(
      '/api/v1/ingest',
      {
        config: { limited: 'ingest' },
        bodyLimit: maxBytes + 1024 * 1024,
        schema: { response: { 201: IngestResponse } },
      },
      async (request, reply) => {
        const upload = await receiveUpload(request, {
          folder: deps.uploadFolder,
          maxBytes,
          nothingDone: 'nothing was saved',
        });
        try {
          return await ingest(deps, upload, request, reply);
        } finally {
          await upload.remove();
        }
      },
    );
  });
  // Temp files of uploads a crash cut short.
  await removeStaleUploads(deps.uploadFolder);
}

async function ingest(
  deps: IngestRouteDeps,
  upload: ReceivedUpload,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const { stem, extension } = safeName(upload.filename);
  const kind = KINDS[extension];
  if (kind === undefined) {
    throw new ApiHttpError(
      'UNPROCESSABLE',
      `${JSON.stringify(upload.filename)}: only PDF (.pdf), Markdown (.md) and text (.txt) files can be ingested`,
      'file',
    );
  }
  const problem = contentProblem(kind, upload);
  if (problem) {
    throw new ApiHttpError(
      'UNPROCESSABLE',
      `${JSON.stringify(upload.filename)}: ${problem}`,
      'file',
    );
  }

  // A retry sends the same file under a new multipart boundary: the key's request is
  // the file's name and content.
  const content = { file: upload.filename, sha256: upload.sha256 };
  return answerOnce(deps.memory, request, reply, content, async () => {
    let path: string;
    try {
      path = await saveUnique(deps, stem, extension, upload.file);
    } finally {
      // Gone before the answer is sent (answerOnce sends it itself), not only after.
      await upload.remove();
    }
    const undo = async (): Promise<void> => {
      // Only while the file still holds exactly the upload: nothing written meanwhile is lost.
      const removed = await removeVaultFile(deps.vault, path, upload.sha256).then(
        () => true,
        () => false,
      );
      if (removed) await deps.indexAfterWrite?.(path).catch(() => undefined);
    };
    const outcome = deps.indexAfterWrite
      ? await deps.indexAfterWrite(path, { waitMs: INDEX_WAIT_MS })
      : { indexed: false, error: 'no index is running' };
    return {
      status: 201,
      body: {
        path,
        kind,
        bytes: upload.size,
        indexed: outcome.indexed,
        ...(outcome.error === undefined ? {} : { index_error: outcome.error }),
      },
      undo,
    };
  });
}

async function saveUnique(
  deps: IngestRouteDeps,
  stem: string,
  extension: string,
  source: string,
): Promise<string> {
  const folder = deps.folder.replace(/\/+$/, '');
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
    const suffix = attempt === 0 ? '' : `-${randomBytes(2).toString('hex')}`;
    const candidate = `${folder === '' ? '' : `${folder}/`}${stem}${suffix}${extension}`;
    const resolved = await resolveVaultPath(deps.vault, candidate, 'write');
    if (!resolved.ok) {
      if (/different letter case/.test(resolved.reason)) continue;
      const code = resolved.forbidden === true ? 'FORBIDDEN' : 'VALIDATION_ERROR';
      throw new ApiHttpError(code, resolved.reason, 'file');
    }
    if (resolved.exists) continue;
    try {
      return (await writeVaultFileFrom(deps.vault, candidate, source, null)).path;
    } catch (error) {
      if (error instanceof VaultWriteError && error.code === 'CONFLICT') continue;
      if (error instanceof VaultWriteError) {
        throw new ApiHttpError(error.code, error.message, 'file');
      }
      throw error;
    }
  }
  throw new ApiHttpError('CONFLICT', `no free file name for ${stem}${extension}`, 'file');
}

/**
 * A file name that is safe in every vault and sync target: no folders, no control characters,
 * none of `\ / : * ? " < > | # ^ [ ]` (Windows, Obsidian links), no leading dot, at most
 * MAX_NAME_LENGTH characters; `upload` when nothing is left.
 */
export function safeName(filename: string): { stem: string; extension: string } {
  const base = (filename.split(/[\\/]/).pop() ?? '').normalize('NFC');
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 ? base.slice(dot).toLowerCase() : '';
  const rawStem = dot > 0 ? base.slice(0, dot) : base;
  const stem = Array.from(
    rawStem
      // eslint-disable-next-line no-control-regex -- control characters are what is removed
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .replace(/[\\/:*?"<>|#^[\]]/g, '-')
      .replace(/\s+/g, ' ')
      .replace(/^[.\s-]+|[.\s]+$/g, ''),
  )
    .slice(0, MAX_NAME_LENGTH)
    .join('')
    .trim();
  return { stem: stem === '' ? 'upload' : stem, extension };
}

function contentProblem(
  kind: 'pdf' | 'markdown' | 'text',
  upload: ReceivedUpload,
): string | undefined {
  if (upload.size === 0) return 'the file is empty';
  if (kind === 'pdf') {
    return upload.head.includes('%PDF-') ? undefined : 'is not a PDF (no %PDF- header)';
  }
  if (upload.hasNul) return 'contains NUL bytes: not a text file';
  if (!upload.utf8) return 'is not UTF-8 text';
  return undefined;
}
