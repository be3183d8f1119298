import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN_FILE } from '../auth/token';
import { CLIENT_HEADER } from '../audit/audit-hooks';
import { runningServer } from '../clients/server-file';
import { ConnectionError, causeOf, parseJson } from './connection-shapes';
import type { CompanionConnection, ConnectOptions } from './connection-shapes';

/**
 * The companion running on this data folder (found as `mcp` finds it: `server.json` and a
 * `/health` answer), else the vault's index opened in this process (see `openLocal`).
 */
export async function connect(options: ConnectOptions): Promise<CompanionConnection> {
  const url = await runningServer(options.config.dataDir);
  if (url !== undefined) return serverConnection(url, ownerToken(options));
  // Only now the app, SQLite and the indexer: a command that finds the server never loads them.
  const { openLocal } = await import('./local-connection');
  return openLocal(options);
}

function ownerToken(options: ConnectOptions): string {
  if (options.envToken !== undefined) return options.envToken;
  const file = join(options.config.dataDir, TOKEN_FILE);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConnectionError(
      `a companion runs on ${options.config.dataDir} but its token file ${file} does not read ` +
        `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); set CAIRN_TOKEN`,
    );
  }
}

function serverConnection(url: string, token: string): CompanionConnection {
  return {
    kind: 'server',
    url,
    async request(method, path, body) {
      let response: Response;
      try {
        response = await fetch(new URL(path, url), {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            [CLIENT_HEADER]: 'cli',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        throw new ConnectionError(`the companion at ${url} did not answer: ${causeOf(error)}`);
      }
      const text = await response.text();
      return { status: response.status, body: parseJson(text) };
    },
    close: () => Promise.resolve(),
  };
}
