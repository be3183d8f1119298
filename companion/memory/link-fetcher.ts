import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { hostMatches, isPrivateAddress } from '../push/endpoint-policy';
import { PrivateAddressError, privateAddressGuard } from '../push/private-address-lookup';
import type { LookupFunction } from '../push/private-address-lookup';

/*
 * Fetches one web page for a saved link (docs/memory-digest-calendar.md), with every limit a
 * page from the open web needs: offline unless the host is allowed (CAIRN_LINK_HOSTS), http(s)
 * only, no loopback/private addresses unless that host is listed by name (checked for IP
 * literals here and for names at connect time, through the push guard's `lookup`), a connect
 * and a whole-exchange timeout, a size cap counted while reading, HTML only, and a few
 * redirects, each hop checked again.
 */

export type LinkFetchErrorCode =
  | 'OFFLINE'
  | 'BAD_URL'
  | 'PRIVATE_ADDRESS'
  | 'TIMEOUT'
  | 'TOO_LARGE'
  | 'NOT_HTML'
  | 'TOO_MANY_REDIRECTS'
  | 'HTTP_STATUS'
  | 'NETWORK';

export class LinkFetchError extends Error {
  override readonly name = 'LinkFetchError';
  constructor(
    readonly code: LinkFetchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface LinkFetchPolicy {
  /**
   * Hosts that may be fetched (`example.org`, `*.example.org`, or `*` for any public host).
   * Empty (the default) is offline mode: nothing is fetched.
   */
  readonly hosts: readonly string[];
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly maxRedirects?: number;
  /** Name resolution (tests point names at 127.0.0.1); the system's by default. */
  readonly lookup?: LookupFunction;
}

export const LINK_TIMEOUT_MS = 10_000;
export const LINK_MAX_BYTES = 5 * 1024 * 1024;
export const LINK_MAX_REDIRECTS = 5;
export const LINK_HOSTS_HINT =
  'start the companion with --link-hosts <host> (or CAIRN_LINK_HOSTS; * for any public site) to allow it';

export interface FetchedPage {
  /** After redirects. */
  url: string;
  html: string;
}

/** Why `url` may not be fetched under `policy`, or null when it may (before any connection). */
export function linkProblem(
  url: string,
  policy: Pick<LinkFetchPolicy, 'hosts'>,
): LinkFetchError | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return new LinkFetchError('BAD_URL', `"${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return new LinkFetchError(
      'BAD_URL',
      `${parsed.protocol} links are not fetched; only http: and https: pages are`,
    );
  }
  const host = parsed.hostname.toLowerCase();
  if (!policy.hosts.some((allowed) => allowed === '*' || hostMatches(host, allowed))) {
    return new LinkFetchError(
      'OFFLINE',
      `offline mode: ${host} is not an allowed host, so the link was not fetched; ${LINK_HOSTS_HINT}`,
    );
  }
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  const family = isIP(literal);
  if (family !== 0 && isPrivateAddress(literal, family) && !namedIn(host, policy.hosts)) {
    return new LinkFetchError(
      'PRIVATE_ADDRESS',
      `${host} is a loopback/private address; list it by name in --link-hosts to fetch from it`,
    );
  }
  return null;
}

/** Listed by its own name (not only through `*`): the user allowed this very host. */
function namedIn(host: string, hosts: readonly string[]): boolean {
  return hosts.some((allowed) => allowed !== '*' && hostMatches(host, allowed));
}

export async function fetchLinkPage(url: string, policy: LinkFetchPolicy): Promise<FetchedPage> {
  const maxRedirects = policy.maxRedirects ?? LINK_MAX_REDIRECTS;
  const deadline = policy.timeoutMs ?? LINK_TIMEOUT_MS;
  let current = url;
  for (let hop = 0; ; hop++) {
    const problem = linkProblem(current, policy);
    if (problem) throw problem;
    const response = await get(current, policy, deadline);
    if (response.redirect !== undefined) {
      if (hop >= maxRedirects) {
        throw new LinkFetchError(
          'TOO_MANY_REDIRECTS',
          `more than ${maxRedirects} redirects from ${url}`,
        );
      }
      current = new URL(response.redirect, current).toString();
      continue;
    }
    return { url: current, html: response.html! };
  }
}

async function get(
  url: string,
  policy: LinkFetchPolicy,
  timeoutMs: number,
): Promise<{ redirect?: string; html?: string }> {
  const parsed = new URL(url);
  const host = parsed.hostname.toLowerCase();
  const maxBytes = policy.maxBytes ?? LINK_MAX_BYTES;
  const lookup = namedIn(host, policy.hosts)
    ? policy.lookup
    : privateAddressGuard(
        policy.lookup,
        (name) =>
          `${name} resolves to a loopback/private address; list it by name in --link-hosts to fetch from it`,
      );
  const send = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, value?: { redirect?: string; html?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      if (error) reject(error);
      else resolve(value!);
    };
    const outgoing = send(
      url,
      {
        method: 'GET',
        headers: {
          accept: 'text/html,application/xhtml+xml;q=0.9',
          'user-agent': 'Cairn link clipper',
        },
        ...(lookup === undefined ? {} : { lookup }),
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          finish(null, { redirect: response.headers.location });
          return;
        }
        if (status !== 200) {
          finish(new LinkFetchError('HTTP_STATUS', `${parsed.host} answered ${status}`));
          return;
        }
        const type = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'text/html' && type !== 'application/xhtml+xml') {
          finish(
            new LinkFetchError(
              'NOT_HTML',
              `${url} is ${type === '' ? 'of no stated type' : type}, not an HTML page`,
            ),
          );
          return;
        }
        const declared = Number(response.headers['content-length'] ?? NaN);
        if (declared > maxBytes) {
          finish(tooLarge(url, maxBytes));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) finish(tooLarge(url, maxBytes));
          else chunks.push(chunk);
        });
        response.on('end', () =>
          finish(null, { html: Buffer.concat(chunks).toString(charsetOf(response)) }),
        );
        response.on('error', (error) => finish(networkError(url, error)));
      },
    );
    const timer = setTimeout(
      () =>
        finish(
          new LinkFetchError(
            'TIMEOUT',
            `${parsed.host} did not answer within ${timeoutMs / 1000} s`,
          ),
        ),
      timeoutMs,
    );
    outgoing.on('error', (error) => finish(networkError(url, error)));
    outgoing.end();
  });
}

function tooLarge(url: string, maxBytes: number): LinkFetchError {
  return new LinkFetchError(
    'TOO_LARGE',
    `${url} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB; not clipped`,
  );
}

function networkError(url: string, error: Error): LinkFetchError {
  if (error instanceof PrivateAddressError)
    return new LinkFetchError('PRIVATE_ADDRESS', error.message);
  const code = (error as NodeJS.ErrnoException).code;
  return new LinkFetchError('NETWORK', `${url} could not be reached (${code ?? error.message})`);
}

function charsetOf(response: IncomingMessage): BufferEncoding {
  const charset = /charset=([^;]+)/i.exec(response.headers['content-type'] ?? '')?.[1]?.trim();
  return charset !== undefined && /^(?:iso-8859-1|latin1|windows-1252)$/i.test(charset)
    ? 'latin1'
    : 'utf8';
}
