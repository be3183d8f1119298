import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { ApiHttpError } from './api-error';

/**
 * One multipart file, received into a temp file in the companion's data folder instead of
 * memory (issue #25: twelve 45 MB uploads held in buffers took the companion past 1 GB). The
 * size cap is enforced while the bytes arrive; the temp file is removed on every failure and
 * by `remove()` once the caller is done with it.
 */
export interface ReceivedUpload {
  /** The name the client gave the file (unchecked: the caller makes it safe). */
  readonly filename: string;
  /** Absolute path of the temp file holding the bytes. */
  readonly file: string;
  readonly size: number;
  /** SHA-256 hex of the bytes. */
  readonly sha256: string;
  /** The first HEAD_BYTES bytes (what a file type is recognised by). */
  readonly head: Buffer;
  /** Whether a NUL byte occurs anywhere. */
  readonly hasNul: boolean;
  /** Whether the whole file is valid UTF-8. */
  readonly utf8: boolean;
  /** Removes the temp file; safe to call more than once. */
  remove(): Promise<void>;
}

export interface ReceiveUploadOptions {
  /** Absolute folder the temp file goes into (created when missing). */
  readonly folder: string;
  /** Largest file accepted, in bytes; past it a 413 PAYLOAD_TOO_LARGE. */
  readonly maxBytes: number;
  /** Ends the 413's message: what did not happen ("nothing was saved"). */
  readonly nothingDone: string;
}

export const HEAD_BYTES = 1024;
/** Temp files of uploads a crash interrupted are removed once this old. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;
const TEMP_SUFFIX = '.upload';

/**
 * Streams the request's one file (field "file") to a temp file under `options.folder`. Throws
 * ApiHttpError: 400 when the request is not a multipart upload or has no file, 413 naming the
 * limit when the file is larger. A disk error (ENOSPC, EROFS) is thrown as it is, for the
 * error handler to answer 507 naming the data folder.
 */
export async function receiveUpload(
  request: FastifyRequest,
  options: ReceiveUploadOptions,
): Promise<ReceivedUpload> {
  if (!request.isMultipart()) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      'send the file as multipart/form-data (field "file")',
      'file',
    );
  }
  const tooLarge = () => new ApiHttpError('PAYLOAD_TOO_LARGE', tooLargeMessage(options), 'file');
  let part;
  try {
    part = await request.file();
  } catch (error) {
    throw readError(error, tooLarge);
  }
  if (!part) throw new ApiHttpError('VALIDATION_ERROR', 'no file in the upload', 'file');

  await mkdir(options.folder, { recursive: true, mode: 0o700 });
  const file = join(options.folder, `${randomBytes(12).toString('hex')}${TEMP_SUFFIX}`);
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const headChunks: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  let hasNul = false;
  let utf8 = true;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      // Busboy stops at the limit; this is the cap should a chunk ever pass it.
      if (size > options.maxBytes) {
        done(tooLarge());
        return;
      }
      hash.update(chunk);
      if (headLength < HEAD_BYTES) {
        headChunks.push(chunk.subarray(0, HEAD_BYTES - headLength));
        headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
      }
      if (!hasNul && chunk.includes(0)) hasNul = true;
      if (utf8) {
        try {
          decoder.decode(chunk, { stream: true });
        } catch {
          utf8 = false;
        }
      }
      done(null, chunk);
    },
  });
  const remove = () => unlink(file).catch(() => undefined);
  try {
    await pipeline(part.file, meter, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    // Busboy sets the flag at the limit and ends the stream: a file cut there is too large,
    // also when the limit fell exactly at a chunk's end.
    if (part.file.truncated) throw tooLarge();
  } catch (error) {
    await remove();
    throw readError(error, tooLarge);
  }
  if (utf8) {
    try {
      decoder.decode();
    } catch {
      utf8 = false;
    }
  }
  return {
    filename: part.filename,
    file,
    size,
    sha256: hash.digest('hex'),
    head: Buffer.concat(headChunks),
    hasNul,
    utf8,
    remove,
  };
}

function tooLargeMessage(options: ReceiveUploadOptions): string {
  const megabytes = options.maxBytes / 1024 / 1024;
  const limit =
    megabytes >= 1
      ? `${Number.isInteger(megabytes) ? megabytes : megabytes.toFixed(1)} MB`
      : `${options.maxBytes} bytes`;
  return `the file is larger than ${limit}; ${options.nothingDone}`;
}

function readError(error: unknown, tooLarge: () => ApiHttpError): unknown {
  if (error instanceof ApiHttpError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  // A full or read-only data folder: the error handler says which place and answers 507.
  if (code !== undefined && /^E[A-Z]+$/.test(code) && (error as { syscall?: string }).syscall) {
    return error;
  }
  return new ApiHttpError(
    'VALIDATION_ERROR',
    `the upload could not be read: ${(error as Error).message}`,
    'file',
  );
}

/**
 * Removes temp files of uploads that a crash interrupted (older than an hour, so an upload
 * arriving meanwhile keeps its own). Best effort: a folder that cannot be read is left alone.
 */
export async function removeStaleUploads(folder: string, now = Date.now()): Promise<number> {
  let removed = 0;
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.endsWith(TEMP_SUFFIX)) continue;
    const path = join(folder, name);
    const info = await stat(path).catch(() => null);
    if (info === null || now - info.mtimeMs < STALE_UPLOAD_MS) continue;
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed++;
  }
  return removed;
}
