import type { FastifyInstance } from 'fastify';
import type { MetricsRegistry } from './registry';

/** Upper bounds (seconds) for request durations: API calls are ms; answers and ingest take seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Process and HTTP metrics: resident memory, and per route template + method + status a
 * request counter and a duration histogram. Routes are labelled by their template
 * (`/api/v1/reminders/:id`), never the raw URL, so ids cannot blow up the series count;
 * requests that matched no route share the label `unmatched`.
 */
export function registerHttpMetrics(app: FastifyInstance, registry: MetricsRegistry): void {
  registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () =>
    process.memoryUsage.rss(),
  );
  registry.gauge('process_uptime_seconds', 'Seconds since the companion process started.', () =>
    Math.round(process.uptime()),
  );
  const requests = registry.counter('cairn_http_requests_total', 'HTTP requests answered.', [
    'method',
    'route',
    'status',
  ]);
  const durations = registry.histogram(
    'cairn_http_request_duration_seconds',
    'Time from receiving a request to sending the response.',
    DURATION_BUCKETS,
    ['method', 'route', 'status'],
  );

  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched'),
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    durations.observe(reply.elapsedTime / 1000, labels);
  });
}
