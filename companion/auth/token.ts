import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, openSync, readFileSync, statSync, writeSync, closeSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** File in the data directory that holds the API token (mode 0600). */
export const TOKEN_FILE = 'token';

/** Shortest `CAIRN_TOKEN` accepted: 128 bits of base64url, ASVS 7.2.3's floor. */
export const MIN_TOKEN_LENGTH = 22;

const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]+$/;

export interface ApiToken {
  /** sha256 of the token: the only form the server keeps for comparing. */
  readonly sha256: Buffer;
  /** Where it came from, for the start-up message. */
  readonly source: 'env' | 'file' | 'created';
  /** Path of the token file, or null when it came from `CAIRN_TOKEN`. */
  readonly file: string | null;
  /** The token itself, only when it was just created (to print it once); otherwise null. */
  readonly createdToken: string | null;
}

/** A token that cannot be used: `usage` when the user's own setting (CAIRN_TOKEN) is wrong. */
export class TokenError extends Error {
  override name = 'TokenError';
  constructor(
    message: string,
    readonly source: 'usage' | 'file' = 'file',
  ) {
    super(message);
  }
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** 256 bits from the CSPRNG, base64url (43 characters, no padding). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Checks a token supplied by the user (`CAIRN_TOKEN`); returns an error message or null. */
export function tokenProblem(token: string): string | null {
  if (token.length < MIN_TOKEN_LENGTH) {
    return `too short (${token.length} characters; at least ${MIN_TOKEN_LENGTH}, e.g. from \`openssl rand -base64 32\`)`;
  }
  if (!TOKEN_PATTERN.test(token)) {
    return 'contains characters other than letters, digits and - . _ ~ + / = (no spaces or newlines)';
  }
  return null;
}

/**
 * Finds the API token: `CAIRN_TOKEN` when set (never written to disk), else the token file
 * in the data directory, else a new random token written there with mode 0600.
 *
 * A single long-lived token is a known deviation from ASVS 7.2.2 (static API secrets); it is
 * 256 bits from the CSPRNG, only its hash is kept in memory, and `--rotate-token` replaces it.
 */
export function loadOrCreateToken(
  dataDir: string,
  envToken: string | undefined,
  options: { rotate?: boolean } = {},
): ApiToken {
  if (envToken !== undefined) {
    const problem = tokenProblem(envToken);
    if (problem) throw new TokenError(`CAIRN_TOKEN: ${problem}`, 'usage');
    return { sha256: sha256(envToken), source: 'env', file: null, createdToken: null };
  }
  const file = join(dataDir, TOKEN_FILE);
  if (options.rotate) rmSync(file, { force: true });
  const existing = readTokenFile(file);
  if (existing !== null) {
    return { sha256: sha256(existing), source: 'file', file, createdToken: null };
  }
  const token = generateToken();
  writeNewTokenFile(file, token);
  return { sha256: sha256(token), source: 'created', file, createdToken: token };
}

function readTokenFile(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new TokenError(`${file}: cannot read the token file: ${(error as Error).message}`);
  }
  // Someone may have edited the file by hand; a trailing newline is theirs, not the token's.
  const token = text.trim();
  const problem = tokenProblem(token);
  if (problem) {
    throw new TokenError(
      `${file}: the stored token is ${problem}. Delete the file (or start with --rotate-token) to create a new one.`,
    );
  }
  // Tighten permissions a copy or an unpack may have loosened (like ssh, but fixing, not refusing).
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return token;
}

function writeNewTokenFile(file: string, token: string): void {
  // 'wx': create exclusively, with the mode set at creation, so the secret is never readable
  // by others, not even for the moment between write and chmod.
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
}
