import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../../companion/app';
import type { AppDeps } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { DEFAULT_FOLDERS } from '../../../shared/settings';
import type { CompanionConfig } from '../../../companion/config';
import { openDatabase } from '../../../companion/db/open';
import { VaultIndexer } from '../../../companion/search/vault-indexer';
import { createLogger } from '../../../companion/logging';
import { indexAfterWrite } from '../../../companion/search/index-after-write';
import { ManualClock } from '../../fakes/clock';
import { repoRoot } from '../../helpers/corpora';

export const SAMPLE_VAULT = join(repoRoot, 'companion/sample-vault');

/** A 43-character token like the generated ones. */
export const TEST_TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuvw';

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `cairn-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A temporary copy of the bundled sample vault. */
export function copySampleVault(into: string): string {
  const vault = join(into, 'vault');
  cpSync(SAMPLE_VAULT, vault, { recursive: true });
  return vault;
}

export function testConfig(vault: string, dataDir: string): CompanionConfig {
  return {
    vault,
    port: 8787,
    host: '127.0.0.1',
    dataDir,
    dataDirSource: 'flag',
    timezone: 'Europe/Berlin',
    timezoneSource: 'flag',
    tls: null,
    logLevel: 'silent',
    pushHosts: [],
    graceHours: 24,
    trustProxy: [],
    folders: DEFAULT_FOLDERS,
  };
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly clock: ManualClock;
  readonly dir: string;
  /** Closes the app (and with it the database) and removes the temp folder. */
  close(): Promise<void>;
}

/**
 * Builds the real app over a temp copy of the sample vault and a real SQLite database, in
 * memory unless `database: 'file'` (then `<dir>/cairn.db`, for a test that opens it a second
 * time as the CLI would): the routes' tests are not about the file, and opening a file with
 * WAL and synchronous=FULL costs every test its fsyncs. `logTo` captures logs (at trace level)
 * for redaction tests.
 */
export async function buildTestApp(
  options: {
    logTo?: DestinationStream;
    deps?: Partial<AppDeps>;
    config?: Partial<CompanionConfig>;
    database?: 'memory' | 'file';
  } = {},
): Promise<TestApp> {
  const dir = tempDir('app');
  const vault = copySampleVault(dir.path);
  const dataDir = join(dir.path, 'data');
  const clock = ManualClock.at('2026-11-22T10:00:00Z');
  const app = await buildApp({
    config: { ...testConfig(vault, dataDir), ...options.config },
    db: openDatabase(options.database === 'file' ? join(dir.path, 'cairn.db') : ':memory:'),
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    logger: createLogger(options.logTo ? 'trace' : 'silent', options.logTo),
    ...options.deps,
  });
  return {
    app,
    clock,
    dir: dir.path,
    close: async () => {
      await app.close();
      dir.remove();
    },
  };
}

export interface IndexedTestApp {
  readonly app: FastifyInstance;
  readonly vault: string;
  readonly clock: ManualClock;
  readonly indexer: VaultIndexer;
  /** The temp folder holding the vault, the database and the data dir. */
  readonly dir: string;
  /** Stops the indexer, closes the app and removes the temp folder. */
  close(): Promise<void>;
}

/**
 * The real app over a temp copy of the sample vault, indexed (no watcher) before it returns, and
 * with the routes' writes re-indexed at once: for routes that write notes and must find them.
 */
export async function buildIndexedTestApp(prefix: string): Promise<IndexedTestApp> {
  const dir = tempDir(prefix);
  const vault = copySampleVault(dir.path);
  const clock = ManualClock.at('2026-11-22T09:30:00Z');
  const db = openDatabase(join(dir.path, 'cairn.db'));
  const indexer = new VaultIndexer({
    vault,
    db,
    clock,
    logger: createLogger('silent'),
    watch: false,
  });
  await indexer.start();
  await indexer.whenIdle();
  const app = await buildApp({
    config: testConfig(vault, join(dir.path, 'data')),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    indexAfterWrite: indexAfterWrite(indexer),
  });
  return {
    app,
    vault,
    clock,
    indexer,
    dir: dir.path,
    close: async () => {
      await indexer.close();
      await app.close();
      dir.remove();
    },
  };
}

export const authorized = { authorization: `Bearer ${TEST_TOKEN}` };
