import type { FastifyInstance } from 'fastify';
import { DecisionsQuery, DecisionsResponse } from '../../shared/protocol/decisions';
import { KnowledgeHealth } from '../../shared/protocol/knowledge-health';
import type { HealthItem } from '../../shared/protocol/knowledge-health';
import { ApiHttpError } from '../http/api-error';
import { currentPathRules, pathAllowed } from '../auth/path-rules';
import type { SearchServices } from './search-services';
import { visibleDecisions } from './answer-routes';

/**
 * `GET /api/v1/decisions?q=&limit=` (docs/search.md, "Decisions"): decisions found in notes
 * when they were indexed, best match first, each with what it rejected, its date and where it
 * is written.
 */
export function registerDecisionsRoute(app: FastifyInstance, services: SearchServices): void {
  app.get<{ Querystring: DecisionsQuery }>(
    '/api/v1/decisions',
    {
      config: { limited: 'search' },
      schema: { querystring: DecisionsQuery, response: { 200: DecisionsResponse } },
    },
    (request): DecisionsResponse => {
      const index = services.deps.index();
      if (index?.decisions === undefined) {
        throw new ApiHttpError(
          'UNAVAILABLE',
          'the vault index is not available yet; decisions are listed once the companion has indexed the vault',
          undefined,
          { 'retry-after': '5' },
        );
      }
      return {
        decisions: visibleDecisions(index, request.query.q ?? '', request.query.limit ?? 20),
      };
    },
  );
}

/**
 * `GET /api/v1/health/knowledge` (docs/search.md, "Knowledge health"): coverage, metadata
 * hygiene and staleness of the indexed vault, each item naming its note.
 */
export function registerKnowledgeHealthRoute(
  app: FastifyInstance,
  services: SearchServices,
  /** Overdue reminders as report items, when the companion schedules reminders. */
  overdueReminders?: () => HealthItem[],
): void {
  app.get(
    '/api/v1/health/knowledge',
    { config: { limited: 'search' }, schema: { response: { 200: KnowledgeHealth } } },
    (): KnowledgeHealth => {
      const index = services.deps.index();
      if (index?.knowledgeHealth === undefined) {
        throw new ApiHttpError(
          'UNAVAILABLE',
          'the vault index is not available yet; the report is ready once the companion has indexed the vault',
          undefined,
          { 'retry-after': '5' },
        );
      }
      const report = index.knowledgeHealth(services.clock.now());
      const full =
        overdueReminders === undefined
          ? report
          : {
              ...report,
              staleness: { ...report.staleness, overdue_reminders: overdueReminders() },
            };
      return withinPathRules(full);
    },
  );
}

/** The report's items inside the calling token's folders (auth/path-rules.ts), all without rules. */
function withinPathRules(report: KnowledgeHealth): KnowledgeHealth {
  const rules = currentPathRules();
  if (rules === undefined) return report;
  const keep = (items: HealthItem[]) => items.filter((item) => pathAllowed(rules, item.path));
  const each = <T extends Record<string, HealthItem[] | undefined>>(group: T): T =>
    Object.fromEntries(
      Object.entries(group).map(([key, items]) => [key, items && keep(items)]),
    ) as T;
  return {
    coverage: {
      ...report.coverage,
      failed: keep(report.coverage.failed),
      partial: keep(report.coverage.partial),
    },
    hygiene: each(report.hygiene),
    staleness: each(report.staleness),
  };
}
