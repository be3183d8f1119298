import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../companion/app';
import { sha256 } from '../../../companion/auth/token';
import { openDatabase } from '../../../companion/db/open';
import type { SqliteDatabase } from '../../../companion/db/open';
import type { RateLimitOverrides } from '../../../companion/http/rate-limits';
import { createLogger } from '../../../companion/logging';
import { SyncService } from '../../../companion/sync';
import type { SyncServiceOptions } from '../../../companion/sync';
import type { SyncCommitResponse, SyncOp } from '../../../shared/protocol/sync';
import { ManualClock } from '../../fakes/clock';
import { TEST_TOKEN, authorized, tempDir, testConfig } from '../helpers/app';

export { authorized };

export interface SyncTestApp {
  readonly app: FastifyInstance;
  readonly sync: SyncService;
  readonly db: SqliteDatabase;
  readonly clock: ManualClock;
  readonly vault: string;
  readonly dataDir: string;
  /** Writes a vault file directly (as another program would). */
  write(path: string, content: string | Uint8Array): void;
  upload(content: string | Uint8Array): Promise<string>;
  commit(device: string, ops: SyncOp[], commitId?: string): Promise<SyncCommitResponse>;
  close(): Promise<void>;
}

export function hashOf(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The real app with a real SyncService over an empty (or seeded) temp vault. */
export async function buildSyncTestApp(
  options: {
    files?: Record<string, string>;
    sync?: Partial<SyncServiceOptions>;
    rateLimits?: RateLimitOverrides;
  } = {},
): Promise<SyncTestApp> {
  const dir = tempDir('sync');
  const vault = join(dir.path, 'vault');
  const dataDir = join(dir.path, 'data');
  mkdirSync(vault, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const write = (path: string, content: string | Uint8Array): void => {
    const absolute = join(vault, path);
    mkdirSync(join(absolute, '..'), { recursive: true });
    writeFileSync(absolute, content);
  };
  for (const [path, content] of Object.entries(options.files ?? {})) write(path, content);
  const clock = ManualClock.at('2026-11-22T10:00:00Z');
  const db = openDatabase(join(dir.path, 'cairn.db'));
  const logger = createLogger('silent');
  const sync = new SyncService({ vault, dataDir, db, clock, logger, ...options.sync });
  await sync.start();
  const app = await buildApp({
    config: testConfig(vault, dataDir),
    db,
    clock,
    tokenSha256: sha256(TEST_TOKEN),
    version: '0.0.0-test',
    logger,
    sync,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  const upload = async (content: string | Uint8Array): Promise<string> => {
    const hash = hashOf(content);
    const response = await app.inject({
      method: 'PUT',
      url: `/api/v1/sync/blobs/${hash}`,
      headers: { ...authorized, 'content-type': 'application/octet-stream' },
      payload: Buffer.from(content),
    });
    if (response.statusCode !== 201 && response.statusCode !== 200) {
      throw new Error(`upload answered ${response.statusCode}: ${response.body}`);
    }
    return hash;
  };
  const commit = async (
    device: string,
    ops: SyncOp[],
    commitId?: string,
  ): Promise<SyncCommitResponse> => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/sync/commit',
      headers: authorized,
      payload: { device, ops, ...(commitId ? { commit_id: commitId } : {}) },
    });
    if (response.statusCode !== 200) {
      throw new Error(`commit answered ${response.statusCode}: ${response.body}`);
    }
    return response.json() as SyncCommitResponse;
  };
  return {
    app,
    sync,
    db,
    clock,
    vault,
    dataDir,
    write,
    upload,
    commit,
    close: async () => {
      await sync.close();
      await app.close();
      dir.remove();
    },
  };
}
