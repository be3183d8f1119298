import { existsSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, resolveConfig } from '../config';
import type { CompanionConfig } from '../config';
import { OPTIONS } from '../options';
import { loadOrCreateFeedSecret } from '../calendar/feed-secret';
import { registryFile } from '../data-folders';

export interface CommandIo {
  readonly env: NodeJS.ProcessEnv;
  readonly homeDir: string;
  readonly systemTimeZone: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const CALENDAR_URL_USAGE = `Usage: cairn-companion calendar-url --vault PATH [--data DIR] [--rotate] [--base-url URL]

Prints the URL of the calendar feed (docs/memory-digest-calendar.md) to subscribe to in a calendar app.
The secret in the URL is its only credential: --rotate replaces it, and the old URL
stops working at once, also while the server runs.
  --rotate          make a new secret (the old URL then answers 404)
  --base-url URL    the address phones reach the companion at (e.g. behind Caddy or
                    Tailscale serve); default: from --host/--port/--tls-cert
`;

/**
 * `cairn-companion calendar-url [--rotate]`: takes the server's own flags (`--vault`,
 * `--data`, `--host`, `--port`, …) so it finds the same data folder, and works while the
 * server runs (the server reads the secret file at each request). Returns the exit code.
 */
export function runCalendarUrl(argv: readonly string[], io: CommandIo): number {
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(OPTIONS.map((spec) => [spec.name, { type: spec.kind }])),
        rotate: { type: 'boolean' },
        'base-url': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    io.stderr(`cairn-companion calendar-url: ${(error as Error).message}\n${CALENDAR_URL_USAGE}`);
    return 2;
  }
  if (flags.help === true) {
    io.stdout(CALENDAR_URL_USAGE);
    return 0;
  }
  const { 'base-url': baseUrl, rotate, ...serverFlags } = flags;
  let config: CompanionConfig;
  try {
    config = resolveConfig({
      flags: serverFlags,
      env: io.env,
      homeDir: io.homeDir,
      systemTimeZone: io.systemTimeZone,
    }).config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) io.stderr(`cairn-companion calendar-url: ${problem}\n`);
    return 2;
  }
  let base: URL;
  try {
    base = new URL(typeof baseUrl === 'string' ? baseUrl : defaultBase(config));
  } catch {
    io.stderr(`cairn-companion calendar-url: --base-url ${JSON.stringify(baseUrl)} is not a URL\n`);
    return 2;
  }
  if (config.dataDirSource === 'default' && !existsSync(config.dataDir)) {
    // A feed secret in a folder no companion serves would print a URL that answers 404.
    io.stderr(
      `cairn-companion calendar-url: no companion has run on ${config.vault} yet: it is not in ` +
        `${registryFile(io.env, io.homeDir)} and ${config.dataDir} does not exist. Start the ` +
        `companion on this vault first, or pass the --data folder it runs with\n`,
    );
    return 1;
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const secret = loadOrCreateFeedSecret(config.dataDir, { rotate: rotate === true });
  const path = `${base.pathname.replace(/\/+$/, '')}/api/v1/calendar/${secret}.ics`;
  io.stdout(`${new URL(path, base.origin).toString()}\n`);
  if (rotate === true)
    io.stderr('calendar-url: a new secret was made; the previous URL no longer works\n');
  return 0;
}

function defaultBase(config: CompanionConfig): string {
  const scheme = config.tls ? 'https' : 'http';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${scheme}://${host}:${config.port}`;
}
