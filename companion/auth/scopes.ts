/**
 * Token scopes (docs/clients.md): `read` (search, answer, list), `write` (create or change notes,
 * reminders, memories; ingest), `admin` (tokens, audit), `sync` (Cairn Sync's routes under
 * `/api/v1/sync`, docs/sync.md: a device's whole vault, read and written).
 */
export const SCOPES = ['read', 'write', 'admin', 'sync'] as const;
export type Scope = (typeof SCOPES)[number];

/** What a token may do, as routes and tools see it (`request.cairnAuth`). */
export interface TokenIdentity {
  /** `owner` for the data folder's token file or `CAIRN_TOKEN`; else the name it was created with. */
  readonly tokenName: string;
  readonly scopes: readonly Scope[];
  /**
   * The folders the token is limited to (auth/path-rules.ts), without slashes at the ends;
   * absent = the whole vault.
   */
  readonly paths?: readonly string[];
}

/** Name shown for the token file / `CAIRN_TOKEN`, which has every scope. */
export const OWNER_TOKEN_NAME = 'owner';

export const OWNER_IDENTITY: TokenIdentity = { tokenName: OWNER_TOKEN_NAME, scopes: SCOPES };

export class ScopeError extends Error {
  override name = 'ScopeError';
}

/** Parses `read,write` (order and case free, no duplicates needed); throws naming the bad part. */
export function parseScopes(text: string): Scope[] {
  const parts = text
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  if (parts.length === 0)
    throw new ScopeError(`no scope given; use one or more of ${SCOPES.join(', ')}`);
  const unknown = parts.filter((part) => !(SCOPES as readonly string[]).includes(part));
  if (unknown.length > 0) {
    throw new ScopeError(`unknown scope "${unknown[0]}"; use one or more of ${SCOPES.join(', ')}`);
  }
  return SCOPES.filter((scope) => parts.includes(scope));
}

export function hasScope(identity: TokenIdentity, scope: Scope): boolean {
  return identity.scopes.includes(scope);
}

/** The 403 message (docs/clients.md: "…needs the write scope"). */
export function missingScopeMessage(what: string, scope: Scope, tokenName: string): string {
  return `${what} needs the ${scope} scope, which the token "${tokenName}" does not have`;
}
