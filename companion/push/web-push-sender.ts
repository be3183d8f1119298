import type { Agent } from 'node:https';
import { Value } from '@sinclair/typebox/value';
import webPush from 'web-push';
import type { Clock } from '../../shared/ports';
import { PushPayload } from '../../shared/protocol/push';
import type { Logger } from '../logging';
import type { Counter, MetricsRegistry } from '../metrics/registry';
import { parseRetryAfterMs } from './retry-after';
import { ConcurrencyLimit } from './concurrency-limit';
import type { DeliveryOutcome, ReminderDeliverer, ReminderDelivery } from './delivery-port';
import { endpointHost, endpointProblem } from './endpoint-policy';
import { p256dhProblem } from './key-check';
import { PrivateAddressError, privateAddressGuard } from './private-address-lookup';
import type { LookupFunction } from './private-address-lookup';
import { postPushMessage } from './push-request';
import type { PushAnswer, PushRequest } from './push-request';
import type { PushSubscriptionStore, StoredSubscription } from './subscription-store';
import { pushTopic } from './topic';
import type { VapidKeys } from './vapid-keys';

/*
 * Sends one push message per `deliver` call: web-push 3.6.7 encrypts it (aes128gcm) and signs the
 * VAPID token, push-request.ts posts it with a timeout that can cancel, and the push service's
 * answer maps to an outcome (RFC 8030 §5–6; companion/reminders/delivery.md):
 *
 *   2xx → sent · 404/410 → the subscription is deleted, gone · 429, 5xx, timeout, network
 *   error → retry (with the service's Retry-After, when it sent one) · other 4xx → failed.
 *
 * It implements the scheduler's delivery port directly: one attempt per call, a fact per answer.
 * When to try again, and when to give up, is the scheduler's retry policy.
 *
 * Logs and stored failure reasons carry the subscription id and the endpoint's host, never the
 * endpoint path (which is the device's address) or keys.
 */

/** RFC 8291 §4: a 4096-byte record minus header (86), delimiter (1) and tag (16). */
export const MAX_PAYLOAD_BYTES = 3993;
/** A push service that has not answered by now is treated as down for this attempt. */
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;
/** Simultaneous requests to push services. */
export const DEFAULT_MAX_CONCURRENT_SENDS = 8;
/** RFC 8030 §5.2: TTL is a delta-seconds; larger values are treated as this. */
const MAX_TTL_SECONDS = 2 ** 31 - 1;
/** Push-service answers quoted in a failure reason are cut to this. */
const MAX_QUOTED_BODY = 200;

export interface WebPushSenderOptions {
  readonly store: PushSubscriptionStore;
  readonly keys: VapidKeys;
  readonly clock: Clock;
  /** `CAIRN_PUSH_HOSTS`, re-checked at send time in case it changed since the subscribe. */
  readonly pushHosts: readonly string[];
  readonly logger?: Logger;
  /** Adds `cairn_push_deliveries_total{outcome}`. */
  readonly metrics?: MetricsRegistry;
  /**
   * Outgoing TLS. Absent, Node's global agent is used: Node's CA store (Mozilla's list, which
   * every public push service is under; `--use-openssl-ca` swaps in the OS store) plus the
   * certificates in `NODE_EXTRA_CA_CERTS`. Tests pass one trusting their local push service.
   */
  readonly agent?: Agent;
  readonly timeoutMs?: number;
  readonly maxConcurrent?: number;
  /** Name resolution under the private-address guard; tests fake it. Default: the system's. */
  readonly lookup?: LookupFunction;
}

type Outcome = DeliveryOutcome['kind'];

export class WebPushSender implements ReminderDeliverer {
  private readonly limit: ConcurrencyLimit;
  private readonly timeoutMs: number;
  private readonly deliveries: Counter | undefined;
  private readonly lookup: LookupFunction | undefined;

  constructor(private readonly options: WebPushSenderOptions) {
    this.limit = new ConcurrencyLimit(options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_SENDS);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
    // Without an allowlist any public host may be a push service, so every connection checks
    // the addresses it resolves to. With one, the operator has named the hosts to trust.
    this.lookup =
      options.pushHosts.length === 0 ? privateAddressGuard(options.lookup) : options.lookup;
    this.deliveries = options.metrics?.counter(
      'cairn_push_deliveries_total',
      'Push message attempts by outcome (sent, gone, retry, failed).',
      ['outcome'],
    );
  }

  subscriptions(): ReadonlyArray<{ readonly id: string }> {
    return this.options.store.list().map(({ id }) => ({ id }));
  }

  async deliver(delivery: ReminderDelivery): Promise<DeliveryOutcome> {
    const subscription = this.options.store.get(delivery.subscriptionId);
    if (!subscription) return this.count({ kind: 'gone' });
    const problem = this.deliveryProblem(delivery, subscription);
    if (problem) return this.settle(subscription, delivery, { kind: 'failed', reason: problem });
    const outcome = await this.limit.run(() => this.send(subscription, delivery));
    return this.settle(subscription, delivery, outcome);
  }

  /** Input that can never be sent, checked before anything goes on the wire. */
  private deliveryProblem(
    delivery: ReminderDelivery,
    subscription: StoredSubscription,
  ): string | null {
    const host = endpointProblem(subscription.endpoint, this.options.pushHosts);
    if (host) return `endpoint ${host}`;
    // Checked on subscribe; checked again because a stored row that cannot be encrypted to would
    // otherwise look like a network error and be retried to no end.
    const key = p256dhProblem(subscription.p256dh);
    if (key) return `stored keys.p256dh ${key}`;
    if (Buffer.from(subscription.auth, 'base64url').length !== 16) {
      return 'stored keys.auth is not 16 bytes';
    }
    if (!Value.Check(PushPayload, delivery.payload)) {
      const first = Value.Errors(PushPayload, delivery.payload).First();
      return `payload${first ? ` ${first.path || '/'}: ${first.message}` : ' is not a push payload'}`;
    }
    const size = Buffer.byteLength(JSON.stringify(delivery.payload), 'utf8');
    if (size > MAX_PAYLOAD_BYTES) {
      return `payload is ${size} bytes; a push message holds at most ${MAX_PAYLOAD_BYTES}`;
    }
    if (!Number.isInteger(delivery.ttlSeconds) || delivery.ttlSeconds < 0) {
      return `ttlSeconds must be a whole number ≥ 0 (got ${delivery.ttlSeconds})`;
    }
    return null;
  }

  private async send(
    subscription: StoredSubscription,
    delivery: ReminderDelivery,
  ): Promise<DeliveryOutcome> {
    const { keys } = this.options;
    let message: PushRequest;
    try {
      // Encrypts (aes128gcm) and signs the VAPID token; throws only for input it cannot use.
      message = webPush.generateRequestDetails(
        {
          endpoint: subscription.endpoint,
          keys: { p256dh: subscription.p256dh, auth: subscription.auth },
        },
        JSON.stringify(delivery.payload),
        {
          TTL: Math.min(delivery.ttlSeconds, MAX_TTL_SECONDS),
          urgency: 'high',
          topic: pushTopic(delivery.topic),
          vapidDetails: {
            subject: keys.subject,
            publicKey: keys.publicKey,
            privateKey: keys.privateKey,
          },
        },
      ) as PushRequest;
    } catch (error) {
      return { kind: 'failed', reason: `cannot prepare the message: ${errorSummary(error)}` };
    }
    let answer: PushAnswer;
    try {
      answer = await postPushMessage(message, {
        ...(this.options.agent ? { agent: this.options.agent } : {}),
        ...(this.lookup ? { lookup: this.lookup } : {}),
        idleTimeoutMs: this.timeoutMs,
        deadlineMs: this.timeoutMs * 2,
      });
    } catch (error) {
      if (error instanceof PrivateAddressError) return { kind: 'failed', reason: error.message };
      const reason = `no answer from the push service (${errorSummary(error)})`;
      return { kind: 'retry', reason };
    }
    return this.outcomeOfAnswer(answer);
  }

  private outcomeOfAnswer(answer: PushAnswer): DeliveryOutcome {
    const { status } = answer;
    if (status >= 200 && status < 300) return { kind: 'sent' };
    if (status === 404 || status === 410) return { kind: 'gone' };
    const reason = `push service answered ${status}${quoteBody(answer.body)}`;
    if (status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfterMs(
        answer.headers['retry-after'],
        this.options.clock.now(),
      );
      return { kind: 'retry', reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    }
    return { kind: 'failed', reason };
  }

  /** Records the outcome on the subscription, in metrics and the log. */
  private settle(
    subscription: StoredSubscription,
    delivery: ReminderDelivery,
    outcome: DeliveryOutcome,
  ): DeliveryOutcome {
    const { store, logger } = this.options;
    const context = {
      subscription: subscription.id,
      host: endpointHost(subscription.endpoint),
      attempt: delivery.attempt,
    };
    switch (outcome.kind) {
      case 'sent':
        store.recordSuccess(subscription.id);
        logger?.debug(context, 'push message accepted');
        break;
      case 'gone':
        store.delete(subscription.id);
        logger?.info(context, 'push subscription expired at the push service; removed');
        break;
      case 'retry':
        store.recordFailure(subscription.id, outcome.reason);
        logger?.warn(
          { ...context, retryAfterMs: outcome.retryAfterMs, reason: outcome.reason },
          'push message will be retried',
        );
        break;
      case 'failed':
        store.recordFailure(subscription.id, outcome.reason);
        logger?.warn({ ...context, reason: outcome.reason }, 'push message failed');
        break;
    }
    return this.count(outcome);
  }

  private count<T extends { kind: Outcome }>(outcome: T): T {
    this.deliveries?.inc({ outcome: outcome.kind });
    return outcome;
  }
}

/** The push service's explanation (e.g. Apple's `{"reason":"BadJwtToken"}`), short and printable. */
function quoteBody(body: unknown): string {
  if (typeof body !== 'string') return '';
  // eslint-disable-next-line no-control-regex
  const text = body.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (text === '') return '';
  return `: ${text.length > MAX_QUOTED_BODY ? `${text.slice(0, MAX_QUOTED_BODY)}…` : text}`;
}

/** An error's code and message, without anything that could hold the endpoint's path. */
function errorSummary(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${code}: ${error.message}` : error.message;
}
