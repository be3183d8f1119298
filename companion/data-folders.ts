import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/*
 * One data folder per vault (issue #26, item 7). A companion records where it runs in a small
 * registry in the user's state folder (vault → data folder), so a subcommand started without
 * `--data` (`calendar-url`, `mcp`, `token`, the vault commands) finds the folder the server
 * uses, `npm start`'s `.cairn-data` included, instead of making a second one. And a lock file in
 * the data folder keeps a second companion off it: two schedulers on one delivery log would
 * ring every reminder twice.
 */

/** The lock file in a data folder while a companion runs on it. */
export const LOCK_FILE = 'companion.lock';

interface LockHolder {
  readonly pid: number;
  readonly vault: string;
  /** ISO time the holder started. */
  readonly started: string;
}

interface RegistryEntry {
  readonly dataDir: string;
  /** ISO time the entry was last written (a companion started on it). */
  readonly updated: string;
}

/**
 * `$XDG_STATE_HOME/cairn-companion/data-folders.json`, or `~/.local/state/…`: state, not data
 * (XDG): losing it costs only the lookup, never a reminder or a token.
 */
export function registryFile(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : join(homeDir, '.local', 'state');
  return join(base, 'cairn-companion', 'data-folders.json');
}

function readRegistry(file: string): Record<string, RegistryEntry> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { vaults?: unknown };
    const vaults = parsed.vaults;
    if (typeof vaults !== 'object' || vaults === null) return {};
    const entries: Record<string, RegistryEntry> = {};
    for (const [vault, entry] of Object.entries(vaults as Record<string, unknown>)) {
      const { dataDir, updated } = (entry ?? {}) as Partial<RegistryEntry>;
      if (typeof dataDir === 'string' && typeof updated === 'string') {
        entries[vault] = { dataDir, updated };
      }
    }
    return entries;
  } catch {
    return {}; // missing or damaged: nothing registered (the next start rewrites it)
  }
}

/** The data folder a companion last ran on for `vault` (its real path), if one did. */
export function registeredDataFolder(file: string, vault: string): string | undefined {
  return readRegistry(file)[vault]?.dataDir;
}

/** Records that a companion runs on `vault` with `dataDir` (atomically: temp file, rename). */
export function registerDataFolder(
  file: string,
  vault: string,
  dataDir: string,
  now: number,
): void {
  const vaults = {
    ...readRegistry(file),
    [vault]: { dataDir, updated: new Date(now).toISOString() },
  };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify({ vaults }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** A second companion refused: another one holds the data folder (or serves the vault). */
export class DataFolderInUseError extends Error {
  override name = 'DataFolderInUseError';
  readonly code = 'DATA_FOLDER_IN_USE';
  constructor(
    message: string,
    readonly holder: LockHolder,
  ) {
    super(message);
  }
}

/** Whether process `pid` is alive (signal 0 tests without sending anything). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** The live companion holding `dataDir`, if any; a lock left by a killed one is not. */
export function dataFolderHolder(dataDir: string): LockHolder | undefined {
  let holder: Partial<LockHolder>;
  try {
    holder = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as Partial<LockHolder>;
  } catch {
    return undefined;
  }
  if (typeof holder.pid !== 'number' || !alive(holder.pid)) return undefined;
  return {
    pid: holder.pid,
    vault: typeof holder.vault === 'string' ? holder.vault : '(unknown vault)',
    started: typeof holder.started === 'string' ? holder.started : '(unknown time)',
  };
}

/**
 * Takes the data folder for this process: creates `companion.lock` (exclusively) naming it and
 * its vault. Refuses when a live companion holds the folder, naming its process, vault and the
 * folder; a lock left by a companion that was killed is taken over. Returns the release, which
 * removes the lock only while it is still this process's.
 */
export function lockDataFolder(dataDir: string, vault: string, now: number): () => void {
  const file = join(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, vault, started: new Date(now).toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(mine)}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const holder = dataFolderHolder(dataDir);
    if (holder !== undefined) {
      throw new DataFolderInUseError(
        `the data folder ${dataDir} is in use by another companion (process ${holder.pid}, ` +
          `serving ${holder.vault}, started ${holder.started}); two companions on one data ` +
          `folder would send every reminder twice. Stop that one first, or use its server ` +
          `(subcommands find it by themselves)`,
        holder,
      );
    }
    rmSync(file, { force: true }); // left by a companion that was killed
  }
  return () => {
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
      if (current.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // Gone already.
    }
  };
}

/**
 * Refuses a second companion on one vault with another data folder: the registry's folder for
 * `vault`, when it is not `dataDir` and a live companion holds it.
 */
export function assertVaultFree(file: string, vault: string, dataDir: string): void {
  const other = registeredDataFolder(file, vault);
  if (other === undefined || other === dataDir) return;
  const holder = dataFolderHolder(other);
  if (holder === undefined) return;
  throw new DataFolderInUseError(
    `the vault ${vault} is already served by another companion (process ${holder.pid}, data ` +
      `folder ${other}, started ${holder.started}); a second one would send every reminder ` +
      `twice. Stop that one first, or pass --data ${other}`,
    holder,
  );
}
