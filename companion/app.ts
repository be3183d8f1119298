import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { Clock, Embedder } from '../shared/ports';
import { registerTokenAuth } from './auth/require-token';
import type { FailedAuthLimit } from './auth/require-token';
import type { CompanionConfig } from './config';
import type { SqliteDatabase } from './db/open';
import { registerCors } from './http/cors';
import { registerErrorHandling } from './http/error-handler';
import { partAwareValidator } from './http/part-aware-validator';
import { createLogger } from './logging';
import type { Logger } from './logging';
import { registerHttpMetrics } from './metrics/http-metrics';
import { MetricsRegistry } from './metrics/registry';
import { registerAnswerRoute } from './routes/answer';
import { registerChat } from './chat/register-chat';
import type { ChatAppOptions } from './chat/register-chat';
import { registerEmbeddingRoutes } from './routes/embeddings';
import { registerHealthRoute } from './routes/health';
import { registerMetricsRoute } from './routes/metrics';
import { registerModelFileRoutes } from './routes/model-files';
import { registerPhonePage } from './routes/phone-page';
import { registerPushRoutes } from './routes/push';
import { registerSearchRoute } from './routes/search';
import { registerStatusRoute } from './routes/status';
import { SearchServices } from './search/search-services';
import {
  DEFAULT_SEARCH_EXCLUSION_SETTINGS,
  searchExclusionRules,
} from './search/search-exclusions';
import type { SearchDeps } from './search/search-services';
import type { PushService } from './push/push-service';
import { registerMissedRoute } from './scheduler/missed-route';
import type { ReminderScheduler } from './scheduler/scheduler';
import type { VaultReminderSource } from './scheduler/vault-reminder-source';
import { ReminderService } from './reminders/reminder-service';
import { registerReminderRoutes } from './routes/reminders';
import { registerNoteRoutes } from './routes/notes';
import { registerIngestRoute } from './routes/ingest';
import type { IndexAfterWrite } from './vault/index-after-write';
import { areaNotRunning } from './status/sources';
import type { StatusSources } from './status/sources';

/** JSON bodies above this are refused with 413; uploads (ingest) set their own limit per route. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Everything the app needs, passed in: nothing is read from globals, env or the system clock. */
export interface AppDeps {
  readonly config: CompanionConfig;
  /** Opened and migrated; the app closes it when it closes. */
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  /** sha256 of the API token; the token itself never reaches the app. */
  readonly tokenSha256: Buffer;
  readonly version: string;
  /** Defaults to a silent logger. */
  readonly logger?: Logger;
  readonly metrics?: MetricsRegistry;
  /** Areas not passed report "not running" (see status/sources.ts). */
  readonly status?: Partial<StatusSources>;
  readonly failedAuthLimit?: FailedAuthLimit;
  /** The running embedding model; without one, `/v1/embeddings` and `/v1/models` are absent. */
  readonly embedder?: Embedder;
  /** VAPID keys, subscriptions and the sender; absent, the push routes are not registered. */
  readonly push?: PushService;
  /** The running reminder scheduler; absent, status reports none and the missed list is not served. */
  readonly scheduler?: ReminderScheduler;
  /** The scheduler's vault source; with `scheduler`, the reminder routes that write the vault. */
  readonly reminderSource?: VaultReminderSource;
  /** Indexes a file the API just wrote (notes, ingest) at once; absent, the watcher does. */
  readonly indexAfterWrite?: IndexAfterWrite;
  /** The vault index and answer helpers; absent, search and answer routes answer 503. */
  readonly search?: SearchDeps;
  /** Folder of the built phone page (`dist/companion/web`); absent, `/` serves nothing. */
  readonly webRoot?: string;
  /** Chat's Ollama phrasing, writers and limits; absent, chat answers extractively and cannot write. */
  readonly chat?: ChatAppOptions;
}

/** Transport settings that Fastify only takes at construction; server.ts fills them in. */
export interface TransportOptions {
  readonly https?: { readonly cert: Buffer; readonly key: Buffer };
  readonly connectionTimeoutMs?: number;
  readonly keepAliveTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
}

/**
 * Builds the companion's Fastify app. Never listens (server.ts does, tests `inject`).
 * Registration is explicit and ordered: security headers and CORS first so that even 401,
 * 404 and 500 answers carry them, then authentication, then routes.
 */
export async function buildApp(
  deps: AppDeps,
  transport: TransportOptions = {},
): Promise<FastifyInstance> {
  const tls = transport.https !== undefined;
  const app = Fastify({
    loggerInstance: deps.logger ?? createLogger('silent'),
    trustProxy: deps.config.trustProxy.length > 0 ? [...deps.config.trustProxy] : false,
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    // Fastify's default silently strips properties a schema forbids; an unknown field is more
    // likely a client bug (a typo in `snoozed_until`) than noise, so it is a 400 naming it.
    // Scalar coercion applies to query strings, params and headers (they arrive as text,
    // `?limit=10`), never to JSON bodies: see http/part-aware-validator.ts.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array' } },
    schemaController: { compilersFactory: { buildValidator: partAwareValidator() } },
    ...(transport.https ? { https: { cert: transport.https.cert, key: transport.https.key } } : {}),
    ...(transport.connectionTimeoutMs !== undefined
      ? { connectionTimeout: transport.connectionTimeoutMs }
      : {}),
    ...(transport.keepAliveTimeoutMs !== undefined
      ? { keepAliveTimeout: transport.keepAliveTimeoutMs }
      : {}),
    ...(transport.requestTimeoutMs !== undefined
      ? { requestTimeout: transport.requestTimeoutMs }
      : {}),
    // Fastify types an https server differently; routes and hooks are the same for both.
  }) as unknown as FastifyInstance;

  app.addHook('onClose', async () => {
    deps.db.close();
  });

  registerErrorHandling(app);
  await app.register(helmet, {
    // HSTS and upgrade-insecure-requests only mean something over TLS; over plain HTTP on a
    // LAN address the upgrade would send the phone page's scripts to an https:// that is not there.
    hsts: tls ? { maxAge: 31_536_000 } : false,
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: tls ? [] : null } },
  });
  registerCors(app);
  await registerTokenAuth(app, deps.tokenSha256, deps.failedAuthLimit);

  const metrics = deps.metrics ?? new MetricsRegistry();
  registerHttpMetrics(app, metrics);

  registerHealthRoute(app);
  if (deps.webRoot !== undefined) registerPhonePage(app, deps.webRoot);
  registerStatusRoute(app, deps.version, {
    ...areaNotRunning,
    ...(deps.push ? { push: deps.push.status } : {}),
    ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
    ...deps.status,
  });
  registerMetricsRoute(app, metrics);
  registerModelFileRoutes(app);
  if (deps.embedder) registerEmbeddingRoutes(app, { embedder: deps.embedder, clock: deps.clock });
  if (deps.push) registerPushRoutes(app, { push: deps.push, clock: deps.clock });
  if (deps.scheduler) registerMissedRoute(app, deps.scheduler);
  let reminderService: ReminderService | undefined;
  if (deps.scheduler && deps.reminderSource) {
    const reminders = new ReminderService({
      vault: deps.config.vault,
      folder: deps.config.folders.reminders,
      defaultZone: deps.config.timezone,
      clock: deps.clock,
      scheduler: deps.scheduler,
      source: deps.reminderSource,
    });
    registerReminderRoutes(app, reminders);
    reminderService = reminders;
  }
  const indexNow = deps.indexAfterWrite ? { indexAfterWrite: deps.indexAfterWrite } : {};
  registerNoteRoutes(app, {
    vault: deps.config.vault,
    folder: deps.config.folders.notes,
    zone: deps.config.timezone,
    clock: deps.clock,
    ...indexNow,
  });
  await registerIngestRoute(app, {
    vault: deps.config.vault,
    folder: deps.config.folders.attachments,
    ...indexNow,
  });
  // The app's embedder embeds queries unless the search deps bring their own.
  const search = new SearchServices(
    {
      index: () => undefined,
      // Cairn's chats and digests are not sources unless the composition root says otherwise.
      excludeFolders: searchExclusionRules(DEFAULT_SEARCH_EXCLUSION_SETTINGS, {
        chats: deps.config.folders.chats,
      }).map((rule) => rule.folder),
      ...(deps.embedder ? { embedder: () => deps.embedder } : {}),
      ...deps.search,
    },
    metrics,
    deps.clock,
  );
  registerSearchRoute(app, search, deps.config.timezone);
  registerAnswerRoute(app, search, deps.config.timezone);
  registerChat(
    app,
    {
      clock: deps.clock,
      zone: deps.config.timezone,
      search,
      ...(reminderService ? { reminders: reminderService } : {}),
      notes: { vault: deps.config.vault, folder: deps.config.folders.notes, ...indexNow },
      // No index-after-write for chats: it rescans the vault before `done`; the watcher suffices.
      chats: { vault: deps.config.vault, folder: deps.config.folders.chats },
    },
    deps.chat,
  );

  return app;
}
