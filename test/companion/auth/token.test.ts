import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_FILE, TokenError, loadOrCreateToken, sha256 } from '../../../companion/auth/token';
import { tempDir } from '../helpers/app';

let dir: { path: string; remove: () => void };
beforeEach(() => {
  dir = tempDir('token');
});
afterEach(() => dir.remove());

describe('loadOrCreateToken', () => {
  it('creates a 256-bit base64url token on first start, in a 0600 file', () => {
    const first = loadOrCreateToken(dir.path, undefined);
    expect(first.source).toBe('created');
    expect(first.createdToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = join(dir.path, TOKEN_FILE);
    expect(first.file).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.createdToken);
    expect(first.sha256.equals(sha256(first.createdToken ?? ''))).toBe(true);
  });

  it('reuses the stored token on the next start and does not reveal it again', () => {
    const first = loadOrCreateToken(dir.path, undefined);
    const second = loadOrCreateToken(dir.path, undefined);
    expect(second.source).toBe('file');
    expect(second.createdToken).toBeNull();
    expect(second.sha256.equals(first.sha256)).toBe(true);
  });

  it('--rotate-token replaces it', () => {
    const first = loadOrCreateToken(dir.path, undefined);
    const rotated = loadOrCreateToken(dir.path, undefined, { rotate: true });
    expect(rotated.source).toBe('created');
    expect(rotated.createdToken).not.toBe(first.createdToken);
    expect(rotated.sha256.equals(first.sha256)).toBe(false);
  });

  it('tightens a token file whose permissions were loosened', () => {
    loadOrCreateToken(dir.path, undefined);
    const file = join(dir.path, TOKEN_FILE);
    chmodSync(file, 0o644);
    loadOrCreateToken(dir.path, undefined);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('CAIRN_TOKEN wins and is never written to disk', () => {
    const token = 'an-env-token-that-is-long-enough';
    const result = loadOrCreateToken(dir.path, token);
    expect(result).toMatchObject({ source: 'env', file: null, createdToken: null });
    expect(result.sha256.equals(sha256(token))).toBe(true);
    expect(() => statSync(join(dir.path, TOKEN_FILE))).toThrow();
  });

  it.each([
    ['too short', 'short', /CAIRN_TOKEN: too short \(5 characters/],
    ['with a space', 'abcdefghij klmnopqrstuvwxyz', /CAIRN_TOKEN: contains characters/],
    ['with a newline', 'abcdefghijklmnopqrstuvwxyz\n', /CAIRN_TOKEN: contains characters/],
  ])('refuses a CAIRN_TOKEN %s', (_case, token, message) => {
    expect(() => loadOrCreateToken(dir.path, token)).toThrow(message);
  });

  it('names the file when the stored token is damaged', () => {
    writeFileSync(join(dir.path, TOKEN_FILE), 'oops\n', { mode: 0o600 });
    let error: unknown;
    try {
      loadOrCreateToken(dir.path, undefined);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TokenError);
    expect((error as Error).message).toContain(join(dir.path, TOKEN_FILE));
    expect((error as Error).message).toContain('--rotate-token');
  });
});
