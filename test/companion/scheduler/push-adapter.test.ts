import { describe, expect, it } from 'vitest';
import type { PushDeliverer, PushDelivery } from '../../../companion/push/deliverer';
import { deliverThroughPush } from '../../../companion/scheduler/push-adapter';
import type { ReminderDelivery } from '../../../companion/scheduler/deliverer';

const delivery: ReminderDelivery = {
  subscriptionId: 'sub-1',
  payload: {
    title: 'Call the bank',
    body: '2026-11-23 17:00 · Call.md',
    reminder_id: 'r-7k2p',
    occurrence: '2026-11-23T17:00:00+01:00',
    deep_link: 'obsidian://open?vault=V&file=Call.md#^r-7k2p',
    actions: ['done', 'snooze_15m', 'snooze_1h', 'open'],
  },
  ttlSeconds: 3600,
  topic: 'abc',
  urgency: 'high',
  attempt: 3,
};

/** A push sender that answers what it is told and records what it was given. */
function pushAnswering(outcome: Awaited<ReturnType<PushDeliverer['deliver']>>): {
  push: PushDeliverer;
  given: PushDelivery[];
} {
  const given: PushDelivery[] = [];
  return {
    given,
    push: {
      subscriptions: () => [{ id: 'sub-1' }, { id: 'sub-2' }],
      deliver: async (d) => {
        given.push(d);
        return outcome;
      },
    },
  };
}

describe('deliverThroughPush', () => {
  it('passes the delivery through, attempt included, and lists the same subscriptions', async () => {
    const { push, given } = pushAnswering({ status: 'sent' });
    const port = deliverThroughPush(push);
    expect(await port.subscriptions()).toEqual([{ id: 'sub-1' }, { id: 'sub-2' }]);
    expect(await port.deliver(delivery)).toEqual({ kind: 'sent' });
    expect(given).toEqual([
      {
        subscriptionId: 'sub-1',
        payload: delivery.payload,
        ttlSeconds: 3600,
        topic: 'abc',
        attempt: 3,
      },
    ]);
  });

  it('translates every outcome', async () => {
    const cases = [
      [{ status: 'gone' }, { kind: 'gone' }],
      [
        { status: 'retry', afterMs: 1500, reason: '429' },
        { kind: 'retry', afterMs: 1500, reason: '429' },
      ],
      [
        { status: 'failed', reason: '413 too large' },
        { kind: 'failed', reason: '413 too large' },
      ],
    ] as const;
    for (const [pushOutcome, expected] of cases) {
      const { push } = pushAnswering(pushOutcome);
      expect(await deliverThroughPush(push).deliver(delivery)).toEqual(expected);
    }
  });
});
