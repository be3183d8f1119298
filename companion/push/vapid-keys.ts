import { ECDH, createECDH, randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import webPush from 'web-push';

/*
 * The VAPID key pair (RFC 8292) identifies this companion to push services; every browser
 * subscription is bound to its public key. Losing or replacing it silently breaks every paired
 * phone, so a damaged file stops the start with its name instead of being regenerated.
 *
 * Kept in a file with mode 0600 next to the API token rather than in the database: the database
 * is what people copy around for debugging and backups, and the private key signs for every
 * device (ASVS 13.3.1: secrets in an env var or a 0600 file).
 */

export const VAPID_KEYS_FILE = 'vapid-keys.json';

/**
 * Contact sent in every VAPID token. Apple's push service refuses `localhost`/`.local`
 * subjects (403 BadJwtToken), so the default is a resolvable address; operators set their own.
 */
export const DEFAULT_VAPID_SUBJECT = 'mailto:cairn-companion@users.noreply.github.com';

export interface VapidKeys {
  /** base64url, 65-byte uncompressed P-256 point: the browser's `applicationServerKey`. */
  readonly publicKey: string;
  /** base64url, 32 bytes. */
  readonly privateKey: string;
  /** `mailto:` or `https:` contact. */
  readonly subject: string;
}

export interface LoadedVapidKeys {
  readonly keys: VapidKeys;
  readonly file: string;
  readonly created: boolean;
}

export class VapidKeyError extends Error {
  override name = 'VapidKeyError';
}

interface StoredKeys {
  public_key: string;
  private_key: string;
  /** Optional: an operator may edit it in; `subject` passed at start wins. */
  subject?: string;
}

/**
 * Reads the key pair from `<dataDir>/vapid-keys.json`, creating it (mode 0600) on first start.
 * `subject` overrides the file's; otherwise the file's, else `DEFAULT_VAPID_SUBJECT`.
 */
export function loadOrCreateVapidKeys(
  dataDir: string,
  options: { subject?: string } = {},
): LoadedVapidKeys {
  const file = join(dataDir, VAPID_KEYS_FILE);
  if (options.subject !== undefined) {
    const problem = subjectProblem(options.subject);
    if (problem) throw new VapidKeyError(`push subject "${options.subject}": ${problem}`);
  }
  let stored = readKeysFile(file);
  let created = false;
  if (stored === null) {
    const generated = webPush.generateVAPIDKeys();
    const fresh: StoredKeys = {
      public_key: generated.publicKey,
      private_key: generated.privateKey,
    };
    created = writeNewKeysFile(file, fresh);
    // Another process won the race to create it: use theirs, or phones would disagree.
    stored = created ? fresh : readKeysFile(file);
    if (stored === null) throw new VapidKeyError(`${file}: vanished while being created`);
  }
  return {
    keys: {
      publicKey: stored.public_key,
      privateKey: stored.private_key,
      subject: options.subject ?? stored.subject ?? DEFAULT_VAPID_SUBJECT,
    },
    file,
    created,
  };
}

/** Why `subject` is not a usable VAPID contact, or null. */
export function subjectProblem(subject: string): string | null {
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    return 'not a URL; use mailto:you@example.com or https://your.site';
  }
  let host: string;
  if (url.protocol === 'mailto:') {
    const at = url.pathname.lastIndexOf('@');
    if (at <= 0 || at === url.pathname.length - 1) return 'a mailto: subject needs an address';
    host = url.pathname.slice(at + 1).toLowerCase();
  } else if (url.protocol === 'https:') {
    host = url.hostname.toLowerCase();
  } else {
    return 'must be a mailto: or https: URL (RFC 8292)';
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) {
    return `"${host}" is not a public name; Apple's push service rejects such subjects`;
  }
  return null;
}

function readKeysFile(file: string): StoredKeys | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new VapidKeyError(`${file}: cannot read the push keys: ${(error as Error).message}`);
  }
  const stored = parseKeys(file, text);
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return stored;
}

const REPAIR_HINT =
  'Restore it from a backup; deleting it creates new keys, and every phone must then allow notifications again.';

function parseKeys(file: string, text: string): StoredKeys {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new VapidKeyError(
      `${file}: not valid JSON (${(error as Error).message}). ${REPAIR_HINT}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new VapidKeyError(`${file}: expected a JSON object. ${REPAIR_HINT}`);
  }
  const record = value as Record<string, unknown>;
  const field = (name: string): string => {
    const entry = record[name];
    if (typeof entry !== 'string') {
      throw new VapidKeyError(
        `${file}: field "${name}" is missing or not a string. ${REPAIR_HINT}`,
      );
    }
    return entry;
  };
  const publicKey = field('public_key');
  const privateKey = field('private_key');
  const subject = record.subject;
  if (subject !== undefined) {
    if (typeof subject !== 'string') {
      throw new VapidKeyError(`${file}: field "subject" must be a string`);
    }
    const problem = subjectProblem(subject);
    if (problem) throw new VapidKeyError(`${file}: field "subject" "${subject}": ${problem}`);
  }
  const keyProblem = keyPairProblem(publicKey, privateKey);
  if (keyProblem) throw new VapidKeyError(`${file}: ${keyProblem}. ${REPAIR_HINT}`);
  return { public_key: publicKey, private_key: privateKey, ...(subject ? { subject } : {}) };
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Checks sizes and that the private key really produces the public key. */
function keyPairProblem(publicKey: string, privateKey: string): string | null {
  if (!BASE64URL.test(publicKey) || Buffer.from(publicKey, 'base64url').length !== 65) {
    return 'field "public_key" is not a base64url 65-byte P-256 public key';
  }
  if (!BASE64URL.test(privateKey) || Buffer.from(privateKey, 'base64url').length !== 32) {
    return 'field "private_key" is not a base64url 32-byte P-256 private key';
  }
  const ecdh = createECDH('prime256v1');
  try {
    ecdh.setPrivateKey(Buffer.from(privateKey, 'base64url'));
  } catch {
    return 'field "private_key" is not a valid P-256 private key';
  }
  const derived = ECDH.convertKey(
    ecdh.getPublicKey(),
    'prime256v1',
    undefined,
    undefined,
    'uncompressed',
  ) as Buffer;
  if (!derived.equals(Buffer.from(publicKey, 'base64url'))) {
    return 'fields "public_key" and "private_key" are not a pair';
  }
  return null;
}

/**
 * Creates the file with mode 0600, all or nothing: the keys go to a private temporary file that
 * is synced and then hard-linked into place (link fails if the name exists), so a crash never
 * leaves a half-written key file and two starting processes cannot both win.
 * False when another process created it first.
 */
function writeNewKeysFile(file: string, keys: StoredKeys): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(keys, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new VapidKeyError(`${file}: cannot create the push keys: ${(error as Error).message}`);
  } finally {
    rmSync(temporary, { force: true });
  }
}
