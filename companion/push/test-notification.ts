import type { Clock } from '../../shared/ports';
import type { PushPayload } from '../../shared/protocol/push';
import type { ReminderDeliverer } from './delivery-port';

/** Short-lived: a test nobody sees within a minute is not worth showing later. */
export const TEST_TTL_SECONDS = 60;
const TEST_TOPIC = 'cairn-test-notification';

/**
 * Sends one test message to each device, one attempt each, all at once (the sender's
 * concurrency limit still applies). A device that needs a retry counts as failed: the person
 * pressing "send test" wants to know now. Devices the push service reports gone are removed.
 */
export async function sendTestNotification(
  deliverer: ReminderDeliverer,
  clock: Clock,
  subscriptionIds: readonly string[],
): Promise<{ sent: number; failed: number }> {
  const payload: PushPayload = {
    title: 'Cairn test notification',
    body: 'Reminders from your Cairn companion will appear like this.',
    reminder_id: 'test',
    occurrence: new Date(clock.now()).toISOString(),
    deep_link: 'obsidian://open',
    actions: ['open'],
  };
  const outcomes = await Promise.all(
    subscriptionIds.map((subscriptionId) =>
      deliverer.deliver({
        subscriptionId,
        payload,
        ttlSeconds: TEST_TTL_SECONDS,
        topic: TEST_TOPIC,
        urgency: 'high',
        attempt: 1,
      }),
    ),
  );
  const sent = outcomes.filter((outcome) => outcome.kind === 'sent').length;
  return { sent, failed: outcomes.length - sent };
}
