import { join } from 'node:path';
import { ScopeError, parseScopes } from '../auth/scopes';
import { PathRuleError, describePathRules, parsePathRules } from '../auth/path-rules';
import { TokenStore, TokenStoreError } from '../auth/token-store';
import { openDatabase } from '../db/open';
import { DATABASE_FILE } from '../server';

export const TOKEN_USAGE = `Usage:
  cairn-companion token create --name NAME --scope read[,write][,admin] [--paths Work/[,Other/]] --vault <path> [--data <path>]
  cairn-companion token list --vault <path> [--data <path>]
  cairn-companion token revoke NAME --vault <path> [--data <path>]

Tokens live in the companion's database; a running companion sees a new or revoked token on
its next request (no restart). The token itself is printed once, by create. --paths limits the
token to those vault folders: it finds, reads and writes nothing outside them.
`;

export interface TokenCommandIo {
  out(text: string): void;
  err(text: string): void;
  now(): number;
}

/**
 * `cairn-companion token …` (docs/clients.md). Returns the exit code: 0 done, 1 refused (name taken,
 * unknown name), 2 usage.
 */
export function runTokenCommand(
  positionals: readonly string[],
  flags: { name?: string; scope?: string; paths?: string },
  dataDir: string,
  io: TokenCommandIo,
): number {
  const [action, ...rest] = positionals;
  const usage = (problem: string) => {
    io.err(`cairn-companion token: ${problem}\n${TOKEN_USAGE}`);
    return 2;
  };
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    return usage(action === undefined ? 'missing action' : `unknown action "${action}"`);
  }
  let scopes: ReturnType<typeof parseScopes> = [];
  if (action === 'create') {
    if (flags.name === undefined) return usage('create needs --name NAME');
    if (flags.scope === undefined)
      return usage('create needs --scope (read, write, admin, sync; comma-separated)');
    try {
      scopes = parseScopes(flags.scope);
    } catch (error) {
      if (error instanceof ScopeError) return usage(`--scope: ${error.message}`);
      throw error;
    }
  }
  let paths: string[] | undefined;
  if (flags.paths !== undefined) {
    if (action !== 'create') return usage('--paths is for create');
    try {
      paths = parsePathRules(flags.paths);
    } catch (error) {
      if (error instanceof PathRuleError) return usage(`--paths: ${error.message}`);
      throw error;
    }
  }
  const revokeName = rest[0] ?? flags.name;
  if (action === 'revoke' && revokeName === undefined) return usage('revoke needs the token NAME');

  const db = openDatabase(join(dataDir, DATABASE_FILE));
  try {
    const store = new TokenStore(db);
    switch (action) {
      case 'create': {
        const { token, stored } = store.create(flags.name as string, scopes, io.now(), paths);
        const limited =
          stored.paths === undefined ? '' : `, only ${describePathRules(stored.paths)}`;
        io.out(
          `Token "${stored.name}" (${stored.scopes.join(', ')}${limited}); shown only now, store it safely:\n${token}\n`,
        );
        return 0;
      }
      case 'list': {
        const tokens = store.list();
        const lines = [
          'owner\tread, write, admin, sync\t(the token file in the data folder, or CAIRN_TOKEN)',
          ...tokens.map(
            (t) =>
              `${t.name}\t${t.scopes.join(', ')}${t.paths === undefined ? '' : `\tonly ${describePathRules(t.paths)}`}\tcreated ${new Date(t.createdAt).toISOString()}`,
          ),
        ];
        io.out(`${lines.join('\n')}\n`);
        return 0;
      }
      case 'revoke':
        store.revoke(revokeName as string);
        io.out(`Revoked "${revokeName}".\n`);
        return 0;
    }
  } catch (error) {
    if (error instanceof TokenStoreError) {
      io.err(`cairn-companion token: ${error.message}\n`);
      return error.code === 'VALIDATION_ERROR' ? 2 : 1;
    }
    throw error;
  } finally {
    db.close();
  }
}
