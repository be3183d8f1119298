import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiHttpError } from '../http/api-error';
import { digestOf } from './write-memory';
import type { WriteMemory } from './write-memory';

/** The request header a client sets to make a POST safe to retry (IETF draft "Idempotency-Key"). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long a key's response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const KEY_MAX_CHARS = 255;
/** Printable ASCII without spaces: UUIDs, ULIDs and the like. */
const KEY_SHAPE = /^[\x21-\x7e]+$/;

/** What a write route answers: its status and JSON body. */
export interface WriteAnswer {
  readonly status: number;
  readonly body: unknown;
  /**
   * Takes the write back (removes the file it created). Run when its answer cannot be
   * remembered (the database's disk is full): the error then says nothing was saved, and that
   * must be true, or a retry with the same key would write a second copy.
   */
  readonly undo?: () => Promise<void>;
}

/**
 * Runs a write route's `work` at most once per `Idempotency-Key` (24 h, surviving restarts):
 * - no header: `work` runs;
 * - a key seen with the same request (method, path, `requestFingerprint`): the stored answer is
 *   sent again, with `Idempotency-Replayed: true`, and nothing runs;
 * - a key seen with a different request: 422 naming the header, nothing runs;
 * - the same key while its first request still runs: the second waits for the first's answer.
 * Only successful (2xx) answers are kept: a failure wrote nothing, so a retry may run again.
 * `requestFingerprint` is the parsed JSON body for JSON routes; an upload passes what identifies
 * its content (multipart boundaries differ between retries).
 */
export async function answerOnce(
  memory: WriteMemory,
  request: FastifyRequest,
  reply: FastifyReply,
  requestFingerprint: unknown,
  work: () => Promise<WriteAnswer>,
): Promise<FastifyReply> {
  const header = request.headers[IDEMPOTENCY_HEADER];
  if (header === undefined) return send(reply, await work());
  const key = Array.isArray(header) ? header.join(',') : header;
  if (key.length === 0 || key.length > KEY_MAX_CHARS || !KEY_SHAPE.test(key)) {
    throw new ApiHttpError(
      'VALIDATION_ERROR',
      `Idempotency-Key: must be 1 to ${KEY_MAX_CHARS} printable characters without spaces`,
      'Idempotency-Key',
    );
  }
  const path = request.url.split('?')[0] ?? request.url;
  const requestHash = digestOf(request.method, path, requestFingerprint);
  const stored = `idem:${key}`;
  return memory.exclusive(stored, async () => {
    const earlier = memory.recall(stored);
    if (earlier !== undefined) {
      if (earlier.requestHash !== requestHash) {
        throw new ApiHttpError(
          'UNPROCESSABLE',
          'Idempotency-Key: this key was already used for a different request; use a new key for a new request',
          'Idempotency-Key',
        );
      }
      reply.header('idempotency-replayed', 'true');
      return send(reply, { status: earlier.status, body: JSON.parse(earlier.response) });
    }
    const answer = await work();
    if (answer.status >= 200 && answer.status < 300) {
      try {
        memory.remember(
          stored,
          { requestHash, status: answer.status, response: JSON.stringify(answer.body) },
          IDEMPOTENCY_TTL_MS,
        );
      } catch (error) {
        await answer.undo?.();
        throw error;
      }
    }
    return send(reply, answer);
  });
}

function send(reply: FastifyReply, answer: WriteAnswer): FastifyReply {
  return reply.code(answer.status).send(answer.body);
}
