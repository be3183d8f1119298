import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, defaultDataDir, resolveConfig } from '../../companion/config';
import type { ConfigInputs } from '../../companion/config';
import { DEFAULT_FOLDERS, PLUGIN_DATA_PATH, loadSettings } from '../../shared/settings';
import { copySampleVault, tempDir } from './helpers/app';

let dir: { path: string; remove: () => void };
let vault: string;
beforeEach(() => {
  dir = tempDir('config');
  vault = copySampleVault(dir.path);
});
afterEach(() => dir.remove());

function inputs(overrides: Partial<ConfigInputs> = {}): ConfigInputs {
  return {
    flags: { vault },
    env: {},
    homeDir: join(dir.path, 'home'),
    systemTimeZone: 'Asia/Kolkata',
    cwd: dir.path,
    ...overrides,
  };
}

function problemsOf(input: ConfigInputs): readonly string[] {
  try {
    resolveConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function writePluginSettings(text: string): void {
  const file = join(vault, PLUGIN_DATA_PATH);
  writeFileSync(file, text);
}

describe('resolveConfig: precedence flag > env > data.json > default', () => {
  it('uses the defaults and the vault settings when nothing else is given', () => {
    const { config, warnings } = resolveConfig(inputs());
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      timezone: 'Europe/Berlin', // from the sample vault's data.json
      timezoneSource: 'vault',
      tls: null,
      logLevel: 'info',
      pushHosts: [],
      graceHours: 24,
      trustProxy: [],
      folders: DEFAULT_FOLDERS,
      dataDirSource: 'default',
    });
    expect(config.dataDir).toBe(defaultDataDir(config.vault, {}, join(dir.path, 'home')));
  });

  it('env beats data.json, flags beat env', () => {
    const env = {
      CAIRN_PORT: '9000',
      CAIRN_HOST: '0.0.0.0',
      CAIRN_TIMEZONE: 'America/New_York',
      CAIRN_LOG_LEVEL: 'debug',
      CAIRN_GRACE_HOURS: '6',
      CAIRN_PUSH_HOSTS: 'fcm.googleapis.com, *.notify.windows.com',
      CAIRN_DATA: 'env-data',
    };
    const fromEnv = resolveConfig(inputs({ env })).config;
    expect(fromEnv).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      timezone: 'America/New_York',
      timezoneSource: 'env',
      logLevel: 'debug',
      graceHours: 6,
      pushHosts: ['fcm.googleapis.com', '*.notify.windows.com'],
      dataDir: join(dir.path, 'env-data'),
      dataDirSource: 'env',
    });

    const fromFlags = resolveConfig(
      inputs({
        env,
        flags: { vault, port: '9100', timezone: 'UTC', data: 'flag-data', 'log-level': 'warn' },
      }),
    ).config;
    expect(fromFlags).toMatchObject({
      port: 9100,
      host: '0.0.0.0',
      timezone: 'UTC',
      timezoneSource: 'flag',
      logLevel: 'warn',
      dataDir: join(dir.path, 'flag-data'),
      dataDirSource: 'flag',
    });
  });

  it('takes the push subject from CAIRN_PUSH_SUBJECT, --push-subject winning; none by default', () => {
    expect(resolveConfig(inputs()).config).not.toHaveProperty('pushSubject');
    const env = { CAIRN_PUSH_SUBJECT: 'mailto:ops@example.com' };
    expect(resolveConfig(inputs({ env })).config.pushSubject).toBe('mailto:ops@example.com');
    const flagged = resolveConfig(
      inputs({ env, flags: { vault, 'push-subject': 'https://cairn.example.org' } }),
    );
    expect(flagged.config.pushSubject).toBe('https://cairn.example.org');
  });

  it('takes the vault from CAIRN_VAULT and treats empty variables as unset', () => {
    const { config } = resolveConfig(
      inputs({ flags: {}, env: { CAIRN_VAULT: vault, CAIRN_PORT: '' } }),
    );
    expect(config.port).toBe(8787);
    expect(config.vault).toContain('vault');
  });

  it('falls back to the system zone without plugin settings', () => {
    writePluginSettings('{}');
    const { config } = resolveConfig(inputs());
    expect(config).toMatchObject({ timezone: 'Asia/Kolkata', timezoneSource: 'default' });
  });

  it('reads folders from data.json and keeps defaults for the rest', () => {
    writePluginSettings(JSON.stringify({ folders: { reminders: 'Tasks/Reminders' } }));
    expect(resolveConfig(inputs()).config.folders).toEqual({
      ...DEFAULT_FOLDERS,
      reminders: 'Tasks/Reminders',
    });
  });

  it('defaults the data folder under $XDG_DATA_HOME when set', () => {
    const env = { XDG_DATA_HOME: '/srv/data' };
    const { config } = resolveConfig(inputs({ env }));
    expect(config.dataDir).toMatch(/^\/srv\/data\/cairn-companion\/vault-[0-9a-f]{12}$/);
  });
});

describe('resolveConfig: the plugin settings file is tolerated when broken', () => {
  it.each([
    ['not JSON', '{"timezone": "Europe/Ber', /data\.json: not valid JSON/],
    ['an array', '[1, 2]', /data\.json › \(file\): expected an object, found a list/],
    [
      'a numeric timezone',
      '{"timezone": 5}',
      /data\.json › timezone: expected text, found number 5/,
    ],
    [
      'an unknown zone',
      '{"timezone": "Mars/Olympus"}',
      /data\.json › timezone: "Mars\/Olympus" is not an IANA time zone/,
    ],
    ['folders as a string', '{"folders": "Cairn"}', /data\.json › folders: expected an object/],
    [
      'a folder climbing out',
      '{"folders": {"notes": "../outside"}}',
      /data\.json › folders\.notes: "\.\.\/outside" must stay inside the vault/,
    ],
    [
      'a hidden folder',
      '{"folders": {"chats": ".obsidian/chats"}}',
      /data\.json › folders\.chats: "\.obsidian\/chats" is a hidden folder/,
    ],
    [
      'a non-string folder',
      '{"folders": {"notes": 3}}',
      /data\.json › folders\.notes: expected text, found number 3/,
    ],
  ])('%s: warns, names the file and key, and uses defaults', (_case, text, warning) => {
    writePluginSettings(text);
    const { config, warnings } = resolveConfig(inputs());
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(warning);
    expect(config.timezone).toBe('Asia/Kolkata');
    expect(config.folders).toEqual(DEFAULT_FOLDERS);
  });
});

describe('resolveConfig: data.json is read as the plugin reads it (shared/settings)', () => {
  it('takes an absolute folder as vault-relative, like the plugin, so both write to one place', () => {
    writePluginSettings('{"folders": {"chats": "/Journal/Chats/"}}');
    const { config, warnings } = resolveConfig(inputs());
    expect(warnings).toEqual([]);
    expect(config.folders).toEqual({ ...DEFAULT_FOLDERS, chats: 'Journal/Chats' });
    expect(config.folders.chats).toBe(
      loadSettings({ folders: { chats: '/Journal/Chats/' } }, 'UTC').settings.folders.chats,
    );
  });

  it('migrates a version-0 file first: its defaultTimezone is the zone', () => {
    writePluginSettings('{"defaultTimezone": "Europe/Lisbon"}');
    const { config, warnings } = resolveConfig(inputs());
    expect(warnings).toEqual([]);
    expect(config.timezone).toBe('Europe/Lisbon');
    expect(config.timezoneSource).toBe('vault');
  });

  it('leaves fields only the plugin reads to the plugin: a bad Ollama URL is not its warning', () => {
    writePluginSettings('{"ollama": {"url": "ftp://x"}, "timezone": "Europe/Paris"}');
    const { config, warnings } = resolveConfig(inputs());
    expect(warnings).toEqual([]);
    expect(config.timezone).toBe('Europe/Paris');
  });
});

describe('resolveConfig: bad flags and variables name themselves', () => {
  it.each([
    ['port too large', { port: '70000' }, {}, '--port: 70000 is not a port (1–65535)'],
    ['port zero', { port: '0' }, {}, '--port: 0 is not a port (1–65535)'],
    ['port not a number', {}, { CAIRN_PORT: '80a' }, 'CAIRN_PORT: 80a is not a port (1–65535)'],
    [
      'host with a space',
      { host: 'my host' },
      {},
      '--host: "my host" is not an IP address or host name',
    ],
    [
      'unknown zone',
      { timezone: 'Mars/Olympus' },
      {},
      '--timezone: "Mars/Olympus" is not an IANA time zone',
    ],
    [
      'zone from env',
      {},
      { CAIRN_TIMEZONE: 'CEST' },
      'CAIRN_TIMEZONE: "CEST" is not an IANA time zone',
    ],
    ['log level', { 'log-level': 'loud' }, {}, '--log-level: "loud" is not a log level'],
    ['negative grace', { 'grace-hours': '-1' }, {}, '--grace-hours: -1 is not a number of hours'],
    [
      'push host with a scheme',
      { 'push-hosts': 'https://fcm.googleapis.com' },
      {},
      '--push-hosts: "https://fcm.googleapis.com" is not a host name',
    ],
    [
      'push subject not a URL',
      { 'push-subject': 'admin@example.com' },
      {},
      '--push-subject: "admin@example.com": not a URL',
    ],
    [
      'push subject on a local name',
      {},
      { CAIRN_PUSH_SUBJECT: 'mailto:me@nas.local' },
      'CAIRN_PUSH_SUBJECT: "mailto:me@nas.local": "nas.local" is not a public name',
    ],
    [
      'proxy not an address',
      { 'trust-proxy': 'proxy.lan' },
      {},
      '--trust-proxy: "proxy.lan" is not an IP address or CIDR range',
    ],
    [
      'proxy prefix too long',
      {},
      { CAIRN_TRUST_PROXY: '10.0.0.0/33' },
      'CAIRN_TRUST_PROXY: "10.0.0.0/33" is not an IP address or CIDR range',
    ],
    [
      'cert without key',
      { 'tls-cert': 'cert.pem' },
      {},
      '--tls-cert: --tls-cert and --tls-key go together',
    ],
  ])('%s', (_case, flags, env, message) => {
    const problems = problemsOf(inputs({ flags: { vault, ...flags }, env }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf(
      inputs({ flags: { vault, port: 'x', host: '', 'log-level': 'x' }, env: {} }),
    );
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      '--port',
      '--host',
      '--log-level',
    ]);
  });

  it('requires a vault', () => {
    expect(problemsOf(inputs({ flags: {} }))).toEqual([
      '--vault: required (or set CAIRN_VAULT): the Obsidian vault folder to serve',
    ]);
  });

  it('refuses a vault that is missing or a file', () => {
    expect(problemsOf(inputs({ flags: { vault: 'nowhere' } }))[0]).toMatch(
      /^--vault: .*nowhere does not exist$/,
    );
    expect(problemsOf(inputs({ flags: { vault: join(vault, 'Welcome.md') } }))[0]).toMatch(
      /^--vault: .*Welcome\.md is not a directory$/,
    );
  });

  it('refuses TLS files that do not exist', () => {
    const problems = problemsOf(
      inputs({ flags: { vault, 'tls-cert': 'cert.pem', 'tls-key': 'key.pem' } }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^--tls-cert: .*cert\.pem is not a readable file$/);
  });
});

describe('resolveConfig: the data folder stays outside the vault', () => {
  it.each([
    ['inside the vault', (v: string) => join(v, '.cairn')],
    ['the vault itself', (v: string) => v],
    ['not yet created, deep inside', (v: string) => join(v, 'a', 'b', 'c')],
  ])('refuses a data folder %s', (_case, dataFor) => {
    const problems = problemsOf(inputs({ flags: { vault, data: dataFor(vault) } }));
    expect(problems[0]).toMatch(/^--data: .* is inside the vault/);
  });

  it('refuses one that reaches into the vault through a symlink', () => {
    const link = join(dir.path, 'looks-outside');
    symlinkSync(vault, link);
    const problems = problemsOf(inputs({ env: { CAIRN_DATA: join(link, 'data') } }));
    expect(problems[0]).toMatch(/^CAIRN_DATA: .* is inside the vault/);
  });

  it('accepts a sibling folder whose name starts like the vault', () => {
    mkdirSync(`${vault}-data`);
    expect(resolveConfig(inputs({ flags: { vault, data: `${vault}-data` } })).config.dataDir).toBe(
      `${vault}-data`,
    );
  });
});
