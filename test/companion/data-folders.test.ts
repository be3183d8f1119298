import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../companion/config';
import {
  DataFolderInUseError,
  LOCK_FILE,
  registeredDataFolder,
  registryFile,
} from '../../companion/data-folders';
import { createLogger } from '../../companion/logging';
import { startServer } from '../../companion/server';
import type { RunningServer } from '../../companion/server';
import { ManualClock } from '../fakes/clock';
import { copySampleVault, tempDir, testConfig } from './helpers/app';

/*
 * One data folder per vault (issue #26, item 7): a lock keeps a second companion off a data
 * folder, the registry keeps a second one off the vault, and subcommands find the folder the
 * server runs on. Real servers (startServer) on real folders.
 */

let dir: { path: string; remove: () => void };
const servers: RunningServer[] = [];
beforeEach(() => {
  dir = tempDir('data-folders');
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  dir.remove();
});

const clock = ManualClock.at('2026-11-22T10:00:00Z');
const logger = createLogger('silent');

async function start(vault: string, dataDir: string, registry?: string): Promise<RunningServer> {
  const server = await startServer(
    { ...testConfig(vault, dataDir), port: 0 },
    { logger, clock, ...(registry === undefined ? {} : { registryFile: registry }) },
  );
  servers.push(server);
  return server;
}

async function refusal(promise: Promise<unknown>): Promise<DataFolderInUseError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DataFolderInUseError);
  return error as DataFolderInUseError;
}

describe('one companion per data folder', () => {
  it('a second companion on the same data folder is refused, naming the first', async () => {
    const vault = copySampleVault(dir.path);
    const data = join(dir.path, 'data');
    await start(vault, data);
    const lock = JSON.parse(readFileSync(join(data, LOCK_FILE), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(process.pid);

    const error = await refusal(start(vault, data));
    expect(error.message).toContain(`the data folder ${data} is in use by another companion`);
    expect(error.message).toContain(`process ${process.pid}`);
    expect(error.message).toContain(vault);

    // Once the first stops, the folder is free again.
    await servers.shift()!.stop();
    expect(existsSync(join(data, LOCK_FILE))).toBe(false);
    await start(vault, data);
  });

  it('a lock left by a companion that was killed is taken over', async () => {
    const vault = copySampleVault(dir.path);
    const data = join(dir.path, 'data');
    mkdirSync(data, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', '']).pid; // exited: its pid is free
    writeFileSync(
      join(data, LOCK_FILE),
      JSON.stringify({ pid: gone, vault, started: '2026-11-21T00:00:00.000Z' }),
    );
    await start(vault, data);
    const lock = JSON.parse(readFileSync(join(data, LOCK_FILE), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(process.pid);
  });
});

describe('the registry of data folders', () => {
  it('records the folder, refuses a second companion on the vault, and subcommands find it', async () => {
    const home = join(dir.path, 'home');
    const env = { XDG_STATE_HOME: join(dir.path, 'state') };
    const registry = registryFile(env, home);
    expect(registry).toBe(join(dir.path, 'state', 'cairn-companion', 'data-folders.json'));
    const vault = copySampleVault(dir.path);
    const data = join(dir.path, '.cairn-data');
    await start(vault, data, registry);
    expect(registeredDataFolder(registry, vault)).toBe(data);

    // A second server on the same vault with another data folder (the default one).
    const error = await refusal(start(vault, join(dir.path, 'other-data'), registry));
    expect(error.message).toContain(`the vault ${vault} is already served by another companion`);
    expect(error.message).toContain(`data folder ${data}`);
    expect(existsSync(join(dir.path, 'other-data', LOCK_FILE))).toBe(false);

    // A subcommand without --data resolves to the server's folder, not a new default one.
    const { config } = resolveConfig({
      flags: { vault },
      env,
      homeDir: home,
      systemTimeZone: 'Europe/Berlin',
      cwd: dir.path,
    });
    expect(config.dataDir).toBe(data);
    expect(config.dataDirSource).toBe('registry');
    // --data still wins.
    const flagged = resolveConfig({
      flags: { vault, data: join(dir.path, 'mine') },
      env,
      homeDir: home,
      systemTimeZone: 'Europe/Berlin',
      cwd: dir.path,
    });
    expect(flagged.config.dataDir).toBe(join(dir.path, 'mine'));
  });
});
