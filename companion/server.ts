import { mkdirSync, readFileSync } from 'node:fs';
import { DEFAULT_DIGEST_FOLDER, DEFAULT_DIGEST_SCHEDULE } from '../shared/digest';
import { DigestService } from './digest/digest-service';
import { DigestStore } from './digest/digest-store';
import type { Agent } from 'node:https';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../shared/ports';
import { buildApp } from './app';
import type { AppDeps } from './app';
import { defaultWebRoot } from './http/phone-page-routes';
import { loadOrCreateToken } from './auth/token';
import type { ApiToken } from './auth/token';
import type { CompanionConfig } from './config';
import { openDatabase } from './db/open';
import { registerEmbedderMetrics } from './embeddings/embedder-metrics';
import { createEmbedder } from './embeddings/provider';
import {
  DEFAULT_SEARCH_EXCLUSION_SETTINGS,
  searchExclusionRules,
} from './search/search-exclusions';
import type { SearchExclusionSettings } from './search/search-exclusions';
import type { ClosableEmbedder, EmbeddingsConfig } from './embeddings/provider';
import { SettingsStore } from './db/settings';
import { registerIndexMetrics, VaultIndexer } from './search';
import { VaultChangeFeed } from './vault/change-feed';
import { VaultExcludes, watchExcludeGlobs } from './vault/exclude-settings';
import { MetricsRegistry } from './metrics/registry';
import type { Logger } from './logging';
import { createPushService } from './push/push-service';
import { OllamaSummarizer } from './search/ollama-summarizer';
import { MemoryService } from './memory';
import { summarizeMemoriesWithModel } from '../shared/memory';
import { fetchOllamaHttp } from './chat/fetch-ollama-http';
import type { SummarizerConfig } from './search/ollama-summarizer';
import type { PushService } from './push/push-service';
import { loadOrCreateVapidKeys } from './push/vapid-keys';
import { ReminderScheduler } from './reminders/scheduler';
import { connectVaultReminders, VaultReminderSource } from './reminders/vault-reminder-source';
import { indexAfterWrite } from './search/index-after-write';
import { removeLeftoverTemps } from './vault/leftover-temps';
import { COMPANION_VERSION } from './version';
import { collectStartupGarbage } from './idle-gc';
import { removeServerFile, writeServerFile } from './clients/server-file';
import { assertVaultFree, lockDataFolder, registerDataFolder } from './data-folders';
import { SyncService } from './sync';
import { TaskFeature } from './tasks';
import type { OllamaModel } from './clients/openai-turn';

export const DATABASE_FILE = 'cairn.db';

/** A slow client may take this long to send its headers and body (uploads are up to 50 MB). */
const REQUEST_TIMEOUT_MS = 120_000;
/** Idle keep-alive connections are dropped after this; it must exceed typical proxy idle times. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How long `stop()` waits for in-flight requests and open streams before giving up. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** Missed occurrences a digest looks through for the week it covers. */
const MISSED_FOR_DIGEST = 10_000;

export interface StartOptions {
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * The data-folder registry (data-folders.ts) to check and record in; none when absent
   * (tests). The CLI passes the user's.
   */
  readonly registryFile?: string;
  /** `CAIRN_TOKEN`, if set. */
  readonly envToken?: string;
  readonly rotateToken?: boolean;
  /** The embedding provider to start; absent, the companion runs without one (keyword-only). */
  readonly embeddings?: EmbeddingsConfig;
  /** Whether chats and digests are search sources (`searchExclusionSettingsFromEnv`); default no. */
  readonly searchExclusions?: SearchExclusionSettings;
  /** An Ollama chat model for `summarize` answers (`summarizerConfigFromEnv`); absent = quotes only. */
  readonly summarizer?: SummarizerConfig | null;
  /** `CAIRN_OLLAMA_VISION_MODEL` (`visionConfigFromEnv`): images in `/v1/chat/completions`. */
  readonly vision?: OllamaModel | null;
  /** `CAIRN_MEMORY_MODEL*` (`memoryModelConfigFromEnv`): memory categories and link summaries. */
  readonly memoryModel?: AppDeps['memoryModel'];
  /** Folder of the built phone page; defaults to `web/` beside the running bundle. */
  readonly webRoot?: string;
  /** VAPID contact (`mailto:` or `https:`); absent, the key file's or a default (push/vapid-keys.ts). */
  readonly pushSubject?: string;
  /**
   * Outgoing TLS for push; absent, Node's default (its CA store + NODE_EXTRA_CA_CERTS, read at
   * process start). In-process tests pass one trusting their local push service.
   */
  readonly pushAgent?: Agent;
}

export interface RunningServer {
  readonly app: FastifyInstance;
  /** Base URL actually listened on, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly token: ApiToken;
  readonly databaseFile: string;
  /** What changed in the vault: the index, reminders and sync follow it. */
  readonly feed: VaultChangeFeed;
  /** Keeps the index in step with the vault (a subscriber of `feed`). */
  readonly indexer: VaultIndexer;
  /** Push subscriptions and the sender (`push.sender` is the scheduler's `ReminderDeliverer`). */
  readonly push: PushService;
  /** Fires the vault's reminders through `push`; follows the indexer's changes. */
  readonly scheduler: ReminderScheduler;
  /** Stops accepting connections, waits for in-flight requests, closes the database. */
  stop(): Promise<void>;
}

/**
 * Starts the companion: data folder (locked for this process, data-folders.ts) → database
 * (migrated) → token → app → listen, then records the vault's data folder in the registry.
 * A second companion on the same data folder, or on the same vault with another registered
 * data folder, is refused with an error naming the other process and the folder.
 * Anything that fails after the lock was taken releases it again before rethrowing.
 */
export async function startServer(
  config: CompanionConfig,
  options: StartOptions,
): Promise<RunningServer> {
  // 0700: the folder holds the token and the push (VAPID) private key.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  if (options.registryFile !== undefined) {
    assertVaultFree(options.registryFile, config.vault, config.dataDir);
  }
  const releaseLock = lockDataFolder(config.dataDir, config.vault, options.clock.now());
  let running: RunningServer;
  try {
    running = await startOnLockedFolder(config, options);
  } catch (error) {
    releaseLock();
    throw error;
  }
  if (options.registryFile !== undefined) {
    try {
      registerDataFolder(options.registryFile, config.vault, config.dataDir, options.clock.now());
    } catch (error) {
      options.logger.warn(
        { err: { message: (error as Error).message }, registry: options.registryFile },
        'could not record the data folder in the registry; subcommands may not find it',
      );
    }
  }
  return {
    ...running,
    stop: async () => {
      try {
        await running.stop();
      } finally {
        releaseLock();
      }
    },
  };
}

async function startOnLockedFolder(
  config: CompanionConfig,
  options: StartOptions,
): Promise<RunningServer> {
  const token = loadOrCreateToken(config.dataDir, options.envToken, {
    rotate: options.rotateToken ?? false,
  });
  const https = config.tls ? readTlsFiles(config.tls) : undefined;
  // Before the database opens: a damaged key file stops the start with nothing to clean up.
  const vapid = loadOrCreateVapidKeys(
    config.dataDir,
    options.pushSubject !== undefined ? { subject: options.pushSubject } : {},
  );
  if (vapid.created) options.logger.info({ file: vapid.file }, 'created the push (VAPID) keys');

  // Before anything writes into the vault: temp files a killed write left behind.
  const leftovers = await removeLeftoverTemps(config.vault);
  if (leftovers.restored.length > 0) {
    options.logger.warn(
      { restored: leftovers.restored },
      'put back notes an interrupted vault write had moved aside',
    );
  }
  if (leftovers.removed.length > 0 || leftovers.failed.length > 0) {
    options.logger.warn(
      { removed: leftovers.removed.length, failed: leftovers.failed },
      'removed temp files an interrupted vault write left behind',
    );
  }

  const databaseFile = join(config.dataDir, DATABASE_FILE);
  const db = openDatabase(databaseFile);
  rememberVault(new SettingsStore(db, options.clock), config.vault, options.logger);

  const started = options.embeddings
    ? await startEmbedder(options.embeddings, options.logger)
    : { embedder: undefined, reason: 'no embedding provider was configured' };
  const embedder = started.embedder;
  const exclusions = searchExclusionRules(
    options.searchExclusions ?? DEFAULT_SEARCH_EXCLUSION_SETTINGS,
    { chats: config.folders.chats },
  );

  let app: FastifyInstance;
  let feed: VaultChangeFeed;
  let indexer: VaultIndexer;
  let push: PushService;
  let reminderSource: VaultReminderSource;
  let scheduler: ReminderScheduler;
  let digest: DigestService;
  let sync: SyncService;
  let tasks: TaskFeature;
  try {
    const metrics = new MetricsRegistry();
    sync = new SyncService({
      vault: config.vault,
      dataDir: config.dataDir,
      db,
      clock: options.clock,
      logger: options.logger,
    });
    push = createPushService({
      db,
      clock: options.clock,
      keys: vapid.keys,
      pushHosts: config.pushHosts,
      ...(options.pushAgent ? { agent: options.pushAgent } : {}),
      logger: options.logger,
      metrics,
    });
    // One live rule set: a folder (un)excluded in the plugin's settings applies to the index
    // and to reminders at once.
    const excludes = VaultExcludes.read(config.vault, [], options.logger);
    // The one place the companion learns what changed in the vault: the index, reminders
    // and (with sync on) the sync journal all follow it.
    feed = new VaultChangeFeed({ vault: config.vault, db, logger: options.logger, excludes });
    indexer = new VaultIndexer({
      vault: config.vault,
      feed,
      db,
      clock: options.clock,
      logger: options.logger,
      excludes,
      ...(embedder ? { embedder } : {}),
      semantic: {
        provider: options.embeddings?.provider ?? 'none',
        ...(started.reason === undefined ? {} : { reason: started.reason }),
        ...(embedder?.runtime === undefined ? {} : { runtime: () => embedder.runtime }),
      },
      searchExclusions: exclusions,
    });
    registerIndexMetrics(metrics, indexer);
    if (embedder) registerEmbedderMetrics(metrics, embedder);
    reminderSource = new VaultReminderSource({
      vault: config.vault,
      defaultZone: config.timezone,
      logger: options.logger,
      excludes,
    });
    scheduler = new ReminderScheduler({
      db,
      clock: options.clock,
      source: reminderSource,
      deliverer: push.sender,
      graceMs: config.graceHours * 3_600_000,
      logger: options.logger,
      metrics,
    });
    digest = new DigestService({
      vault: config.vault,
      folder: DEFAULT_DIGEST_FOLDER,
      zone: config.timezone,
      clock: options.clock,
      store: new DigestStore(db),
      logger: options.logger,
      sources: {
        notesSince: (since) => indexer.store.notesTouchedSince(since),
        reminders: () => reminderSource.all().reminders,
        completions: (from, to) => scheduler.completionsBetween(from, to),
        missed: async () =>
          (await scheduler.missed(0, MISSED_FOR_DIGEST)).items.flatMap((item) =>
            item.kind === 'expired' ? [item] : [],
          ),
        memories: async () =>
          (
            await new MemoryService({
              vault: config.vault,
              zone: config.timezone,
              clock: options.clock,
            }).list()
          ).memories,
        ...(options.summarizer
          ? {
              summarizeMemories: (groups) =>
                summarizeMemoriesWithModel(
                  { http: fetchOllamaHttp(), ...options.summarizer! },
                  groups,
                ),
            }
          : {}),
      },
      announcer: push.sender,
    });
    const summarizer = options.summarizer ? new OllamaSummarizer(options.summarizer) : undefined;
    tasks = new TaskFeature({
      vault: config.vault,
      db,
      clock: options.clock,
      defaultZone: config.timezone,
      graceMs: config.graceHours * 3_600_000,
      digest,
      push: push.sender,
      excludes,
      logger: options.logger,
      afterWrite: (paths) => feed.refresh(paths),
      ...(summarizer ? { summarizer } : {}),
      // The weekly digest is a task (docs/tasks.md), created on the first start unless off.
      ...(config.digest === null
        ? {}
        : { builtinDigest: config.digest ?? DEFAULT_DIGEST_SCHEDULE }),
    });
    app = await buildApp(
      {
        config,
        db,
        clock: options.clock,
        tokenSha256: token.sha256,
        version: COMPANION_VERSION,
        logger: options.logger,
        webRoot: options.webRoot ?? defaultWebRoot(),
        metrics,
        status: { index: indexer },
        search: {
          index: () => indexer.queries,
          excludeFolders: exclusions.map((rule) => rule.folder),
          ...(summarizer ? { summarizer } : {}),
        },
        push,
        scheduler,
        reminderSource,
        indexAfterWrite: indexAfterWrite(indexer),
        digest,
        sync,
        tasks,
        ...(options.summarizer ? { chat: { ollama: options.summarizer } } : {}),
        ...(options.vision ? { vision: options.vision } : {}),
        ...(options.memoryModel ? { memoryModel: options.memoryModel } : {}),
        ...(embedder ? { embedder } : {}),
      },
      {
        ...(https ? { https } : {}),
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      },
    );
  } catch (error) {
    db.close();
    await embedder?.close();
    throw error;
  }
  if (embedder) app.addHook('onClose', () => embedder.close());
  // Devices' last-success times noted this turn reach the database before it closes.
  app.addHook('onClose', () => push.store.writeSuccesses());
  // onClose hooks run last-added first: the feed stops, then the indexer, before the embedder
  // and the database.
  app.addHook('onClose', () => indexer.close());
  app.addHook('onClose', () => feed.close());
  // Cairn Sync (docs/sync.md): changes on the companion's disk are journalled as device
  // `server`, from the feed and from a scan of its own on start (the feed leaves out what the
  // plugin's exclude globs name; sync does not). It closes before the feed and the database.
  sync.follow(feed);
  const syncStarted = sync.start().catch((error: unknown) => {
    options.logger.error(
      { err: { message: (error as Error).message } },
      'sync: the scan of the vault failed; changes on disk are journalled as they come',
    );
  });
  app.addHook('onClose', async () => {
    await syncStarted;
    await sync.close();
  });
  // The scan runs in the background; requests are served (keyword results grow) meanwhile.
  feed.start();
  // Vectors are held in memory for search; load them once the scan is through rather than on
  // the first question someone asks.
  const vectorsLoaded = indexer
    .whenIdle()
    .then(() => {
      const started = performance.now();
      indexer.queries.warmVectors();
      options.logger.info(
        { ms: Math.round(performance.now() - started) },
        'vectors loaded for search',
      );
    })
    .catch((error: unknown) => {
      options.logger.warn(
        { err: { message: (error as Error).message } },
        'loading vectors failed; the first vector search loads them',
      );
    });
  // Once everything is embedded too, the garbage of the start-up work goes (see idle-gc.ts).
  void vectorsLoaded
    .then(() => indexer.whenEmbedded())
    .then(() => collectStartupGarbage(options.logger));
  // Exclude globs edited in the plugin apply without a restart.
  const excludeWatch = watchExcludeGlobs(config.vault, {
    onChange: (globs) => {
      feed.excludes.setPluginGlobs(globs);
      return feed.rescan();
    },
    logger: options.logger,
  });
  app.addHook('onClose', () => excludeWatch.close());
  // Reminders: read the vault and plan, then follow the indexer's changes (those arriving during
  // the start wait for it). What was missed within the grace window, and what a kill left
  // claimed, goes out once the server listens (`catchUp()` below): a burst of thousands of
  // pushes must not keep /health and the API down. On close, hooks added later run first: the
  // vault link drains, the scheduler stops (waiting for that catch-up), then the indexer and
  // database.
  const schedulerStarted = reminderSource.load().then(() => scheduler.begin());
  const reminderLink = connectVaultReminders(
    feed,
    reminderSource,
    scheduler,
    options.logger,
    schedulerStarted,
  );
  try {
    await schedulerStarted;
  } catch (error) {
    await reminderLink.close();
    await app.close();
    throw error;
  }
  app.addHook('onClose', () => scheduler.stop());
  app.addHook('onClose', () => reminderLink.close());
  // Written once listening (below); removed when this server stops, if it still names it.
  app.addHook('onClose', () => removeServerFile(config.dataDir, process.pid));
  // Tasks search the index: they start once the first scan is in (a slot due meanwhile runs
  // then). The weekly digest is one of them, written from the index's lists.
  const tasksStarted = indexer.whenIdle().then(() => tasks.start(feed));
  tasksStarted.catch((error: unknown) => {
    options.logger.error(
      { err: { message: (error as Error).message } },
      'the task scheduler did not start',
    );
  });
  app.addHook('onClose', async () => {
    await tasksStarted.catch(() => undefined);
    await tasks.stop();
  });

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    throw listenError(error as NodeJS.ErrnoException, config);
  }

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${https ? 'https' : 'http'}://${hostForUrl}:${port}`;
  // For `cairn-companion mcp`: clients on this machine reach it over loopback (clients/server-file.ts).
  const loopback = `${https ? 'https' : 'http'}://${isAllInterfaces(config.host) ? '127.0.0.1' : hostForUrl}:${port}`;
  writeServerFile(config.dataDir, { url: loopback, pid: process.pid });
  // Not awaited: a pass never rejects (it logs and tries again), and stop() waits for it.
  void scheduler.catchUp();
  return {
    app,
    url,
    token,
    databaseFile,
    feed,
    indexer,
    push,
    scheduler,
    stop: () => app.close(),
  };
}

function isAllInterfaces(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** Reads and checks the pair up front, so a wrong file is named instead of an OpenSSL code. */
function readTlsFiles(tls: NonNullable<CompanionConfig['tls']>): { cert: Buffer; key: Buffer } {
  const cert = readFileSync(tls.certFile);
  const key = readFileSync(tls.keyFile);
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new Error(
      `--tls-cert ${tls.certFile} / --tls-key ${tls.keyFile}: not a usable PEM certificate and ` +
        `matching private key (${(error as Error).message})`,
      { cause: error },
    );
  }
  return { cert, key };
}

/**
 * The embedding model is an enhancement: when it cannot start (an Ollama server that is down,
 * a missing worker bundle) search still works on keywords, so the companion says so and runs.
 */
async function startEmbedder(
  config: EmbeddingsConfig,
  logger: Logger,
): Promise<{ embedder: ClosableEmbedder | undefined; reason?: string }> {
  if (config.provider === 'none') {
    logger.info('CAIRN_EMBEDDINGS=none: search runs on keywords only, by choice');
    return { embedder: undefined, reason: 'keyword-only by choice (CAIRN_EMBEDDINGS=none)' };
  }
  try {
    const embedder = await createEmbedder(config);
    if (embedder.fallbackReason !== undefined) {
      // `auto` wanted the native runtime: embedding works, ~3x slower; say why, and how to fix.
      logger.warn(
        { runtime: 'wasm', reason: embedder.fallbackReason },
        `built-in embeddings run on wasm, not native: ${embedder.fallbackReason} ` +
          '(CAIRN_EMBED_RUNTIME=wasm chooses wasm and silences this)',
      );
    }
    logger.info(
      {
        model: embedder.model.id,
        dims: embedder.model.dims,
        ...(embedder.runtime === undefined ? {} : { runtime: embedder.runtime }),
      },
      'embedding model ready',
    );
    return { embedder };
  } catch (error) {
    const message = (error as Error).message;
    logger.warn(
      { err: error },
      `embedding model unavailable (${message}); search runs on keywords only`,
    );
    return { embedder: undefined, reason: `the embedding model could not start: ${message}` };
  }
}

/**
 * A data folder belongs to one vault: its delivery log and subscriptions mean nothing for
 * another. A changed path usually means the vault moved, so this warns rather than refuses.
 */
function rememberVault(settings: SettingsStore, vault: string, logger: Logger): void {
  const known = settings.get('vault_path');
  if (known !== undefined && known !== vault) {
    logger.warn(
      { previousVault: known, vault },
      'this data folder was last used with another vault path; if that is a different vault, start with its own --data',
    );
  }
  if (known !== vault) settings.set('vault_path', vault);
}

function listenError(error: NodeJS.ErrnoException, config: CompanionConfig): Error {
  const where = `${config.host}:${config.port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new Error(
        `cannot listen on ${where}: the port is in use (choose another with --port)`,
      );
    case 'EACCES':
      return new Error(
        `cannot listen on ${where}: permission denied (ports below 1024 need privileges)`,
      );
    case 'EADDRNOTAVAIL':
      return new Error(
        `cannot listen on ${where}: this machine has no such address (check --host)`,
      );
    default:
      return new Error(`cannot listen on ${where}: ${error.message}`, { cause: error });
  }
}
