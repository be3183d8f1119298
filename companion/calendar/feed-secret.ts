import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
  fsyncSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The calendar feed's secret (docs/memory-digest-calendar.md): calendar apps cannot send an Authorization header,
 * so the path `/api/v1/calendar/<secret>.ics` is the credential, and it grants this feed only.
 * It lives in the data folder (mode 0600, like the API token), is created on first use, and
 * `calendar-url --rotate` replaces it atomically. The server reads the file at each request, so
 * a rotation by the CLI while the server runs takes effect at once: the old URL gets 404.
 */
export const FEED_SECRET_FILE = 'calendar-feed-secret';

const SECRET_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;

export function feedSecretPath(dataDir: string): string {
  return join(dataDir, FEED_SECRET_FILE);
}

/** The current secret, or undefined when none was made yet (or the file is unreadable/odd). */
export function readFeedSecret(dataDir: string): string | undefined {
  try {
    const text = readFileSync(feedSecretPath(dataDir), 'utf8').trim();
    return SECRET_PATTERN.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The current secret, made (256 bits, base64url) and stored when there is none or `rotate`. */
export function loadOrCreateFeedSecret(
  dataDir: string,
  options: { rotate?: boolean } = {},
): string {
  const existing = options.rotate === true ? undefined : readFeedSecret(dataDir);
  if (existing !== undefined) return existing;
  const secret = randomBytes(32).toString('base64url');
  const target = feedSecretPath(dataDir);
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${secret}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, target);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
  return secret;
}

/** Whether `candidate` is the current secret, compared in constant time (hashes of both). */
export function feedSecretMatches(dataDir: string, candidate: string): boolean {
  const current = readFeedSecret(dataDir);
  if (current === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(current), digest(candidate));
}
