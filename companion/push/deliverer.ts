import type { PushPayload } from '../../shared/protocol/push';

/*
 * The seam between the reminder scheduler and Web Push. The scheduler owns "when" and the
 * delivery log (what reached which device); this side owns "how": encryption, VAPID, the push
 * service's answer and what it means.
 *
 * One `deliver` call is one attempt. Retries are the caller's, because only the caller can make
 * them survive a restart (its delivery log is durable; a sleep in here is not). A retryable
 * answer says when to try again (`afterMs`, from Retry-After or exponential backoff with jitter
 * over `attempt`); once `attempt` reaches `MAX_DELIVERY_ATTEMPTS` the outcome is `failed`.
 */

/** After this many attempts a retryable failure (429, 5xx, timeout, network) becomes `failed`. */
export const MAX_DELIVERY_ATTEMPTS = 8;

/** A good TTL for a reminder: long enough to reach a phone that is briefly offline, short enough not to ring hours late. */
export const REMINDER_TTL_SECONDS = 60 * 60;

export interface PushDelivery {
  /** A stored subscription's id (see `subscriptions()`). */
  readonly subscriptionId: string;
  readonly payload: PushPayload;
  /** How long the push service may hold the message for an offline device, in seconds (≥ 0). */
  readonly ttlSeconds: number;
  /**
   * Messages with the same topic replace each other while undelivered (RFC 8030 §5.4), e.g. the
   * reminder id, so a snoozed reminder's new message replaces the old. Any string: it is hashed
   * to the 32 base64url characters the protocol allows.
   */
  readonly topic: string;
  /** 1 for the first try, 2 for the first retry, …; default 1. Drives the backoff. */
  readonly attempt?: number;
}

export type DeliveryOutcome =
  /** The push service accepted the message (201/202). */
  | { readonly status: 'sent' }
  /** The subscription no longer exists (404/410, or it was deleted here); it has been removed. */
  | { readonly status: 'gone' }
  /** Try again no sooner than `afterMs` from now (429, 5xx, timeout, network error). */
  | { readonly status: 'retry'; readonly afterMs: number; readonly reason: string }
  /** Will not succeed by retrying (400/401/403/413, payload too big, or attempts exhausted). */
  | { readonly status: 'failed'; readonly reason: string };

export interface PushDeliverer {
  /** The devices to deliver to, oldest first. */
  subscriptions(): ReadonlyArray<{ readonly id: string }>;
  deliver(delivery: PushDelivery): Promise<DeliveryOutcome>;
}
