import type { SqliteDatabase } from '../db/open';
import { OWNER_TOKEN_NAME, parseScopes } from './scopes';
import { PathRuleError, parsePathRules } from './path-rules';
import type { Scope, TokenIdentity } from './scopes';
import { generateToken, sha256 } from './token';

/** Token names: short, printable, no spaces, so `token revoke NAME` needs no quoting. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class TokenStoreError extends Error {
  override name = 'TokenStoreError';
  constructor(
    readonly code: 'VALIDATION_ERROR' | 'CONFLICT' | 'NOT_FOUND',
    message: string,
    /** The request field at fault when it is not the name (`paths`). */
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface StoredToken {
  readonly name: string;
  readonly scopes: Scope[];
  /** Folders the token is limited to (path rules, migration 015); absent = the whole vault. */
  readonly paths?: string[];
  /** Epoch ms. */
  readonly createdAt: number;
}

interface TokenRow {
  name: string;
  scopes: string;
  /** JSON array of folders, or null for the whole vault. */
  paths: string | null;
  created_at: number;
}

/**
 * Named, scoped tokens in the companion database (migration 007). The CLI writes them while
 * the server runs; the server looks the presented token's hash up on every request (a primary
 * key read, microseconds), so a new or revoked token takes effect on the next request with no
 * cache to invalidate.
 */
export class TokenStore {
  constructor(private readonly db: SqliteDatabase) {}

  /** Creates a token and returns it: the only time it exists outside the caller's hands. */
  create(
    name: string,
    scopes: readonly Scope[],
    now: number,
    paths?: readonly string[],
  ): { token: string; stored: StoredToken } {
    if (!NAME_PATTERN.test(name)) {
      throw new TokenStoreError(
        'VALIDATION_ERROR',
        `token name "${name}": use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      );
    }
    if (name === OWNER_TOKEN_NAME) {
      throw new TokenStoreError(
        'CONFLICT',
        `token name "${OWNER_TOKEN_NAME}" is reserved for the data folder's token (or CAIRN_TOKEN)`,
      );
    }
    if (scopes.length === 0)
      throw new TokenStoreError('VALIDATION_ERROR', 'a token needs at least one scope');
    let folders: string[] | undefined;
    try {
      folders = paths === undefined ? undefined : parsePathRules(paths);
    } catch (error) {
      if (error instanceof PathRuleError)
        throw new TokenStoreError('VALIDATION_ERROR', error.message, 'paths');
      throw error;
    }
    if (folders !== undefined && scopes.includes('sync')) {
      // Cairn Sync moves a device's whole vault; a sync token limited to folders would delete
      // the rest on the device.
      throw new TokenStoreError(
        'VALIDATION_ERROR',
        'a token limited to folders cannot have the sync scope (sync reads and writes the whole vault)',
        'paths',
      );
    }
    const token = generateToken();
    const scopeText = parseScopes(scopes.join(',')).join(',');
    const inserted = this.db
      .prepare(
        'INSERT INTO api_tokens (name, sha256, scopes, paths, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
      )
      .run(
        name,
        sha256(token),
        scopeText,
        folders === undefined ? null : JSON.stringify(folders),
        now,
      );
    if (inserted.changes === 0) {
      throw new TokenStoreError(
        'CONFLICT',
        `a token named "${name}" exists; revoke it first or pick another name`,
      );
    }
    return {
      token,
      stored: {
        name,
        scopes: parseScopes(scopeText),
        ...(folders === undefined ? {} : { paths: folders }),
        createdAt: now,
      },
    };
  }

  list(): StoredToken[] {
    const rows = this.db
      .prepare('SELECT name, scopes, paths, created_at FROM api_tokens ORDER BY name')
      .all() as TokenRow[];
    return rows.map(toStored);
  }

  /** Deletes the token; requests carrying it get 401 from then on. */
  revoke(name: string): void {
    const deleted = this.db.prepare('DELETE FROM api_tokens WHERE name = ?').run(name);
    if (deleted.changes === 0) throw new TokenStoreError('NOT_FOUND', `no token named "${name}"`);
  }

  /** The identity of a presented token's sha256, or undefined when no stored token matches. */
  identify(presentedSha256: Buffer): TokenIdentity | undefined {
    const row = this.db
      .prepare('SELECT name, scopes, paths, created_at FROM api_tokens WHERE sha256 = ?')
      .get(presentedSha256) as TokenRow | undefined;
    if (row === undefined) return undefined;
    const stored = toStored(row);
    return {
      tokenName: stored.name,
      scopes: stored.scopes,
      ...(stored.paths === undefined ? {} : { paths: stored.paths }),
    };
  }
}

function toStored(row: TokenRow): StoredToken {
  return {
    name: row.name,
    scopes: parseScopes(row.scopes),
    ...(row.paths === null ? {} : { paths: JSON.parse(row.paths) as string[] }),
    createdAt: row.created_at,
  };
}
