import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DryRunResponse } from '../../shared/protocol/dry-run';
import { withDryRunRecord } from '../vault/dry-run';
import type { DryRunRecord } from '../vault/dry-run';
import { ApiHttpError } from './api-error';
import { pathOnly } from './url';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dry run this request asked for (`?dry_run=true`), null for a real one. */
    cairnDryRun: DryRunRecord | null;
  }
}

/**
 * The write routes whose effect is in the vault, so a dry run can stop at the vault write and
 * answer it (vault/dry-run.ts). Other writes (tokens, push subscriptions, tool settings) have no
 * dry run: asking for one is refused, never ignored.
 */
const DRY_RUN_PREFIXES = [
  '/api/v1/notes',
  '/api/v1/ingest',
  '/api/v1/reminders',
  '/api/v1/memories',
  '/api/v1/tasks',
  '/api/v1/digests',
  '/api/v1/import',
];

/**
 * `dry_run` on every write route (docs/clients.md "Dry run"): `?dry_run=true`, or
 * `"dry_run": true` in a JSON body. The route runs as usual inside a dry run; its first vault
 * write records the change and stops (DryRunStop), and the answer is
 * `200 { dry_run: true, changes: [{ path, action, before, after, diff }] }` whatever the route
 * would have answered. A route refused before writing answers its refusal, as for real.
 */
export function registerDryRuns(app: FastifyInstance): void {
  app.decorateRequest('cairnDryRun', null);
  app.addHook('preValidation', (request, _reply, done) => {
    if (!dryRunAsked(request)) {
      done();
      return;
    }
    const route = request.routeOptions.url ?? pathOnly(request.url);
    if (!DRY_RUN_PREFIXES.some((prefix) => route === prefix || route.startsWith(`${prefix}/`))) {
      done(
        new ApiHttpError(
          'VALIDATION_ERROR',
          `${request.method} ${route} has no dry run (only writes to the vault have one)`,
          'dry_run',
        ),
      );
      return;
    }
    const record: DryRunRecord = { changes: [] };
    request.cairnDryRun = record;
    withDryRunRecord(record, done);
  });
  // Whatever the route answered (its error for the stopped write, or a success if it caught the
  // stop), a dry run that reached a vault write answers the change.
  app.addHook('onSend', async (request, reply, payload) => {
    const changes = request.cairnDryRun?.changes;
    if (changes === undefined || changes.length === 0) return payload;
    const body: DryRunResponse = { dry_run: true, changes: [...changes] };
    void reply.code(200).type('application/json; charset=utf-8');
    reply.removeHeader('location');
    return JSON.stringify(body);
  });
}

/** `?dry_run=true|1` or a JSON body's `dry_run: true` (taken out before the body's schema). */
function dryRunAsked(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS')
    return false;
  const query = request.query as Record<string, unknown> | undefined;
  const flag = query?.dry_run;
  let asked = flag === 'true' || flag === '1' || flag === true;
  if (query !== undefined && flag !== undefined) delete query.dry_run;
  const body = request.body as Record<string, unknown> | null | undefined;
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'dry_run' in body) {
    asked = asked || body.dry_run === true;
    delete body.dry_run;
  }
  return asked;
}
