import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { basename, join, resolve } from 'node:path';
import type { Clock, Embedder } from '../shared/ports';
import { ownerThenStored, registerTokenAuth } from './auth/require-token';
import { TokenStore } from './auth/token-store';
import { AuditLog } from './audit/audit-log';
import { registerWriteAudit } from './audit/audit-hooks';
import { registerAuditRoutes } from './audit/audit-routes';
import { cairnClientErrorHandler, cairnFrameworkErrors, refuseLongUrls } from './http/client-error';
import { registerMcpRoute } from './clients/mcp-routes';
import { registerChatCompletionsRoute } from './clients/chat-completions-routes';
import { registerModelsRoute } from './clients/models-routes';
import type { OllamaModel } from './clients/openai-turn';
import { fetchOllamaHttp } from './chat/fetch-ollama-http';
import type { FailedAuthLimit } from './auth/require-token';
import type { CompanionConfig } from './config';
import type { SqliteDatabase } from './db/open';
import { registerCors } from './http/cors';
import { registerErrorHandling } from './http/error-handler';
import { registerDryRuns } from './http/dry-run-routes';
import { registerImportRoutes } from './notes/import-routes';
import { registerRateLimits } from './http/rate-limits';
import type { RateLimitOverrides } from './http/rate-limits';
import { partAwareValidator } from './http/part-aware-validator';
import { firstUseCompilers } from './http/first-use-compilers';
import { createLogger } from './logging';
import type { Logger } from './logging';
import { registerHttpMetrics } from './metrics/http-metrics';
import { MetricsRegistry } from './metrics/registry';
import { registerAnswerRoute } from './search/answer-routes';
import { registerDecisionsRoute, registerKnowledgeHealthRoute } from './search/decision-routes';
import { registerChat } from './chat/register-chat';
import { ToolRegistry, ToolService, createCompanionToolRunner, registerToolRoutes } from './tools';
import type { ToolServiceOptions } from './tools';
import { readPluginDataFile } from './vault/plugin-settings';
import type { ChatAppOptions } from './chat/register-chat';
import { registerEmbeddingRoutes } from './clients/embeddings-routes';
import { registerHealthRoute } from './status/health-routes';
import { registerMetricsRoute } from './metrics/metrics-routes';
import { registerModelFileRoutes } from './embeddings/model-files-routes';
import { registerPhoneConfigRoute, registerPhonePage } from './http/phone-page-routes';
import { registerPushRoutes } from './push/push-routes';
import { registerSearchRoute } from './search/search-routes';
import { registerRelatedRoute } from './search/related-routes';
import { registerStatusRoute } from './status/status-routes';
import { SearchServices } from './search/search-services';
import {
  DEFAULT_SEARCH_EXCLUSION_SETTINGS,
  searchExclusionRules,
} from './search/search-exclusions';
import type { SearchDeps } from './search/search-services';
import type { PushService } from './push/push-service';
import { registerMissedRoute } from './reminders/missed-routes';
import type { ReminderScheduler } from './reminders/scheduler';
import type { ReminderPlan } from './reminders/reminder-service';
import type { VaultReminderSource } from './reminders/vault-reminder-source';
import { ReminderService } from './reminders/reminder-service';
import { WriteMemory } from './idempotency/write-memory';
import { registerReminderRoutes } from './reminders/reminder-routes';
import { registerNoteRoutes } from './notes/note-routes';
import { registerIngestRoute } from './notes/ingest-routes';
import { MemoryService } from './memory/memory-service';
import { classifyMemoryWithModel, summarizeLinkWithModel } from '../shared/memory';
import type { MemoryModelOptions } from '../shared/memory';
import { registerMemoryRoutes } from './memory/memory-routes';
import { registerMemoryReminderRoute } from './memory/memory-reminder-route';
import { LinkClipper } from './memory/link-clipper';
import type { LinkFetchPolicy } from './memory/link-fetcher';
import { CalendarService } from './calendar/calendar-service';
import { registerCalendarRoutes } from './calendar/calendar-routes';
import type { DigestService } from './digest/digest-service';
import { registerDigestRoutes } from './digest/digest-routes';
import type { IndexAfterWrite } from './search/index-after-write';
import { registerSyncDeviceRoutes, registerSyncRoutes } from './sync';
import { registerTaskRoutes, taskChatPort } from './tasks';
import type { TaskFeature } from './tasks';
import type { SyncService } from './sync';
import { areaNotRunning } from './status/sources';
import type { SchedulerStatusSource, StatusSources } from './status/sources';

/** JSON bodies above this are refused with 413; uploads (ingest) set their own limit per route. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Missed occurrences looked at when marking a calendar week's items `missed`. */
const MISSED_IN_CALENDAR = 10_000;

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
  /** Other numbers than RATE_LIMITS for the expensive routes (tests). */
  readonly rateLimits?: RateLimitOverrides;
  /** The running embedding model; without one, `/v1/embeddings` and `/v1/models` are absent. */
  readonly embedder?: Embedder;
  /** VAPID keys, subscriptions and the sender; absent, the push routes are not registered. */
  readonly push?: PushService;
  /** The running reminder scheduler; absent, status reports none and the missed list is not served. */
  readonly scheduler?: ReminderScheduler;
  /** The scheduler's vault source; with `scheduler`, the reminder routes that write the vault. */
  readonly reminderSource?: VaultReminderSource;
  /**
   * What the reminder routes and status read instead of `scheduler`: the command line's
   * `ReadOnlyReminderPlan` when no companion runs (reminders are written, nothing fires).
   */
  readonly reminderPlan?: ReminderPlan & SchedulerStatusSource;
  /** Indexes a file the API just wrote (notes, ingest) at once; absent, the watcher does. */
  readonly indexAfterWrite?: IndexAfterWrite;
  /** The vault index and answer helpers; absent, search and answer routes answer 503. */
  readonly search?: SearchDeps;
  /** Folder of the built phone page (`dist/companion/web`); absent, `/` serves nothing. */
  readonly webRoot?: string;
  /** Chat's Ollama phrasing, writers and limits; absent, chat answers extractively and cannot write. */
  readonly chat?: ChatAppOptions;
  /** `CAIRN_OLLAMA_VISION_MODEL`: answers `/v1/chat/completions` messages with images. */
  readonly vision?: OllamaModel;
  /** Saved links' fetch limits other than the defaults (tests); the hosts come from config. */
  readonly linkFetch?: Omit<LinkFetchPolicy, 'hosts'>;
  /**
   * The LLM for memory categories and link summaries when it is not chat's Ollama model: an
   * OpenAI-compatible server (`api: 'openai'`, base URL with `/v1`) or another Ollama model.
   * Absent: chat's Ollama model if there is one, else the rules and no summaries.
   */
  readonly memoryModel?: Omit<MemoryModelOptions, 'http'>;
  /** Weekly digests (docs/clients.md); absent, `POST /api/v1/digests` is not served. */
  readonly digest?: DigestService;
  /** Cairn Sync (docs/sync.md); absent, `/api/v1/sync/*` is not served. Its owner closes it. */
  readonly sync?: SyncService;
  /** Scheduled tasks (docs/tasks.md); absent, `/api/v1/tasks` is not served. Its owner stops it. */
  readonly tasks?: TaskFeature;
  /**
   * The tools' limits and offline mode (docs/tools.md); offline mode defaults to the plugin's
   * setting in the vault's data.json, on when there is none.
   */
  readonly tools?: Pick<
    ToolServiceOptions,
    'offline' | 'timeoutMs' | 'outputCapChars' | 'askTimeoutMs' | 'connectTimeoutMs' | 'schedule'
  >;
  /**
   * When routes' schemas compile: at start (the default: a broken schema stops the server), or
   * on each route's first request, for an app that answers a few and stops (the command line's
   * local connection; see http/first-use-compilers.ts).
   */
  readonly compileSchemas?: 'at-start' | 'on-first-use';
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Every route the app serves, as registered (method, URL pattern): the path-rule walk
     * (test/companion/auth/path-rules-routes.test.ts) covers each, so no route is forgotten.
     */
    readonly cairnRoutes: readonly ServedRoute[];
  }
}

/** One registered route: `GET /api/v1/reminders/:id`. */
export interface ServedRoute {
  readonly method: string;
  readonly url: string;
  /** `config.public`: served without the token. */
  readonly public: boolean;
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
    clientErrorHandler: cairnClientErrorHandler,
    frameworkErrors: cairnFrameworkErrors,
    // Fastify's default silently strips properties a schema forbids; an unknown field is more
    // likely a client bug (a typo in `snoozed_until`) than noise, so it is a 400 naming it.
    // Scalar coercion applies to query strings, params and headers (they arrive as text,
    // `?limit=10`), never to JSON bodies: see http/part-aware-validator.ts.
    // `verbose` hands each validation error its schema, whose `description` (shared/protocol/
    // formats.ts) names what was expected instead of Ajv's raw pattern.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', verbose: true } },
    schemaController: {
      compilersFactory:
        deps.compileSchemas === 'on-first-use'
          ? firstUseCompilers(partAwareValidator())
          : { buildValidator: partAwareValidator() },
    },
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

  const routes: ServedRoute[] = [];
  app.decorate('cairnRoutes', routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push({
        method,
        url: route.url,
        public: (route.config as { public?: boolean } | undefined)?.public === true,
      });
    }
  });

  app.addHook('onClose', async () => {
    deps.db.close();
  });

  registerErrorHandling(app, { vault: deps.config.vault, dataDir: deps.config.dataDir });
  app.addHook('onRequest', refuseLongUrls);
  await app.register(helmet, {
    // HSTS and upgrade-insecure-requests only mean something over TLS; over plain HTTP on a
    // LAN address the upgrade would send the phone page's scripts to an https:// that is not there.
    hsts: tls ? { maxAge: 31_536_000 } : false,
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: tls ? [] : null } },
  });
  registerCors(app);
  const tokens = new TokenStore(deps.db);
  await registerTokenAuth(
    app,
    ownerThenStored(deps.tokenSha256, tokens),
    deps.failedAuthLimit,
    deps.clock,
  );
  registerDryRuns(app);
  const checkRateLimit = registerRateLimits(app, deps.rateLimits);

  const audit = new AuditLog(deps.db, deps.clock);
  registerWriteAudit(app, audit);
  registerAuditRoutes(app, { audit, tokens, clock: deps.clock });
  // The one tool registry's policy (docs/tools.md): Cairn's tools and the user's MCP servers.
  const toolService = new ToolService({
    db: deps.db,
    clock: deps.clock,
    audit,
    offline: () => vaultOfflineMode(deps.config.vault),
    log: (message, details) => app.log.info(details ?? {}, message),
    ...deps.tools,
  });
  registerToolRoutes(app, { tools: toolService, audit });
  // preClose: open asks expire (their chats end with a refusal) before the database closes.
  app.addHook('preClose', async () => {
    await toolService.close();
  });
  void toolService.start();

  const metrics = deps.metrics ?? new MetricsRegistry();
  registerHttpMetrics(app, metrics);

  registerHealthRoute(app);
  if (deps.webRoot !== undefined) registerPhonePage(app, deps.webRoot);
  registerPhoneConfigRoute(app, {
    vault: basename(resolve(deps.config.vault)),
    timezone: deps.config.timezone,
  });
  registerStatusRoute(app, deps.version, {
    ...areaNotRunning,
    ...(deps.push ? { push: deps.push.status } : {}),
    ...(deps.scheduler ? { scheduler: deps.scheduler } : {}),
    ...(deps.reminderPlan ? { scheduler: deps.reminderPlan } : {}),
    ...deps.status,
  });
  registerMetricsRoute(app, metrics);
  registerModelFileRoutes(app);
  if (deps.embedder) registerEmbeddingRoutes(app, { embedder: deps.embedder });
  registerModelsRoute(app, {
    clock: deps.clock,
    ...(deps.embedder ? { embedder: deps.embedder } : {}),
  });
  if (deps.push) registerPushRoutes(app, { push: deps.push, clock: deps.clock });
  if (deps.scheduler) registerMissedRoute(app, deps.scheduler);
  // One memory of recent writes for Idempotency-Key replays, create dedup and chat's dedup.
  const writeMemory = new WriteMemory(deps.db, deps.clock);
  let reminderService: ReminderService | undefined;
  const reminderPlan = deps.reminderPlan ?? deps.scheduler;
  if (reminderPlan && deps.reminderSource) {
    const reminders = new ReminderService({
      vault: deps.config.vault,
      folder: deps.config.folders.reminders,
      defaultZone: deps.config.timezone,
      clock: deps.clock,
      scheduler: reminderPlan,
      source: deps.reminderSource,
      memory: writeMemory,
    });
    registerReminderRoutes(app, reminders, writeMemory);
    reminderService = reminders;
  }
  if (deps.scheduler && deps.reminderSource) {
    const source = deps.reminderSource;
    const scheduler = deps.scheduler;
    const calendar = new CalendarService({
      vault: deps.config.vault,
      zone: deps.config.timezone,
      clock: deps.clock,
      entries: {
        reminders: () => source.all().reminders,
        events: () => source.events(),
        missed: async () => {
          const { items } = await scheduler.missed(0, MISSED_IN_CALENDAR);
          return new Set(
            items.flatMap((item) =>
              item.kind === 'expired' ? [`${item.reminderId}@${item.occurrence}`] : [],
            ),
          );
        },
      },
    });
    registerCalendarRoutes(app, calendar, deps.config.dataDir);
  }
  const indexNow = deps.indexAfterWrite ? { indexAfterWrite: deps.indexAfterWrite } : {};
  registerNoteRoutes(app, {
    vault: deps.config.vault,
    folder: deps.config.folders.notes,
    zone: deps.config.timezone,
    clock: deps.clock,
    memory: writeMemory,
    ...indexNow,
  });
  registerImportRoutes(app, {
    vault: deps.config.vault,
    zone: deps.config.timezone,
    clock: deps.clock,
    ...indexNow,
  });
  const chatModel = deps.chat?.ollama;
  const modelHttp = deps.chat?.ollamaHttp ?? fetchOllamaHttp();
  const memoryModel: MemoryModelOptions | undefined = deps.memoryModel
    ? { http: modelHttp, ...deps.memoryModel }
    : chatModel
      ? { http: modelHttp, baseUrl: chatModel.baseUrl, model: chatModel.model }
      : undefined;
  const memories = new MemoryService({
    vault: deps.config.vault,
    zone: deps.config.timezone,
    clock: deps.clock,
    links: new LinkClipper({
      vault: deps.config.vault,
      zone: deps.config.timezone,
      clock: deps.clock,
      policy: { ...deps.linkFetch, hosts: deps.config.linkHosts ?? [] },
      ...(deps.indexAfterWrite ? { indexAfterWrite: deps.indexAfterWrite } : {}),
      ...(memoryModel
        ? {
            summarize: (page: { title: string; text: string }) =>
              summarizeLinkWithModel(memoryModel, page),
            onSummaryFailure: (path: string, reason: string) =>
              app.log.warn({ path, reason }, 'clipped link not summarised'),
          }
        : {}),
    }),
    onLinkFailure: (url: string, reason: string) =>
      app.log.warn({ host: hostOf(url), reason }, 'saved link not clipped'),
    ...(memoryModel
      ? {
          categorize: (text: string) => classifyMemoryWithModel(memoryModel, text),
          onCategoryFallback: (reason: string) =>
            app.log.warn({ reason }, 'memory category from the rules, not the LLM'),
        }
      : {}),
  });
  await registerMemoryRoutes(app, memories, join(deps.config.dataDir, 'uploads'));
  if (reminderService) registerMemoryReminderRoute(app, memories, reminderService);
  // An LLM category still on its way is written before the vault is let go.
  app.addHook('preClose', async () => {
    await memories.settled();
  });
  if (deps.digest) registerDigestRoutes(app, deps.digest);
  if (deps.sync) {
    const sync = deps.sync;
    await registerSyncRoutes(app, sync);
    registerSyncDeviceRoutes(app, { sync, tokens, clock: deps.clock });
    // Long polls would keep their connections, and so the close, open for up to 30 s.
    app.addHook('preClose', async () => {
      sync.endLongPolls();
    });
  }
  await registerIngestRoute(app, {
    vault: deps.config.vault,
    folder: deps.config.folders.attachments,
    uploadFolder: join(deps.config.dataDir, 'uploads'),
    memory: writeMemory,
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
  registerRelatedRoute(app, search);
  registerAnswerRoute(app, search, deps.config.timezone);
  if (deps.tasks) {
    deps.tasks.useSearch(() => search.hybridSearch());
    registerTaskRoutes(app, deps.tasks.service);
  }
  registerDecisionsRoute(app, search);
  const overdueReminders = reminderService;
  registerKnowledgeHealthRoute(
    app,
    search,
    overdueReminders &&
      (() =>
        overdueReminders.overdue().map((reminder) => ({
          path: reminder.path,
          title: reminder.title,
          reason: `due ${reminder.overdue_since ?? reminder.due}, not done`,
        }))),
  );
  const chatOptions = deps.tasks
    ? { ...deps.chat, tasks: taskChatPort(deps.tasks.service) }
    : (deps.chat ?? {});
  // One tool runner for chat, MCP and the OpenAI route (docs/clients.md), built outside the chat.
  const toolRunner = createCompanionToolRunner(
    {
      clock: deps.clock,
      zone: deps.config.timezone,
      search,
      ollamaHttp: modelHttp,
      ...(reminderService ? { reminders: reminderService } : {}),
      notes: { vault: deps.config.vault, folder: deps.config.folders.notes, ...indexNow },
      memory: writeMemory,
      memories,
      policy: toolService,
      logToolError: (error, what) => app.log.error({ err: error, tool: what }, 'tool failed'),
    },
    chatOptions,
  );
  const chatEngine = registerChat(
    app,
    {
      clock: deps.clock,
      zone: deps.config.timezone,
      search,
      tools: toolRunner,
      ollamaHttp: modelHttp,
      // No index-after-write for chats: it rescans the vault before `done`; the watcher suffices.
      chats: { vault: deps.config.vault, folder: deps.config.folders.chats },
      audit,
    },
    chatOptions,
  );
  // MCP and the OpenAI route list and call tools through the registry, on the same runner.
  const tools = new ToolRegistry({
    tools: toolRunner,
    vault: deps.config.vault,
    memory: writeMemory,
  });
  registerMcpRoute(app, tools, checkRateLimit);
  registerChatCompletionsRoute(app, {
    engine: chatEngine,
    audit,
    clock: deps.clock,
    http: modelHttp,
    ...(deps.chat?.ollama ? { chatModel: deps.chat.ollama } : {}),
    ...(deps.vision ? { visionModel: deps.vision } : {}),
  });

  return app;
}

/** Only a link's host is logged, never its path or query (they can hold personal data). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid';
  }
}

/** The plugin's offline mode as its data.json says; on when the file is missing or unreadable. */
function vaultOfflineMode(vault: string): boolean {
  const read = readPluginDataFile(vault);
  return read.kind === 'read' ? read.loaded.settings.privacy.offlineMode : true;
}
