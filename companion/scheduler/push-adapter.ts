import type { PushDeliverer } from '../push/deliverer';
import type { DeliveryOutcome, ReminderDeliverer } from './deliverer';

/**
 * The scheduler's delivery port over the push area's sender (companion/push/deliverer.ts). The
 * two were designed apart so neither blocked the other; this is the whole of the translation.
 * Retry timing and the give-up count stay the push side's answer (`afterMs`, `failed`); the
 * scheduler only makes retries durable.
 */
export function deliverThroughPush(push: PushDeliverer): ReminderDeliverer {
  return {
    subscriptions: () => push.subscriptions(),
    async deliver(delivery): Promise<DeliveryOutcome> {
      const outcome = await push.deliver({
        subscriptionId: delivery.subscriptionId,
        payload: delivery.payload,
        ttlSeconds: delivery.ttlSeconds,
        topic: delivery.topic,
        attempt: delivery.attempt,
      });
      switch (outcome.status) {
        case 'sent':
          return { kind: 'sent' };
        case 'gone':
          return { kind: 'gone' };
        case 'retry':
          return { kind: 'retry', afterMs: outcome.afterMs, reason: outcome.reason };
        case 'failed':
          return { kind: 'failed', reason: outcome.reason };
      }
    },
  };
}
