/**
 * The Cairn Sync pairing link (docs/sync.md "Pairing"): what the companion (`cairn-companion
 * pair`, `POST /api/v1/sync/devices`) hands a new device, as a QR code or text. It opens
 * Obsidian's "Pair this device" through Obsidian's own URI scheme, carrying the companion's
 * address, a token made for this one device (scope `sync`, revocable by name) and the device's
 * name:
 *
 *   obsidian://cairn-sync-pair?url=https%3A%2F%2Fnas.tail1234.ts.net&device=Pixel%208&token=…
 *
 * Pure: the companion builds it, the plugin reads it, tests check both.
 */
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { checkDeviceName, checkHttpUrl, classifyHost } from '../settings/validation';
import { IsoInstant } from './formats';
import { SyncDeviceName, SyncFileId } from './sync';

/** The Obsidian URI action the plugin registers (`obsidian://cairn-sync-pair?…`). */
export const SYNC_PAIR_ACTION = 'cairn-sync-pair';

export interface SyncPairing {
  /** The companion's base URL, without a trailing slash. */
  readonly url: string;
  readonly token: string;
  readonly device: string;
}

export type SyncPairingParse =
  | { readonly ok: true; readonly pairing: SyncPairing }
  | { readonly ok: false; readonly message: string };

export function syncPairingLink(pairing: SyncPairing): string {
  const query = [
    ['url', pairing.url.replace(/\/+$/, '')],
    ['device', pairing.device],
    ['token', pairing.token],
  ]
    .map(([name, value]) => `${name}=${encodeURIComponent(value ?? '')}`)
    .join('&');
  return `obsidian://${SYNC_PAIR_ACTION}?${query}`;
}

/**
 * A link's query as name → value (the first of a repeated name wins). shared/ has no DOM or
 * Node types, so no URLSearchParams; `+` is read as a space, as form encoding writes it.
 */
function queryParams(query: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const decode = (text: string) => {
      try {
        return decodeURIComponent(text.replace(/\+/g, ' '));
      } catch {
        return text; // a stray % is kept as typed; the checks below name what is wrong
      }
    };
    const name = decode(equals < 0 ? part : part.slice(0, equals));
    if (!params.has(name)) params.set(name, decode(equals < 0 ? '' : part.slice(equals + 1)));
  }
  return params;
}

/**
 * Reads a pairing link as the user pasted it (whitespace around it, the `obsidian://` link, or
 * the parameters Obsidian hands a URI handler). Every problem is said in words naming the part.
 */
export function parseSyncPairingLink(text: string): SyncPairingParse {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, message: 'Paste the pairing link first.' };
  const prefix = `obsidian://${SYNC_PAIR_ACTION}?`;
  if (!trimmed.toLowerCase().startsWith(prefix)) {
    if (/#token=/.test(trimmed)) {
      return {
        ok: false,
        message:
          'That is the phone page link (it opens the companion in a browser). For sync, make a pairing link with "cairn-companion pair --name DEVICE" or from a paired device.',
      };
    }
    return {
      ok: false,
      message: `A pairing link starts with ${prefix}; make one with "cairn-companion pair --name DEVICE".`,
    };
  }
  const query = queryParams(trimmed.slice(prefix.length));
  return syncPairingFromParams({
    url: query.get('url') ?? undefined,
    token: query.get('token') ?? undefined,
    device: query.get('device') ?? undefined,
  });
}

/** The parameters of a pairing link (from the text, or from Obsidian's URI handler). */
export function syncPairingFromParams(params: {
  url?: string | undefined;
  token?: string | undefined;
  device?: string | undefined;
}): SyncPairingParse {
  const url = checkHttpUrl(params.url ?? '');
  if ((params.url ?? '').trim() === '' || !url.ok) {
    return {
      ok: false,
      message: `The link's url is ${url.ok ? 'missing' : `not usable: ${url.message}`}`,
    };
  }
  const token = (params.token ?? '').trim();
  if (token === '' || /\s/.test(token)) {
    return { ok: false, message: "The link's token is missing or broken; make a new link." };
  }
  const device = checkDeviceName(params.device ?? '');
  if (!device.ok) return { ok: false, message: `The link's device name: ${device.message}` };
  if (device.name === '') return { ok: false, message: "The link's device name is missing." };
  return { ok: true, pairing: { url: url.url, token, device: device.name } };
}

/** How safe the companion's address is for sync traffic (notes travel in it). */
export type SyncAddressCheck =
  | { readonly level: 'ok' }
  /** Plain http to this very device: nothing leaves it. */
  | { readonly level: 'loopback' }
  /** Plain http to another machine: readable on the way, and iOS may refuse it. */
  | { readonly level: 'plain-http'; readonly message: string };

export function checkSyncAddress(url: string): SyncAddressCheck {
  const checked = checkHttpUrl(url);
  if (!checked.ok) return { level: 'plain-http', message: checked.message };
  if (checked.url.startsWith('https:')) return { level: 'ok' };
  if (classifyHost(checked.host) === 'loopback') return { level: 'loopback' };
  return {
    level: 'plain-http',
    message: `${checked.url} is plain http: your notes would cross the network unencrypted, and iPhones refuse it. Give the companion an HTTPS address with a certificate the phone trusts: with Tailscale, "tailscale serve --bg 8787" gives https://<machine>.<tailnet>.ts.net; or put Caddy in front ("caddy reverse-proxy --from notes.example.org --to localhost:8787"). Then pair again with that address.`,
  };
}

/** Token names allow `[A-Za-z0-9._-]`: a device's token is `sync-` and its name made to fit. */
export function syncTokenName(device: string): string {
  const slug = device
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '')
    .slice(0, 52);
  return `sync-${slug === '' ? 'device' : slug}`;
}

/** `POST /api/v1/sync/devices` (admin scope): a token for a new device and its pairing link. */
export const SyncPairRequest = Type.Object(
  {
    device: SyncDeviceName(),
    /** The address the device will reach the companion at; default: the one this request used. */
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  },
  { additionalProperties: false },
);
export type SyncPairRequest = Static<typeof SyncPairRequest>;

export const SyncPairResponse = Type.Object({
  device: Type.String(),
  token_name: Type.String(),
  /** Shown once: the companion keeps only its hash. */
  token: Type.String(),
  url: Type.String(),
  link: Type.String(),
  /** The link as an SVG QR code, for a screen to show. */
  qr_svg: Type.String(),
  /** Set when `url` is plain http to another machine: what to do about it. */
  warning: Type.Optional(Type.String()),
});
export type SyncPairResponse = Static<typeof SyncPairResponse>;

/** `POST /api/v1/sync/restore`: deleted files back, or files as they were at a time. */
export const SyncRestoreRequest = Type.Object(
  {
    device: SyncDeviceName(),
    /** Deleted files to bring back (their last version), by `file_id` (from `GET trash`). */
    file_ids: Type.Optional(Type.Array(SyncFileId(), { minItems: 1, maxItems: 10000 })),
    /** A folder ("" = the whole vault) to put back as it was at `at`. */
    folder: Type.Optional(Type.String({ maxLength: 1024 })),
    /** ISO 8601 time for `folder`. */
    at: Type.Optional(IsoInstant()),
  },
  { additionalProperties: false },
);
export type SyncRestoreRequest = Static<typeof SyncRestoreRequest>;

/**
 * `POST /api/v1/sync/unpair` (sync scope): the device leaves. The companion forgets its synced
 * bases (history it kept for that device may be pruned as usual) and revokes the token the
 * request came with, unless that is the owner token, which the companion itself stands on.
 */
export const SyncUnpairRequest = Type.Object(
  { device: SyncDeviceName() },
  { additionalProperties: false },
);
export type SyncUnpairRequest = Static<typeof SyncUnpairRequest>;

export const SyncUnpairResponse = Type.Object({
  device: Type.String(),
  /** The token the request came with. */
  token_name: Type.String(),
  /** False for the owner token: it stays; revoke device tokens only. */
  token_revoked: Type.Boolean(),
});
export type SyncUnpairResponse = Static<typeof SyncUnpairResponse>;
