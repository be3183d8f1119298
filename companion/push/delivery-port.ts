import type { PushPayload } from '../../shared/protocol/push';

/*
 * The one seam between the reminder scheduler and whatever carries a message to a device. The
 * scheduler owns "when" and "again": the delivery log (what reached which device), retries that
 * survive a restart, their backoff and the give-up count (retry-policy.ts). The carrier (Web Push,
 * companion/push/web-push-sender.ts; a recorder in tests) owns "how" and reports what happened as
 * a fact, never a decision about retrying.
 */

export interface ReminderDelivery {
  /** Subscription (device) id, as returned by `subscriptions()`. */
  readonly subscriptionId: string;
  readonly payload: PushPayload;
  /** How long the push service may hold the message for an offline phone, in seconds (≥ 0). */
  readonly ttlSeconds: number;
  /**
   * What messages replace each other while undelivered: the reminder id. The carrier turns it
   * into its own collapse key (Web Push: a hashed `Topic`, RFC 8030 §5.4).
   */
  readonly topic: string;
  readonly urgency: 'high';
  /** 1 for the first try, 2 for the first retry, … (for the carrier's logs). */
  readonly attempt: number;
}

export type DeliveryOutcome =
  /** The push service accepted it. */
  | { readonly kind: 'sent' }
  /** 404/410: the subscription is gone (the carrier deletes it); never retried. */
  | { readonly kind: 'gone' }
  /**
   * 429/5xx/timeout/network: worth trying again. `retryAfterMs` is the service's own wish
   * (Retry-After) when it sent one; the scheduler's retry policy decides the actual delay.
   */
  | { readonly kind: 'retry'; readonly reason: string; readonly retryAfterMs?: number }
  /** Anything else (400, 413, bad keys, a refused address): retrying would fail the same way. */
  | { readonly kind: 'failed'; readonly reason: string };

export interface ReminderDeliverer {
  /** The devices subscribed now. */
  subscriptions(): readonly { readonly id: string }[] | Promise<readonly { readonly id: string }[]>;
  /** One attempt to one device. Must not throw for delivery problems: answer an outcome. */
  deliver(delivery: ReminderDelivery): Promise<DeliveryOutcome>;
}
