import { createHash } from 'node:crypto';
import {
  DEFAULT_DIGEST_SCHEDULE,
  DigestScheduleError,
  parseDigestSchedule,
} from '../shared/digest';
import type { DigestSchedule } from '../shared/digest';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { LevelWithSilent } from 'pino';
import { LOG_LEVELS } from './logging';
import { registeredDataFolder, registryFile } from './data-folders';
import { OPTIONS } from './options';
import type { OptionName } from './options';
import { subjectProblem } from './push/vapid-keys';
import { DEFAULT_FOLDERS } from '../shared/settings';
import type { VaultFolders } from '../shared/settings';
import { readPluginSettings } from './vault/plugin-settings';
import { isValidTimeZone } from '../shared/settings/validation';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_GRACE_HOURS = 24;

/** Where a setting's value came from; shown at start so a surprising value can be traced. */
/** `registry`: the folder a companion last ran on for this vault (data-folders.ts). */
export type SettingSource = 'flag' | 'env' | 'vault' | 'registry' | 'default';

/** Everything the companion runs with, validated. Paths are absolute. */
export interface CompanionConfig {
  /** Real path of the vault folder (symlinks resolved). */
  readonly vault: string;
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly dataDirSource: SettingSource;
  readonly timezone: string;
  readonly timezoneSource: SettingSource;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | null;
  readonly logLevel: LevelWithSilent;
  /** Push-service hosts subscriptions may point at; empty = any `https:` host. */
  readonly pushHosts: readonly string[];
  /**
   * Hosts whose pages a saved link may fetch (`--link-hosts`, docs/memory-digest-calendar.md);
   * absent or empty is offline mode: no link is fetched.
   */
  readonly linkHosts?: readonly string[];
  /** VAPID contact (`--push-subject`); absent, the key file's or the default (push/vapid-keys.ts). */
  readonly pushSubject?: string;
  /** Missed occurrences younger than this fire on start; older ones are listed as missed. */
  readonly graceHours: number;
  /** Proxy addresses/CIDRs whose X-Forwarded-For is believed; empty = none. */
  readonly trustProxy: readonly string[];
  readonly folders: VaultFolders;
  /** Weekly digest slot (docs/clients.md); null = off; absent = the default, Monday 08:00. */
  readonly digest?: DigestSchedule | null;
}

/** The inputs, passed in so tests need neither process.env nor the real home folder. */
export interface ConfigInputs {
  /** Values from `parseArgs` (strings for value flags). */
  readonly flags: Partial<Record<OptionName, string | boolean | undefined>>;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  /** The system's IANA zone (`Intl.DateTimeFormat().resolvedOptions().timeZone`). */
  readonly systemTimeZone: string;
  /** Base for relative paths; defaults to process.cwd(). */
  readonly cwd?: string;
}

export interface ResolvedConfig {
  readonly config: CompanionConfig;
  /** Non-fatal problems (e.g. a broken data.json) to log at start. */
  readonly warnings: readonly string[];
}

/** Bad flags, variables or paths. Every line names the flag or variable at fault. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

interface Raw {
  /** `--port` or `CAIRN_PORT`: the name the user typed, for error messages. */
  readonly label: string;
  readonly value: string;
  readonly source: 'flag' | 'env';
}

/**
 * Resolves the configuration: flag > environment variable > the plugin's data.json in the
 * vault > default. Collects every problem before failing, so one run shows them all.
 */
export function resolveConfig(inputs: ConfigInputs): ResolvedConfig {
  const problems: string[] = [];
  const warnings: string[] = [];
  const cwd = inputs.cwd ?? process.cwd();
  const raw = (name: OptionName): Raw | undefined => pick(name, inputs);

  const vault = resolveVault(raw('vault'), cwd, problems);
  const port = resolvePort(raw('port'), problems);
  const host = resolveHost(raw('host'), problems);

  const vaultSettings = vault
    ? readPluginSettings(vault, inputs.systemTimeZone)
    : { settings: { folders: {} }, warnings: [] };
  warnings.push(...vaultSettings.warnings);

  let timezone = inputs.systemTimeZone;
  let timezoneSource: SettingSource = 'default';
  const timezoneRaw = raw('timezone');
  if (timezoneRaw) {
    if (isValidTimeZone(timezoneRaw.value)) {
      timezone = timezoneRaw.value;
      timezoneSource = timezoneRaw.source;
    } else {
      problems.push(
        `${timezoneRaw.label}: "${timezoneRaw.value}" is not an IANA time zone (e.g. Europe/Berlin)`,
      );
    }
  } else if (vaultSettings.settings.timezone !== undefined) {
    // The plugin's reader checked it; a zone it refused is among the warnings already.
    timezone = vaultSettings.settings.timezone;
    timezoneSource = 'vault';
  }

  const dataRaw = raw('data');
  // Without --data/CAIRN_DATA: the folder the server runs on for this vault (it records it in
  // the registry, data-folders.ts), so subcommands never make a second one; else the default.
  const registered =
    dataRaw || !vault
      ? undefined
      : registeredDataFolder(registryFile(inputs.env, inputs.homeDir), vault);
  const dataDir = dataRaw
    ? resolve(cwd, dataRaw.value)
    : (registered ?? (vault ? defaultDataDir(vault, inputs.env, inputs.homeDir) : ''));
  if (vault && dataDir !== '' && isInside(realPathOfNearestExisting(dataDir), vault)) {
    problems.push(
      `${dataRaw?.label ?? 'data folder'}: ${dataDir} is inside the vault; the database and token ` +
        `must live outside it (it syncs to every device). Choose a folder outside ${vault}`,
    );
  }
  if (dataDir !== '' && existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    problems.push(`${dataRaw?.label ?? 'data folder'}: ${dataDir} exists and is not a directory`);
  }

  const tls = resolveTls(raw('tls-cert'), raw('tls-key'), cwd, problems);
  const logLevel = resolveLogLevel(raw('log-level'), problems);
  const pushHosts = resolvePushHosts(raw('push-hosts'), problems);
  const linkHosts = resolveLinkHosts(raw('link-hosts'), problems);
  const pushSubject = resolvePushSubject(raw('push-subject'), problems);
  const graceHours = resolveGraceHours(raw('grace-hours'), problems);
  const trustProxy = resolveTrustProxy(raw('trust-proxy'), problems);
  const digest = resolveDigest(raw('digest'), problems);

  if (problems.length > 0 || !vault) throw new ConfigError(problems);
  return {
    config: {
      vault,
      port,
      host,
      dataDir,
      dataDirSource: dataRaw?.source ?? (registered === undefined ? 'default' : 'registry'),
      timezone,
      timezoneSource,
      tls,
      logLevel,
      pushHosts,
      ...(linkHosts.length === 0 ? {} : { linkHosts }),
      ...(pushSubject === undefined ? {} : { pushSubject }),
      graceHours,
      trustProxy,
      folders: { ...DEFAULT_FOLDERS, ...vaultSettings.settings.folders },
      digest,
    },
    warnings,
  };
}

/**
 * `$XDG_DATA_HOME/cairn-companion/<vault name>-<hash>` (or `~/.local/share/…`): one folder
 * per vault, keyed by a hash of its real path so two vaults with the same name do not share
 * a database, and the name keeps it recognisable in a file manager.
 */
export function defaultDataDir(
  vaultRealPath: string,
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
): string {
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : join(homeDir, '.local', 'share');
  const hash = createHash('sha256').update(vaultRealPath).digest('hex').slice(0, 12);
  const name =
    basename(vaultRealPath)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .slice(0, 40) || 'vault';
  return join(base, 'cairn-companion', `${name}-${hash}`);
}

function pick(name: OptionName, inputs: ConfigInputs): Raw | undefined {
  const flag = inputs.flags[name];
  if (typeof flag === 'string') return { label: `--${name}`, value: flag, source: 'flag' };
  const env = (OPTIONS.find((spec) => spec.name === name) as { env?: string } | undefined)?.env;
  const value = env === undefined ? undefined : inputs.env[env];
  // An empty variable counts as unset: shells and compose files leave `VAR=` behind.
  if (env !== undefined && value !== undefined && value !== '') {
    return { label: env, value, source: 'env' };
  }
  return undefined;
}

function resolveVault(raw: Raw | undefined, cwd: string, problems: string[]): string | undefined {
  if (!raw) {
    problems.push('--vault: required (or set CAIRN_VAULT): the Obsidian vault folder to serve');
    return undefined;
  }
  const path = resolve(cwd, raw.value);
  if (!existsSync(path)) {
    problems.push(`${raw.label}: ${path} does not exist`);
    return undefined;
  }
  if (!statSync(path).isDirectory()) {
    problems.push(`${raw.label}: ${path} is not a directory`);
    return undefined;
  }
  return realpathSync(path);
}

function resolvePort(raw: Raw | undefined, problems: string[]): number {
  if (!raw) return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(raw.value) ? Number(raw.value) : NaN;
  if (!(port >= 1 && port <= 65535)) {
    problems.push(`${raw.label}: ${raw.value} is not a port (1–65535)`);
    return DEFAULT_PORT;
  }
  return port;
}

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function resolveHost(raw: Raw | undefined, problems: string[]): string {
  if (!raw) return DEFAULT_HOST;
  if (isIP(raw.value) === 0 && !HOSTNAME.test(raw.value)) {
    problems.push(`${raw.label}: "${raw.value}" is not an IP address or host name`);
    return DEFAULT_HOST;
  }
  return raw.value;
}

function resolveTls(
  cert: Raw | undefined,
  key: Raw | undefined,
  cwd: string,
  problems: string[],
): CompanionConfig['tls'] {
  if (!cert && !key) return null;
  if (!cert || !key) {
    const given = (cert ?? key) as Raw;
    problems.push(`${given.label}: --tls-cert and --tls-key go together; set both or neither`);
    return null;
  }
  const files = [cert, key].map((raw) => {
    const path = resolve(cwd, raw.value);
    if (!existsSync(path) || !statSync(path).isFile()) {
      problems.push(`${raw.label}: ${path} is not a readable file`);
    }
    return path;
  });
  return { certFile: files[0] as string, keyFile: files[1] as string };
}

function resolveLogLevel(raw: Raw | undefined, problems: string[]): LevelWithSilent {
  if (!raw) return 'info';
  const level = raw.value.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    problems.push(`${raw.label}: "${raw.value}" is not a log level (${LOG_LEVELS.join(', ')})`);
    return 'info';
  }
  return level as LevelWithSilent;
}

const PUSH_HOST =
  /^(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

function resolvePushHosts(raw: Raw | undefined, problems: string[]): string[] {
  if (!raw) return [];
  const hosts = splitList(raw.value).map((host) => host.toLowerCase());
  const bad = hosts.filter((host) => !PUSH_HOST.test(host));
  if (bad.length > 0 || hosts.length === 0) {
    problems.push(
      `${raw.label}: ${bad.length > 0 ? `"${bad.join('", "')}" ${bad.length === 1 ? 'is not a host name' : 'are not host names'}` : 'empty list'} ` +
        `(e.g. fcm.googleapis.com,*.notify.windows.com)`,
    );
  }
  return hosts;
}

/** `--link-hosts`: host names, `*.example.org`, or `*` for any public site. */
function resolveLinkHosts(raw: Raw | undefined, problems: string[]): string[] {
  if (!raw) return [];
  const hosts = splitList(raw.value).map((host) => host.toLowerCase());
  const bad = hosts.filter((host) => host !== '*' && !PUSH_HOST.test(host));
  if (bad.length > 0) {
    problems.push(
      `${raw.label}: "${bad.join('", "')}" ${bad.length === 1 ? 'is not a host name' : 'are not host names'} (e.g. example.org,*.wikipedia.org or *)`,
    );
  }
  return hosts;
}

function resolveGraceHours(raw: Raw | undefined, problems: string[]): number {
  if (!raw) return DEFAULT_GRACE_HOURS;
  const hours = /^\d+(?:\.\d+)?$/.test(raw.value) ? Number(raw.value) : NaN;
  if (!(hours >= 0 && hours <= 24 * 366)) {
    problems.push(`${raw.label}: ${raw.value} is not a number of hours (0–8784)`);
    return DEFAULT_GRACE_HOURS;
  }
  return hours;
}

function resolveDigest(raw: Raw | undefined, problems: string[]): DigestSchedule | null {
  if (!raw) return DEFAULT_DIGEST_SCHEDULE;
  try {
    return parseDigestSchedule(raw.value);
  } catch (error) {
    if (!(error instanceof DigestScheduleError)) throw error;
    problems.push(`${raw.label}: ${error.message}`);
    return DEFAULT_DIGEST_SCHEDULE;
  }
}

function resolveTrustProxy(raw: Raw | undefined, problems: string[]): string[] {
  if (!raw) return [];
  const entries = splitList(raw.value);
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const prefixOk =
      prefix === undefined ||
      (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (family === 0 || !prefixOk || extra !== undefined) {
      problems.push(`${raw.label}: "${entry}" is not an IP address or CIDR range`);
    }
  }
  return entries;
}

/** Checked here as well as when the keys load, so a bad value is a usage error naming the flag. */
function resolvePushSubject(raw: Raw | undefined, problems: string[]): string | undefined {
  if (!raw) return undefined;
  const subject = raw.value.trim();
  const problem = subjectProblem(subject);
  if (problem !== null) {
    problems.push(`${raw.label}: "${raw.value}": ${problem}`);
    return undefined;
  }
  return subject;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** realpath of `path`, resolving only the part that exists (the data folder may not yet). */
function realPathOfNearestExisting(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(basename(existing));
    existing = parent;
  }
  return join(realpathSync(existing), ...rest);
}
