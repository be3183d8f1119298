import { homedir } from 'node:os';
import { createInterface } from 'node:readline/promises';
import pino from 'pino';
import { ConfigError, resolveConfig } from '../config';
import { embeddingsConfigFromEnv } from '../embeddings/provider';
import { createLogger } from '../logging';
import { summarizerConfigFromEnv } from '../search/ollama-summarizer';
import { searchExclusionSettingsFromEnv } from '../search/search-exclusions';
import { connect } from './companion-connection';
import { EXIT, parseVaultCommand, runVaultCommand, vaultCommandUsage } from './vault-commands';
import type { VaultCommandName } from './vault-command-names';
import type { VaultCommandIo } from './vault-commands';

/**
 * `cairn-companion search|ask|remind|note|reminders|remember|status …` from the real process:
 * arguments, the server's configuration (same `--vault`/`--data` and variables, so the same
 * data folder is found), then `runVaultCommand`. Returns the exit code.
 */
export async function runVaultCli(
  name: VaultCommandName,
  argv: readonly string[],
): Promise<number> {
  const io = processIo();
  const parsed = parseVaultCommand(name, argv);
  if (typeof parsed === 'string') {
    io.stderr(
      `cairn-companion ${name}: ${parsed}\nRun cairn-companion ${name} --help for usage.\n`,
    );
    return EXIT.usage;
  }
  if (parsed.serverFlags.help === true) {
    io.stdout(vaultCommandUsage(name));
    return EXIT.found;
  }
  let config;
  try {
    config = resolveConfig({
      flags: parsed.serverFlags,
      env: process.env,
      homeDir: homedir(),
      systemTimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    }).config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) io.stderr(`cairn-companion ${name}: ${problem}\n`);
    return EXIT.usage;
  }
  let environment;
  try {
    environment = {
      embeddings: embeddingsConfigFromEnv(process.env, parsed.serverFlags),
      searchExclusions: searchExclusionSettingsFromEnv(process.env),
      summarizer: summarizerConfigFromEnv(process.env),
    };
  } catch (error) {
    io.stderr(`cairn-companion ${name}: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  // A command's own output is for people and scripts: the index's info lines are not, unless
  // asked for with --log-level or CAIRN_LOG_LEVEL.
  const explicitLevel =
    parsed.serverFlags['log-level'] !== undefined || process.env.CAIRN_LOG_LEVEL !== undefined;
  const logger = createLogger(
    explicitLevel ? config.logLevel : 'error',
    pino.destination({ dest: 2, sync: true }),
  );
  const clock = { now: () => Date.now() };
  const envToken = process.env.CAIRN_TOKEN === '' ? undefined : process.env.CAIRN_TOKEN;
  return runVaultCommand(name, parsed, {
    io,
    clock,
    zone: config.timezone,
    connect: ({ queries }) => connect({ config, envToken, logger, clock, queries, ...environment }),
  });
}

function processIo(): VaultCommandIo {
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdoutIsTty: process.stdout.isTTY === true,
    stdinIsTty: process.stdin.isTTY === true,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    async question(prompt) {
      const terminal = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await terminal.question(prompt);
      } finally {
        terminal.close();
      }
    },
  };
}
