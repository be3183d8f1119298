import type { FastifyInstance } from 'fastify';

/**
 * Origins allowed to call the API from a browser context. The phone page is same-origin and
 * needs none of this. Obsidian's own windows do:
 * - desktop (Electron) pages run at `app://obsidian.md`;
 * - mobile is a Capacitor app: iOS sends `capacitor://localhost`, Android `http://localhost`.
 * A plugin calling through Obsidian's `requestUrl()` bypasses CORS entirely; these cover
 * plain `fetch()` (needed for streaming the chat's Server-Sent Events).
 *
 * `http://localhost` is also the origin of any page served on port 80 of the same phone or
 * computer; that is accepted because every API route still needs the bearer token, which
 * such a page does not have, and no cookies or other ambient credentials are used.
 */
export const OBSIDIAN_ORIGINS: readonly string[] = [
  'app://obsidian.md',
  'capacitor://localhost',
  'http://localhost',
];

const ALLOWED_METHODS = 'GET, POST, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * An exact-match CORS allowlist. Unknown origins get no CORS headers at all (the browser then
 * blocks the response); the `Origin` is never reflected unless it is on the list, and
 * `Access-Control-Allow-Credentials` is never sent, since auth is a header, not a cookie.
 * Preflights from allowed origins are answered here, before authentication, because browsers
 * send them without the `Authorization` header.
 */
export function registerCors(app: FastifyInstance, allowed: readonly string[] = OBSIDIAN_ORIGINS) {
  const allowedSet = new Set(allowed);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    void reply.header('Vary', 'Origin');
    if (origin === undefined || !allowedSet.has(origin)) return;
    void reply.header('Access-Control-Allow-Origin', origin);
    const isPreflight =
      request.method === 'OPTIONS' &&
      request.headers['access-control-request-method'] !== undefined;
    if (!isPreflight) return;
    return reply
      .code(204)
      .header('Access-Control-Allow-Methods', ALLOWED_METHODS)
      .header('Access-Control-Allow-Headers', ALLOWED_HEADERS)
      .header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS)
      .send();
  });
}
