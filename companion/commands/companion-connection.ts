import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../shared/ports';
import { TOKEN_FILE } from '../auth/token';
import { CLIENT_HEADER } from '../audit/audit-hooks';
import { runningServer } from '../clients/server-file';
import type { CompanionConfig } from '../config';
import type { EmbeddingsConfig } from '../embeddings/provider';
import type { Logger } from '../logging';
import type { SummarizerConfig } from '../search/ollama-summarizer';
import type { SearchExclusionSettings } from '../search/search-exclusions';

/** An answer from the API, whoever gave it: status and parsed JSON body. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Where the command line's requests go. Both kinds speak the same HTTP API (same routes,
 * schemas, write path and audit log; the client is recorded as `cli`), so every command has
 * one implementation and `--json` prints the API's own shapes.
 */
export interface CompanionConnection {
  /** `server`: the companion running on this data folder; `local`: this process, no server. */
  readonly kind: 'server' | 'local';
  /** The running companion's URL, for `status`. */
  readonly url?: string;
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer>;
  close(): Promise<void>;
}

/** A failure to reach or open the companion (exit code 3), not an answer from it. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
}

export interface ConnectOptions {
  readonly config: CompanionConfig;
  /** `CAIRN_TOKEN`: presented to a running companion instead of the data folder's file. */
  readonly envToken: string | undefined;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Whether the command searches: then a local index loads the embedding model for queries. */
  readonly queries: boolean;
  readonly embeddings: EmbeddingsConfig;
  readonly searchExclusions: SearchExclusionSettings;
  readonly summarizer: SummarizerConfig | null;
}

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

export function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return cause ?? (error as Error).message;
}
