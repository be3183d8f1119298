import type { PushPayload } from '../../shared/protocol/push';

/**
 * The scheduler's outgoing port: who receives a fired occurrence, and the act of sending it to
 * one device. The push area implements it over Web Push (companion/push/); tests record.
 * Kept here so the scheduler does not depend on how push works, only on these outcomes.
 */
export interface ReminderDelivery {
  /** Subscription (device) id, as returned by `subscriptions()`. */
  readonly subscriptionId: string;
  readonly payload: PushPayload;
  /** How long the push service may hold the message for an offline phone. */
  readonly ttlSeconds: number;
  /** ≤ 32 base64url characters derived from the reminder id: repeats replace each other on the phone. */
  readonly topic: string;
  readonly urgency: 'high';
  /** 1 for the first try, 2 for the first retry, … (drives the push side's backoff). */
  readonly attempt: number;
}

export type DeliveryOutcome =
  /** The push service accepted it. */
  | { readonly kind: 'sent' }
  /** 404/410: the subscription is gone (the push area deletes it); never retried. */
  | { readonly kind: 'gone' }
  /** 429/5xx/network: try again after this long (Retry-After or backoff). */
  | { readonly kind: 'retry'; readonly afterMs: number; readonly reason?: string }
  /** Anything else (413, 400, bad keys): retrying would fail the same way. */
  | { readonly kind: 'failed'; readonly reason: string };

export interface ReminderDeliverer {
  /** The devices subscribed now. */
  subscriptions(): readonly { readonly id: string }[] | Promise<readonly { readonly id: string }[]>;
  /** Sends one message to one device. Must not throw for delivery problems: answer an outcome. */
  deliver(delivery: ReminderDelivery): Promise<DeliveryOutcome>;
}
