import type { Clock } from '../../shared/ports';
import type { CompanionConfig } from '../config';
import type { EmbeddingsConfig } from '../embeddings/provider';
import type { Logger } from '../logging';
import type { SummarizerConfig } from '../search/ollama-summarizer';
import type { SearchExclusionSettings } from '../search/search-exclusions';

// What the command line's two connections (companion-connection.ts: the running server;
// local-connection.ts: the app in this process) share, apart from either.

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
