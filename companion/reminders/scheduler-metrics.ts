import type { Counter, Histogram, MetricsRegistry } from '../metrics/registry';
import type { DeliveryOutcome } from '../push/delivery-port';

/** Seconds from a fire time to the message being handed to push; catch-up fires land high. */
const FIRE_LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60, 300, 3600, 86_400];

/**
 * The scheduler's Prometheus metrics (companion/README.md `/metrics`: reminder fire lag). Without a
 * registry every call is a no-op, so the scheduler runs the same in tests and benchmarks.
 */
export class SchedulerMetrics {
  private readonly lag: Histogram | undefined;
  private readonly deliveries: Counter | undefined;

  constructor(
    registry: MetricsRegistry | undefined,
    gauges: { scheduled: () => number; missed: () => number },
  ) {
    if (!registry) return;
    this.lag = registry.histogram(
      'cairn_reminder_fire_lag_seconds',
      'Time from a reminder occurrence to its message being handed to push',
      FIRE_LAG_BUCKETS,
    );
    this.deliveries = registry.counter(
      'cairn_reminder_deliveries_total',
      'Reminder deliveries to devices by outcome (sent, gone, retry, failed)',
      ['outcome'],
    );
    registry.gauge(
      'cairn_reminders_scheduled',
      'Reminders with a next fire time',
      gauges.scheduled,
    );
    registry.gauge(
      'cairn_reminders_missed',
      'Entries on the missed-occurrence list',
      gauges.missed,
    );
  }

  fireLag(ms: number): void {
    this.lag?.observe(Math.max(0, ms) / 1000);
  }

  delivery(outcome: DeliveryOutcome['kind']): void {
    this.deliveries?.inc({ outcome });
  }
}
