import type { FastifyInstance } from 'fastify';
import { StatusResponse } from '../../shared/protocol/status';
import { currentPathRules, pathAllowed } from '../auth/path-rules';
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
      // A token limited to folders (auth/path-rules.ts) sees the failed files inside them only;
      // the counts stay the whole vault's (numbers, no paths or words).
      const rules = currentPathRules();
      const visible =
        rules === undefined
          ? index
          : { ...index, failed: index.failed.filter((file) => pathAllowed(rules, file.path)) };
      return {
        version,
        index: visible,
        scheduler,
        push,
        process: { rss_bytes: process.memoryUsage.rss() },
      };
    },
  );
}
