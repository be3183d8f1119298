import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../../shared/ports';
import { buildApp } from '../app';
import { TOKEN_FILE } from '../auth/token';
import { CLIENT_HEADER } from '../audit/audit-hooks';
import type { CompanionConfig } from '../config';
import { openDatabase } from '../db/open';
import { createEmbedder } from '../embeddings/provider';
import type { ClosableEmbedder, EmbeddingsConfig } from '../embeddings/provider';
import type { Logger } from '../logging';
import { ReadOnlyReminderPlan } from '../reminders';
import { VaultReminderSource } from '../reminders/vault-reminder-source';
import { VaultIndexer } from '../search';
import { indexAfterWrite } from '../search/index-after-write';
import { OllamaSummarizer } from '../search/ollama-summarizer';
import type { SummarizerConfig } from '../search/ollama-summarizer';
import {
  DEFAULT_SEARCH_EXCLUSION_SETTINGS,
  searchExclusionRules,
} from '../search/search-exclusions';
import type { SearchExclusionSettings } from '../search/search-exclusions';
import { DATABASE_FILE } from '../server';
import { VaultChangeFeed } from '../vault/change-feed';
import { VaultExcludes } from '../vault/exclude-settings';
import { COMPANION_VERSION } from '../version';
import { runningServer } from './mcp-command';

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

/**
 * No companion runs: the app is built in this process over the same data folder and vault,
 * and requests are `inject`ed into it. The vault is scanned once (no watcher) so the index
 * matches the files now; chunks it adds are embedded by the companion when it next runs, not
 * here. No scheduler runs: reminders are read and written through a `ReadOnlyReminderPlan`, so
 * nothing fires and the delivery state stays the companion's. The owner token of this app is a
 * random one that never leaves the process.
 */
async function openLocal(options: ConnectOptions): Promise<CompanionConnection> {
  const { config, logger, clock } = options;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  let db;
  try {
    db = openDatabase(join(config.dataDir, DATABASE_FILE));
  } catch (error) {
    throw new ConnectionError(`the index in ${config.dataDir} does not open: ${causeOf(error)}`);
  }
  const excludes = VaultExcludes.read(config.vault, [], logger);
  const feed = new VaultChangeFeed({
    vault: config.vault,
    db,
    logger,
    excludes,
    watch: false,
    rescanIntervalMs: 0,
  });
  const exclusions = searchExclusionRules(
    options.searchExclusions ?? DEFAULT_SEARCH_EXCLUSION_SETTINGS,
    { chats: config.folders.chats },
  );
  const indexer = new VaultIndexer({
    vault: config.vault,
    feed,
    db,
    clock,
    logger,
    excludes,
    semantic: {
      provider: options.embeddings.provider,
      reason: 'the command line embeds no notes; the running companion does',
    },
    searchExclusions: exclusions,
  });
  const reminderSource = new VaultReminderSource({
    vault: config.vault,
    defaultZone: config.timezone,
    logger,
    excludes,
  });
  let embedder: ClosableEmbedder | undefined;
  const closeAll = async () => {
    await indexer.close();
    await feed.close();
    await embedder?.close();
  };
  try {
    feed.start();
    await Promise.all([indexer.whenIdle(), reminderSource.load()]);
    if (options.queries) embedder = await queryEmbedder(indexer, options);
  } catch (error) {
    await closeAll();
    db.close();
    throw new ConnectionError(
      `the index in ${config.dataDir} could not be read: ${causeOf(error)}`,
    );
  }
  const token = randomBytes(32).toString('base64url');
  const app = await buildApp({
    config,
    db,
    clock,
    tokenSha256: createHash('sha256').update(token).digest(),
    version: COMPANION_VERSION,
    logger,
    status: { index: indexer },
    search: {
      index: () => indexer.queries,
      excludeFolders: exclusions.map((rule) => rule.folder),
      ...(options.summarizer ? { summarizer: new OllamaSummarizer(options.summarizer) } : {}),
    },
    reminderSource,
    reminderPlan: new ReadOnlyReminderPlan(db, reminderSource, clock),
    indexAfterWrite: indexAfterWrite(indexer),
    ...(embedder ? { embedder } : {}),
  });
  return {
    kind: 'local',
    async request(method, path, body) {
      const response = await app.inject({
        method,
        url: path,
        headers: { authorization: `Bearer ${token}`, [CLIENT_HEADER]: 'cli' },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
      return { status: response.statusCode, body: parseJson(response.body) };
    },
    async close() {
      await closeAll();
      await app.close(); // closes the database
    },
  };
}

/**
 * The embedding model for query vectors, when the index holds vectors a search could use;
 * loaded before the first query (a model still loading would make that search keyword-only).
 * Failing to load it leaves search keyword-only, as in the companion.
 */
async function queryEmbedder(
  indexer: VaultIndexer,
  options: ConnectOptions,
): Promise<ClosableEmbedder | undefined> {
  if (options.embeddings.provider === 'none' || indexer.queries.embeddingModel() === null) {
    return undefined;
  }
  let embedder: ClosableEmbedder | undefined;
  try {
    embedder = await createEmbedder(options.embeddings);
    await embedder.embed(['warm up']);
    return embedder;
  } catch (error) {
    options.logger.warn(
      { err: { message: causeOf(error) } },
      'embedding model unavailable; searching keywords only',
    );
    await embedder?.close();
    return undefined;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return cause ?? (error as Error).message;
}
