import type { FastifyInstance } from 'fastify';
import { CONTENT_TYPE } from './registry';
import type { MetricsRegistry } from './registry';

/** `GET /metrics`: Prometheus text format; needs the token like the API. */
export function registerMetricsRoute(app: FastifyInstance, registry: MetricsRegistry): void {
  app.get('/metrics', async (_request, reply) => reply.type(CONTENT_TYPE).send(registry.render()));
}
