import type { FastifyInstance } from 'fastify';
import { StatusResponse } from '../../shared/protocol/status';
import type { StatusSources } from './sources';

/** `GET /api/v1/status`: what the companion holds and will do next (companion/README.md). */
export function registerStatusRoute(
  app: FastifyInstance,
  version: string,
  sources: StatusSources,
): void {
  app.get(
    '/api/v1/status',
    { schema: { response: { 200: StatusResponse } } },
    async (): Promise<StatusResponse> => {
      const [index, scheduler, push] = await Promise.all([
        sources.index.indexStatus(),
        sources.scheduler.schedulerStatus(),
        sources.push.pushStatus(),
      ]);
      return { version, index, scheduler, push, process: { rss_bytes: process.memoryUsage.rss() } };
    },
  );
}
