import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../companion/app';
import { sha256 } from '../../companion/auth/token';
import type { CompanionConfig } from '../../companion/config';
import { openDatabase } from '../../companion/db/open';
import type { SqliteDatabase } from '../../companion/db/open';
import { createLogger } from '../../companion/logging';
import type { TimerHandle, TimerPort } from '../../companion/reminders/timer';
import { SyncService } from '../../companion/sync';
import { isSyncablePath } from '../../companion/sync/syncable-path';
import { DEFAULT_FOLDERS } from '../../shared/settings';
import type { Clock } from '../../shared/ports';

/** The owner token of every simulated companion (43 characters, like a generated one). */
export const SIM_TOKEN = 'sim-token-0123456789abcdefghijklmnopqrstuvwx';

const UNLIMITED = { perToken: Number.MAX_SAFE_INTEGER, perAddress: Number.MAX_SAFE_INTEGER };

/** History pruning runs on its own schedule in production; a run never waits for it. */
const idleTimer: TimerPort = {
  set: () => ({}) as TimerHandle,
  clear: () => undefined,
};

/**
 * The real companion app (`buildApp`: its routes, schemas, auth and error envelope), built once
 * per process, serving whichever run's SyncService is attached. Building the app costs ~0.3 s
 * and compiling its schemas on first use as much again, more than a whole run, so runs share
 * it; everything a run's sync state lives in (SQLite database, blob store, journal, vault folder)
 * is the run's own and is closed and reopened by a restart.
 */
export class SharedCompanionApp {
  private service: SyncService | null = null;
  private clock: Clock = { now: () => 0 };

  private constructor(
    readonly app: FastifyInstance,
    private readonly dir: string,
    /** A database file migrated once, which every run starts from (see `databaseTemplate`). */
    readonly databaseTemplate: string,
  ) {}

  static async create(): Promise<SharedCompanionApp> {
    const dir = mkdtempSync(join(scratchBase(), 'cairn-sync-sim-app-'));
    let shared: SharedCompanionApp | null = null;
    const current = (): SyncService => {
      if (!shared?.service) throw new Error('no sync run is attached to the companion app');
      return shared.service;
    };
    // Every property read at call time, so the routes reach the attached run's service.
    const sync = new Proxy({} as SyncService, {
      get: (_target, property) => {
        const service = current() as unknown as Record<PropertyKey, unknown>;
        const value = service[property];
        return typeof value === 'function' ? (value as () => unknown).bind(service) : value;
      },
    });
    const app = await buildApp({
      config: simConfig(join(dir, 'vault'), join(dir, 'data')),
      db: openDatabase(join(dir, 'app.db')),
      clock: { now: () => shared?.clock.now() ?? 0 },
      tokenSha256: sha256(SIM_TOKEN),
      version: '0.0.0-sim',
      logger: createLogger('silent'),
      sync,
      // Runs share the app and its simulated clock, which runs far faster than a device could
      // send: the sync routes' rate limits are not what runs check (sync-rate-limit.test.ts does).
      rateLimits: { sync: UNLIMITED, syncBlobs: UNLIMITED },
    });
    shared = new SharedCompanionApp(app, dir, databaseTemplate(dir));
    return shared;
  }

  attach(service: SyncService | null, clock: Clock): void {
    this.service = service;
    this.clock = clock;
  }

  async close(): Promise<void> {
    this.service = null;
    await this.app.close().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * One run's companion: the real SyncService over a temporary vault folder, SQLite database and
 * blob store, behind the shared app. A restart closes all of it and opens it again from the
 * same files, as the process would.
 */
export class CompanionHost {
  readonly dir: string;
  readonly vault: string;
  private readonly dataDir: string;
  private readonly dbFile: string;
  service!: SyncService;
  private db: SqliteDatabase | null = null;

  constructor(
    private readonly shared: SharedCompanionApp,
    private readonly clock: Clock,
  ) {
    this.dir = mkdtempSync(join(scratchBase(), 'cairn-sync-sim-'));
    this.vault = join(this.dir, 'vault');
    this.dataDir = join(this.dir, 'data');
    this.dbFile = join(this.dir, 'cairn.db');
    mkdirSync(this.vault, { recursive: true });
    mkdirSync(this.dataDir, { recursive: true });
    // A copy of a migrated database is the database migrating a new file makes (migrations are
    // schema only), without migrating it again each run.
    copyFileSync(shared.databaseTemplate, this.dbFile);
  }

  get app(): FastifyInstance {
    return this.shared.app;
  }

  async start(): Promise<void> {
    this.db = openDatabase(this.dbFile);
    this.service = new SyncService({
      vault: this.vault,
      dataDir: this.dataDir,
      db: this.db,
      clock: this.clock,
      logger: createLogger('silent'),
      timer: idleTimer,
      // Nothing writes into a replaced file late here (other programs' edits are synchronous).
      lateWriteGraceMs: 0,
    });
    await this.service.start();
    this.shared.attach(this.service, this.clock);
  }

  async stop(): Promise<void> {
    this.shared.attach(null, this.clock);
    await this.service.close();
    this.db?.close();
    this.db = null;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Every syncable file of the companion's vault folder, path → bytes. */
  files(): Map<string, Buffer> {
    const found = new Map<string, Buffer>();
    const walk = (folder: string, prefix: string): void => {
      for (const name of readdirSync(folder)) {
        const absolute = join(folder, name);
        const path = prefix === '' ? name : `${prefix}/${name}`;
        if (statSync(absolute).isDirectory()) walk(absolute, path);
        else if (isSyncablePath(path)) found.set(path, readFileSync(absolute));
      }
    };
    walk(this.vault, '');
    return found;
  }

  async close(): Promise<void> {
    try {
      if (this.db) await this.stop();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/**
 * An empty companion database, migrated and checkpointed (one file, in WAL mode), in `dir`:
 * migrating the 16 steps cost about 10 ms CPU a run, more than a tenth of the run's own work.
 */
function databaseTemplate(dir: string): string {
  const file = join(dir, 'template.db');
  const db = openDatabase(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return file;
}

/** RAM when there is some: a run is thousands of small fsynced writes. */
function scratchBase(): string {
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
}

function simConfig(vault: string, dataDir: string): CompanionConfig {
  return {
    vault,
    port: 8787,
    host: '127.0.0.1',
    dataDir,
    dataDirSource: 'flag',
    timezone: 'UTC',
    timezoneSource: 'flag',
    tls: null,
    logLevel: 'silent',
    pushHosts: [],
    graceHours: 24,
    trustProxy: [],
    folders: DEFAULT_FOLDERS,
  };
}
