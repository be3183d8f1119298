import { request } from 'node:https';
import type { Agent } from 'node:https';
import type { IncomingHttpHeaders, RequestOptions } from 'node:http';
import type { LookupFunction } from './private-address-lookup';

type LookupFunctionForHttp = NonNullable<RequestOptions['lookup']>;

/*
 * The HTTP leg of a push: POST the encrypted message that web-push prepared
 * (`generateRequestDetails`) and read the push service's answer. Done here rather than with
 * `webPush.sendNotification` because that offers only a socket idle timeout and no way to cancel:
 * a service that trickles its answer one byte at a time would hold the socket for ever. Here a
 * request that is idle for `idleTimeoutMs`, or not finished after `deadlineMs`, is destroyed,
 * and an answer body is read up to `MAX_ANSWER_BYTES` (it is only ever quoted in a reason).
 */

/** Push services answer with an empty body or a short JSON reason. */
export const MAX_ANSWER_BYTES = 16 * 1024;

export interface PushRequest {
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string | number>>;
  readonly body: Buffer | null;
}

export interface PushAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** At most MAX_ANSWER_BYTES, as UTF-8. */
  readonly body: string;
}

export interface PostOptions {
  /** Absent: Node's global agent, trusting Node's CA store plus NODE_EXTRA_CA_CERTS. */
  readonly agent?: Agent;
  readonly idleTimeoutMs: number;
  readonly deadlineMs: number;
  /** Name resolution for the connection (see private-address-lookup.ts); absent, the system's. */
  readonly lookup?: LookupFunction;
}

/** Resolves with any HTTP answer; rejects on network errors, TLS errors and timeouts. */
export function postPushMessage(message: PushRequest, options: PostOptions): Promise<PushAnswer> {
  return new Promise<PushAnswer>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };
    const outgoing = request(
      new URL(message.endpoint),
      {
        method: 'POST',
        headers: { ...message.headers },
        timeout: options.idleTimeoutMs,
        ...(options.agent ? { agent: options.agent } : {}),
        ...(options.lookup ? { lookup: options.lookup as unknown as LookupFunctionForHttp } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (): void =>
          finish(() =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        response.on('data', (chunk: Buffer) => {
          const room = MAX_ANSWER_BYTES - size;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            // Enough read to explain the answer; the rest is not worth the wait.
            done();
            outgoing.destroy();
          }
        });
        response.on('end', done);
        response.on('error', (error) => finish(() => reject(error)));
        response.on('aborted', () =>
          finish(() => reject(new Error('the push service closed the connection mid-answer'))),
        );
      },
    );
    const deadline = setTimeout(() => {
      finish(() => reject(new Error(`no complete answer within ${options.deadlineMs} ms`)));
      outgoing.destroy();
    }, options.deadlineMs);
    // A send in flight must not hold a stopping companion open; the socket has its own timeout.
    deadline.unref();
    outgoing.on('timeout', () => {
      finish(() => reject(new Error(`no answer for ${options.idleTimeoutMs} ms`)));
      outgoing.destroy();
    });
    outgoing.on('error', (error) => finish(() => reject(error)));
    outgoing.end(message.body ?? undefined);
  });
}
