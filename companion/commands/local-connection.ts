import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../app';
import { CLIENT_HEADER } from '../audit/audit-hooks';
import { openDatabase } from '../db/open';
import { createEmbedder } from '../embeddings/provider';
import type { ClosableEmbedder } from '../embeddings/provider';
import { ReadOnlyReminderPlan } from '../reminders';
import { VaultReminderSource } from '../reminders/vault-reminder-source';
import { VaultIndexer } from '../search';
import { indexAfterWrite } from '../search/index-after-write';
import { OllamaSummarizer } from '../search/ollama-summarizer';
import {
  DEFAULT_SEARCH_EXCLUSION_SETTINGS,
  searchExclusionRules,
} from '../search/search-exclusions';
import { DATABASE_FILE } from '../server';
import { VaultChangeFeed } from '../vault/change-feed';
import { VaultExcludes } from '../vault/exclude-settings';
import { COMPANION_VERSION } from '../version';
import { ConnectionError, causeOf, parseJson } from './connection-shapes';
import type { CompanionConnection, ConnectOptions } from './connection-shapes';

/**
 * No companion runs: the app is built in this process over the same data folder and vault,
 * and requests are `inject`ed into it. The vault is scanned once (no watcher) so the index
 * matches the files now; chunks it adds are embedded by the companion when it next runs, not
 * here. No scheduler runs: reminders are read and written through a `ReadOnlyReminderPlan`, so
 * nothing fires and the delivery state stays the companion's. The owner token of this app is a
 * random one that never leaves the process.
 */
export async function openLocal(options: ConnectOptions): Promise<CompanionConnection> {
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
    // One or two requests per command: compiling all routes' schemas first cost about a second.
    compileSchemas: 'on-first-use',
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
