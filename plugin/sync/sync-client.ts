/**
 * The device side of the sync protocol (DESIGN §9, docs/sync.md): the five calls the engine makes
 * under `/api/v1/sync`, over the plugin's one HTTP seam (HttpTransport: `requestUrl` in
 * Obsidian). Every answer is checked against the shared protocol schemas; every failure is a
 * SyncRequestError with a code the engine acts on (never its message).
 */
import type { TSchema, Static } from '@sinclair/typebox';
import {
  SyncBlobPutResponse,
  SyncChangesResponse,
  SyncCommitResponse,
} from '../../shared/protocol/sync';
import type { SyncOp } from '../../shared/protocol/sync';
import { parseBlobBatch } from '../../shared/protocol/sync-blob-batch';
import { checkSchema } from '../../shared/protocol/validate';
import { errorBodyMessage, isRecord, parseJsonOrUndefined } from '../../shared/protocol/json';
import type { CompanionEndpoint } from '../connection/client';
import type { HttpRequest, HttpResponse, HttpTransport } from '../connection/http-transport';
import { checkHttpUrl, offlineModeViolation } from '../../shared/settings/validation';
import { sha256Hex } from './sync-hash';

export type SyncRequestErrorCode =
  /** No companion URL, an invalid one, or offline mode forbids it: nothing was sent. */
  | 'NOT_CONFIGURED'
  /** No answer arrived (refused, timed out, dropped): the request may or may not have run. */
  | 'UNREACHABLE'
  /** 401/403: the token is missing, wrong, or lacks the `sync` scope. */
  | 'UNAUTHORIZED'
  /** Another status than the call's success; `status` and `apiCode` say which. */
  | 'HTTP_ERROR'
  /**
   * 429: the companion's rate limit for this token or address (companion/http/rate-limits.ts).
   * Nothing of the request was done; `retryAfterMs` says when to send again.
   */
  | 'RATE_LIMITED'
  /** A 2xx answer that is not what the protocol says, or a blob whose bytes do not match. */
  | 'BAD_ANSWER';

export class SyncRequestError extends Error {
  constructor(
    readonly code: SyncRequestErrorCode,
    message: string,
    readonly status?: number,
    /** The companion's `error.code`, when it sent one. */
    readonly apiCode?: string,
    /** How long the companion asked to wait (its `Retry-After`), when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SyncRequestError';
  }
}

/** What the engine needs from the companion: one method per protocol call. */
export interface SyncApi {
  /** `settings`: list `.obsidian/` settings files too (`settings=1`); left out otherwise. */
  changes(
    since: number,
    options?: { limit?: number; wait?: number; settings?: boolean },
  ): Promise<SyncChangesResponse>;
  /** The bytes of a version, checked against `hash`. */
  getBlob(hash: string): Promise<Uint8Array>;
  /**
   * The bytes of several versions in one request (`POST blobs/batch`: at most
   * SYNC_BLOB_BATCH_MAX_HASHES hashes and SYNC_BLOB_BATCH_MAX_BYTES bytes together), each
   * checked against its hash. A version the companion does not hold is left out of the map; so
   * is every one when the companion has no batch route (an older one): fetch those one by one.
   */
  getBlobs(hashes: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Uploads a version's bytes (idempotent: a blob already held is fine). */
  putBlob(hash: string, bytes: Uint8Array): Promise<void>;
  /**
   * `commitId` is reused when the same batch is retried. `replayOnly`: only its stored answer
   * (a batch never applied is withdrawn: `COMMIT_WITHDRAWN`, docs/sync.md).
   */
  commit(
    ops: readonly SyncOp[],
    commitId: string,
    options?: { readonly replayOnly?: boolean },
  ): Promise<SyncCommitResponse>;
  confirm(hold: string): Promise<SyncCommitResponse>;
}

export class CompanionSyncClient implements SyncApi {
  /** The companion answered `POST blobs/batch` with 404 (it predates the route): not asked again. */
  private batchUnsupported = false;

  constructor(
    private readonly transport: HttpTransport,
    private readonly endpoint: () => CompanionEndpoint,
    private readonly device: () => string,
  ) {}

  async changes(
    since: number,
    options: { limit?: number; wait?: number; settings?: boolean } = {},
  ): Promise<SyncChangesResponse> {
    const query = new URLSearchParams({ since: String(since), device: this.device() });
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.wait !== undefined) query.set('wait', String(options.wait));
    if (options.settings === true) query.set('settings', '1');
    const response = await this.send({ method: 'GET', path: `/changes?${query.toString()}` });
    return this.expect(response, [200], SyncChangesResponse, 'GET changes');
  }

  async getBlob(hash: string): Promise<Uint8Array> {
    const response = await this.send({
      method: 'GET',
      path: `/blobs/${hash}`,
      responseType: 'bytes',
    });
    if (response.status !== 200) throw this.failure(response, `GET blobs/${hash.slice(0, 12)}`);
    if (response.bytes === undefined) {
      throw new SyncRequestError('BAD_ANSWER', 'the transport returned no bytes for a blob');
    }
    const bytes = new Uint8Array(response.bytes);
    // A proxy or a cut connection must never put wrong bytes into a note.
    if ((await sha256Hex(bytes)) !== hash) {
      throw new SyncRequestError(
        'BAD_ANSWER',
        `GET blobs/${hash.slice(0, 12)}: the bytes received do not hash to the name asked for`,
      );
    }
    return bytes;
  }

  async getBlobs(hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const blobs = new Map<string, Uint8Array>();
    if (hashes.length === 0 || this.batchUnsupported) return blobs;
    const what = `POST blobs/batch (${hashes.length} hashes)`;
    const response = await this.send({
      method: 'POST',
      path: '/blobs/batch',
      body: JSON.stringify({ hashes }),
      responseType: 'bytes',
    });
    if (response.status === 404) {
      this.batchUnsupported = true;
      return blobs;
    }
    if (response.status !== 200) throw this.failure(response, what);
    if (response.bytes === undefined) {
      throw new SyncRequestError('BAD_ANSWER', 'the transport returned no bytes for a blob batch');
    }
    const parsed = parseBlobBatch(new Uint8Array(response.bytes), hashes);
    if (!parsed.ok) {
      throw new SyncRequestError(
        'BAD_ANSWER',
        `${what}: the answer is not framed as asked: ${parsed.message}`,
      );
    }
    for (const [hash, bytes] of parsed.blobs) {
      if (bytes === null) continue;
      // As for one blob: a proxy or a cut connection must never put wrong bytes into a note.
      if ((await sha256Hex(bytes)) !== hash) {
        throw new SyncRequestError(
          'BAD_ANSWER',
          `${what}: the bytes received for ${hash.slice(0, 12)} do not hash to it`,
        );
      }
      blobs.set(hash, bytes);
    }
    return blobs;
  }

  async putBlob(hash: string, bytes: Uint8Array): Promise<void> {
    const body =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? (bytes.buffer as ArrayBuffer)
        : bytes.slice().buffer;
    const response = await this.send({ method: 'PUT', path: `/blobs/${hash}`, body });
    this.expect(response, [200, 201], SyncBlobPutResponse, `PUT blobs/${hash.slice(0, 12)}`);
  }

  async commit(
    ops: readonly SyncOp[],
    commitId: string,
    options: { readonly replayOnly?: boolean } = {},
  ): Promise<SyncCommitResponse> {
    const response = await this.send({
      method: 'POST',
      path: '/commit',
      body: JSON.stringify({
        device: this.device(),
        ops,
        commit_id: commitId,
        ...(options.replayOnly === true ? { replay_only: true } : {}),
      }),
    });
    const answer = this.expect(response, [200], SyncCommitResponse, 'POST commit');
    if (answer.results.length !== ops.length) {
      throw new SyncRequestError(
        'BAD_ANSWER',
        `POST commit: ${answer.results.length} results for ${ops.length} ops`,
      );
    }
    return answer;
  }

  async confirm(hold: string): Promise<SyncCommitResponse> {
    const response = await this.send({
      method: 'POST',
      path: '/confirm',
      body: JSON.stringify({ device: this.device(), hold }),
    });
    return this.expect(response, [200], SyncCommitResponse, 'POST confirm');
  }

  protected async send(
    request: Omit<HttpRequest, 'url' | 'headers'> & { path: string },
  ): Promise<HttpResponse> {
    const { url, token, offlineMode } = this.endpoint();
    const checked = checkHttpUrl(url);
    if (url.trim() === '' || !checked.ok) {
      throw new SyncRequestError('NOT_CONFIGURED', 'no valid companion URL is set');
    }
    const blocked = offlineModeViolation(checked.url, offlineMode);
    if (blocked) throw new SyncRequestError('NOT_CONFIGURED', blocked);
    const { path, ...rest } = request;
    try {
      return await this.transport.request({
        ...rest,
        url: `${checked.url.replace(/\/+$/, '')}/api/v1/sync${path}`,
        headers: { Authorization: `Bearer ${token.trim()}` },
      });
    } catch (error) {
      throw new SyncRequestError(
        'UNREACHABLE',
        `${checked.url} is unreachable (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  protected expect<T extends TSchema>(
    response: HttpResponse,
    statuses: readonly number[],
    schema: T,
    what: string,
  ): Static<T> {
    if (!statuses.includes(response.status)) throw this.failure(response, what);
    const checked = checkSchema(schema, parseJsonOrUndefined(response.text));
    if (!checked.ok) {
      const field = checked.violation.field === '' ? '' : ` (${checked.violation.field})`;
      throw new SyncRequestError(
        'BAD_ANSWER',
        `${what}: the answer does not follow the protocol${field}: ${checked.violation.message}`,
      );
    }
    return checked.value;
  }

  protected failure(response: HttpResponse, what: string): SyncRequestError {
    const body = parseJsonOrUndefined(response.text);
    const message = errorBodyMessage(body);
    const apiCode =
      isRecord(body) && isRecord(body.error) && typeof body.error.code === 'string'
        ? body.error.code
        : undefined;
    const code =
      response.status === 401 || response.status === 403
        ? 'UNAUTHORIZED'
        : response.status === 429
          ? 'RATE_LIMITED'
          : 'HTTP_ERROR';
    return new SyncRequestError(
      code,
      `${what} answered ${response.status}${message === undefined ? '' : `: ${message}`}`,
      response.status,
      apiCode,
      retryAfterMs(response.headers?.['retry-after']),
    );
  }
}

/** `Retry-After` in seconds (the companion's form) as ms; an HTTP date or junk is no answer. */
function retryAfterMs(header: string | undefined): number | undefined {
  if (header === undefined || !/^\s*\d{1,6}\s*$/.test(header)) return undefined;
  return Number(header) * 1000;
}
