import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiHttpError } from './api-error';

/*
 * The one rate-limit policy of the companion. Expensive routes (they search the index, run a
 * model, parse an upload or send pushes) are limited twice: per token, so one client cannot
 * starve the others whatever address it comes from, and per address, so one machine cannot
 * either. Past either limit the answer is 429 with `Retry-After`. A route opts in with
 * `config: { limited: '<name>' }`; the numbers live here.
 *
 * Behind a reverse proxy (Caddy, `tailscale serve`) every client has the proxy's address
 * unless `--trust-proxy` names it: then the per-address limit is shared by all clients.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The rate limit this route counts against (see RATE_LIMITS). */
    limited?: LimitedRoute;
  }
}

export type LimitedRoute =
  'answer' | 'search' | 'chat' | 'ingest' | 'embeddings' | 'pushTest' | 'sync' | 'syncBlobs';

export interface RouteLimit {
  /** Requests per window per token. */
  readonly perToken: number;
  /** Requests per window per client address. */
  readonly perAddress: number;
  readonly windowMs: number;
}

const MINUTE = 60_000;

/**
 * Per minute. Search is what the phone page calls as one types; answer and embeddings are a
 * search each plus more; chat, ingest and the test push are slow or reach outside.
 *
 * Cairn Sync (docs/sync.md "Rate limits"): `syncBlobs` is `GET`/`PUT blobs` and `POST
 * blobs/batch`, one request per file a device uploads (per up to 256 it downloads with the
 * batch, per file without it); a first sync of the 10,000-note bench vault made at most
 * 4,603 of them in a minute and 258 in a second (`npm run bench -- --only sync`, loopback, a
 * loaded 2-core machine): the limit is 13 times the first and about 4 times the second kept up
 * for a minute, per address too (devices behind one reverse proxy share it). `sync` is every
 * other sync route (changes, the long poll, commit, confirm, history, trash, restore, pairing):
 * a first sync makes one `changes` and one `commit` per 500 files; an open device a few per
 * pass, a pass at most every few hundred ms while edits keep coming, plus one long poll.
 */
export const RATE_LIMITS: Readonly<Record<LimitedRoute, RouteLimit>> = {
  search: { perToken: 600, perAddress: 600, windowMs: MINUTE },
  answer: { perToken: 120, perAddress: 120, windowMs: MINUTE },
  embeddings: { perToken: 600, perAddress: 600, windowMs: MINUTE },
  chat: { perToken: 30, perAddress: 30, windowMs: MINUTE },
  ingest: { perToken: 30, perAddress: 30, windowMs: MINUTE },
  pushTest: { perToken: 10, perAddress: 10, windowMs: MINUTE },
  sync: { perToken: 1200, perAddress: 3000, windowMs: MINUTE },
  syncBlobs: { perToken: 60_000, perAddress: 60_000, windowMs: MINUTE },
};

/**
 * Tools of outside clients (MCP) counted against the REST route that does the same work, so a
 * client gets no more through MCP than through the API: `search` is GET /api/v1/search, `ask`
 * is POST /api/v1/answer. (`/v1/chat/completions` is a chat turn: `chat`, on its route.)
 */
export const TOOL_LIMITS: Readonly<Record<string, LimitedRoute>> = {
  search: 'search',
  ask: 'answer',
};

/** Counts one request against a limit; throws 429 RATE_LIMITED past it. */
export type RateLimitCheck = (request: FastifyRequest, name: LimitedRoute) => Promise<void>;

/** Overrides of RATE_LIMITS (tests, or a deployment that needs other numbers). */
export type RateLimitOverrides = Partial<Record<LimitedRoute, Partial<RouteLimit>>>;

/**
 * Who presented which credential, as a short one-way fingerprint of the bearer token (never
 * the token itself: it ends up in the limiter's memory). `none` without a token. The one
 * place that says which token a request is from; token names can replace the hash here.
 */
export function tokenFingerprint(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || header === '') return 'none';
  return createHash('sha256').update(header.trim()).digest('hex').slice(0, 16);
}

/**
 * Installs the policy: an `onRequest` hook (after authentication) that counts each request of
 * a route marked `config.limited` against its token's and its address's budget. Needs
 * @fastify/rate-limit registered (registerTokenAuth does). Returns the same check for routes
 * that carry several kinds of work in one request (MCP's tool calls).
 */
export function registerRateLimits(
  app: FastifyInstance,
  overrides: RateLimitOverrides = {},
): RateLimitCheck {
  const limiters = new Map<
    LimitedRoute,
    { limit: RouteLimit; perToken: Limiter; perAddress: Limiter }
  >();
  for (const name of Object.keys(RATE_LIMITS) as LimitedRoute[]) {
    const limit = { ...RATE_LIMITS[name], ...overrides[name] };
    limiters.set(name, {
      limit,
      perToken: app.createRateLimit({
        max: limit.perToken,
        timeWindow: limit.windowMs,
        keyGenerator: (request) => `limit:${name}:token:${tokenFingerprint(request)}`,
      }),
      perAddress: app.createRateLimit({
        max: limit.perAddress,
        timeWindow: limit.windowMs,
        keyGenerator: (request) => `limit:${name}:address:${request.ip}`,
      }),
    });
  }

  const check: RateLimitCheck = async (request, name) => {
    const limiter = limiters.get(name);
    if (limiter === undefined) return;
    for (const [what, check] of [
      ['token', limiter.perToken],
      ['address', limiter.perAddress],
    ] as const) {
      const result = await check(request);
      if (!result.isAllowed && result.isExceeded) {
        const seconds = Math.max(1, result.ttlInSeconds);
        const max = what === 'token' ? limiter.limit.perToken : limiter.limit.perAddress;
        throw new ApiHttpError(
          'RATE_LIMITED',
          `too many ${name} requests from this ${what} (at most ${max} per ${Math.round(limiter.limit.windowMs / 1000)} s); retry in ${seconds} s`,
          undefined,
          { 'Retry-After': String(seconds) },
        );
      }
    }
  };

  app.addHook('onRequest', async (request) => {
    const name = request.routeOptions.config.limited;
    if (name !== undefined) await check(request, name);
  });
  return check;
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;
