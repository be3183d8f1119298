/**
 * Checks for the values a user types into settings. Each returns a message meant for the
 * settings tab, or a normalised value; none throws.
 */

export type UrlCheck = { ok: true; url: string; host: string } | { ok: false; message: string };

/**
 * An http(s) base URL with no credentials in it; a missing scheme means http. The result
 * has no trailing slash so callers can append `/api/v1/...` without doubling it.
 */
export function checkHttpUrl(value: string): UrlCheck {
  const trimmed = value.trim();
  if (trimmed === '') return { ok: false, message: 'Enter a URL, e.g. http://192.168.1.20:8787.' };
  // `192.168.1.20:8787` and `localhost:8787` mean http://…; without this, URL() would read
  // `localhost:` as a scheme.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    return { ok: false, message: `"${trimmed}" is not a URL; include the scheme, e.g. http://…` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return {
      ok: false,
      message: `Only http:// and https:// are supported, not ${parsed.protocol}//.`,
    };
  }
  // Credentials in a URL end up in logs and history; the token has its own field.
  if (parsed.username !== '' || parsed.password !== '') {
    return {
      ok: false,
      message: 'Remove the user name/password from the URL; use the token field.',
    };
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    return { ok: false, message: 'The URL must not contain a query (?…) or fragment (#…).' };
  }
  const url = `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
  return { ok: true, url, host: stripBrackets(parsed.hostname) };
}

/**
 * The built-in model's download URL (`embeddings.modelDownloadUrl`): https, or http only for a
 * host on this device or the local network, where a certificate is rarely at hand. Anything
 * else could be tampered with on the way (the SHA-256 check would refuse it, but late).
 * The result keeps its trailing slash off, like checkHttpUrl's.
 */
export function checkModelDownloadUrl(value: string): UrlCheck {
  const field = 'Model download URL';
  if (value.trim() === '') {
    return { ok: false, message: `${field}: enter a URL, e.g. https://example.org/cairn/.` };
  }
  const checked = checkHttpUrl(value);
  if (!checked.ok) return { ok: false, message: `${field}: ${checked.message}` };
  if (checked.url.startsWith('http:') && classifyHost(checked.host) === 'public') {
    return {
      ok: false,
      message: `${field}: use https:// for ${checked.host}; http:// is allowed only for this device and your local network.`,
    };
  }
  return checked;
}

export type HostScope = 'loopback' | 'private' | 'public';

/**
 * Where a host lives, judged from its name alone (no DNS lookup: settings are checked
 * as the user types, and offline mode must not itself cause network traffic).
 */
export function classifyHost(host: string): HostScope {
  const name = stripBrackets(host).toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  const ipv4 = parseIpv4(name);
  if (ipv4) return classifyIpv4(ipv4);
  if (name.includes(':')) return classifyIpv6(name);
  // A single-label name (`nas`, `homeserver`) only resolves on the local network.
  if (!name.includes('.')) return 'private';
  if (PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return 'private';
  return 'public';
}

/**
 * Suffixes reserved for, or only resolvable inside, a home network. `.ts.net` names are
 * Tailscale MagicDNS addresses inside the user's own tailnet.
 */
const PRIVATE_SUFFIXES = ['.local', '.lan', '.home.arpa', '.internal', '.ts.net'];

function parseIpv4(name: string): [number, number, number, number] | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  if (!match) return null;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return null;
  const [a = 0, b = 0, c = 0, d = 0] = octets;
  return [a, b, c, d];
}

function classifyIpv4([a, b]: [number, number, number, number]): HostScope {
  if (a === 127) return 'loopback';
  if (a === 10) return 'private';
  if (a === 172 && b >= 16 && b <= 31) return 'private';
  if (a === 192 && b === 168) return 'private';
  if (a === 169 && b === 254) return 'private';
  // 100.64.0.0/10: carrier-grade NAT space, which Tailscale uses for tailnet addresses.
  if (a === 100 && b >= 64 && b <= 127) return 'private';
  return 'public';
}

function classifyIpv6(name: string): HostScope {
  if (name === '::1') return 'loopback';
  const first = name.split(':')[0] ?? '';
  const leading = first === '' ? 0 : parseInt(first, 16);
  if ((leading & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((leading & 0xffc0) === 0xfe80) return 'private'; // fe80::/10 link local
  return 'public';
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** A message when offline mode forbids contacting this URL, or null when it may be contacted. */
export function offlineModeViolation(url: string, offlineMode: boolean): string | null {
  if (!offlineMode) return null;
  const checked = checkHttpUrl(url);
  if (!checked.ok) return null;
  if (classifyHost(checked.host) !== 'public') return null;
  return `Offline mode only contacts this device and your local network; ${checked.host} looks like an internet host. Turn offline mode off to use it.`;
}

export function isValidTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  // The first Intl.DateTimeFormat a process creates loads ICU's calendar and zone data (20–90 ms
  // measured in Node), and the plugin checks the stored zone while it loads. The runtime's list
  // of canonical zones answers for nearly every real setting at a fraction of that; only names
  // not on it (aliases such as US/Eastern, or typos) are tried on a DateTimeFormat.
  if (zone === 'UTC' || canonicalTimeZones().has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

let canonicalZones: ReadonlySet<string> | null = null;

/** Every zone name `Intl.supportedValuesOf` lists (empty where the runtime predates it). */
function canonicalTimeZones(): ReadonlySet<string> {
  if (!canonicalZones) {
    const intl = Intl as { supportedValuesOf?: (key: 'timeZone') => string[] };
    canonicalZones = new Set(intl.supportedValuesOf?.('timeZone') ?? []);
  }
  return canonicalZones;
}

/** Every IANA zone name the runtime knows, for the settings' zone suggestions. */
export function timeZoneNames(): string[] {
  return [...canonicalTimeZones()];
}

/** The zone of the machine Obsidian runs on, or UTC where the runtime does not say. */
export function systemTimeZone(): string {
  const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && isValidTimeZone(zone) ? zone : 'UTC';
}

export type FolderCheck = { ok: true; folder: string } | { ok: false; message: string };

/** A vault-relative folder: forward slashes, no leading/trailing slash, no `..` or `.obsidian`. */
export function checkVaultFolder(value: string): FolderCheck {
  const folder = value
    .trim()
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .replace(/^\/+|\/+$/g, '');
  if (folder === '') return { ok: false, message: 'Enter a folder inside the vault.' };
  const segments = folder.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.')) {
    return { ok: false, message: `"${value}" must stay inside the vault (no "." or ".." parts).` };
  }
  if (segments[0]?.startsWith('.')) {
    return { ok: false, message: `"${value}" is a hidden folder; Obsidian does not index it.` };
  }
  return { ok: true, folder };
}

/** Shows enough of a token to recognise it, never enough to use it. */
export function maskToken(token: string): string {
  if (token === '') return 'not set';
  if (token.length <= 8) return '•'.repeat(token.length);
  return `${'•'.repeat(8)}${token.slice(-4)}`;
}

/**
 * The sync device name (docs/sync.md): empty (a default is used), else 1–64 characters without
 * control characters, and not `server`, the companion's own name for its disk's changes.
 */
export function checkDeviceName(
  value: string,
): { ok: true; name: string } | { ok: false; message: string } {
  const name = value.trim();
  if (name.length > 64) return { ok: false, message: 'A device name has at most 64 characters.' };
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\x00-\x1f\x7f]/.test(name)) {
    return { ok: false, message: 'A device name cannot contain control characters.' };
  }
  if (name.toLowerCase() === 'server') {
    return { ok: false, message: '"server" is the companion\'s own name; choose another.' };
  }
  return { ok: true, name };
}
