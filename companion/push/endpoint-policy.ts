import { BlockList, isIP } from 'node:net';

/*
 * Which push endpoints the companion will POST to. A subscription is attacker-controlled input
 * for anyone holding the token, and the companion usually sits inside a home network, so an
 * unchecked endpoint would let it be aimed at the router or another LAN service (SSRF, ASVS
 * 5.3.2). Real push services (FCM, Mozilla autopush, Apple, WNS) are public HTTPS hosts with
 * dotted names, so by default:
 *
 * - only `https:`, no user:password part;
 * - no loopback, private, link-local, CGNAT, multicast or unspecified IP literals, and no
 *   `localhost`, `*.localhost`, `*.local` or single-label names.
 *
 * When the operator sets an allowlist (`CAIRN_PUSH_HOSTS`), it is the whole rule: a listed host
 * is allowed even if it is a LAN address (someone running their own push service on purpose),
 * and nothing else is. A public name whose DNS answers a private address is caught at connect
 * time instead (private-address-lookup.ts), on the address actually connected to.
 */

const PRIVATE_RANGES = (() => {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv4');
  }
  for (const [network, prefix] of [
    // ::/96 holds the unspecified and loopback addresses and the old IPv4-compatible form
    // (::a.b.c.d), which some stacks still route to the IPv4 host.
    ['::', 96],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv6');
  }
  return list;
})();

/** Why the companion will not send to `endpoint`, or null when it will. */
export function endpointProblem(endpoint: string, pushHosts: readonly string[]): string | null {
  // URL parsing would quietly percent-encode or drop these; a real push service never sends them.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(endpoint)) return 'must not contain control characters';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https: URL';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  const host = url.hostname.toLowerCase();
  if (pushHosts.length > 0) {
    return pushHosts.some((allowed) => hostMatches(host, allowed))
      ? null
      : `host ${host} is not in the allowed push services (CAIRN_PUSH_HOSTS: ${pushHosts.join(', ')})`;
  }
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  const family = isIP(literal);
  if (family !== 0) {
    return isPrivateAddress(literal, family)
      ? `host ${host} is a loopback/private address, not a push service (list it in CAIRN_PUSH_HOSTS to allow it)`
      : null;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) {
    return `host ${host} is a local name, not a push service (list it in CAIRN_PUSH_HOSTS to allow it)`;
  }
  if (!host.includes('.')) {
    return `host ${host} is a single-label (LAN) name, not a push service (list it in CAIRN_PUSH_HOSTS to allow it)`;
  }
  return null;
}

/** The endpoint's host, the only part of it that may be shown or logged. */
export function endpointHost(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'invalid';
  }
}

/** `*.example.com` matches any subdomain of example.com (not example.com itself). */
export function hostMatches(host: string, allowed: string): boolean {
  if (allowed.startsWith('*.'))
    return host.endsWith(allowed.slice(1)) && host.length > allowed.length - 1;
  return host === allowed;
}

/** True for loopback, private, link-local, CGNAT, multicast and unspecified addresses. */
export function isPrivateAddress(address: string, family: number): boolean {
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d, which URL writes as ::ffff:xxxx:xxxx) reaches the IPv4 host.
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
    if (mapped) {
      const high = Number.parseInt(mapped[1] ?? '0', 16);
      const low = Number.parseInt(mapped[2] ?? '0', 16);
      const v4 = [high >> 8, high & 255, low >> 8, low & 255].join('.');
      return PRIVATE_RANGES.check(v4, 'ipv4');
    }
    return PRIVATE_RANGES.check(address, 'ipv6');
  }
  return PRIVATE_RANGES.check(address, 'ipv4');
}
