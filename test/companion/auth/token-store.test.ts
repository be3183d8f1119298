import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownerThenStored } from '../../../companion/auth/require-token';
import { TokenStore } from '../../../companion/auth/token-store';
import { parseScopes } from '../../../companion/auth/scopes';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import { tempDir } from '../helpers/app';

let dir: ReturnType<typeof tempDir>;
let db: SqliteDatabase;
beforeEach(() => {
  dir = tempDir('tokens');
  db = openDatabase(join(dir.path, 'cairn.db'));
});
afterEach(() => {
  db.close();
  dir.remove();
});

describe('TokenStore', () => {
  it('stores only the hash and identifies the token by it', () => {
    const store = new TokenStore(db);
    const { token, stored } = store.create('laptop', ['write', 'read'], 1000);
    expect(stored).toEqual({ name: 'laptop', scopes: ['read', 'write'], createdAt: 1000 });
    const row = db.prepare('SELECT * FROM api_tokens').get() as Record<string, unknown>;
    expect(JSON.stringify(row)).not.toContain(token);
    expect(store.identify(sha256(token))).toEqual({
      tokenName: 'laptop',
      scopes: ['read', 'write'],
    });
    expect(store.identify(sha256('something else entirely'))).toBeUndefined();
  });

  it('refuses a taken name, the reserved owner name and names with spaces', () => {
    const store = new TokenStore(db);
    store.create('laptop', ['read'], 0);
    expect(() => store.create('laptop', ['read'], 0)).toThrow(/exists; revoke it first/);
    expect(() => store.create('owner', ['read'], 0)).toThrow(/reserved/);
    expect(() => store.create('my laptop', ['read'], 0)).toThrow(/token name "my laptop"/);
  });

  it('revokes by name; an unknown name is NOT_FOUND', () => {
    const store = new TokenStore(db);
    const { token } = store.create('laptop', ['read'], 0);
    store.revoke('laptop');
    expect(store.identify(sha256(token))).toBeUndefined();
    expect(() => store.revoke('laptop')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('the owner token resolves first, with every scope', () => {
    const resolver = ownerThenStored(sha256('the-owner-token-000000000'), new TokenStore(db));
    expect(resolver.identify(sha256('the-owner-token-000000000'))).toEqual({
      tokenName: 'owner',
      scopes: ['read', 'write', 'admin', 'sync'],
    });
  });
});

describe('parseScopes', () => {
  it('reads a comma list in any order and case, and names an unknown scope', () => {
    expect(parseScopes(' Write,read ')).toEqual(['read', 'write']);
    expect(() => parseScopes('read,root')).toThrow('unknown scope "root"');
    expect(() => parseScopes(',')).toThrow(/no scope given/);
  });
});
