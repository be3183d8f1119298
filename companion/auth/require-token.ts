import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/ports';
import { ApiHttpError } from '../http/api-error';
import { clockedRateLimitStore } from '../http/clocked-rate-limit-store';
import { tokenFingerprint } from '../http/rate-limits';
import { pathOnly } from '../http/url';
import { bearerFailureMessages, presentedToken, sameTokenHash } from './bearer';
import { OWNER_IDENTITY, hasScope, missingScopeMessage } from './scopes';
import { withPathRules } from './path-rules';
import type { Scope, TokenIdentity } from './scopes';

/** Route option that opts a route out of authentication (`/health`, the phone page's files). */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** `true` for routes anyone may call without the token. Everything else needs it. */
    public?: boolean;
    /**
     * The scope a route needs. Default: `read` for GET/HEAD, `write` for anything else, except
     * the read-only POST routes in `READ_ONLY_POST_ROUTES`. Tool routes (chat, MCP, OpenAI) need
     * `read` and check `write` per tool.
     */
    scope?: Scope;
  }
  interface FastifyRequest {
    /**
     * Who is calling: set once here for every authenticated request, null on public routes.
     * Rate limits (#12) and the audit log key on `tokenName`.
     */
    cairnAuth: TokenIdentity | null;
  }
}

/** Resolves a presented token's sha256 to who holds it; undefined = not a valid token. */
export interface TokenResolver {
  identify(presentedSha256: Buffer): TokenIdentity | undefined;
}

/**
 * The owner's token (file or `CAIRN_TOKEN`, every scope), then the stored named tokens. The
 * owner comparison is constant-time; stored tokens are found by their hash's index.
 */
export function ownerThenStored(ownerSha256: Buffer, stored?: TokenResolver): TokenResolver {
  return {
    identify(presented) {
      if (sameTokenHash(presented, ownerSha256)) return OWNER_IDENTITY;
      return stored?.identify(presented);
    },
  };
}

/** POST routes that only read (they take a body for the question, not to change anything). */
export const READ_ONLY_POST_ROUTES: ReadonlySet<string> = new Set([
  '/api/v1/answer',
  '/api/v1/search',
  '/api/v1/chat',
  '/v1/embeddings',
]);

/** Path prefixes that need the token even when no route matches (so 401 comes before 404). */
const PROTECTED_PREFIXES = ['/api/', '/v1/', '/metrics'];

/** Query parameters that look like credentials; a token must never travel in a URL. */
const CREDENTIAL_QUERY_PARAMS = ['token', 'access_token', 'api_key', 'apikey'];

export interface FailedAuthLimit {
  /**
   * Failed attempts allowed per client address and presented credential per window; the next
   * request from that address with that credential gets 429.
   */
  readonly max: number;
  /**
   * Failed attempts allowed per client address whatever it presents; past them every request
   * from the address gets 429, the right token included (guessing).
   */
  readonly maxPerAddress: number;
  readonly windowMs: number;
}

export const DEFAULT_FAILED_AUTH_LIMIT: FailedAuthLimit = {
  max: 10,
  maxPerAddress: 100,
  windowMs: 60_000,
};

/**
 * Requires `Authorization: Bearer <token>` on every route except those marked
 * `config: { public: true }`, and on any unmatched path under a protected prefix.
 *
 * Failed attempts are counted per client address (the socket address; `X-Forwarded-For` only
 * counts when `trustProxy` names the proxy) twice over. Per address and presented credential
 * (its fingerprint): a client that keeps sending a stale or wrong token is refused with 429
 * after `max`, while others behind the same address (every client of a reverse proxy that is
 * not trusted) keep working with the right token. Per address alone, with a larger budget:
 * past it every protected request from the address gets 429, the correct token included,
 * because many different tokens from one address are guesses and the lockout must not tell
 * a guesser which one was right.
 */
export async function registerTokenAuth(
  app: FastifyInstance,
  tokens: TokenResolver,
  limit: FailedAuthLimit = DEFAULT_FAILED_AUTH_LIMIT,
  clock: Clock = { now: () => Date.now() },
): Promise<void> {
  app.decorateRequest('cairnAuth', null);
  // Every limiter (these and companion/http/rate-limits.ts) counts on the app's clock.
  await app.register(rateLimit, { global: false, store: clockedRateLimitStore(clock) });
  const credentialFailures = app.createRateLimit({
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => `auth:${request.ip}:${tokenFingerprint(request)}`,
  });
  const addressFailures = app.createRateLimit({
    max: limit.maxPerAddress,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => `auth:${request.ip}`,
  });

  // The token's path rules hold for everything the route does (search filters and the vault's
  // path check read them, auth/path-rules.ts). Bound here, after the body is read: the handler
  // runs inside `done`, in this context (a binding made in onRequest is lost once the body's
  // stream events run, nodejs/node#34430).
  app.addHook('preValidation', (request, _reply, done) => {
    const paths = request.cairnAuth?.paths;
    if (paths === undefined || paths.length === 0) {
      done();
      return;
    }
    withPathRules(paths, done);
  });

  app.addHook('onRequest', async (request) => {
    if (hasCredentialInQuery(request)) {
      throw new ApiHttpError(
        'UNAUTHORIZED',
        'credentials are not accepted in the URL; send "Authorization: Bearer <token>"',
      );
    }
    if (!needsToken(request)) return;

    for (const limiter of [addressFailures, credentialFailures]) {
      const before = await limiter(request, { increment: false });
      if (!before.isAllowed && before.remaining <= 0 && before.ttl > 0) {
        throw tooManyFailures(before.ttlInSeconds);
      }
    }
    const presented = presentedToken(request.headers.authorization);
    const identity = presented.ok ? tokens.identify(presented.sha256) : undefined;
    if (identity !== undefined) {
      request.cairnAuth = identity;
      const scope = requiredScope(request);
      if (!hasScope(identity, scope)) {
        throw new ApiHttpError(
          'FORBIDDEN',
          missingScopeMessage(
            `${request.method} ${pathOnly(request.url)}`,
            scope,
            identity.tokenName,
          ),
        );
      }
      return;
    }

    const byAddress = await addressFailures(request);
    const byCredential = await credentialFailures(request);
    for (const after of [byAddress, byCredential]) {
      if (!after.isAllowed && after.isExceeded) throw tooManyFailures(after.ttlInSeconds);
    }
    const failure = presented.ok ? 'wrong' : presented.failure;
    throw new ApiHttpError('UNAUTHORIZED', bearerFailureMessages[failure], undefined, {
      'WWW-Authenticate': 'Bearer realm="cairn"',
    });
  });
}

/** The scope the matched route needs (see `FastifyContextConfig.scope`). */
export function requiredScope(request: FastifyRequest): Scope {
  // No route: any valid token gets the honest 404, not a 403 for a scope nothing needs.
  if (request.is404) return 'read';
  const configured = request.routeOptions.config.scope;
  if (configured !== undefined) return configured;
  if (request.method === 'GET' || request.method === 'HEAD') return 'read';
  const route = request.routeOptions.url;
  if (request.method === 'POST' && route !== undefined && READ_ONLY_POST_ROUTES.has(route))
    return 'read';
  return 'write';
}

function needsToken(request: FastifyRequest): boolean {
  if (request.method === 'OPTIONS') return false;
  if (request.routeOptions.config.public === true) return false;
  if (!request.is404) return true;
  const path = pathOnly(request.url);
  return PROTECTED_PREFIXES.some((prefix) => path.startsWith(prefix));
}

function hasCredentialInQuery(request: FastifyRequest): boolean {
  const query = request.url.indexOf('?');
  if (query === -1) return false;
  const params = new URLSearchParams(request.url.slice(query + 1));
  return CREDENTIAL_QUERY_PARAMS.some((name) => params.has(name));
}

function tooManyFailures(retryAfterSeconds: number): ApiHttpError {
  const seconds = Math.max(1, retryAfterSeconds);
  return new ApiHttpError(
    'RATE_LIMITED',
    `too many failed authentication attempts; retry in ${seconds} s`,
    undefined,
    { 'Retry-After': String(seconds) },
  );
}
