import { currentPathRules, pathAllowed } from '../auth/path-rules';
import type { Decision } from '../../shared/protocol/decisions';
import type { FastifyInstance } from 'fastify';
import { AnswerRequest, AnswerResponse } from '../../shared/protocol/search';
import { embedderSimilarity } from '../../shared/search/claim-check';
import { formatSourceNotes } from '../../shared/search/source-dates';
import { answerQuestion } from './answer-service';
import { toIndexFilters } from './request-filters';
import type { SearchServices } from './search-services';
import { requireSearch } from './search-routes';

/**
 * `POST /api/v1/answer` `{ question, limit?, summarize?, type?, folder?, tag?, from?, to? }`:
 * quoted passages with one citation each; with `summarize` and a configured LLM, a summary of
 * those passages that keeps their `[n]` markers (docs/search.md, companion/README.md).
 */
export function registerAnswerRoute(
  app: FastifyInstance,
  services: SearchServices,
  timezone: string,
): void {
  app.post<{ Body: AnswerRequest }>(
    '/api/v1/answer',
    {
      config: { limited: 'answer' },
      schema: { body: AnswerRequest, response: { 200: AnswerResponse } },
    },
    async (request): Promise<AnswerResponse> => {
      const body = request.body;
      const search = requireSearch(services);
      const filters = toIndexFilters(body, timezone);
      const outcome = await answerQuestion(search, services.deps.summarizer, {
        question: body.question,
        limit: body.limit ?? 5,
        summarize: body.summarize ?? false,
        filters,
        ...(body.unsupported === undefined ? {} : { unsupported: body.unsupported }),
        similarity: embedderSimilarity(() => services.deps.embedder?.()),
        now: services.clock.now(),
        ...decisionsOf(services),
      });
      if (outcome.summaryError !== undefined) {
        request.log.warn(
          { reason: outcome.summaryError },
          'answer summary unavailable; sent quotes',
        );
      }
      const notes = outcome.notes ?? [];
      return {
        answer: outcome.answer + formatSourceNotes(notes),
        ...(notes.length === 0 ? {} : { notes }),
        citations: outcome.citations,
        ...(outcome.confidence === undefined ? {} : { confidence: outcome.confidence }),
        summarized: outcome.summarized,
        ...(body.audit === true && outcome.audit !== undefined ? { audit: outcome.audit } : {}),
      };
    },
  );
}

/** The index's decisions for `answerQuestion`, when the index has them. */
export function decisionsOf(services: SearchServices): {
  decisions?: (query: string, limit: number) => Decision[];
} {
  const index = services.deps.index();
  if (index?.decisions === undefined) return {};
  return { decisions: (query, limit) => visibleDecisions(index, query, limit) };
}

/**
 * Decisions the calling token may see (auth/path-rules.ts): with path rules, more are asked for
 * and those written outside its folders left out.
 */
export function visibleDecisions(
  index: { decisions?: (query: string, limit: number) => Decision[] },
  query: string,
  limit: number,
): Decision[] {
  const rules = currentPathRules();
  if (rules === undefined) return index.decisions?.(query, limit) ?? [];
  return (index.decisions?.(query, limit * 10) ?? [])
    .filter((decision) => pathAllowed(rules, decision.citation.path))
    .slice(0, limit);
}
