import { createHash, randomBytes } from 'node:crypto';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiHttpError } from '../http/api-error';
import { answerOnce } from '../idempotency/idempotency-key';
import type { WriteMemory } from '../idempotency/write-memory';
import { createVaultFile, removeCreatedFile, VaultWriteError } from '../vault/atomic-write';
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
 * is written; over the limit is a 413.
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
        if (!request.isMultipart()) {
          throw new ApiHttpError(
            'VALIDATION_ERROR',
            'send the file as multipart/form-data (field "file")',
            'file',
          );
        }
        let part;
        let bytes: Buffer;
        const tooLarge = () =>
          new ApiHttpError(
            'PAYLOAD_TOO_LARGE',
            `the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB; nothing was saved`,
            'file',
          );
        try {
          part = await request.file();
          if (!part) throw new ApiHttpError('VALIDATION_ERROR', 'no file in the upload', 'file');
          bytes = await part.toBuffer();
          // toBuffer only looks at busboy's flag after each chunk it receives; when the limit
          // falls exactly at a chunk's end, busboy drops the next chunk and sets the flag with
          // no chunk left to look after, and toBuffer returns the cut file. Look once more.
          if (part.file.truncated || bytes.length > maxBytes) throw tooLarge();
        } catch (error) {
          if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
          if (error instanceof ApiHttpError) throw error;
          throw new ApiHttpError(
            'VALIDATION_ERROR',
            `the upload could not be read: ${(error as Error).message}`,
            'file',
          );
        }
        const { stem, extension } = safeName(part.filename);
        const kind = KINDS[extension];
        if (kind === undefined) {
          throw new ApiHttpError(
            'UNPROCESSABLE',
            `${JSON.stringify(part.filename)}: only PDF (.pdf), Markdown (.md) and text (.txt) files can be ingested`,
            'file',
          );
        }
        const problem = contentProblem(kind, bytes);
        if (problem) {
          throw new ApiHttpError(
            'UNPROCESSABLE',
            `${JSON.stringify(part.filename)}: ${problem}`,
            'file',
          );
        }

        // A retry sends the same file under a new multipart boundary: the key's request is
        // the file's name and content.
        const content = {
          file: part.filename,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        };
        return answerOnce(deps.memory, request, reply, content, async () => {
          const path = await saveUnique(deps, stem, extension, bytes);
          const undo = async (): Promise<void> => {
            if (await removeCreatedFile(deps.vault, path, bytes)) {
              await deps.indexAfterWrite?.(path).catch(() => undefined);
            }
          };
          const outcome = deps.indexAfterWrite
            ? await deps.indexAfterWrite(path, { waitMs: INDEX_WAIT_MS })
            : { indexed: false, error: 'no index is running' };
          return {
            status: 201,
            body: {
              path,
              kind,
              bytes: bytes.length,
              indexed: outcome.indexed,
              ...(outcome.error === undefined ? {} : { index_error: outcome.error }),
            },
            undo,
          };
        });
      },
    );
  });
}

async function saveUnique(
  deps: IngestRouteDeps,
  stem: string,
  extension: string,
  bytes: Buffer,
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
      return (await createVaultFile(deps.vault, candidate, bytes)).path;
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

function contentProblem(kind: 'pdf' | 'markdown' | 'text', bytes: Buffer): string | undefined {
  if (bytes.length === 0) return 'the file is empty';
  if (kind === 'pdf') {
    return bytes.subarray(0, 1024).includes('%PDF-') ? undefined : 'is not a PDF (no %PDF- header)';
  }
  if (bytes.includes(0)) return 'contains NUL bytes: not a text file';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'is not UTF-8 text';
  }
  return undefined;
}
