import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { isVaultCommand } from './commands/vault-command-names';
import { OPTIONS, usage } from './options';
import { COMPANION_VERSION } from './version';
import type { EmbeddingsConfig } from './embeddings/provider';
import type { Logger } from './logging';
import type { SearchExclusionSettings } from './search/search-exclusions';
import type { SummarizerConfig } from './search/ollama-summarizer';
import type { OllamaModel } from './clients/openai-turn';
import type { RunningServer, StartOptions } from './server';

// Only what every command needs is imported above. The server, the MCP SDK, the parsers and the
// database are imported when a command needs them: `--help`, `--version`, `completion` and a
// usage error answer without loading Fastify, SQLite or the MCP SDK (about a second of CPU that
// each shell completion and each script call would otherwise pay).

/** Exit codes (also in --help). */
const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

const systemClock = { now: () => Date.now() };

/** Subcommands; without one, the companion serves. */
type Command = 'serve' | 'token' | 'mcp' | 'pair';

/**
 * The oldest Node the companion runs on. better-sqlite3 13's Node-API binary crashes (SIGSEGV, no
 * message) on Node 20, so the version is checked before anything opens a database.
 */
const OLDEST_NODE_MAJOR = 22;

async function main(argv: readonly string[]): Promise<number | null> {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < OLDEST_NODE_MAJOR) {
    process.stderr.write(
      `cairn-companion: Node.js ${OLDEST_NODE_MAJOR} or newer is needed; this is ${process.version}. ` +
        `Install an LTS release (22 or 24) and run npm ci again.\n`,
    );
    return EXIT_FAILURE;
  }
  const command: Command =
    argv[0] === 'token' || argv[0] === 'mcp' || argv[0] === 'pair' ? argv[0] : 'serve';
  const args = command === 'serve' ? argv : argv.slice(1);
  // search, ask, remind, note, reminders, remember, status (docs/cli.md).
  if (isVaultCommand(argv[0])) {
    const { runVaultCli } = await import('./commands/vault-cli');
    return runVaultCli(argv[0], argv.slice(1));
  }
  if (argv[0] === 'completion') {
    const { runCompletion } = await import('./commands/completion-command');
    return runCompletion(
      argv.slice(1),
      (text) => process.stdout.write(text),
      (text) => process.stderr.write(text),
    );
  }
  if (argv[0] === 'calendar-url') {
    const { runCalendarUrl } = await import('./commands/calendar-url-command');
    return runCalendarUrl(argv.slice(1), {
      env: process.env,
      homeDir: homedir(),
      systemTimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
    });
  }
  let flags: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: [...args],
      options: {
        ...Object.fromEntries(OPTIONS.map((spec) => [spec.name, { type: spec.kind }])),
        // `token create --name NAME --scope read,write`
        ...(command === 'token'
          ? {
              name: { type: 'string' as const },
              scope: { type: 'string' as const },
              paths: { type: 'string' as const },
            }
          : {}),
        // `pair --name "Pixel 8" --url https://…`
        ...(command === 'pair'
          ? { name: { type: 'string' as const }, url: { type: 'string' as const } }
          : {}),
      },
      strict: true,
      allowPositionals: command === 'token',
    });
    flags = parsed.values;
    positionals = parsed.positionals;
  } catch (error) {
    process.stderr.write(
      `cairn-companion: ${(error as Error).message}\nRun with --help for usage.\n`,
    );
    return EXIT_USAGE;
  }
  if (flags.help) {
    process.stdout.write(
      command === 'token'
        ? (await import('./commands/token-command')).TOKEN_USAGE
        : command === 'pair'
          ? (await import('./commands/pair-command')).PAIR_USAGE
          : usage(),
    );
    return EXIT_OK;
  }
  if (flags.version) {
    process.stdout.write(`${COMPANION_VERSION}\n`);
    return EXIT_OK;
  }

  const { ConfigError, resolveConfig } = await import('./config');
  let resolved;
  try {
    resolved = resolveConfig({
      flags,
      env: process.env,
      homeDir: homedir(),
      systemTimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`cairn-companion: ${problem}\n`);
    process.stderr.write('Run with --help for usage.\n');
    return EXIT_USAGE;
  }
  const { config, warnings } = resolved;
  const envToken = emptyToUndefined(process.env.CAIRN_TOKEN);
  if (command === 'token') {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    const { runTokenCommand } = await import('./commands/token-command');
    return runTokenCommand(
      positionals,
      {
        ...(typeof flags.name === 'string' ? { name: flags.name } : {}),
        ...(typeof flags.scope === 'string' ? { scope: flags.scope } : {}),
        ...(typeof flags.paths === 'string' ? { paths: flags.paths } : {}),
      },
      config.dataDir,
      {
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
        now: () => Date.now(),
      },
    );
  }
  if (command === 'pair') {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    const { runPairCommand } = await import('./commands/pair-command');
    return runPairCommand(
      {
        ...(typeof flags.name === 'string' ? { name: flags.name } : {}),
        ...(typeof flags.url === 'string' ? { url: flags.url } : {}),
      },
      config,
      {
        out: (text) => process.stdout.write(text),
        err: (text) => process.stderr.write(text),
        now: () => Date.now(),
      },
    );
  }
  if (flags['rotate-token'] === true && envToken !== undefined) {
    process.stderr.write(
      'cairn-companion: --rotate-token replaces the stored token, but CAIRN_TOKEN is set and wins; ' +
        'change CAIRN_TOKEN instead, or unset it\n',
    );
    return EXIT_USAGE;
  }
  const [
    { embeddingsConfigFromEnv },
    { searchExclusionSettingsFromEnv },
    { summarizerConfigFromEnv },
    { visionConfigFromEnv },
    { memoryModelConfigFromEnv },
  ] = await Promise.all([
    import('./embeddings/provider'),
    import('./search/search-exclusions'),
    import('./search/ollama-summarizer'),
    import('./clients/vision-config'),
    import('./memory'),
  ]);
  let embeddings: EmbeddingsConfig;
  let summarizer: SummarizerConfig | null;
  let vision: OllamaModel | null;
  let memoryModel: ReturnType<typeof memoryModelConfigFromEnv>;
  let searchExclusions: SearchExclusionSettings;
  try {
    embeddings = embeddingsConfigFromEnv(process.env, flags);
    searchExclusions = searchExclusionSettingsFromEnv(process.env);
    summarizer = summarizerConfigFromEnv(process.env);
    vision = visionConfigFromEnv(process.env);
    memoryModel = memoryModelConfigFromEnv(process.env);
  } catch (error) {
    process.stderr.write(
      `cairn-companion: ${(error as Error).message}\nRun with --help for usage.\n`,
    );
    return EXIT_USAGE;
  }

  const [{ default: pino }, { createLogger }, { SHUTDOWN_DEADLINE_MS, startServer }] =
    await Promise.all([import('pino'), import('./logging'), import('./server')]);
  const { registryFile } = await import('./data-folders');
  // Logs go to stderr as JSON lines; stdout carries only the start-up summary below.
  const logger = createLogger(config.logLevel, pino.destination({ dest: 2, sync: true }));
  for (const warning of warnings) logger.warn(warning);

  const startOptions: StartOptions = {
    logger,
    clock: systemClock,
    registryFile: registryFile(process.env, homedir()),
    envToken,
    rotateToken: flags['rotate-token'] === true,
    embeddings,
    searchExclusions,
    ...(summarizer ? { summarizer } : {}),
    ...(vision ? { vision } : {}),
    ...(memoryModel ? { memoryModel } : {}),
    ...(config.pushSubject === undefined ? {} : { pushSubject: config.pushSubject }),
  };
  if (command === 'mcp') {
    const { runMcpCommand } = await import('./commands/mcp-command');
    try {
      await runMcpCommand({
        dataDir: config.dataDir,
        // The token this session presents: a scoped one (CAIRN_MCP_TOKEN), else the owner's.
        envToken: emptyToUndefined(process.env.CAIRN_MCP_TOKEN) ?? envToken,
        logger,
        startLocal: () =>
          startServer({ ...config, host: '127.0.0.1', port: 0, tls: null }, startOptions),
      });
      return EXIT_OK;
    } catch (error) {
      process.stderr.write(`cairn-companion mcp: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
  }

  let server: RunningServer;
  try {
    server = await startServer(config, startOptions);
  } catch (error) {
    const { TokenError } = await import('./auth/token');
    const { startStorageMessage } = await import('./http/storage-error');
    if (error instanceof TokenError) {
      process.stderr.write(`cairn-companion: ${error.message}\n`);
      return error.source === 'usage' ? EXIT_USAGE : EXIT_FAILURE;
    }
    logger.debug({ err: error }, 'start failed');
    const storage = startStorageMessage(error, { vault: config.vault, dataDir: config.dataDir });
    process.stderr.write(`cairn-companion: ${storage ?? (error as Error).message}\n`);
    return EXIT_FAILURE;
  }

  printSummary(server, config.vault, config.dataDir, config.timezone);
  stopOnSignals(server, logger, SHUTDOWN_DEADLINE_MS);
  return null;
}

function printSummary(server: RunningServer, vault: string, dataDir: string, timezone: string) {
  const lines = [
    `cairn-companion ${COMPANION_VERSION} serving ${vault}`,
    `listening on ${server.url}${allInterfacesHint(server.url)}`,
    `data folder: ${dataDir}`,
    `time zone: ${timezone}`,
  ];
  const { token } = server;
  if (token.createdToken !== null) {
    lines.push(`API token (shown only now; stored in ${token.file}):`, `  ${token.createdToken}`);
  } else if (token.source === 'env') {
    lines.push('API token: from CAIRN_TOKEN');
  } else {
    lines.push(`API token: stored in ${token.file} (start with --rotate-token for a new one)`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `0.0.0.0` is where the server listens, not an address a phone can open. */
function allInterfacesHint(url: string): string {
  const host = new URL(url).hostname;
  return host === '0.0.0.0' || host === '[::]'
    ? " (all interfaces: use this machine's LAN address)"
    : '';
}

function stopOnSignals(server: RunningServer, logger: Logger, deadlineMs: number): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting without waiting`);
      process.exit(EXIT_FAILURE);
    }
    stopping = true;
    logger.info(`${signal}: stopping`);
    const deadline = setTimeout(() => {
      logger.error(`still busy after ${deadlineMs} ms; exiting`);
      process.exit(EXIT_FAILURE);
    }, deadlineMs);
    deadline.unref();
    server.stop().then(
      () => {
        logger.info('stopped');
        process.exit(EXIT_OK);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(EXIT_FAILURE);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== null) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(
      `cairn-companion: unexpected error: ${(error as Error).stack ?? String(error)}\n`,
    );
    process.exit(EXIT_FAILURE);
  },
);
