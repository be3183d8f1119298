import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../companion/logging';
import { DATABASE_FILE, startServer } from '../../companion/server';
import type { RunningServer } from '../../companion/server';
import { ManualClock } from '../fakes/clock';
import { copySampleVault, tempDir, testConfig } from './helpers/app';

let dir: { path: string; remove: () => void };
let server: RunningServer | null = null;
beforeEach(() => {
  dir = tempDir('server');
});
afterEach(async () => {
  await server?.stop();
  server = null;
  dir.remove();
});

const clock = ManualClock.at('2026-11-22T10:00:00Z');
const logger = createLogger('silent');

function config(overrides: Partial<ReturnType<typeof testConfig>> = {}) {
  const vault = copySampleVault(dir.path);
  // Port 0 is refused on the command line but lets the OS pick a free port here.
  return { ...testConfig(vault, join(dir.path, 'data', 'nested')), port: 0, ...overrides };
}

describe('startServer', () => {
  it('creates a private data folder with database and token, listens, and closes the database on stop', async () => {
    const cfg = config();
    server = await startServer(cfg, { logger, clock });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(statSync(cfg.dataDir).mode & 0o777).toBe(0o700);
    expect(server.token.source).toBe('created');

    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const status = await fetch(`${server.url}/api/v1/status`, {
      headers: { authorization: `Bearer ${server.token.createdToken}` },
    });
    expect(status.status).toBe(200);

    await server.stop();
    server = null;
    // Closed cleanly: the WAL was checkpointed and removed, and the file is intact.
    const db = new Database(join(cfg.dataDir, DATABASE_FILE), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const row = db.prepare("SELECT value FROM settings WHERE key = 'vault_path'").get();
      expect(row).toEqual({ value: cfg.vault });
    } finally {
      db.close();
    }
  });

  it('removes the temp files an interrupted vault write left behind before it starts', async () => {
    const cfg = config();
    const leftover = join(cfg.vault, '.Welcome.md.cairn-0123456789ab.tmp');
    writeFileSync(leftover, 'half a note');
    server = await startServer(cfg, { logger, clock });
    expect(existsSync(leftover)).toBe(false);
  });

  it('serves HTTPS with --tls-cert/--tls-key, with HSTS', async () => {
    const cert = join(dir.path, 'cert.pem');
    const key = join(dir.path, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    server = await startServer(config({ tls: { certFile: cert, keyFile: key } }), {
      logger,
      clock,
    });
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

    const { statusCode, headers } = await new Promise<{
      statusCode?: number;
      headers: Record<string, unknown>;
    }>((resolve, reject) => {
      const req = request(`${server?.url}/health`, { ca: readFileSync(cert) }, (res) => {
        res.resume();
        resolve({ statusCode: res.statusCode, headers: res.headers });
      });
      req.on('error', reject);
      req.end();
    });
    expect(statusCode).toBe(200);
    expect(headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('names the TLS files when they are not a certificate and its key', async () => {
    const cert = join(dir.path, 'cert.pem');
    writeFileSync(cert, 'not a certificate');
    const cfg = config({ tls: { certFile: cert, keyFile: cert } });
    await expect(startServer(cfg, { logger, clock })).rejects.toThrow(
      `--tls-cert ${cert} / --tls-key ${cert}: not a usable PEM certificate and matching private key`,
    );
  });

  it('names the port when it is taken', async () => {
    server = await startServer(config(), { logger, clock });
    const port = Number(new URL(server.url).port);
    const second = startServer(
      { ...testConfig(join(dir.path, 'vault'), join(dir.path, 'data2')), port },
      { logger, clock },
    );
    await expect(second).rejects.toThrow(`cannot listen on 127.0.0.1:${port}: the port is in use`);
  });
});
