import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import type { ReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, truncate, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/ports';
import type { SqliteDatabase } from '../db/open';
import { PreparedStatements } from '../db/statements';
import { hashFile } from '../vault/atomic-write';

/*
 * The content-addressed store of every version (DESIGN §9): `<data>/sync-blobs/ab/abcdef…`, the
 * file named by the SHA-256 of its bytes, two hex characters of fan-out so no folder grows
 * huge. Bytes arrive streamed into `tmp/`, are hashed on the way, synced, and renamed into
 * place only when they hash to their name: a blob file is always whole and right. Resumable
 * uploads (`Content-Range`) grow `partial/<hash>` until the last byte, then go the same way.
 */

export type BlobErrorCode = 'HASH_MISMATCH' | 'TOO_LARGE' | 'BAD_RANGE' | 'TRUNCATED';

/** Why bytes were not stored; `code` is mapped to the HTTP answer by the routes. */
export class BlobError extends Error {
  override name = 'BlobError';
  constructor(
    readonly code: BlobErrorCode,
    message: string,
    /** For BAD_RANGE: how many bytes of the upload are held (resume from there). */
    readonly received?: number,
  ) {
    super(message);
  }
}

/** `Content-Range: bytes start-end/total` of one part of a resumable upload (end inclusive). */
export interface UploadPart {
  readonly start: number;
  readonly end: number;
  readonly total: number;
}

export interface BlobStoreOptions {
  /** `<data>/sync-blobs`. */
  readonly root: string;
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly maxFileBytes: number;
}

export class BlobStore {
  readonly root: string;
  readonly maxFileBytes: number;
  private readonly statements: PreparedStatements;
  private readonly clock: Clock;

  constructor(options: BlobStoreOptions) {
    this.root = options.root;
    this.statements = new PreparedStatements(options.db);
    this.clock = options.clock;
    this.maxFileBytes = options.maxFileBytes;
    // Uploads cut off by a stop or crash; `partial/` is kept (those resume).
    rmSync(join(this.root, 'tmp'), { recursive: true, force: true });
    mkdirSync(join(this.root, 'tmp'), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.root, 'partial'), { recursive: true, mode: 0o700 });
  }

  /** Where the bytes of `hash` live (whether or not they are there). */
  pathOf(hash: string): string {
    return join(this.root, hash.slice(0, 2), hash);
  }

  has(hash: string): boolean {
    return existsSync(this.pathOf(hash));
  }

  /** Size in bytes, or undefined when not held. */
  sizeOf(hash: string): number | undefined {
    try {
      return statSync(this.pathOf(hash)).size;
    } catch {
      return undefined;
    }
  }

  /** The bytes, or a part of them (`end` inclusive). */
  openRead(hash: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.pathOf(hash), range ?? {});
  }

  /** Whole small blobs (text to merge). */
  async readBytes(hash: string): Promise<Buffer> {
    return readFile(this.pathOf(hash));
  }

  /**
   * Stores a whole upload. `declared` is its Content-Length when known: fewer bytes than that is
   * a truncated upload (nothing kept). Returns whether the blob is new.
   */
  async putStream(
    hash: string,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    declared?: number,
  ): Promise<'created' | 'existing'> {
    if (declared !== undefined && declared > this.maxFileBytes) throw this.tooLarge(declared);
    const temp = this.tempPath();
    const digest = createHash('sha256');
    let size = 0;
    const handle = await open(temp, 'wx', 0o600);
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > this.maxFileBytes) throw this.tooLarge(size);
        digest.update(chunk);
        await handle.write(chunk);
      }
      if (declared !== undefined && size !== declared) {
        throw new BlobError('TRUNCATED', `the upload ended after ${size} of ${declared} bytes`);
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    const actual = digest.digest('hex');
    if (actual !== hash) {
      await unlink(temp).catch(() => undefined);
      throw new BlobError('HASH_MISMATCH', `the bytes hash to ${actual}, not to ${hash}`);
    }
    return this.settle(temp, hash, size);
  }

  /** Stores bytes the companion made itself (a merge, a conflict copy). */
  async putBytes(bytes: Uint8Array): Promise<{ hash: string; size: number }> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (!this.has(hash)) await this.putStream(hash, [bytes], bytes.length);
    else this.remember(hash, bytes.length);
    return { hash, size: bytes.length };
  }

  /**
   * Copies a file (a vault file the companion saw change) into the store while hashing it.
   * Returns its hash and size; the copy is what was read, even if the file changes meanwhile.
   */
  async importFile(absolute: string): Promise<{ hash: string; size: number }> {
    const source = await open(absolute, 'r');
    const temp = this.tempPath();
    const digest = createHash('sha256');
    let size = 0;
    const target = await open(temp, 'wx', 0o600);
    try {
      for await (const chunk of source.createReadStream({ autoClose: false })) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        digest.update(bytes);
        await target.write(bytes);
      }
      await target.sync();
    } catch (error) {
      await target.close();
      await unlink(temp).catch(() => undefined);
      throw error;
    } finally {
      await source.close();
    }
    await target.close();
    const hash = digest.digest('hex');
    await this.settle(temp, hash, size);
    return { hash, size };
  }

  /** Bytes of a resumable upload held so far (0 when none). */
  async received(hash: string): Promise<number> {
    if (this.has(hash)) return this.sizeOf(hash) ?? 0;
    try {
      return (await stat(this.partialPath(hash))).size;
    } catch {
      return 0;
    }
  }

  /**
   * Stores one part of a resumable upload. It must start where the held part ends (else
   * BAD_RANGE, with `received`); a part cut short leaves what came before it. The last part
   * completes the blob: its bytes are checked against `hash` (a mismatch discards the upload).
   */
  async putPart(
    hash: string,
    part: UploadPart,
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  ): Promise<{ received: number; complete: boolean; created: boolean }> {
    if (part.total > this.maxFileBytes) throw this.tooLarge(part.total);
    if (this.has(hash)) {
      for await (const chunk of body) void chunk; // drain
      return { received: this.sizeOf(hash) ?? part.total, complete: true, created: false };
    }
    const partial = this.partialPath(hash);
    const held = await this.received(hash);
    if (part.start !== held) {
      throw new BlobError(
        'BAD_RANGE',
        `this part starts at byte ${part.start}, but ${held} bytes are held: send from ${held}`,
        held,
      );
    }
    const expected = part.end - part.start + 1;
    const handle = await open(partial, held === 0 ? 'w' : 'r+', 0o600);
    let written = 0;
    try {
      for await (const chunk of body) {
        if (written + chunk.length > expected) {
          throw new BlobError('BAD_RANGE', `the part is longer than its Content-Range`, held);
        }
        await handle.write(chunk, 0, chunk.length, part.start + written);
        written += chunk.length;
      }
      if (written !== expected) {
        throw new BlobError(
          'TRUNCATED',
          `the part ended after ${written} of ${expected} bytes`,
          held,
        );
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      // Whole parts only: what this part wrote is cut off again, so `received` stays exact.
      await truncate(partial, held).catch(() => undefined);
      throw error;
    }
    await handle.close();
    const received = part.start + written;
    if (received < part.total) return { received, complete: false, created: false };
    const actual = await hashFile(partial);
    if (actual.hash !== hash) {
      await unlink(partial).catch(() => undefined);
      throw new BlobError('HASH_MISMATCH', `the bytes hash to ${actual.hash}, not to ${hash}`);
    }
    const moved = this.tempPath();
    await rename(partial, moved);
    const result = await this.settle(moved, hash, received);
    return { received, complete: true, created: result === 'created' };
  }

  /** Deletes a version's bytes (history pruning). */
  async remove(hash: string): Promise<void> {
    await rm(this.pathOf(hash), { force: true });
    this.statements.prepare('DELETE FROM sync_blobs WHERE hash = ?').run(hash);
  }

  private async settle(temp: string, hash: string, size: number): Promise<'created' | 'existing'> {
    if (this.has(hash)) {
      await unlink(temp).catch(() => undefined);
      this.remember(hash, size);
      return 'existing';
    }
    await mkdir(join(this.root, hash.slice(0, 2)), { recursive: true, mode: 0o700 });
    await rename(temp, this.pathOf(hash));
    this.remember(hash, size);
    return 'created';
  }

  private remember(hash: string, size: number): void {
    this.statements
      .prepare('INSERT OR IGNORE INTO sync_blobs (hash, size, stored_at) VALUES (?, ?, ?)')
      .run(hash, size, this.clock.now());
  }

  private tooLarge(size: number): BlobError {
    return new BlobError(
      'TOO_LARGE',
      `${size} bytes is over the per-file limit of ${this.maxFileBytes} bytes`,
    );
  }

  private tempPath(): string {
    return join(this.root, 'tmp', randomBytes(8).toString('hex'));
  }

  private partialPath(hash: string): string {
    return join(this.root, 'partial', hash);
  }
}
